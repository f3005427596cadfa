"""Hand-written expert schedules for matmul_1024 and conv_64x56: what the search space must
be able to express, and the yardstick for default schedules and tuning.

Both register-tile the reduction into a local accumulator, vectorize the contiguous
output axis with FMAs, repack the weight (the conv's constant one ahead of time, the
matmul's input B at run time) so the vector loads are contiguous, and run the outer
tiles in parallel.
"""

from __future__ import annotations

from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram


def expert_matmul(program: TEProgram, hardware: HardwareParams) -> Schedule:
    """C[i, j] = A[i, k] B[k, j]: 8 x 2-vector register tile (4 x 2 with AVX2's 16
    registers), k unrolled by 4, B (an input, not a constant) copied at run time into
    column panels of 2 vectors."""
    sch = Schedule(program)
    out = program.outputs[0].name
    lanes = hardware.lanes("float32")
    row_tile, col_tile = (8 if hardware.registers >= 32 else 4), 2 * lanes
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
    # k unrolled by 4 around the 8 x 2-vector tile: 64 FMAs per loop iteration.
    k_outer, k_inner = sch.split(local, lk, factor=4)
    sch.reorder(local, k_outer, k_inner, li, lj)
    sch.unroll(local, k_inner)
    sch.unroll(local, li)
    j_vectors, j_lanes = sch.split(local, lj, factor=lanes)
    sch.unroll(local, j_vectors)
    sch.vectorize(local, j_lanes)
    packed = sch.cache_read(program.inputs[1].name, "global", [local])
    pk, pj = (axis.name for axis in sch.stage(packed).op.axes)
    panel, panel_lanes = sch.split(packed, pj, factor=col_tile)
    sch.reorder(packed, panel, pk, panel_lanes)
    sch.parallel(packed, panel)
    sch.vectorize(packed, panel_lanes)
    return sch


def expert_conv2d(program: TEProgram, hardware: HardwareParams) -> Schedule:
    """NCHW conv with output channels in vector lanes: a 2-vector x 8-column register tile
    (16 accumulators; 2 x 4 with AVX2's 16 registers), weights packed [K/32, C, R, S, 32]
    so each (c, ry, rx) step loads two weight vectors and broadcasts 8 (4) input values;
    padding materialised in parallel, vectorized."""
    sch = Schedule(program)
    out = program.outputs[0].name
    lanes = hardware.lanes("float32")
    channel_tile, col_tile = 2 * lanes, (8 if hardware.registers >= 32 else 4)
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
    sch.reorder(local, ln, rc, ry, rx, ly, lx, lk)
    sch.unroll(local, lx)
    lk_outer, lk_inner = sch.split(local, lk, factor=lanes)
    sch.unroll(local, lk_outer)
    sch.vectorize(local, lk_inner)
    weight = program.inputs[1]
    out_channels, in_channels, kernel_h, kernel_w = weight.shape
    sch.layout_rewrite(
        weight.name,
        [[out_channels // channel_tile, channel_tile], [in_channels], [kernel_h], [kernel_w]],
        [0, 2, 3, 4, 1],
    )
    if "pad" in sch.stages:
        pad_axes = [axis.name for axis in sch.stage("pad").op.axes]
        _, columns = sch.split("pad", pad_axes[3], factor=lanes)
        rows = sch.fuse("pad", sch.fuse("pad", pad_axes[0], pad_axes[1]), pad_axes[2])
        sch.parallel("pad", rows)
        sch.vectorize("pad", columns)
    return sch
