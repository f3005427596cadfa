"""BlockChannels: convolutions and what follows them in NCHW[b]c, with the same results."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.graph.nodes import Call, Constant, Expr, Function, Var, call, const
from ir.graph.passes.block_channels import block_channels, output_block
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize, optimize_without_fusion
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

RNG = np.random.default_rng(3)


def _weight(out_channels: int, in_channels: int, kernel: int = 3, groups: int = 1) -> Constant:
    shape = (out_channels, in_channels // groups, kernel, kernel)
    return const(RNG.normal(scale=0.3, size=shape), "float32")


def _per_channel(channels: int) -> Constant:
    return const(RNG.normal(size=(channels, 1, 1)), "float32")


def _ops(fn: Function) -> list[Call]:
    return [n for n in post_order(fn.body) if isinstance(n, Call) and isinstance(n.op, str)]


def _check_same_results(fn: Function, blocked: Function) -> None:
    inputs = {
        p.name: RNG.normal(size=p.checked_type.shape).astype("float32")  # type: ignore[attr-defined]
        for p in fn.params
    }
    assert blocked.checked_type == fn.checked_type
    check_close(evaluate(blocked, inputs), evaluate(fn, inputs), what="blocked")


def _block(fn: Function) -> tuple[Function, Function]:
    typed = infer_type(fn)
    return typed, block_channels(typed)


def _stem_and_block() -> Function:
    """An RGB stem, a batch-norm-like scale and shift, pooling, a residual block and a
    concatenation, ending in global pooling and a dense layer."""
    x = Var("x", TensorType((1, 3, 16, 16), "float32"))
    stem = call("nn.conv2d", x, _weight(16, 3), strides=(2, 2), padding=(1, 1, 1, 1))
    scaled = call("add", call("multiply", stem, _per_channel(16)), _per_channel(16))
    pooled = call("nn.max_pool2d", call("nn.relu", scaled), pool_size=(3, 3), padding=(1, 1, 1, 1))
    inner = call("nn.relu", call("nn.conv2d", pooled, _weight(16, 16), padding=(1, 1, 1, 1)))
    residual = call("nn.relu", call("add", call("nn.conv2d", inner, _weight(16, 16, 1)), pooled))
    wide = call("concatenate", residual, call("nn.conv2d", residual, _weight(32, 16, 1)), axis=1)
    averaged = call("nn.avg_pool2d", wide, pool_size=(2, 2), strides=(2, 2))
    flat = call("flatten", call("nn.global_avg_pool2d", averaged))
    dense = call("nn.dense", flat, const(RNG.normal(size=(10, 48)), "float32"))
    return Function((x,), dense)


def test_convs_elementwise_pooling_and_concat_stay_blocked_and_compute_the_same() -> None:
    fn, blocked = _block(_stem_and_block())
    ops = [c.op for c in _ops(blocked)]
    assert "nn.conv2d" not in ops and ops.count("nn.conv2d_nchwc") == 4
    pools = [c for c in _ops(blocked) if c.op in ("nn.max_pool2d", "nn.avg_pool2d")]
    assert [p.attrs["layout"] for p in pools] == ["NCHWc", "NCHWc"]
    concat = next(c for c in _ops(blocked) if c.op == "concatenate")
    assert concat.checked_type.shape == (1, 3, 8, 8, 16)  # type: ignore[attr-defined]
    # The stem reads the image in NCHW; one transform back, before global pooling.
    stem = next(c for c in _ops(blocked) if c.op == "nn.conv2d_nchwc")
    assert stem.args[0].checked_type.shape == (1, 3, 16, 16)  # type: ignore[attr-defined]
    assert stem.args[1].checked_type.shape == (1, 1, 3, 3, 3, 16)  # type: ignore[attr-defined]
    assert ops.count("transpose") == 1
    _check_same_results(fn, blocked)


def test_weights_and_per_channel_constants_are_folded_not_transformed_at_run_time() -> None:
    _, blocked = _block(_stem_and_block())
    for conv in (c for c in _ops(blocked) if c.op == "nn.conv2d_nchwc"):
        assert isinstance(conv.args[1], Constant)
    for arith in (c for c in _ops(blocked) if c.op in ("multiply", "add")):
        assert all(not isinstance(a, Call) for a in arith.args if not _is_blocked(a))


def _is_blocked(expr: Expr) -> bool:
    return len(expr.checked_type.shape) == 5  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("out_channels", "groups", "constant_weight"),
    [(12, 1, True), (16, 16, True), (16, 1, False)],
    ids=["channels-no-block-divides", "depthwise", "weight-is-an-input"],
)
def test_convs_it_cannot_block_stay_nchw(
    out_channels: int, groups: int, constant_weight: bool
) -> None:
    x = Var("x", TensorType((1, 16, 8, 8), "float32"))
    w = Var("w", TensorType((out_channels, 16 // groups, 3, 3), "float32"))
    weight: Expr = _weight(out_channels, 16, groups=groups) if constant_weight else w
    conv = call("nn.conv2d", x, weight, padding=(1, 1, 1, 1), groups=groups)
    params = (x,) if constant_weight else (x, w)
    fn, blocked = _block(Function(params, call("nn.relu", conv)))
    assert blocked is fn


def test_a_conv_after_an_unblockable_conv_reads_its_nchw_output() -> None:
    x = Var("x", TensorType((1, 16, 8, 8), "float32"))
    depthwise = call("nn.conv2d", x, _weight(16, 16, groups=16), padding=(1, 1, 1, 1), groups=16)
    pointwise = call("nn.conv2d", call("nn.relu", depthwise), _weight(24, 16, 1))
    expand = call("nn.conv2d", pointwise, _weight(32, 24, 1))
    fn, blocked = _block(Function((x,), expand))
    convs = [c for c in _ops(blocked) if c.op.startswith("nn.conv2d")]
    assert [c.op for c in convs] == ["nn.conv2d", "nn.conv2d_nchwc", "nn.conv2d_nchwc"]
    assert convs[1].args[1].checked_type.shape == (3, 1, 1, 1, 16, 8)  # type: ignore[attr-defined]
    _check_same_results(fn, blocked)


def _inverted_residual(channels: int, expanded: int, stride: int) -> Function:
    """A MobileNetV2 block: 1x1 expansion, 3x3 depthwise conv, 1x1 projection."""
    x = Var("x", TensorType((1, channels, 10, 10), "float32"))
    expand = call("nn.relu", call("nn.conv2d", x, _weight(expanded, channels, 1)))
    depthwise = call(
        "nn.conv2d",
        expand,
        _weight(expanded, expanded, groups=expanded),
        strides=(stride, stride),
        padding=(1, 1, 1, 1),
        groups=expanded,
    )
    scaled = call("nn.relu", call("add", depthwise, _per_channel(expanded)))
    return Function((x,), call("nn.conv2d", scaled, _weight(channels, expanded, 1)))


def test_a_depthwise_conv_between_blocked_convs_stays_blocked() -> None:
    """The depthwise conv reads its input in blocks and writes them (its weight re-laid
    out once, C[b]HWc): no layout transform around it, one at the end."""
    fn, blocked = _block(_inverted_residual(16, 32, 2))
    ops = [c.op for c in _ops(blocked)]
    assert "nn.conv2d" not in ops and ops.count("transpose") == 1
    (depthwise,) = (c for c in _ops(blocked) if c.op == "nn.depthwise_conv2d_nchwc")
    assert isinstance(depthwise.args[1], Constant)
    assert depthwise.args[1].checked_type.shape == (2, 3, 3, 16)  # type: ignore[attr-defined]
    assert depthwise.checked_type.shape == (1, 2, 5, 5, 16)  # type: ignore[attr-defined]
    _check_same_results(fn, blocked)


@pytest.mark.parametrize(("groups", "block"), [(2, 16), (4, 8), (8, None)])
def test_grouped_convs_of_whole_blocks_stay_blocked(groups: int, block: int | None) -> None:
    """A RegNet block: 1x1, a 3x3 conv in groups, 1x1. Groups of 16 channels are whole
    blocks of the data: each output block reads its group's input blocks, and no
    transform surrounds the conv. Groups of 8 are whole output blocks of 8, but the
    data comes in blocks of 16: it reads NCHW. Groups of 4 are no block: NCHW."""
    x = Var("x", TensorType((1, 16, 9, 9), "float32"))
    expand = call("nn.relu", call("nn.conv2d", x, _weight(32, 16, 1)))
    grouped = call(
        "nn.conv2d",
        expand,
        _weight(32, 32, groups=groups),
        strides=(2, 2),
        padding=(1, 1, 1, 1),
        groups=groups,
    )
    scaled = call("nn.relu", call("add", grouped, _per_channel(32)))
    fn, blocked = _block(Function((x,), call("nn.conv2d", scaled, _weight(16, 32, 1))))
    convs = [c for c in _ops(blocked) if c.op.startswith("nn.conv2d")]
    if block is None:
        assert convs[1].op == "nn.conv2d"
    else:
        assert [c.op for c in convs] == ["nn.conv2d_nchwc"] * 3
        assert int(convs[1].attrs["groups"]) == groups
        assert convs[1].checked_type.shape == (1, 32 // block, 5, 5, block)  # type: ignore[attr-defined]
        transforms = [c.op for c in _ops(blocked)].count("transpose")
        assert transforms == (1 if block == 16 else 2)
    _check_same_results(fn, blocked)


def test_a_depthwise_conv_of_padded_blocks_computes_the_same() -> None:
    """62 channels in blocks of 16 (two padding channels, read by no conv: the blocks go
    to global pooling): the depthwise conv reads the padded value, and its zero-padded
    weight makes the padding channels' outputs, which nothing counts."""
    x = Var("x", TensorType((1, 16, 10, 10), "float32"))
    expand = call("sigmoid", call("nn.conv2d", x, _weight(62, 16, 1)))
    depthwise = call(
        "nn.conv2d", expand, _weight(62, 62, groups=62), padding=(1, 1, 1, 1), groups=62
    )
    pooled = call("nn.global_avg_pool2d", call("nn.relu", depthwise))
    fn, blocked = _block(Function((x,), pooled))
    (depthwise,) = (c for c in _ops(blocked) if c.op == "nn.depthwise_conv2d_nchwc")
    assert depthwise.checked_type.shape == (1, 4, 10, 10, 16)  # type: ignore[attr-defined]
    _check_same_results(fn, blocked)


def test_a_conv_alone_between_nchw_ops_stays_nchw() -> None:
    """NCHW in (an image), NCHW out (an LRN, as in AlexNet): blocking it would only add a
    layout transform, so it is left alone, as are the ops after it."""
    x = Var("x", TensorType((1, 3, 12, 12), "float32"))
    conv = call("nn.relu", call("nn.conv2d", x, _weight(16, 3), strides=(2, 2)))
    pooled = call("nn.max_pool2d", call("nn.lrn", conv, size=3), pool_size=(2, 2))
    fn, blocked = _block(Function((x,), pooled))
    assert blocked is fn


def test_a_squeeze_and_excitation_scale_stays_blocked() -> None:
    """A per-channel scale computed from the blocked value itself (global pooling, two
    1x1 convs, a sigmoid) multiplies it without leaving the blocked layout."""
    x = Var("x", TensorType((1, 16, 6, 6), "float32"))
    features = call("nn.relu", call("nn.conv2d", x, _weight(16, 16), padding=(1, 1, 1, 1)))
    squeezed = call(
        "nn.relu", call("nn.conv2d", call("nn.global_avg_pool2d", features), _weight(8, 16, 1))
    )
    scale = call("sigmoid", call("nn.conv2d", squeezed, _weight(16, 8, 1)))
    out = call("nn.conv2d", call("multiply", features, scale), _weight(16, 16, 1))
    fn, blocked = _block(Function((x,), out))
    assert [c.op for c in _ops(blocked)].count("transpose") == 1  # only the result's
    assert sum(c.op == "nn.conv2d_nchwc" for c in _ops(blocked)) == 4
    _check_same_results(fn, blocked)


def test_operands_that_are_not_per_channel_constants() -> None:
    """A per-channel input, a full-size input, a scalar, a row vector and a bigger batch
    broadcast the same way in blocked layout; a blocked value broadcast to more dimensions
    goes back to NCHW."""
    x = Var("x", TensorType((1, 8, 6, 6), "float32"))
    scale = Var("scale", TensorType((8, 1, 1), "float32"))
    other = Var("other", TensorType((1, 8, 6, 6), "float32"))
    row = Var("row", TensorType((6,), "float32"))
    first = call("nn.conv2d", x, _weight(8, 8), padding=(1, 1, 1, 1))
    conv = call("nn.conv2d", first, _weight(8, 8), padding=(1, 1, 1, 1))
    offset = call("subtract", other, const(0.5, "float32"))
    mixed = call("add", call("multiply", conv, scale), offset)
    shifted = call("add", mixed, row)
    batch = Var("batch", TensorType((2, 8, 6, 6), "float32"))
    stacked = Var("stacked", TensorType((3, 1, 8, 6, 6), "float32"))
    wider = call("add", call("add", shifted, batch), stacked)
    fn, blocked = _block(Function((x, scale, other, row, batch, stacked), wider))
    last = blocked.body
    assert isinstance(last, Call) and last.op == "add" and not _is_blocked(last.args[0])
    assert _is_blocked(last.args[0].args[0].args[0])  # type: ignore[attr-defined]
    _check_same_results(fn, blocked)


def _pointwise_head(out_channels: int) -> tuple[Var, Expr]:
    """A blocked 16-channel value and a 1x1 conv of it to `out_channels`, plus a bias."""
    x = Var("x", TensorType((1, 16, 6, 6), "float32"))
    features = call("nn.relu", call("nn.conv2d", x, _weight(16, 16), padding=(1, 1, 1, 1)))
    head = call("nn.conv2d", features, _weight(out_channels, 16, 1))
    return x, call("add", head, _per_channel(out_channels))


def test_a_conv_padded_to_whole_blocks_computes_the_same() -> None:
    """136 channels take 9 blocks of 16, the last half zero padding (as 1000 classes take
    63): full vectors; the padding is sliced off when the value returns to NCHW."""
    x, head = _pointwise_head(136)
    pooled = call("nn.global_avg_pool2d", call("nn.relu", head))
    fn, blocked = _block(Function((x,), pooled))
    convs = [c for c in _ops(blocked) if c.op == "nn.conv2d_nchwc"]
    assert convs[1].args[1].checked_type.shape == (9, 1, 1, 1, 16, 16)  # type: ignore[attr-defined]
    bias = next(c for c in _ops(blocked) if c.op == "add").args[1]
    assert isinstance(bias, Constant) and bias.checked_type.shape == (1, 9, 1, 1, 16)  # type: ignore[attr-defined]
    (pool,) = (c for c in _ops(blocked) if c.op == "nn.global_avg_pool2d")
    assert pool.attrs["layout"] == "NCHWc"
    slices = [c for c in _ops(blocked) if c.op == "strided_slice"]
    assert len(slices) == 1 and slices[0].checked_type.shape == (1, 136, 1, 1)  # type: ignore[attr-defined]
    _check_same_results(fn, blocked)


@pytest.mark.parametrize("reader", ["conv", "concatenate"])
def test_a_conv_whose_output_a_conv_or_concat_reads_is_not_padded(reader: str) -> None:
    """The padding channels would count in a conv's or a concatenation's result: the conv
    takes blocks of 8 instead, and its readers stay blocked."""
    x, head = _pointwise_head(136)
    value = call("nn.relu", head)
    if reader == "conv":
        out = call("nn.conv2d", value, _weight(16, 136, 1))
    else:
        out = call("concatenate", value, call("nn.conv2d", value, _weight(16, 136, 1)), axis=1)
    fn, blocked = _block(Function((x,), out))
    convs = [c for c in _ops(blocked) if c.op == "nn.conv2d_nchwc"]
    assert len(convs) == 3
    assert convs[1].args[1].checked_type.shape == (17, 1, 1, 1, 16, 8)  # type: ignore[attr-defined]
    assert not any(c.op == "strided_slice" for c in _ops(blocked))
    _check_same_results(fn, blocked)


def test_gpu_pipelines_keep_nchw() -> None:
    fn = _stem_and_block()
    assert any(c.op == "nn.conv2d_nchwc" for c in _ops(optimize_without_fusion(fn)))
    on_gpu = optimize_without_fusion(fn, blocked_layout=False)
    assert not any(c.op == "nn.conv2d_nchwc" for c in _ops(on_gpu))
    fused = optimize(fn, blocked_layout=False)
    fused_ops = {
        node.op
        for group in post_order(fused.body)
        if isinstance(group, Call) and isinstance(group.op, Function)
        for node in post_order(group.op.body)
        if isinstance(node, Call) and isinstance(node.op, str)
    }
    assert "nn.conv2d" in fused_ops and "nn.conv2d_nchwc" not in fused_ops


@settings(max_examples=25, deadline=None)
@given(
    in_channels=st.sampled_from([3, 8, 16, 24]),
    out_channels=st.sampled_from([8, 16, 32, 40, 136]),
    kernel=st.sampled_from([1, 3]),
    stride=st.sampled_from([1, 2]),
    pool=st.booleans(),
)
def test_any_conv_chain_computes_the_same_blocked(
    in_channels: int, out_channels: int, kernel: int, stride: int, pool: bool
) -> None:
    x = Var("x", TensorType((1, in_channels, 9, 9), "float32"))
    pad = kernel // 2
    first = call(
        "nn.conv2d",
        x,
        _weight(out_channels, in_channels, kernel),
        strides=(stride, stride),
        padding=(pad, pad, pad, pad),
    )
    value = call("nn.relu", call("add", first, _per_channel(out_channels)))
    if pool:
        value = call("nn.avg_pool2d", value, pool_size=(2, 2), count_include_pad=True)
    second = call("nn.conv2d", value, _weight(16, out_channels, 1))
    fn, blocked = _block(Function((x,), call("add", second, _per_channel(16))))
    # (136 channels would be padded to 144, but a conv reads them: blocks of 8.)
    assert output_block(out_channels, allow_padding=False) == (16 if out_channels % 16 == 0 else 8)
    assert sum(c.op == "nn.conv2d_nchwc" for c in _ops(blocked)) == 2
    _check_same_results(fn, blocked)
