"""What the default schedule makes of single ops on CPU targets (register tiles, channel
vectors, inlined padding, parallel rows, run-time packing), each compiled kernel checked
against the reference (the ops themselves: `test_compiled_ops.py`)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

from codegen.executor import compile_model
from codegen.llvm import compile_kernel, parse_cpu_target
from codegen.llvm.vectorize import reduction_update
from ir.graph.nodes import Call, Function
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.traversal import post_order
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.schedule.hardware import CoreFacts, HardwareParams
from ir.schedule.rules.register_tile_sizes import FMA_CHAINS, GEMV_VECTORS, gemm_register_tile
from ir.schedule.rules.rows import ROW_VECTORS
from ir.schedule.schedule import loop_extents
from ir.te.program import TEProgram, function_to_te
from ir.te.tensor import compute, placeholder, reduce_axis, sum_reduce
from ir.tir.expr import Call as TirCall
from ir.tir.expr import IntImm, intrinsic
from ir.tir.stmt import Allocate, For, IfThenElse, Seq, Store
from ir.tir.visit import walk_expr, walk_stmt
from tests.codegen.test_compiled_ops import (
    RNG,
    _compile_and_check,
    _constant_weight_graph,
    _normal,
    _single_op_graph,
)


@pytest.mark.parametrize(
    ("weight_shape", "lanes"),
    [
        ((40, 8, 1, 1), 16),
        ((24, 8, 3, 3), 16),
        ((129, 8, 1, 1), 16),  # a last tile of one channel
        ((17, 8, 3, 3), 16),
        ((8, 8, 3, 3), 8),  # fewer channels than lanes: half-width vectors
        ((12, 8, 3, 3), 0),  # neither: vectors over columns
    ],
)
def test_conv_whose_channels_the_full_vector_does_not_divide(
    weight_shape: tuple[int, ...], lanes: int
) -> None:
    """Output channels that 16-lane vectors (AVX-512 float32) do not divide: full vectors
    where the channels fill one, the weight packed in zero-padded blocks of 16 channels
    and the last channel tile shorter, partitioned off (no guard); half-width vectors
    for fewer channels that those divide; else vectors over columns. The kernel computes
    the reference on this host."""
    data = _normal(1, 8, 13, 13)
    weight = _normal(*weight_shape, scale=0.3)
    fn = _constant_weight_graph("nn.conv2d", data, weight, padding=(1, 1, 1, 1))
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    wide = HardwareParams(vector_bytes=64, num_cores=2)
    schedule = default_schedule(function_to_te(prim), wide, frozenset({"p1"}))
    layout = schedule.input_layouts.get("p1")
    if lanes:
        assert layout is not None
        packed = layout.apply(weight)
        assert packed.shape[0] == -(-weight_shape[0] // lanes) and packed.shape[-1] == lanes
    else:
        assert layout is None
    kernel = lower(schedule)
    assert not [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, IfThenElse)]
    _compile_and_check(fn, {"x": data}, f"conv2d {weight_shape}")


@pytest.mark.parametrize(
    ("data_shape", "weight_shape", "parallel"),
    [
        ((1, 64, 1, 1), (1000, 64, 1, 1), "k_o"),  # one row: the 62 full channel tiles
        ((1, 32, 7, 7), (200, 32, 1, 1), "k_o"),
        ((1, 16, 28, 28), (24, 16, 3, 3), "n_y_f"),  # one full channel tile: the rows
    ],
)
def test_a_conv_with_a_channel_tail_runs_rows_or_channel_tiles_in_parallel(
    data_shape: tuple[int, ...], weight_shape: tuple[int, ...], parallel: str
) -> None:
    """With a shorter last channel tile the channel-tile loop is not fused (it is
    partitioned); the parallel loop is the channel tiles where they go outermost and
    their full ones fill the cores (a 1 x 1 classifier conv has no rows to share), else
    the fused batch and rows. Computes the reference."""
    data = _normal(*data_shape)
    weight = _normal(*weight_shape, scale=0.1)
    pad = weight_shape[2] // 2
    fn = _constant_weight_graph("nn.conv2d", data, weight, padding=(pad, pad, pad, pad))
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=64, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    output = next(stage for stage in schedule.stages.values() if stage.is_output)
    parallel_loops = [loop for loop, kind in output.annotations.items() if kind == "parallel"]
    assert parallel_loops == [parallel]
    assert "k_o" in output.leaves  # its own loop
    kernel = lower(schedule)
    assert not [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, IfThenElse)]
    _compile_and_check(fn, {"x": data}, f"conv2d {weight_shape}")


@pytest.mark.parametrize(
    ("data_shape", "weight_shape", "groups", "unrolled"),
    [
        ((1, 8, 12, 40), (8, 1, 3, 3), 8, {"rc", "ry", "rx", "y"}),
        ((1, 8, 12, 12), (8, 1, 7, 7), 8, {"rx", "y"}),  # 49 x 6 rows: too long unrolled
        ((1, 1, 12, 40), (8, 1, 3, 3), 1, None),  # one input channel: not depthwise
    ],
)
def test_depthwise_conv_inlines_its_padding_and_unrolls_its_window(
    data_shape: tuple[int, ...],
    weight_shape: tuple[int, ...],
    groups: int,
    unrolled: set[str] | None,
) -> None:
    """A depthwise conv vectorizes columns in a register tile of rows, its padding inlined
    and its window unrolled (a big window only along its rows); a conv of one input
    channel, which every output channel shares, is not depthwise: its padding stays."""
    data = _normal(*data_shape)
    weight = _normal(*weight_shape, scale=0.3)
    pad = weight_shape[-1] // 2
    fn = _constant_weight_graph("nn.conv2d", data, weight, padding=(pad,) * 4, groups=groups)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=64, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    assert (schedule.stages["pad"].attach.kind == "inline") == (unrolled is not None)
    if unrolled is not None:
        local = schedule.stages["conv2d_local"].annotations
        assert {axis for axis, kind in local.items() if kind == "unroll"} == unrolled
        assert local["x"] == "vectorize"
    _compile_and_check(fn, {"x": data}, f"conv2d {weight_shape} of {groups} groups")


@pytest.mark.parametrize(
    ("data_shape", "kernel", "stride", "vector_bytes"),
    [
        ((1, 3, 14, 14, 16), 3, 1, 64),  # a block is one vector
        ((1, 2, 15, 13, 16), 3, 2, 32),  # a block is two vectors (AVX2)
        ((1, 1, 9, 20, 8), 5, 1, 32),  # a column tail
    ],
)
def test_blocked_depthwise_conv_vectorizes_its_block_over_inlined_padding(
    data_shape: tuple[int, ...], kernel: int, stride: int, vector_bytes: int
) -> None:
    """In NCHW[b]c a depthwise conv's block of channels is its vector: columns tiled in
    registers, the window unrolled, the padding inlined (its condition is the same for
    every lane: no masked loads)."""
    blocks, block = data_shape[1], data_shape[4]
    data = _normal(*data_shape)
    weight = _normal(blocks, kernel, kernel, block, scale=0.3)
    pad = kernel // 2
    fn = _constant_weight_graph(
        "nn.depthwise_conv2d_nchwc", data, weight, padding=(pad,) * 4, strides=(stride, stride)
    )
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    assert schedule.stages["pad"].attach.kind == "inline"
    local = schedule.stages["depthwise_conv2d_nchwc_local"].annotations
    vectorized = [axis for axis, kind in local.items() if kind == "vectorize"]
    assert vectorized == (["c"] if block * 4 == vector_bytes else ["c_i"])
    assert {"ry", "rx", "x"} <= {axis for axis, kind in local.items() if kind == "unroll"}
    _compile_and_check(fn, {"x": data}, f"depthwise conv2d_nchwc {data_shape} by {kernel}")


@pytest.mark.parametrize(
    ("data_shape", "folded"),
    [((37, 1, 48), True), ((5, 1, 1, 48), True), ((1, 37, 48), False), ((3, 2, 1, 48), False)],
)
def test_a_matmul_of_one_row_per_batch_tiles_its_batch_as_rows(
    data_shape: tuple[int, ...], folded: bool
) -> None:
    """[B, 1, K] x [K, N] (a sequence-first projection) is tiled as the [B, K] x [K, N]
    product, several rows per register tile, not B products of one row; where more
    than one leading axis has several rows, the batch loops stay."""
    data = _normal(*data_shape)
    weight = _normal(48, 64, scale=0.3)
    fn = _constant_weight_graph("nn.matmul", data, weight)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=32, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    local = schedule.stages["matmul_local"]
    unrolled = [axis for axis, kind in local.annotations.items() if kind == "unroll"]
    rows = math.prod(data_shape[:-1])
    assert bool(unrolled) == (folded or data_shape[-2] > 1)
    if folded:
        (row_loop,) = unrolled
        assert 1 < loop_extents(local)[0][row_loop] <= rows
    _compile_and_check(fn, {"x": data}, f"matmul {data_shape} x (48, 64)")


def test_kernels_for_amd_avx2_cpus_use_no_sse4a() -> None:
    """For znver1-3, LLVM builds the lane masks of AVX2 masked loads with SSE4a's INSERTQ,
    and a depthwise conv over its inlined padding ran 5-16x slower with it on a Zen 3 host:
    kernels are compiled without SSE4a. This depthwise default for znver3 (16 + 12
    columns) made two INSERTQs before; it compiles for any x86 host and is not run."""
    data = _normal(1, 192, 28, 28)
    weight = _normal(192, 1, 3, 3, scale=0.3)
    fn = _constant_weight_graph("nn.conv2d", data, weight, padding=(1,) * 4, groups=192)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    target = parse_cpu_target("llvm -mcpu=znver3 -num-cores=1")
    schedule = default_schedule(function_to_te(prim), target.hardware, frozenset({"p1"}))
    assembly = compile_kernel(lower(schedule), target).stages["asm"]
    assert "vmaskmovps" in assembly  # (the padding's masked loads are there)
    assert not re.search(r"\b(insertq|extrq)\b", assembly)


def test_grouped_conv_vectorizes_columns_not_channels() -> None:
    """16 output channels per group would fill a vector, but its lanes would read
    different input channels at a group boundary (a gather each): columns instead."""
    data = _normal(1, 32, 7, 9)
    weight = _normal(64, 8, 1, 1, scale=0.3)
    fn = _constant_weight_graph("nn.conv2d", data, weight, groups=4)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=64, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    assert not schedule.input_layouts, "the weight was packed for channel vectors"
    local = schedule.stages["conv2d_local"].annotations
    assert [axis for axis, kind in local.items() if kind == "vectorize"] == ["x"]
    _compile_and_check(fn, {"x": data}, "grouped 1x1 conv")


@pytest.mark.parametrize(
    ("data_shape", "l2_kib", "cores", "rows_first"),
    [
        ((1, 96, 56, 56), 1024, 1, True),
        ((1, 64, 28, 28), 1024, 1, False),
        ((1, 64, 56, 56), 512, 1, True),
        ((1, 64, 56, 56), 2048, 1, False),
        ((1, 64, 28, 28), 1024, 2, True),
        ((1, 64, 56, 56), 2048, 2, True),
        ((1, 64, 7, 7), 2048, 2, False),
    ],
)
def test_conv_walks_rows_outermost_over_an_input_bigger_than_l2_or_shared_by_cores(
    data_shape: tuple[int, ...], l2_kib: int, cores: int, rows_first: bool
) -> None:
    """A weight at most half the input: on one core, an input bigger than the core's L2
    (1.2 MiB against 1 MiB; 784 KiB against a Zen 3 core's 512 KiB) takes output rows
    outermost (the input is read once, the small weight once per row), an input the L2
    holds (200 KiB; 784 KiB in Sapphire Rapids' 2 MiB) keeps channel blocks outermost; on
    two cores, rows go outermost whatever the L2 holds (each core reads its own rows), but
    not where the weight (8 KiB) is more than half the input (12 KiB). The outer loops
    are fused in that order (in parallel on two cores). All compute the reference."""
    data = _normal(*data_shape)
    weight = _normal(32, data_shape[1], 1, 1, scale=0.2)
    fn = _constant_weight_graph("nn.conv2d", data, weight)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    core = CoreFacts(l2_bytes=l2_kib << 10)
    hardware = HardwareParams(vector_bytes=64, num_cores=cores, core=core)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    output = next(stage for stage in schedule.stages.values() if stage.is_output)
    fused = "n_y_f_k_o_f" if rows_first else "n_k_o_f_y_f"
    assert output.leaves[0] == fused
    parallel = [axis for axis, annotation in output.annotations.items() if annotation == "parallel"]
    assert parallel == ([fused] if cores > 1 else [])
    _compile_and_check(fn, {"x": data}, f"conv2d over {data_shape}, {l2_kib} KiB L2, {cores} cores")


# --- a right-hand input that is not constant: packed into column panels at run time -------


def _packing_stages(fn: Function) -> list[str]:
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=32, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset())
    return [
        name
        for name, stage in schedule.stages.items()
        if stage.op.tag == "copy" and not stage.is_output  # (not a cache_write's copy-out)
    ]


@pytest.mark.parametrize(
    ("op", "shapes", "attrs", "packed"),
    [
        # rows 1 KiB apart: 256 of them share 4 of the L1's 64 sets
        ("nn.matmul", [(64, 256), (256, 256)], {}, True),
        # a batched left side with a 2-D right side: one packed copy serves every batch
        ("nn.matmul", [(3, 64, 256), (256, 128)], {}, True),
        # q @ k^T: each vector of the transposed input would be a gather
        ("nn.batch_matmul", [(4, 128, 64), (4, 136, 64)], {"transpose_b": True}, True),
        ("nn.batch_matmul", [(2, 128, 64), (1, 64, 256)], {}, True),
        # 200 rows 800 bytes apart spread over every set: read in place
        ("nn.matmul", [(200, 200), (200, 200)], {}, False),
        # rows 8 KiB apart, but too few rows per panel to pay for the copy
        ("nn.matmul", [(16, 256), (256, 2048)], {}, False),
        # too little work
        ("nn.matmul", [(40, 64), (64, 64)], {}, False),
    ],
)
def test_default_schedule_packs_a_strided_right_hand_input_at_run_time(
    op: str, shapes: list[tuple[int, ...]], attrs: dict[str, Any], packed: bool
) -> None:
    """The copy happens where the reads in place are slow, not elsewhere, and the
    product computes the reference either way (column tails included). Small integers
    keep the float32 sums exact whatever their order."""
    inputs = [RNG.integers(-2, 3, shape).astype(np.float32) for shape in shapes]
    fn = _single_op_graph(op, inputs, attrs)
    assert bool(_packing_stages(fn)) == packed, _packing_stages(fn)
    _compile_and_check(fn, {f"x{i}": x for i, x in enumerate(inputs)}, f"{op} {shapes}")


# --- few output rows: a matrix-vector product ---------------------------------------------


@pytest.mark.parametrize("vector_bytes", [32, 64])
@pytest.mark.parametrize(
    ("rows", "cols"), [(1, 1000), (2, 1000), (3, 200), (4, 512), (13, 512), (1, 64)]
)
def test_default_schedule_spreads_a_matrix_vector_product_over_cores(
    rows: int, cols: int, vector_bytes: int
) -> None:
    """A batch-1 dense layer (a classifier's head): the column panels run in parallel, a
    column tail included (with a single row tile they are the only parallel work: before,
    1 x 1000 x 2048 ran on one core at 39 GFLOPS, 71 on two). The register tile is as
    wide as `gemm_register_tile` allows and fits the registers; it computes the
    reference."""
    data = _normal(rows, 256)
    weight = _normal(cols, 256)
    fn = _constant_weight_graph("nn.dense", data, weight)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset({"p1"}))
    lanes, registers = hardware.lanes("float32"), hardware.registers
    output = next(stage for stage in schedule.stages.values() if stage.is_output)
    extents, _ = loop_extents(output)  # (..., row tile, column tile)
    row_tile, col_tile = extents[output.leaves[-2]], extents[output.leaves[-1]]
    vectors = -(-col_tile // lanes)
    assert row_tile * vectors + vectors + 1 <= registers  # (and a broadcast)
    if row_tile * vectors < FMA_CHAINS and col_tile < cols:
        wider = range(vectors + 1, min(GEMV_VECTORS, -(-FMA_CHAINS // row_tile)) + 1)
        assert all(cols % (v * lanes) or row_tile * v + v + 1 > registers for v in wider)
    parallel = [
        (stage, axis)
        for stage in schedule.stages.values()
        for axis, annotation in stage.annotations.items()
        if annotation == "parallel"
    ]
    if cols > col_tile:
        ((stage, axis),) = parallel
        # (row tiles with a shorter last one stay a loop of their own, inside the panels)
        row_tiles = rows // row_tile if rows % row_tile == 0 else 1
        assert loop_extents(stage)[0][axis] == -(-cols // col_tile) * row_tiles
    # Sums of 256 products of normal values (outputs of order 16) summed in another order
    # than numpy's: near cancellation an output is 2e-5 off (seen), over the default 1e-5.
    _compile_and_check(fn, {"x": data}, f"dense {rows} x {cols}", atol=1e-4)


@pytest.mark.parametrize("vector_bytes", [32, 64])
@pytest.mark.parametrize(
    ("op", "shapes"),
    [
        ("nn.dense", [(197, 96), (64, 96)]),  # ViT's 197 tokens; the columns divide
        ("nn.dense", [(197, 96), (32, 96)]),  # too few panels for the cores: rows first
        ("nn.dense", [(11, 64), (100, 64)]),  # few rows, a column tail: panels first
        ("nn.matmul", [(197, 64), (64, 72)]),  # both tails
        ("nn.batch_matmul", [(3, 197, 32), (3, 32, 197)]),  # batched, both tails
        ("nn.batch_matmul", [(1, 37, 16), (1, 16, 48)]),  # a batch of one
    ],
)
def test_default_schedule_gives_rows_without_a_divisor_a_shorter_last_tile(
    op: str, shapes: list[tuple[int, ...]], vector_bytes: int
) -> None:
    """Rows whose largest divisor within the register tile's limit is at most half of it
    (a prime count) get full register tiles and one shorter last tile, partitioned off
    rather than guarded; one loop of more than one iteration runs in parallel; the
    product computes the reference. Small integers keep the float32 sums exact."""
    inputs = [RNG.integers(-2, 3, shape).astype(np.float32) for shape in shapes]
    fn = _single_op_graph(op, inputs, {})
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, frozenset())
    rows = shapes[0][-2]
    cols = shapes[1][0] if op == "nn.dense" else shapes[1][-1]
    row_tile, _ = gemm_register_tile(
        rows, cols, hardware.lanes("float32"), hardware.registers, wide=True
    )
    assert rows % row_tile != 0 and row_tile > 2
    output = next(stage for stage in schedule.stages.values() if stage.is_output)
    assert loop_extents(output)[0][output.leaves[-2]] == row_tile
    parallel = [
        loop_extents(stage)[0][axis]
        for stage in schedule.stages.values()
        for axis, annotation in stage.annotations.items()
        if annotation == "parallel" and stage is output
    ]
    assert len(parallel) == 1 and parallel[0] > 1
    kernel = lower(schedule)
    assert not [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, IfThenElse)]
    _compile_and_check(fn, {f"x{i}": x for i, x in enumerate(inputs)}, f"{op} {shapes}")


@pytest.mark.parametrize("vector_bytes", [32, 64])
@pytest.mark.parametrize(
    ("op", "shapes", "panels_first"),
    [
        ("nn.matmul", [(96, 600), (600, 520)], True),  # 1.2 MiB on the right
        ("nn.matmul", [(1, 64, 600), (600, 520)], True),  # a batch of one
        ("nn.dense", [(48, 600), (520, 600)], True),  # a constant weight, repacked
        ("nn.matmul", [(96, 64), (64, 520)], False),  # 130 KiB: stays in cache anyway
        ("nn.batch_matmul", [(3, 32, 600), (3, 600, 520)], False),  # the batches in parallel
    ],
)
def test_default_schedule_reads_a_large_right_operand_once_per_column_panel(
    op: str, shapes: list[tuple[int, ...]], panels_first: bool, vector_bytes: int
) -> None:
    """Columns that leave a narrower last panel and a right-hand side larger than a core's
    cache: the column panels run outside the row tiles (each panel of the right-hand side
    is read once and stays in cache while the row tiles pass; rows outside read all of it
    once per row tile), in parallel, with the narrow panel partitioned off (no guard).
    Smaller right-hand sides and batched products keep the rows outside. The product
    computes the reference."""
    inputs = [RNG.integers(-2, 3, shape).astype(np.float32) for shape in shapes]
    if op == "nn.dense":
        fn = _constant_weight_graph(op, inputs[0], inputs[1])
        feeds, constants = {"x": inputs[0]}, frozenset({"p1"})
    else:
        fn = _single_op_graph(op, inputs, {})
        feeds, constants = {f"x{i}": x for i, x in enumerate(inputs)}, frozenset()
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    schedule = default_schedule(function_to_te(prim), hardware, constants)
    output = next(stage for stage in schedule.stages.values() if stage.is_output)
    *_, rows, cols = (axis.name for axis in output.op.axes)
    row_tiles, panels = f"{rows}_o", f"{cols}_o"
    leaves = output.leaves
    if panels_first:
        assert leaves.index(panels) < leaves.index(row_tiles)
    else:  # (a batch's row tiles are fused with it)
        assert row_tiles not in leaves or leaves.index(row_tiles) < leaves.index(panels)
    assert (output.annotations.get(panels) == "parallel") == panels_first
    col_tile = loop_extents(output)[0][f"{cols}_i"]
    assert output.op.axes[-1].extent % col_tile != 0  # a narrower last panel
    kernel = lower(schedule)
    assert not [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, IfThenElse)]
    _compile_and_check(fn, feeds, f"{op} {shapes}")


@pytest.mark.parametrize("shape", [(2, 37, 37), (3, 48, 100), (20, 77), (4, 64), (5, 40, 20)])
def test_default_reductions_over_the_last_axis_read_rows_a_block_at_a_time(
    shape: tuple[int, ...],
) -> None:
    """softmax over the last axis: rows of two vectors or more are reduced into a vector
    of partials each (rfactor: a vector loop of contiguous loads inside the loop over the
    row's vectors, the last vector peeled instead of masked). Rows of ROW_VECTORS vectors
    or more are computed one row at a time, inside one loop over the rows, every
    intermediate a row long; shorter rows are reduced (or their partials are) with the
    reduction loop right around a vector loop over rows (code generation turns it into
    row loads and a transpose). All compute the reference."""
    x = RNG.standard_normal(shape).astype(np.float32)
    fn = _single_op_graph("nn.softmax", [x], {})
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=64, num_cores=2)
    lanes, row = 16, shape[-1]
    kernel = lower(default_schedule(function_to_te(prim), hardware, frozenset()))
    loops = [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, For)]
    partials = [loop for loop in loops if loop.var.name.endswith("_rf_k_o")]
    across_rows = [
        loop
        for loop in loops
        if re.search(r"_k(_i)?$", loop.var.name) and "_rf_" not in loop.var.name
    ]
    if row >= 2 * lanes:
        assert len(partials) == 2  # max and sum
        for loop in partials:
            peeled = row % lanes != 0  # the last vector, partly beyond the row
            assert getattr(loop.extent, "value", None) == -(-row // lanes) - peeled
            (vector,) = loop.body.stmts if isinstance(loop.body, Seq) else (loop.body,)
            assert isinstance(vector, For) and vector.kind == "vectorized"
            assert getattr(vector.extent, "value", None) == lanes
        assert {getattr(loop.extent, "value", None) for loop in across_rows} == {lanes}
    else:
        assert not partials
        assert {getattr(loop.extent, "value", None) for loop in across_rows} == {row}
    if row >= ROW_VECTORS * lanes:
        assert isinstance(kernel.body, For)  # the row loop, holding every stage
        assert kernel.body.extent == IntImm(math.prod(shape[:-1]))
        rows_of = [stmt.buffer for stmt in walk_stmt(kernel.body) if isinstance(stmt, Allocate)]
        assert {b.name for b in rows_of} == {
            "softmax_maxelem_rf",
            "softmax_maxelem",
            "softmax_exp",
            "softmax_expsum_rf",
            "softmax_expsum",
        }
        assert all(math.prod(b.shape) <= lanes * -(-row // lanes) for b in rows_of)
    else:
        for loop in across_rows:
            inner = loop.body.stmts if isinstance(loop.body, Seq) else (loop.body,)
            assert all(isinstance(s, For) and s.kind in ("vectorized", "serial") for s in inner)
    assert across_rows
    assert not [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, IfThenElse)]
    # exp(x - max), read by the sum and the output, is computed once, in its own stage.
    exp_stores = {
        stmt.buffer.name
        for stmt in walk_stmt(kernel.body)
        if isinstance(stmt, Store)
        and any(isinstance(n, TirCall) and n.name == "exp" for n in walk_expr(stmt.value))
    }
    assert exp_stores == {"softmax_exp"}
    _compile_and_check(fn, {"x0": x}, f"softmax {shape}")


@pytest.mark.parametrize(
    ("op", "shape", "per_row", "partials"),
    [
        ("nn.softmax", (6, 300), True, 32),  # 18.75 vectors a row: two vectors of partials
        ("nn.softmax", (6, 100), True, 16),
        ("nn.softmax", (64, 40), False, 16),  # 2.5 vectors, and exp: a vector of rows
        ("nn.layer_norm", (64, 40), True, 16),  # 2.5 vectors, no transcendental: per row
        ("nn.layer_norm", (50, 20), False, 0),
    ],
)
def test_default_row_statistics_reduce_their_partials_horizontally(
    op: str, shape: tuple[int, ...], per_row: bool, partials: int
) -> None:
    """Per row, each statistic's partials (one vector of them, two on rows of 8 vectors
    or more) are reduced by one vectorized loop over them (a horizontal reduction). Rows
    are computed one at a time from ROW_VECTORS vectors, or from 2 where no intermediate
    computes a transcendental (layer_norm). All compute the reference."""
    inputs = [RNG.standard_normal(shape).astype(np.float32)]
    if op == "nn.layer_norm":
        inputs += [RNG.standard_normal(shape[-1:]).astype(np.float32) for _ in range(2)]
    fn = _single_op_graph(op, inputs, {})
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    hardware = HardwareParams(vector_bytes=64, num_cores=2)
    kernel = lower(default_schedule(function_to_te(prim), hardware, frozenset()))
    loops = [stmt for stmt in walk_stmt(kernel.body) if isinstance(stmt, For)]
    partial_vectors = {
        getattr(loop.extent, "value", None)
        for loop in loops
        if loop.kind == "vectorized" and re.search(r"_rf_\w*_i$", loop.var.name)
    }
    # (with the peeled last vector of a row the partials do not divide: 300 = 9 x 32 + 12)
    assert max(partial_vectors, default=0) == partials
    rows = IntImm(math.prod(shape[:-1]))
    assert (isinstance(kernel.body, For) and kernel.body.extent == rows) == per_row
    if per_row:
        horizontal = [
            loop
            for loop in loops
            if loop.kind == "vectorized" and reduction_update(loop.body, loop.var) is not None
        ]
        assert len(horizontal) == 2 and all(
            getattr(loop.extent, "value", None) == partials for loop in horizontal
        )
    _compile_and_check(fn, {f"x{i}": x for i, x in enumerate(inputs)}, f"{op} {shape}")


@pytest.mark.parametrize("shape", [(3, 5, 56), (10, 3), (4, 197)])
def test_an_exponential_read_by_two_stages_is_computed_a_row_at_a_time(
    shape: tuple[int, ...],
) -> None:
    """exp(x) read by the output and by another stage (inlined into it) is computed once,
    a row at a time inside the output's row loop, into a buffer one row long (vectorized
    where the row is long enough); the kernel computes the reference."""
    x = placeholder(shape, name="x")
    shared = compute(shape, lambda *i: intrinsic("exp", x[i]), name="shared")
    doubled = compute(shape, lambda *i: shared[i] * 2.0, name="doubled")
    out = compute(shape, lambda *i: shared[i] * x[i] + doubled[i], name="out")
    schedule = default_schedule(TEProgram("shared_exp", (x,), (out,)), HardwareParams())
    stage = schedule.stages["shared"]
    assert (stage.attach.kind, stage.attach.stage) == ("at", "out")
    assert stage.attach.axis == schedule.stages["out"].leaves[0]
    assert (shape[-1] >= 4) == ("vectorize" in stage.annotations.values())
    kernel = lower(schedule)
    (buffer,) = [s.buffer for s in walk_stmt(kernel.body) if isinstance(s, Allocate)]
    assert math.prod(buffer.shape) < 2 * shape[-1] + 16  # a row (its vector tail padded)
    values = RNG.standard_normal(shape).astype(np.float32)
    result = np.full(shape, np.nan, np.float32)
    compile_kernel(kernel)(values, result)
    expected = np.exp(values) * values + np.exp(values) * 2.0
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("length", [7, 1000])
def test_a_reduction_to_a_scalar_gets_a_default_schedule(length: int) -> None:
    """A sum of a whole vector (no spatial axis): long enough, its partials vectorized."""
    x = placeholder((length,), name="x")
    k = reduce_axis(length, "k")
    total = compute((), lambda: sum_reduce(x[k], k), name="total")
    schedule = default_schedule(TEProgram("total", (x,), (total,)), HardwareParams())
    assert ("total_rf" in schedule.stages) == (length >= 32)
    values = RNG.standard_normal(length).astype(np.float32)
    result = np.full((), np.nan, np.float32)
    compile_kernel(lower(schedule))(values, result)
    np.testing.assert_allclose(result, values.sum(), rtol=1e-5, atol=1e-5)


def test_a_transcendental_read_once_is_inlined_and_one_read_twice_is_not() -> None:
    """exp(x) read by one stage is computed where it is read; read by two (a row sum and
    the output), it is computed once into its own buffer."""
    x = placeholder((6, 40), name="x")
    once = compute((6, 40), lambda i, j: intrinsic("exp", x[i, j]), name="once")
    out = compute((6, 40), lambda i, j: once[i, j] + 1.0, name="out")
    schedule = default_schedule(TEProgram("one_reader", (x,), (out,)), HardwareParams())
    assert schedule.stages["once"].attach.kind == "inline"
    twice = compute((6, 40), lambda i, j: intrinsic("exp", x[i, j]), name="twice")
    k = reduce_axis(40, "k")
    total = compute((6,), lambda i: sum_reduce(twice[i, k], k), name="total")
    scaled = compute((6, 40), lambda i, j: twice[i, j] * total[i], name="scaled")
    schedule = default_schedule(TEProgram("two_readers", (x,), (scaled,)), HardwareParams())
    assert schedule.stages["twice"].attach.kind != "inline"
    values = RNG.standard_normal((6, 40)).astype(np.float32)
    result = np.full((6, 40), np.nan, np.float32)
    compile_kernel(lower(schedule))(values, result)
    expected = np.exp(values) * np.exp(values).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(result, expected, rtol=1e-5)


@pytest.mark.parametrize("op_type", ["MatMul", "Conv"])
def test_half_precision_products_accumulate_in_float32(op_type: str) -> None:
    """4096 products of ones sum to 4096; a float16 running sum stops at 2048 (2048 + 1
    rounds back to 2048), as these kernels did before they accumulated in float32."""
    import onnx
    from onnx import TensorProto, helper

    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    depth = 4096
    if op_type == "MatMul":
        x = np.ones((2, depth), np.float16)
        weight = np.ones((depth, 3), np.float16)
        out_shape = [2, 3]
    else:
        x = np.ones((1, depth, 2, 2), np.float16)
        weight = np.ones((3, depth, 1, 1), np.float16)
        out_shape = [1, 3, 2, 2]
    graph = helper.make_graph(
        [helper.make_node(op_type, ["x", "w"], ["y"])],
        "half",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, out_shape)],
        [onnx.numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    result = compiled.run({"x": x})
    assert result.dtype == np.float16
    np.testing.assert_array_equal(result, np.full(out_shape, depth, np.float16))
