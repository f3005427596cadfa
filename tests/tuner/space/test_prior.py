"""The default schedule is a point of the space (every decision its rule's preferred
value): it computes the reference's numbers, can be mutated, carries the default's register
tiles; the second prior point tiles a conv over columns."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.llvm import host_target
from ir.graph.nodes import call
from ir.schedule.default import default_schedule
from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.register_tile_sizes import (
    FMA_CHAINS,
    INTEGER_CONV_SCRATCH,
    WORD_CONV_SCRATCH,
    blocked_conv_register_tile,
    channel_conv_register_tile,
    depthwise_register_tile,
    gemm_register_tile,
)
from ir.schedule.rules.rows import row_partial_length
from tests.tuner.space.test_traces import check_trace
from tests.tuner.space.workloads import Workload, _primitive, _var, workloads
from tuner.space import SearchSpace
from tuner.space.prior import column_conv_register_tile

HARDWARE = HardwareParams(vector_bytes=64, num_cores=2)  # 16 float32 lanes
AVX2 = HardwareParams(vector_bytes=32, num_cores=2)  # 8 float32 lanes, 16 registers


def space_of(name: str, hardware: HardwareParams = HARDWARE) -> SearchSpace:
    workload = workloads()[name]
    return SearchSpace(workload.program(), hardware, workload.constants)


def decisions_of_point(space: SearchSpace) -> dict[str, object]:
    return dict(space.decisions_of(space.default_point()))


@pytest.mark.parametrize("name", sorted(workloads()))
def test_the_default_point_and_its_neighbours_compute_the_reference(name: str) -> None:
    workload = workloads()[name]
    space = SearchSpace(workload.program(), host_target().hardware, workload.constants)
    point = space.default_point()
    assert space.default_point() == point  # the same point every time
    default = default_schedule(workload.program(), space.hardware, workload.constants)
    assert point == default.trace
    rng = random.Random(name)
    neighbours = [space.mutate(point, rng) for _ in range(4)]
    assert any(trace != point for trace in neighbours), f"{name}: the point cannot move"
    for index, trace in enumerate([point, *neighbours]):
        check_trace(workload, trace, seed=index)
    others = space.prior_points()[1:]  # (a conv's point tiled over columns)
    for index, trace in enumerate(others):
        check_trace(workload, trace, seed=10 + index)


def test_a_blocked_conv_gets_the_default_register_tile_and_materialised_padding() -> None:
    # 32 output channels in 2 blocks of 16 over a 10 x 10 image: both blocks and 5 columns
    # in the register tile.
    space = space_of("conv2d_nchwc")
    decisions = decisions_of_point(space)
    shape = dict(zip(("n", "ko", "y", "x", "kb"), space.program.outputs[0].shape, strict=True))
    block_tile, col_tile = blocked_conv_register_tile(shape["ko"], shape["x"], shape["kb"], 16)
    assert decisions["pad.placement"] == "root"
    assert decisions["conv2d_nchwc.sketch"] == "register_tile"
    assert decisions["conv2d_nchwc.block_tile"] == block_tile
    assert decisions["conv2d_nchwc.column_tile"] == col_tile
    assert decisions["conv2d_nchwc.outermost"] == "channel_blocks"  # a small input


@pytest.mark.parametrize("name", ["conv2d", "conv2d_channel_tail"])
def test_an_nchw_conv_vectorizes_output_channels_like_the_default(name: str) -> None:
    """(20 channels: a full vector and a last tile of 4, as the default tiles them.)"""
    space = space_of(name)
    decisions = decisions_of_point(space)
    _, channels, _, width = space.program.outputs[0].shape
    channel_tile, col_tile = channel_conv_register_tile(channels, width, 16)
    assert decisions["conv2d.channel_tile"] == channel_tile
    assert decisions["conv2d.column_tile"] == col_tile


def test_a_depthwise_conv_vectorizes_columns_under_rows_like_the_default() -> None:
    space = space_of("depthwise_conv2d")
    decisions = decisions_of_point(space)
    _, _, height, width = space.program.outputs[0].shape
    row_tile, col_tile = depthwise_register_tile(height, width, 16)
    assert decisions["pad.placement"] == "inline"
    assert decisions["conv2d.row_tile"] == row_tile
    assert decisions["conv2d.column_tile"] == col_tile


@pytest.mark.parametrize(
    ("name", "vector_bytes"),
    [
        ("matmul", 64),
        ("matmul", 32),
        ("dense", 64),
        ("dense_prime_rows", 64),
        ("matmul_wide_tail", 64),
        ("matmul_wide_tail", 32),
    ],
)
def test_a_matrix_product_gets_the_default_rows_and_vector_columns(
    name: str, vector_bytes: int
) -> None:
    """(37 rows have no divisor near the default's 8: full tiles and a shorter last one.)"""
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    space = space_of(name, hardware)
    decisions = decisions_of_point(space)
    stage = space.program.outputs[0].op.name
    rows, cols = space.program.outputs[0].shape
    row_tile, col_tile = gemm_register_tile(
        rows, cols, hardware.lanes("float32"), hardware.registers, wide=True
    )
    assert decisions[f"{stage}.row_tile"] == row_tile
    assert decisions[f"{stage}.column_tile"] == col_tile
    assert (rows % row_tile != 0) == (name == "dense_prime_rows")


@pytest.mark.parametrize("vector_bytes", [32, 64])
def test_register_tiles_leave_registers_for_their_operands(vector_bytes: int) -> None:
    # AVX2's 16 vector registers must hold a tile's accumulators, its loaded operand
    # vectors and a broadcast, or the inner loop spills (2 x 7 accumulators did, at less
    # than half the speed); AVX-512's 32 keep the tiles of about 14 accumulators.
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    lanes, registers = hardware.lanes("float32"), hardware.registers
    assert registers == (16 if vector_bytes == 32 else 32)
    for width in (5, 7, 12, 14, 28, 56, 112):
        for block in (8, 16):
            blocks, cols = blocked_conv_register_tile(4, width, block, lanes, registers)
            vectors = blocks * max(1, block // lanes)
            assert vectors * cols + vectors + 1 <= registers
        channels, cols = channel_conv_register_tile(64, width, lanes, registers)
        assert (channels // lanes) * (cols + 1) + 1 <= registers
    for rows in (1, 6, 8, 12, 13, 64, 1024):
        row_tile, col_tile = gemm_register_tile(rows, 1024, lanes, registers)
        vectors = col_tile // lanes
        assert row_tile * vectors + vectors + 1 <= registers
        # One row (1 and 13 rows): 4 vectors; 4 rows would take 3, which leave a tail.
        assert vectors == (2 if row_tile * 2 >= FMA_CHAINS or row_tile == 4 else 4)
    if registers == 32:  # the tiles AVX-512 hosts were tuned with
        assert blocked_conv_register_tile(4, 56, 16, lanes, registers) == (4, 6)
        assert gemm_register_tile(1024, 1024, lanes, registers) == (8, 32)


def test_an_avx512_float_conv_takes_four_blocks_where_their_weights_fit_half_the_l2() -> None:
    """On 32 registers a float conv's tile is 4 blocks x as many columns as fit beside
    them (each weight vector feeds more columns), unless the 4 blocks' weights take over
    half of the L2 or a row holds fewer than two such tiles: then 2 x 7 as before."""
    hardware = HardwareParams(vector_bytes=64, num_cores=2)
    lanes, registers = hardware.lanes("float32"), hardware.registers
    chains, l2 = hardware.core.fma_chains, hardware.core.l2_bytes

    def tile(blocks: int, width: int, block_weight_bytes: int = 4096) -> tuple[int, int]:
        return blocked_conv_register_tile(
            blocks,
            width,
            16,
            lanes,
            registers,
            chains,
            block_weight_bytes=block_weight_bytes,
            l2_bytes=l2,
        )

    for width in (14, 28, 56, 112):
        blocks, columns = tile(8, width)
        assert blocks == 4
        assert 4 * columns + 4 + 1 <= registers  # accumulators, weight vectors, broadcast
        assert width >= 2 * columns
    assert {width: tile(8, width)[1] for width in (14, 28, 56)} == {14: 5, 28: 6, 56: 6}
    assert tile(8, 7) == (2, 7)  # one 4-block tile and a tail per row
    assert tile(6, 56) == (2, 7)  # 6 blocks: no 4-block tiles
    assert tile(8, 56, block_weight_bytes=l2 // 8 + 1) == (2, 7)  # 4 blocks > half the L2
    assert tile(8, 56, block_weight_bytes=l2 // 8) == (4, 6)
    avx2 = HardwareParams(vector_bytes=32, num_cores=2)
    assert blocked_conv_register_tile(8, 56, 16, 8, avx2.registers, chains)[0] == 1
    assert blocked_conv_register_tile(8, 56, 8, 8, avx2.registers, chains)[0] == 2
    # An 8-bit dot product takes 4 blocks too, of at most 20 accumulators (4 x 6 spilled);
    # int16 weights (the WORD form) keep 2.
    for width in (14, 28, 56):
        blocks, columns = blocked_conv_register_tile(
            8, width, 16, 16, registers, chains, INTEGER_CONV_SCRATCH
        )
        assert blocks == 4 and 4 * columns <= 20
    assert blocked_conv_register_tile(8, 56, 16, 16, registers, chains, WORD_CONV_SCRATCH)[0] == 2


def test_a_wide_float_product_on_avx512_takes_six_rows_of_four_vectors() -> None:
    """A float32 product on 32 registers: 6 rows x 4 vectors (24 accumulators, the 4
    column vectors and a broadcast fit), where the columns split into 4-vector tiles and
    the rows hold two tiles; otherwise, and on AVX2, the tile of other products."""
    avx512 = HardwareParams(vector_bytes=64, num_cores=2)
    lanes, registers = avx512.lanes("float32"), avx512.registers
    for rows in (12, 197, 1024):
        row_tile, col_tile = gemm_register_tile(rows, 768, lanes, registers, wide=True)
        assert (row_tile, col_tile) == (6, 64)
        assert row_tile * 4 + 4 + 1 <= registers
    assert gemm_register_tile(1024, 1024, lanes, registers) == (8, 32)  # not wide
    assert gemm_register_tile(1024, 1000, lanes, registers, wide=True) == (8, 32)
    assert gemm_register_tile(11, 768, lanes, registers, wide=True)[1] != 64
    avx2 = HardwareParams(vector_bytes=32, num_cores=2)
    assert gemm_register_tile(1024, 1024, 8, avx2.registers, wide=True) == (4, 16)


def test_an_avx2_blocked_conv_tile_weighs_its_tail_against_its_accumulators() -> None:
    """2 vectors of 16 channels on AVX2 (10 FMA chains): 6 columns (12 accumulators) where
    the tail is cheap, 5 where 6 would leave a tail of one column; an integer dot product
    keeps 5 (its pair products and ones take registers), one of int16 weights 4."""
    hardware = HardwareParams(vector_bytes=32, num_cores=2)
    lanes, registers = hardware.lanes("float32"), hardware.registers
    chains = hardware.core.fma_chains
    columns = {
        width: blocked_conv_register_tile(4, width, 16, lanes, registers, chains)[1]
        for width in (7, 14, 28, 56)
    }
    assert columns == {7: 5, 14: 5, 28: 6, 56: 6}
    for width in (7, 14, 28, 56):
        tile = blocked_conv_register_tile(
            4, width, 16, lanes, registers, chains, INTEGER_CONV_SCRATCH
        )
        assert tile == (1, 5)
        # int16 weights (the WORD form): two weight vectors per accumulator vector and
        # two broadcasts a step leave room for 4 columns
        tile = blocked_conv_register_tile(4, width, 16, lanes, registers, chains, WORD_CONV_SCRATCH)
        assert tile == (1, 4)
        assert 2 * tile[1] + 2 * 2 + 2 + 1 <= registers
    avx512 = HardwareParams(vector_bytes=64, num_cores=2)
    for scratch, expected in ((INTEGER_CONV_SCRATCH, (4, 4)), (WORD_CONV_SCRATCH, (2, 7))):
        tile = blocked_conv_register_tile(
            4, 56, 16, avx512.lanes("int32"), avx512.registers, chains, scratch
        )
        assert tile == expected


@pytest.mark.parametrize("vector_bytes", [32, 64])
def test_a_requantized_integer_conv_tiles_its_int32_accumulators(vector_bytes: int) -> None:
    """An 8-bit conv whose output is requantized to uint8 keeps int32 accumulators in its
    registers, as one whose output stays float: its tile counts int32 vectors, not the
    output's bytes (counted in uint8 lanes, AVX2 took 2 blocks x 5 columns, 20 int32
    accumulators in 16 registers, and ResNet-50's int8 convs spilled)."""
    hardware = HardwareParams(vector_bytes=vector_bytes, num_cores=2)
    tiles = []
    for name in ("qconv2d_nchwc", "qconv2d_nchwc_requantized"):
        space = space_of(name, hardware)
        decisions = decisions_of_point(space)
        tiles.append(
            (decisions["qconv2d_nchwc.block_tile"], decisions["qconv2d_nchwc.column_tile"])
        )
    _, blocks, _, width, block = space.program.outputs[0].shape
    expected = blocked_conv_register_tile(
        blocks,
        width,
        block,
        hardware.lanes("int32"),
        hardware.registers,
        hardware.core.fma_chains,
        INTEGER_CONV_SCRATCH,
    )
    assert tiles == [expected, expected]
    vectors = expected[0] * max(1, block // hardware.lanes("int32"))
    assert vectors * expected[1] + vectors + INTEGER_CONV_SCRATCH <= hardware.registers


def test_a_matrix_product_copies_a_strided_input_into_panels_like_the_default() -> None:
    """256 x 256 right-hand rows 1 KiB apart, not constant: the default copies them into
    column panels at run time, so the point nearest it does; sampled points take either
    way, and both compute the reference."""
    lhs, rhs = _var("a", 64, 256), _var("b", 256, 256)
    workload = Workload(
        "strided_matmul", _primitive([lhs, rhs], call("nn.matmul", lhs, rhs)), frozenset()
    )
    space = SearchSpace(workload.program(), HardwareParams(vector_bytes=32, num_cores=2))
    point = space.default_point()
    assert space.decisions_of(point)["matmul.pack_panels"] == "packed"
    samples = [space.sample(random.Random(seed)) for seed in range(24)]
    packings = [space.decisions_of(trace).get("matmul.pack_panels") for trace in samples]
    assert {"packed", "in_place"} <= set(packings), packings
    check_trace(workload, point, seed=0)
    check_trace(workload, samples[packings.index("packed")], seed=1)
    check_trace(workload, samples[packings.index("in_place")], seed=2)


@pytest.mark.parametrize(
    ("op", "shape"),
    [("nn.softmax", (6, 200)), ("nn.softmax", (2, 3, 100)), ("nn.layer_norm", (40, 768))],
)
def test_an_output_the_default_computes_per_row_is_rebuilt_by_the_rows_rule(
    op: str, shape: tuple[int, ...]
) -> None:
    """Rows of 4 vectors or more: the point is the default's loop nest exactly (rows in
    parallel, one or two vectors of partials, horizontal reductions), and computes the
    reference."""
    data = _var("x", *shape)
    params = [data] if op == "nn.softmax" else [data, _var("g", shape[-1]), _var("b", shape[-1])]
    workload = Workload(op, _primitive(params, call(op, *params)), frozenset())
    space = SearchSpace(workload.program(), HARDWARE, workload.constants)
    decisions = decisions_of_point(space)
    output = space.program.outputs[0].op.name
    assert decisions[f"{output}.by_rows"] == "rows"
    partials = {value for key, value in decisions.items() if key.endswith(".row_rfactor")}
    assert partials == {row_partial_length(shape[-1], 16)} and partials <= {16, 32}
    point = space.default_point()
    assert point == default_schedule(workload.program(), HARDWARE, workload.constants).trace
    check_trace(workload, point, seed=0)


def test_an_output_with_short_rows_keeps_its_stages_apart_like_the_default() -> None:
    """The workloads' softmax rows (20) are under 4 vectors: each stage on its own."""
    assert decisions_of_point(space_of("softmax"))["softmax.by_rows"] == "stages"


def test_an_output_tiled_with_its_matrix_product_gets_no_row_decisions() -> None:
    """conv + bias + relu: the conv is computed at the output's tiles, not per row, and the
    output keeps the default's other decisions."""
    workload = workloads()["light_squeezenet:fused_nn_conv2d_nchwc_add_nn_relu:rank5"]
    space = SearchSpace(workload.program(), HARDWARE, workload.constants)
    decisions = decisions_of_point(space)
    assert decisions and not [key for key in decisions if ".by_rows" in key or ".row_" in key]


@pytest.mark.parametrize("name", ["conv2d", "conv2d_channel_tail"])
def test_a_conv_read_at_unit_stride_gets_a_second_point_tiled_over_columns(name: str) -> None:
    """The convs 14 columns wide on AVX2 (8 lanes): after the default point, a point with
    the same decisions but the register tile over output columns, which computes the
    reference."""
    workload = workloads()[name]
    space = SearchSpace(workload.program(), AVX2, workload.constants)
    first, columns = space.prior_points()
    assert first == space.default_point()
    decisions = space.decisions_of(columns)
    assert decisions["conv2d.sketch"] == "multi_level"
    assert decisions["conv2d.vector_axis"] == "x"
    _, channels, height, width = space.program.outputs[0].shape
    channel_tile, row_tile, col_tile = column_conv_register_tile(
        channels, height, width, AVX2.lanes("float32"), AVX2.registers
    )
    innermost = {axis: decisions[f"conv2d.tile.{axis}"][-1] for axis in ("k", "y", "x")}
    assert innermost == {"k": channel_tile, "y": row_tile, "x": col_tile}
    assert decisions["conv2d.tile.rc"] == (16, 1)  # the reduction whole outside the tile
    others = {k: v for k, v in decisions.items() if not k.startswith("conv2d.")}
    assert others
    assert others == {k: v for k, v in decisions_of_point(space).items() if k in others}
    check_trace(workload, columns, seed=0)


@pytest.mark.parametrize(
    ("name", "hardware"),
    [
        ("conv2d_stride2", AVX2),  # the columns read the input every other element
        ("conv2d", HARDWARE),  # 14 columns: less than a vector of 16 lanes
        ("depthwise_conv2d", AVX2),  # the default vectorizes its columns already
        ("matmul", AVX2),
    ],
)
def test_other_stages_get_only_the_default_point(name: str, hardware: HardwareParams) -> None:
    workload = workloads()[name]
    space = SearchSpace(workload.program(), hardware, workload.constants)
    assert space.prior_points() == [space.default_point()]


@pytest.mark.parametrize(
    ("shape", "lanes", "registers", "tile"),
    [
        ((64, 56, 56), 16, 32, (4, 2, 32)),  # 16 accumulators, 4 broadcasts + 4 input loads
        ((64, 56, 56), 8, 16, (4, 1, 16)),  # 8 accumulators
        ((64, 7, 20), 16, 32, (8, 1, 20)),  # 7 rows: one per tile, 8 channels
        ((6, 28, 12), 16, 32, (2, 7, 12)),  # one vector: up to 16 accumulators, 14 here
    ],
)
def test_a_column_register_tile_fills_half_the_registers_at_the_fewest_loads(
    shape: tuple[int, int, int], lanes: int, registers: int, tile: tuple[int, int, int]
) -> None:
    assert column_conv_register_tile(*shape, lanes, registers) == tile


@pytest.mark.parametrize("hardware", [HARDWARE, AVX2], ids=["avx512", "avx2"])
@pytest.mark.parametrize("name", sorted(workloads()))
def test_the_default_schedule_is_the_spaces_default_point(
    name: str, hardware: HardwareParams
) -> None:
    """The default and the space run the same rules, and the default's choices are the
    point's: the same trace."""
    workload = workloads()[name]
    default = default_schedule(workload.program(), hardware, workload.constants)
    space = SearchSpace(workload.program(), hardware, workload.constants)
    assert space.default_point() == default.trace


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(st.integers(1, 9), min_size=1, max_size=3),
    columns=st.integers(1, 300),
    op=st.sampled_from(["nn.softmax", "nn.log_softmax", "sum", "max", "nn.relu"]),
)
def test_every_default_without_hand_tiling_is_a_point_of_the_space(
    rows: list[int], columns: int, op: str
) -> None:
    x = _var("x", *rows, columns)
    attrs = {"axis": [-1]} if op in ("sum", "max") else {}
    if op in ("nn.softmax", "nn.log_softmax"):
        attrs = {"axis": -1}
    workload = Workload(op, _primitive([x], call(op, x, **attrs)), frozenset())
    default = default_schedule(workload.program(), HARDWARE, workload.constants)
    space = SearchSpace(workload.program(), HARDWARE, workload.constants)
    assert space.default_point() == default.trace
    check_trace(workload, default.trace, seed=0)
