"""The second point a tuning run measures first, beside the default's: where the default
vectorizes a conv over its output channels, the multi-level tiling of that conv with a
register tile over output columns instead (`column_conv_decisions`), every reduction
whole outside it, the accumulator at the last outer loop, the outer loops fused and run
in parallel. The two kinds come within a few per cent of each other on 3x3 convs, and a
search that measures only the default's kind early learns to stay there.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.analysis import is_compute_heavy, reads
from ir.schedule.rules.multi_level_tiling import REGISTER_ROWS, SPATIAL_LEVELS, UNROLL_BUDGETS
from ir.schedule.rules.register_tile_sizes import (
    channel_vector_lanes,
)
from ir.schedule.rules.tiles import divisors, row_tail_tiles, tail_sizes, tail_tiles
from ir.schedule.schedule import Schedule, Stage
from ir.te.program import TEProgram
from ir.tir.arith import coefficient
from ir.tir.visit import walk_expr
from tuner.space.decisions import Decisions


def column_conv_decisions(
    program: TEProgram, hardware: HardwareParams, constant_inputs: Collection[str]
) -> Decisions:
    """The decisions that register-tile each conv the default vectorizes over output
    channels over output columns instead (`column_conv_register_tile`), where a row holds
    a vector and the conv reads its input at unit stride along the columns: to apply over
    `default_like_decisions`; empty where no conv qualifies. The two kinds come within a
    few per cent of each other on 3x3 convs (on Zen 4 the columns' best led by 1.5-4% on
    conv_64x56), and a search that measures only the default's kind early learns to stay
    there."""
    schedule = Schedule(program)
    columns: Decisions = {}
    for name, stage in schedule.stages.items():
        op = stage.op
        if op.tag != "conv2d" or len(op.axes) != 4 or not is_compute_heavy(stage):
            continue
        if not channel_vector_lanes(program, stage, hardware, constant_inputs):
            continue
        lanes = hardware.lanes(op.dtype)
        _, channels, height, width = (axis.extent for axis in op.axes)
        if width < lanes or not _unit_stride_along(stage, len(op.axes) - 1):
            continue
        channel_tile, row_tile, col_tile = column_conv_register_tile(
            channels, height, width, lanes, hardware.registers
        )
        inner = {1: channel_tile, 2: row_tile, 3: col_tile}
        columns[f"{name}.sketch"] = "multi_level"
        columns.update(_register_tile_decisions(name, stage, hardware, 3, inner, 3))
    return columns


def column_conv_register_tile(
    channels: int, height: int, width: int, lanes: int, registers: int
) -> tuple[int, int, int]:
    """The register tile of a conv vectorized over output columns: (channels, rows,
    columns). The columns two vectors wide (all of them when fewer); channels x rows as
    many accumulators per column vector as half the vector registers hold, of the
    divisors that need the fewest loads per step (a broadcast weight per channel, an
    input vector per row and column vector): 4 x 2 x 2 vectors with 32 registers."""
    col_tile = min(width, 2 * lanes)
    vectors = -(-col_tile // lanes)
    budget = max(1, registers // 2 // vectors)
    tiles = [
        (channel, row)
        for channel in divisors(channels)
        if channel <= budget
        for row in divisors(height)
        if channel * row <= budget
    ]
    channel_tile, row_tile = min(
        tiles, key=lambda tile: (-tile[0] * tile[1], tile[0] + tile[1] * vectors, tile[1])
    )
    return channel_tile, row_tile, col_tile


def _unit_stride_along(stage: Stage, axis: int) -> bool:
    """Whether every read indexed by spatial axis `axis` of `stage` steps one element
    along its last dimension per step of the axis, and along no other."""
    var = stage.op.axes[axis].var
    for read in reads(stage):
        *leading, last = read.indices
        if any(var in walk_expr(index) for index in leading):
            return False
        if var in walk_expr(last) and coefficient(last, var) != 1:
            return False
    return True


def _register_tile_decisions(
    name: str,
    stage: Stage,
    hardware: HardwareParams,
    vector: int,
    inner: dict[int, int],
    parallel_axes: int,
    vector_first: bool = False,
    pack_input: str | None = None,
) -> Decisions:
    """A multi-level tiled stage's decisions for the register tile `inner` (innermost
    tile per axis index) around the vector axis `vector`: the other levels 1, every
    reduction whole outside the tile, the accumulator at the last outer loop, an unroll
    budget covering the tile, the first `parallel_axes` axes' outer loops fused into the
    parallel one."""
    op = stage.op
    axes = [axis.name for axis in op.axes]
    extents = [axis.extent for axis in op.axes]
    decisions: Decisions = {f"{name}.vector_axis": axes[vector]}
    outer_loops = 0
    for index, (axis, extent) in enumerate(zip(axes, extents, strict=True)):
        tile = _innermost_tile(extent, inner.get(index, 1), tail=index == vector)
        if extent > 1:
            decisions[f"{name}.tile.{axis}"] = tile
        if index < parallel_axes and tile[0] > 1:
            outer_loops += 1
    for reduce_axis in op.reduce_axes:
        if reduce_axis.extent > 1:
            decisions[f"{name}.tile.{reduce_axis.name}"] = (reduce_axis.extent, 1)
    register_tile = math.prod(inner.values())
    decisions[f"{name}.attach_level"] = 0
    decisions[f"{name}.outer_order"] = "vector_first" if vector_first else "natural"
    decisions[f"{name}.writer_order"] = "natural"
    decisions[f"{name}.unroll"] = min(
        (budget for budget in UNROLL_BUDGETS if budget >= register_tile), default=0
    )
    decisions[f"{name}.parallel"] = outer_loops
    if pack_input is not None:
        decisions[f"{name}.pack_input"] = pack_input
    return decisions


def _innermost_tile(extent: int, size: int, tail: bool) -> tuple[int, ...]:
    """`extent` split into an outermost level and an innermost one of `size`, the levels
    between 1: a tail tiling when `tail` (the vector axis) allows one of `size` or, on
    another axis, when its rows allow one (`row_tail_tiles`, as the default's rows
    without a divisor), else the largest divisor of `extent` up to `size` innermost."""
    tails = tail_tiles(extent) if tail else row_tail_tiles(extent, REGISTER_ROWS)
    if size in tails:
        return tail_sizes(extent, size, SPATIAL_LEVELS)
    size = max(d for d in divisors(extent) if d <= size) if size < extent else extent
    return (extent // size, *([1] * (SPATIAL_LEVELS - 2)), size)
