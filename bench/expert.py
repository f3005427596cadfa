"""Hand-written expert schedules for matmul_1024 and conv_64x56: what the search space must
be able to express, and the yardstick for default schedules and tuning.

Both register-tile the reduction into a local accumulator, vectorize the contiguous
output axis with FMAs, repack the weight so the vector loads are contiguous, and run
the outer tiles in parallel.
"""

from __future__ import annotations

from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram


def expert_matmul(program: TEProgram, hardware: HardwareParams) -> Schedule:
    """C[i, j] = A[i, k] B[k, j]: 8 x 2-vector register tile, B packed into column panels."""
    sch = Schedule(program)
    out = program.outputs[0].name
    rows, cols = program.outputs[0].shape
    reduce_extent = program.inputs[0].shape[-1]
    lanes = hardware.lanes("float32")
    row_tile, col_tile = 8, 2 * lanes
    local = sch.cache_write(out, "local")
    i, j = (axis.name for axis in sch.stage(out).op.axes)
    i_outer, i_inner = sch.split(out, i, factor=row_tile)
    j_outer, j_inner = sch.split(out, j, factor=col_tile)
    # Column panels outermost: one packed panel of B stays in L2 while row tiles stream.
    sch.reorder(out, j_outer, i_outer, i_inner, j_inner)
    tile = sch.fuse(out, j_outer, i_outer)
    sch.parallel(out, tile)
    sch.vectorize(out, j_inner)
    sch.compute_at(local, out, tile)
    li, lj = (axis.name for axis in sch.stage(local).op.axes)
    (lk,) = (axis.name for axis in sch.stage(local).op.reduce_axes)
    sch.reorder(local, lk, li, lj)
    sch.unroll(local, li)
    sch.vectorize(local, lj)
    weight = program.inputs[1].name
    sch.layout_rewrite(weight, [[reduce_extent], [cols // col_tile, col_tile]], [1, 0, 2])
    del rows
    return sch


def expert_conv2d(program: TEProgram, hardware: HardwareParams) -> Schedule:
    """NCHW conv: 8 output channels x 2 vectors of columns in registers, weights packed so
    the 8 channels' values for one (c, ry, rx) are adjacent, padding materialised once."""
    sch = Schedule(program)
    out = program.outputs[0].name
    _, channels, _, width = program.outputs[0].shape
    lanes = hardware.lanes("float32")
    channel_tile = 8
    col_tile = min(width, 2 * lanes) if width % (2 * lanes) == 0 else min(width, width // 2)
    local = sch.cache_write(out, "local")
    n, k, y, x = (axis.name for axis in sch.stage(out).op.axes)
    k_outer, k_inner = sch.split(out, k, factor=channel_tile)
    x_outer, x_inner = sch.split(out, x, factor=col_tile)
    sch.reorder(out, n, k_outer, y, x_outer, k_inner, x_inner)
    tile = sch.fuse(out, sch.fuse(out, n, k_outer), y)
    sch.parallel(out, tile)
    sch.vectorize(out, x_inner)
    sch.compute_at(local, out, x_outer)
    ln, lk, ly, lx = (axis.name for axis in sch.stage(local).op.axes)
    rc, ry, rx = (axis.name for axis in sch.stage(local).op.reduce_axes)
    sch.reorder(local, ln, ly, rc, ry, rx, lk, lx)
    sch.unroll(local, lk)
    sch.vectorize(local, lx)
    weight = program.inputs[1]
    out_channels, in_channels, kernel_h, kernel_w = weight.shape
    sch.layout_rewrite(
        weight.name,
        [[out_channels // channel_tile, channel_tile], [in_channels], [kernel_h], [kernel_w]],
        [0, 2, 3, 4, 1],
    )
    del channels
    return sch
