"""FuseOps on hand-built graphs: the groups must be the ones computed by hand."""

from __future__ import annotations

import numpy as np

from ir.graph.nodes import Call, Expr, Function, Tuple, Var, call, const
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate

RNG = np.random.default_rng(7)


def _weight(*shape: int) -> Expr:
    return const(RNG.normal(0, 0.1, shape).astype(np.float32))


def _conv_bn(data: Expr, channels_in: int, channels_out: int, kernel: int = 3) -> Expr:
    pad = kernel // 2
    conv = call(
        "nn.conv2d",
        data,
        _weight(channels_out, channels_in, kernel, kernel),
        padding=(pad, pad, pad, pad),
    )
    scaled = call("multiply", conv, _weight(channels_out, 1, 1))
    return call("add", scaled, _weight(channels_out, 1, 1))


def _groups(fn: Function) -> list[list[str]]:
    """The op names of each primitive function, in call order."""
    groups = []
    for node in post_order(fn.body):
        if isinstance(node, Call) and isinstance(node.op, Function):
            ops = [n.op for n in post_order(node.op.body) if isinstance(n, Call)]
            groups.append([op for op in ops if isinstance(op, str)])
    return groups


def _fuse_and_check(fn: Function) -> Function:
    typed = infer_type(fn)
    fused = fuse_ops(typed)
    inputs = {
        p.name: RNG.normal(0, 1, p.type_annotation.shape).astype(np.float32)  # type: ignore[union-attr]
        for p in typed.params
    }
    check_close(evaluate(fused, inputs), evaluate(typed, inputs))
    return fused


def test_identity_residual_block_groups() -> None:
    x = Var("x", TensorType((1, 8, 6, 6)))
    branch = call("nn.relu", _conv_bn(x, 8, 8))
    out = call("nn.relu", call("add", _conv_bn(branch, 8, 8), x))
    fused = _fuse_and_check(Function((x,), out))
    assert _groups(fused) == [
        ["nn.conv2d", "multiply", "add", "nn.relu"],
        ["nn.conv2d", "multiply", "add", "add", "nn.relu"],
    ]


def test_projection_shortcut_add_joins_exactly_one_conv() -> None:
    x = Var("x", TensorType((1, 4, 6, 6)))
    main = _conv_bn(call("nn.relu", _conv_bn(x, 4, 8)), 8, 8)
    shortcut = _conv_bn(x, 4, 8, kernel=1)
    out = call("nn.relu", call("add", main, shortcut))
    fused = _fuse_and_check(Function((x,), out))
    groups = _groups(fused)
    assert sorted(groups) == sorted(
        [
            ["nn.conv2d", "multiply", "add", "nn.relu"],
            ["nn.conv2d", "multiply", "add", "add", "nn.relu"],
            ["nn.conv2d", "multiply", "add"],
        ]
    )
    assert all(group.count("nn.conv2d") == 1 for group in groups)


def test_injective_chain_fuses_and_elementwise_joins_the_reduction() -> None:
    x = Var("x", TensorType((2, 3, 4)))
    chain = call("reshape", call("transpose", call("exp", x), axes=(0, 2, 1)), newshape=(2, 12))
    out = call("sum", call("multiply", chain, const(np.float32(2.0))), axis=(1,))
    fused = _fuse_and_check(Function((x,), out))
    # As in Relay: injective ops fuse with each other; a reduction takes elementwise producers.
    assert _groups(fused) == [["exp", "transpose", "reshape"], ["multiply", "sum"]]


def test_reduction_absorbs_elementwise_consumers_but_not_broadcast_ones() -> None:
    x = Var("x", TensorType((4, 16)))
    mean = call("mean", x, axis=(1,), keepdims=True)
    centered = call("subtract", x, mean)  # broadcasts mean: must not recompute the reduction
    out = call(
        "sqrt",
        call(
            "add",
            call("mean", call("multiply", centered, centered), axis=(1,)),
            const(np.float32(1e-5)),
        ),
    )
    fused = _fuse_and_check(Function((x,), out))
    assert _groups(fused) == [["mean"], ["subtract", "multiply", "mean", "add", "sqrt"]]


def test_conv_does_not_absorb_an_op_that_broadcasts_its_output() -> None:
    x = Var("x", TensorType((1, 4, 6, 6)))
    y = Var("y", TensorType((3, 4, 6, 6)))
    conv = call("nn.conv2d", x, _weight(4, 4, 1, 1))
    out = call("add", conv, y)  # output (3, 4, 6, 6) is larger than the conv's
    fused = _fuse_and_check(Function((x, y), out))
    assert _groups(fused) == [["nn.conv2d"], ["add"]]


def test_multiple_outputs_and_shared_values() -> None:
    x = Var("x", TensorType((2, 5)))
    shared = call("exp", x)
    out = Tuple((call("nn.relu", shared), call("tanh", shared)))
    fused = _fuse_and_check(Function((x,), out))
    assert _groups(fused) == [["exp"], ["nn.relu"], ["tanh"]]


def test_max_group_size_one_keeps_every_op_alone() -> None:
    x = Var("x", TensorType((1, 4, 6, 6)))
    out = call("nn.relu", _conv_bn(x, 4, 4))
    typed = infer_type(Function((x,), out))
    fused = fuse_ops(typed, max_group_size=1)
    assert _groups(fused) == [["nn.conv2d"], ["multiply"], ["add"], ["nn.relu"]]


def test_large_constants_become_parameters_and_scalars_stay_inline() -> None:
    x = Var("x", TensorType((1, 4, 6, 6)))
    out = call(
        "clip", call("multiply", _conv_bn(x, 4, 4), const(np.float32(0.5))), a_min=0.0, a_max=6.0
    )
    fused = _fuse_and_check(Function((x,), out))
    (prim_call,) = [n for n in post_order(fused.body) if isinstance(n, Call)]
    assert isinstance(prim_call.op, Function)
    # data, conv weight, BN scale, BN shift; the 0.5 scalar stays inside.
    assert len(prim_call.op.params) == 4


def test_a_chain_whose_steps_fan_out_is_not_fused_into_exponential_recomputation() -> None:
    # Each step reads the last one's result three times (an unrolled walk that gathers a
    # node's fields): inlined as one group, step k would be computed 3**k times over.
    x = Var("x", TensorType((8,), "int64"))
    table = const(np.arange(8, dtype=np.int64)[::-1].copy())
    node: Expr = x
    for _ in range(8):
        left = call("take", table, node, axis=0)
        right = call("take", table, call("take", table, node, axis=0), axis=0)
        node = call("where", call("less", left, right), left, call("take", table, node, axis=0))
    fn = infer_type(Function((x,), node))
    fused = fuse_ops(fn)
    sizes = [len(group) for group in _groups(fused)]
    assert len(sizes) > 1 and max(sizes) < 40, sizes
    # Each group evaluates its ops at most MAX_RECOMPUTE times their number, inlined.
    feed = {"x": RNG.integers(0, 8, 8).astype(np.int64)}
    np.testing.assert_array_equal(evaluate(fused, feed), evaluate(fn, feed))


def test_a_gather_at_gathered_indices_read_twice_is_not_recomputed_inside_a_group() -> None:
    # A lookup at indices that are themselves looked up (pointer chasing) feeds two ops of
    # the same elementwise chain: inlined, both dependent loads would run twice per
    # element, so the chased gather keeps a group of its own; a gather at positions that
    # no gather computed (a resize's) may be recomputed.
    x = Var("x", TensorType((6,), "int64"))
    positions = const(np.arange(16, dtype=np.int64)[::-1].copy())
    table = const(np.linspace(-1, 1, 16, dtype=np.float32))
    chased = call("take", table, call("take", positions, x, axis=0), axis=0)
    out = call("add", chased, call("multiply", chased, const(np.float32(3.0))))
    direct = call("take", table, x, axis=0)
    out = call("add", out, call("add", direct, call("multiply", direct, const(np.float32(2.0)))))
    fn = infer_type(Function((x,), out))
    fused = fuse_ops(fn)
    feed = {"x": RNG.integers(-16, 16, 6).astype(np.int64)}
    np.testing.assert_array_equal(evaluate(fused, feed), evaluate(fn, feed))
    chased_alone, rest = _groups(fused)
    assert chased_alone == ["take", "take"]  # computed once, then read twice
    assert rest.count("take") == 1 and rest.count("multiply") == 2  # the direct lookup, inlined
