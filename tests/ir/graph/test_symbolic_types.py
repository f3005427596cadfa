"""Symbolic dims in the graph IR: tensor types with size variables, relations that carry
them through elementwise and broadcast ops, FuseOps and TE, and one kernel compiled from
the fused function that runs every size; ops without a symbolic relation refuse them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codegen.executor import compile_model
from codegen.llvm import compile_kernel
from codegen.llvm.jit import CompiledKernel
from ir.errors import TypeInferenceError
from ir.graph.nodes import Call, Constant, Function, TupleGetItem, Var, call
from ir.graph.ops.te_common import type_dims
from ir.graph.passes.fold_constant import fold_constant
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.shape_values import shape_value
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, type_to_json
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.te.program import function_to_te
from ir.tir.expr import IntImm, PrimExpr
from ir.tir.expr import Var as SizeVar
from ir.tir.simplify import simplify
from ir.tir.visit import substitute

N, M = SizeVar("n"), SizeVar("m")
RNG = np.random.default_rng(11)


def _rows(width: int, upper: int = 128, size: SizeVar = N) -> TensorType:
    return TensorType((upper, width), "float32", (size, IntImm(width)))


def _bias_relu() -> Function:
    x = Var("x", _rows(64))
    b = Var("b", TensorType((64,), "float32"))
    body = call("multiply", call("nn.relu", call("add", x, b)), call("sigmoid", x))
    return infer_type(Function((x, b), body))


def _one_kernel(fn: Function) -> CompiledKernel:
    """The kernel of `fn` fused into one primitive function, with its default schedule."""
    (prim,) = [
        node.op
        for node in post_order(fuse_ops(fn).body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]
    return compile_kernel(lower(default_schedule(function_to_te(prim))))


def test_elementwise_and_broadcast_ops_carry_symbolic_dims() -> None:
    fn = _bias_relu()
    out = fn.body.checked_type
    assert isinstance(out, TensorType)
    assert str(out) == "Tensor[(n, 64), float32]"
    assert out.shape == (128, 64)  # the upper bounds
    assert type_to_json(out) == {"shape": [128, 64], "dims": ["n", "64"], "dtype": "float32"}


def test_a_fused_function_compiles_to_one_kernel_for_every_size() -> None:
    kernel = _one_kernel(_bias_relu())
    assert [var.name for var in kernel.func.size_params] == ["n"]
    rng = np.random.default_rng(3)
    bias = rng.standard_normal(64, dtype=np.float32)
    for rows in (1, 5, 64, 128):
        x = rng.standard_normal((rows, 64), dtype=np.float32)
        out = np.full((rows, 64), np.nan, np.float32)
        kernel(x, bias, out)
        expected = np.maximum(x + bias, 0) * (1 / (1 + np.exp(-x)))
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_an_op_without_a_symbolic_relation_refuses_symbolic_dims_by_name() -> None:
    weight = Var("w", TensorType((4, 8, 16), "float32"))
    rows_type = TensorType((4, 32, 8), "float32", (N, *map(IntImm, (32, 8))))
    rows = Var("rows", rows_type)
    with pytest.raises(TypeInferenceError, match=r"nn.batch_matmul does not take symbolic dims"):
        infer_type(Function((rows, weight), call("nn.batch_matmul", rows, weight)))


def test_operands_whose_dims_differ_are_refused() -> None:
    x, y = Var("x", _rows(64)), Var("y", _rows(64, size=M))
    with pytest.raises(TypeInferenceError, match="dim 0 is n in one operand but m in another"):
        infer_type(Function((x, y), call("add", x, y)))
    z = Var("z", TensorType((128, 64), "float32"))
    with pytest.raises(TypeInferenceError, match="dim 0 is n in one operand but 128 in another"):
        infer_type(Function((x, z), call("add", x, z)))


def test_a_symbolic_type_must_fit_its_shape() -> None:
    with pytest.raises(TypeError, match="do not fit shape"):
        TensorType((128, 64), "float32", (N,))


def test_a_dense_layer_over_symbolic_rows_compiles_to_one_kernel() -> None:
    """[batch x sequence, 96] x [80, 96]^T with a bias and GELU-like epilogue, the rows
    symbolic: a transformer's projection, fused and compiled once."""
    x = Var("x", TensorType((4, 64, 96), "float32", (N, M, IntImm(96))))
    w = Var("w", TensorType((80, 96), "float32"))
    b = Var("b", TensorType((80,), "float32"))
    body = call("tanh", call("add", call("nn.dense", x, w), b))
    fn = infer_type(Function((x, w, b), body))
    assert str(fn.body.checked_type) == "Tensor[(n, m, 80), float32]"
    kernel = _one_kernel(fn)
    rng = np.random.default_rng(5)
    weight = rng.standard_normal((80, 96), dtype=np.float32)
    bias = rng.standard_normal(80, dtype=np.float32)
    for batch, length in ((1, 1), (2, 17), (4, 64), (3, 5)):
        data = rng.standard_normal((batch, length, 96), dtype=np.float32)
        out = np.full((batch, length, 80), np.nan, np.float32)
        kernel(data, weight, bias, out)
        np.testing.assert_allclose(out, np.tanh(data @ weight.T + bias), rtol=1e-4, atol=1e-5)


def test_dense_refuses_a_symbolic_weight_or_reduction() -> None:
    x = Var("x", TensorType((128, 96), "float32", (N, IntImm(96))))
    w = Var("w", TensorType((80, 96), "float32", (M, IntImm(96))))
    with pytest.raises(TypeInferenceError, match="operand 1 is Tensor\\[\\(m, 96\\), float32\\]"):
        infer_type(Function((x, w), call("nn.dense", x, w)))


@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_over_a_symbolic_axis_or_beside_one(axis: int) -> None:
    """Attention probabilities [b, heads, s, s] over the keys (a symbolic reduction), and
    a softmax over the static heads axis with symbolic rows around it."""
    ty = TensorType((2, 4, 40, 40), "float32", (N, IntImm(4), M, M))
    x = Var("x", ty)
    fn = infer_type(Function((x,), call("nn.softmax", x, axis=axis)))
    assert str(fn.body.checked_type) == "Tensor[(n, 4, m, m), float32]"
    kernel = _one_kernel(fn)
    rng = np.random.default_rng(9)
    for batch, length in ((1, 1), (2, 17), (1, 40)):
        data = rng.standard_normal((batch, 4, length, length), dtype=np.float32)
        out = np.full(data.shape, np.nan, np.float32)
        kernel(data, out)
        e = np.exp(data - data.max(axis=axis, keepdims=True))
        np.testing.assert_allclose(out, e / e.sum(axis=axis, keepdims=True), rtol=1e-5, atol=1e-6)


def _compile_fused(fn: Function) -> tuple[Function, dict[int, CompiledKernel]]:
    """The fused `fn` and the symbolic kernel of each of its primitive functions."""
    fused = fuse_ops(infer_type(fn))
    kernels = {
        id(node.op): compile_kernel(lower(default_schedule(function_to_te(node.op))))
        for node in post_order(fused.body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    }
    return fused, kernels


def _run_fused(
    fused: Function,
    kernels: dict[int, CompiledKernel],
    feeds: dict[str, np.ndarray],
    sizes: dict[str, int],
) -> np.ndarray:
    """Run the fused function call by call, each output allocated at its dims' sizes."""
    values: dict[int, np.ndarray] = {}
    for node in post_order(fused.body):
        if isinstance(node, Var):
            values[id(node)] = feeds[node.name]
        elif isinstance(node, Constant):
            values[id(node)] = np.asarray(node.data)
        elif isinstance(node, Call) and isinstance(node.op, Function):
            ty = node.checked_type
            assert isinstance(ty, TensorType)
            shape = tuple(_size(dim, sizes) for dim in type_dims(ty))
            out = np.full(shape, np.nan, np.float32)
            kernels[id(node.op)](*(values[id(arg)] for arg in node.args), out)
            values[id(node)] = out
    return values[id(fused.body)]


def _size(dim: PrimExpr, sizes: dict[str, int]) -> int:
    """The value of the dim expression `dim` with size variables of these values."""
    bound = {var: IntImm(sizes[var.name]) for var in (N, M) if var.name in sizes}
    value = simplify(substitute(dim, bound))
    assert isinstance(value, IntImm), f"{dim} is not bound by {sizes}"
    return value.value


def test_an_attention_block_over_symbolic_batch_and_sequence() -> None:
    """softmax(q @ k^T * scale + mask) @ v with q, k, v [b, heads, s, d] and a mask
    [b, 1, 1, s]: every fused function compiles once and the chain matches numpy at
    several batch sizes and lengths."""
    dims = (N, IntImm(2), M, IntImm(16))
    q, k, v = (Var(name, TensorType((2, 2, 48, 16), "float32", dims)) for name in "qkv")
    mask = Var("mask", TensorType((2, 1, 1, 48), "float32", (N, IntImm(1), IntImm(1), M)))
    scale = Var("scale", TensorType((), "float32"))
    scores = call("nn.matmul", q, call("transpose", k, axes=(0, 1, 3, 2)))
    probs = call("nn.softmax", call("add", call("multiply", scores, scale), mask), axis=-1)
    fn = Function((q, k, v, mask, scale), call("nn.matmul", probs, v))
    assert str(infer_type(fn).body.checked_type) == "Tensor[(n, 2, m, 16), float32]"
    fused, kernels = _compile_fused(fn)
    rng = np.random.default_rng(11)
    for batch, length in ((1, 1), (2, 17), (1, 48)):
        shape = (batch, 2, length, 16)
        feeds = {name: rng.standard_normal(shape, dtype=np.float32) for name in "qkv"}
        feeds["mask"] = rng.standard_normal((batch, 1, 1, length), dtype=np.float32)
        feeds["scale"] = np.array(0.25, np.float32)
        out = _run_fused(fused, kernels, feeds, {"n": batch, "m": length})
        logits = feeds["q"] @ feeds["k"].transpose(0, 1, 3, 2) * 0.25 + feeds["mask"]
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        expected = (e / e.sum(axis=-1, keepdims=True)) @ feeds["v"]
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_a_transformer_layer_tail_over_symbolic_rows() -> None:
    """layer_norm(x + tanh(dense(x) + bias)) over [b, s, 32]: a residual block's tail."""
    x = Var("x", TensorType((3, 40, 32), "float32", (N, M, IntImm(32))))
    w = Var("w", TensorType((32, 32), "float32"))
    b, gamma, beta = (Var(name, TensorType((32,), "float32")) for name in ("b", "g", "beta"))
    hidden = call("tanh", call("add", call("nn.dense", x, w), b))
    fn = Function(
        (x, w, b, gamma, beta), call("nn.layer_norm", call("add", x, hidden), gamma, beta, axis=-1)
    )
    fused, kernels = _compile_fused(fn)
    rng = np.random.default_rng(13)
    params = {
        name: rng.standard_normal(shape, dtype=np.float32)
        for name, shape in (("w", (32, 32)), ("b", (32,)), ("g", (32,)), ("beta", (32,)))
    }
    for batch, length in ((1, 1), (3, 40), (2, 9)):
        data = rng.standard_normal((batch, length, 32), dtype=np.float32)
        out = _run_fused(fused, kernels, {"x": data, **params}, {"n": batch, "m": length})
        residual = data + np.tanh(data @ params["w"].T + params["b"])
        mean = residual.mean(axis=-1, keepdims=True)
        var = residual.var(axis=-1, keepdims=True)
        expected = (residual - mean) / np.sqrt(var + 1e-5) * params["g"] + params["beta"]
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_layer_norm_refuses_symbolic_normalised_dims() -> None:
    x = Var("x", TensorType((3, 40), "float32", (N, M)))
    gamma, beta = (Var(name, TensorType((40,), "float32")) for name in ("g", "b"))
    with pytest.raises(
        TypeInferenceError, match=r"the normalised dims \(from axis 1\) must be static"
    ):
        infer_type(Function((x, gamma, beta), call("nn.layer_norm", x, gamma, beta, axis=-1)))


@pytest.mark.parametrize(
    ("op", "axis", "keepdims"),
    [
        ("sum", (1,), False),  # over the symbolic sequence
        ("mean", (1,), True),  # (a pooled embedding: the mean of the tokens)
        ("max", (1, 2), False),
        ("min", (2,), True),  # over the static axis, symbolic rows kept
        ("mean", (0, 1), False),  # over both symbolic axes: a run-time count
        ("prod", None, True),
    ],
)
def test_reductions_over_and_beside_symbolic_axes(
    op: str, axis: tuple[int, ...] | None, keepdims: bool
) -> None:
    x = Var("x", TensorType((3, 40, 8), "float32", (N, M, IntImm(8))))
    fn = Function((x,), call("nn.relu", call(op, x, axis=axis, keepdims=keepdims)))
    fused, kernels = _compile_fused(fn)
    reference: dict[str, Callable[..., np.ndarray]] = {
        "sum": np.sum,
        "mean": np.mean,
        "max": np.max,
        "min": np.min,
        "prod": np.prod,
    }
    rng = np.random.default_rng(17)
    for batch, length in ((1, 1), (3, 40), (2, 9)):
        data = rng.uniform(0.5, 1.5, (batch, length, 8)).astype(np.float32)
        out = _run_fused(fused, kernels, {"x": data}, {"n": batch, "m": length})
        expected = np.maximum(reference[op](data, axis=axis, keepdims=keepdims), 0)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_an_integer_mean_over_a_symbolic_axis_truncates_by_the_run_time_count() -> None:
    x = Var("x", TensorType((4, 6), "int32", (N, IntImm(6))))
    fn = infer_type(Function((x,), call("mean", x, axis=(0,))))
    assert str(fn.body.checked_type) == "Tensor[(6), int32]"
    kernel = _one_kernel(fn)
    for rows in (1, 3, 4):
        data = np.arange(-7, -7 + rows * 6, dtype=np.int32).reshape(rows, 6)
        out = np.zeros(6, np.int32)
        kernel(data, out)
        np.testing.assert_array_equal(out, np.trunc(data.sum(axis=0) / rows).astype(np.int32))


def test_an_embedding_lookup_of_symbolic_token_ids() -> None:
    """layer_norm(table[ids] + position) with ids [b, s]: a transformer's input."""
    ids = Var("ids", TensorType((2, 24), "int64", (N, M)))
    table = Var("table", TensorType((50, 16), "float32"))
    position = Var("position", TensorType((24, 16), "float32", (M, IntImm(16))))
    gamma, beta = (Var(name, TensorType((16,), "float32")) for name in ("g", "b"))
    embedded = call("add", call("take", table, ids, axis=0), position)
    fn = Function(
        (ids, table, position, gamma, beta),
        call("nn.layer_norm", embedded, gamma, beta, axis=-1),
    )
    assert str(infer_type(fn).body.checked_type) == "Tensor[(n, m, 16), float32]"
    fused, kernels = _compile_fused(fn)
    rng = np.random.default_rng(19)
    params = {
        "table": rng.standard_normal((50, 16), dtype=np.float32),
        "g": rng.standard_normal(16, dtype=np.float32),
        "b": rng.standard_normal(16, dtype=np.float32),
    }
    for batch, length in ((1, 1), (2, 24), (2, 7)):
        feeds: dict[str, np.ndarray] = {
            "ids": rng.integers(-50, 50, (batch, length)),
            "position": rng.standard_normal((length, 16), dtype=np.float32),
            **params,
        }
        out = _run_fused(fused, kernels, feeds, {"n": batch, "m": length})
        x = params["table"][feeds["ids"] % 50] + feeds["position"]
        mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
        expected = (x - mean) / np.sqrt(var + 1e-5) * params["g"] + params["b"]
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_take_on_a_symbolic_axis_wraps_and_clamps_indices_at_its_run_time_extent() -> None:
    data = Var("data", TensorType((40, 8), "float32", (N, IntImm(8))))
    ids = Var("ids", TensorType((4,), "int64"))
    fn = infer_type(Function((data, ids), call("take", data, ids, axis=0)))
    assert str(fn.ret_type) == "Tensor[(4, 8), float32]"
    compiled = compile_model(optimize(fn))
    rows = np.arange(5 * 8, dtype=np.float32).reshape(5, 8)
    got = compiled.run({"data": rows, "ids": np.array([0, 4, -1, 9], np.int64)})
    # -1 counts from the run-time end (row 4), 9 is clamped to it, not read past it.
    np.testing.assert_array_equal(got, rows[[0, 4, 4, 4]])


def test_cast_where_and_add_n_carry_symbolic_dims() -> None:
    """A padding mask [b, s] of 0/1 token flags turned into additive logits: where(cast(
    mask, bool), x, -1e4) summed with two more terms by add_n."""
    mask = Var("mask", TensorType((2, 24), "int64", (N, M)))
    x, y = (Var(name, TensorType((2, 24), "float32", (N, M))) for name in "xy")
    bias = Var("bias", TensorType((24,), "float32", (M,)))
    masked = call(
        "where", call("cast", mask, dtype="bool"), x, Constant(np.array(-1e4, np.float32))
    )
    fn = Function((mask, x, y, bias), call("add_n", masked, y, bias))
    assert str(infer_type(fn).body.checked_type) == "Tensor[(n, m), float32]"
    fused, kernels = _compile_fused(fn)
    rng = np.random.default_rng(23)
    for batch, length in ((1, 1), (2, 24), (2, 5)):
        feeds: dict[str, np.ndarray] = {
            "mask": rng.integers(0, 2, (batch, length)),
            "x": rng.standard_normal((batch, length), dtype=np.float32),
            "y": rng.standard_normal((batch, length), dtype=np.float32),
            "bias": rng.standard_normal(length, dtype=np.float32),
        }
        out = _run_fused(fused, kernels, feeds, {"n": batch, "m": length})
        expected = np.where(feeds["mask"] != 0, feeds["x"], -1e4) + feeds["y"] + feeds["bias"]
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_a_key_cache_grows_by_concatenation_along_a_symbolic_axis() -> None:
    """softmax over concatenate([past, new], axis=2): [b, 2, m, 8] and [b, 2, 1, 8] make
    [b, 2, m + 1, 8], one kernel for every cache length."""
    past = Var("past", TensorType((2, 2, 30, 8), "float32", (N, IntImm(2), M, IntImm(8))))
    new = Var("new", TensorType((2, 2, 1, 8), "float32", (N, IntImm(2), IntImm(1), IntImm(8))))
    keys = call("concatenate", past, new, axis=2)
    fn = Function((past, new), call("nn.softmax", keys, axis=2))
    assert str(infer_type(fn).body.checked_type) == "Tensor[(n, 2, (m + 1), 8), float32]"
    fused, kernels = _compile_fused(fn)
    rng = np.random.default_rng(29)
    for batch, length in ((1, 1), (2, 30), (2, 11)):
        feeds = {
            "past": rng.standard_normal((batch, 2, length, 8), dtype=np.float32),
            "new": rng.standard_normal((batch, 2, 1, 8), dtype=np.float32),
        }
        out = _run_fused(fused, kernels, feeds, {"n": batch, "m": length})
        joined = np.concatenate([feeds["past"], feeds["new"]], axis=2)
        e = np.exp(joined - joined.max(axis=2, keepdims=True))
        np.testing.assert_allclose(out, e / e.sum(axis=2, keepdims=True), rtol=1e-5, atol=1e-6)


def test_concatenate_refuses_inputs_whose_other_dims_differ() -> None:
    x = Var("x", TensorType((4, 8), "float32", (N, IntImm(8))))
    y = Var("y", TensorType((4, 8), "float32", (M, IntImm(8))))
    with pytest.raises(TypeInferenceError, match="dim 0 is n in input 0 but m in input 1"):
        infer_type(Function((x, y), call("concatenate", x, y, axis=1)))


def _reshaped(newshape: tuple[object, ...], width: int = 6) -> Function:
    x = Var("x", _rows(width, upper=8))
    return infer_type(Function((x,), call("nn.relu", call("reshape", x, newshape=newshape))))


def test_a_reshape_of_symbolic_data_infers_its_minus_one_as_an_expression() -> None:
    fn = _reshaped((-1,))
    assert str(fn.ret_type) == "Tensor[((n * 6)), float32]"
    compiled = compile_model(optimize(fn))
    for rows in (1, 5, 8):
        x = np.arange(rows * 6, dtype=np.float32).reshape(rows, 6) - 10
        np.testing.assert_array_equal(compiled.run({"x": x}), np.maximum(x.reshape(-1), 0))


def test_a_symbolic_reshape_target_splits_and_merges_dims_at_run_time() -> None:
    split = _reshaped((("n", 8), 2, 3))
    assert str(split.ret_type) == "Tensor[(n, 2, 3), float32]"
    x = Var("x", TensorType((8, 2, 3), "float32", (N, IntImm(2), IntImm(3))))
    merged = infer_type(Function((x,), call("reshape", x, newshape=(("(n * 2)", 16), 3))))
    assert str(merged.ret_type) == "Tensor[((n * 2), 3), float32]"
    split_model, merge_model = compile_model(optimize(split)), compile_model(optimize(merged))
    for rows in (1, 7):
        data = np.arange(rows * 6, dtype=np.float32) - 5
        got = split_model.run({"x": data.reshape(rows, 6)})
        np.testing.assert_array_equal(got, np.maximum(data.reshape(rows, 2, 3), 0))
        got = merge_model.run({"x": data.reshape(rows, 2, 3)})
        np.testing.assert_array_equal(got, data.reshape(rows * 2, 3))


@pytest.mark.parametrize(
    ("newshape", "message"),
    [
        ((("n", 8), 4), r"cannot show that \[n, 4\] holds as many elements"),
        ((("n + ", 8), 6), r"dim 'n \+ ': expected more"),
        ((("n", 8), -1), "must spell every other entry as a size"),
    ],
)
def test_a_symbolic_reshape_that_cannot_hold_is_refused(
    newshape: tuple[object, ...], message: str
) -> None:
    with pytest.raises(TypeInferenceError, match=message):
        _reshaped(newshape)


def test_the_shape_of_a_symbolic_tensor_stays_a_run_time_value_known_as_dims() -> None:
    x = Var("x", TensorType((8, 128, 4), "float32", (N, M, IntImm(4))))
    shape = call("shape_of", x)
    rows = call("multiply", call("take", shape, Constant(np.array([0, 1]))), Constant(np.int64(2)))
    fn = infer_type(Function((x,), call("concatenate", rows, Constant(np.array([4])), axis=0)))
    folded = fold_constant(fn)
    assert not isinstance(folded.body, Constant)
    assert shape_value(folded.body) == (simplify(N * 2), simplify(M * 2), IntImm(4))
    compiled = compile_model(optimize(fn))
    np.testing.assert_array_equal(compiled.run({"x": np.zeros((3, 5, 4), np.float32)}), [6, 10, 4])


def _run_symbolic(fn: Function, feeds: dict[str, np.ndarray]) -> np.ndarray:
    result: np.ndarray = compile_model(optimize(infer_type(fn))).run(feeds)
    return result


def test_a_slice_to_a_symbolic_end_takes_that_many_of_a_constant_buffer() -> None:
    """As an export takes position ids: buffer[:, :seq] of a [1, max_positions] buffer."""
    positions = Constant(np.arange(64, dtype=np.float32).reshape(1, 64))
    x = Var("x", TensorType((16, 4), "float32", (N, IntImm(4))))
    taken = call("strided_slice", positions, begin=(0,), end=(("n", 16),), axes=(1,))
    column = call("transpose", taken, axes=(1, 0))
    fn = infer_type(Function((x,), call("add", column, x)))
    assert str(fn.ret_type) == "Tensor[(n, 4), float32]"
    for rows in (1, 5, 16):
        data = RNG.standard_normal((rows, 4)).astype(np.float32)
        got = _run_symbolic(fn, {"x": data})
        np.testing.assert_allclose(got, np.arange(rows, dtype=np.float32)[:, None] + data)


def test_slices_of_a_symbolic_axis_clamp_at_its_run_time_extent() -> None:
    x = Var("x", TensorType((16, 8), "float32", (N, IntImm(8))))
    last_row = call("strided_slice", x, begin=(-1,), end=(2**63 - 1,), axes=(0,))
    all_but_first = call("strided_slice", x, begin=(1,), end=(2**63 - 1,), axes=(0,))
    fn = infer_type(Function((x,), call("add", last_row, call("sum", all_but_first, axis=(0,)))))
    assert str(fn.ret_type) == "Tensor[(1, 8), float32]"
    for rows in (1, 2, 9):
        data = RNG.standard_normal((rows, 8)).astype(np.float32)
        got = _run_symbolic(fn, {"x": data})
        np.testing.assert_allclose(got, data[-1:] + data[1:].sum(0), rtol=1e-5, atol=1e-5)


def test_arange_to_a_symbolic_stop_and_an_expand_to_symbolic_dims() -> None:
    x = Var("x", TensorType((16, 3), "float32", (N, IntImm(3))))
    positions = call("arange", start=0, stop=("n", 16), step=1, dtype="float32")
    column = call("expand_dims", positions, axes=(1,))
    spread = call("broadcast_to", column, shape=(("n", 16), 3))
    fn = infer_type(Function((x,), call("multiply", spread, x)))
    assert str(fn.ret_type) == "Tensor[(n, 3), float32]"
    for rows in (1, 6, 16):
        data = RNG.standard_normal((rows, 3)).astype(np.float32)
        got = _run_symbolic(fn, {"x": data})
        np.testing.assert_allclose(got, np.arange(rows, dtype=np.float32)[:, None] * data)


def test_flatten_squeeze_split_and_gather_elements_carry_symbolic_dims() -> None:
    x = Var("x", TensorType((16, 2, 1, 3), "float32", (N, IntImm(2), IntImm(1), IntImm(3))))
    ids = Var("ids", TensorType((16, 6), "int64", (N, IntImm(6))))
    flat = call("flatten", call("squeeze", x, axis=(2,)), axis=1)
    parts = call("split", flat, indices_or_sections=(2,), axis=1)
    left, right = (TupleGetItem(parts, index) for index in (0, 1))
    gathered = call("gather_elements", flat, ids, axis=1)
    body = call("concatenate", left, right, gathered, axis=1)
    fn = infer_type(Function((x, ids), body))
    assert str(fn.ret_type) == "Tensor[(n, 12), float32]"
    for rows in (1, 5):
        data = RNG.standard_normal((rows, 2, 1, 3)).astype(np.float32)
        picks = RNG.integers(0, 6, (rows, 6))
        got = _run_symbolic(fn, {"x": data, "ids": picks})
        flat_data = data.reshape(rows, 6)
        expected = np.concatenate([flat_data, np.take_along_axis(flat_data, picks, 1)], axis=1)
        np.testing.assert_array_equal(got, expected)


_ENDS = st.one_of(st.integers(-6, 6), st.just(2**63 - 1))


@settings(max_examples=20, deadline=None)
@given(
    begin=st.integers(-6, 6), end=_ENDS, sizes=st.lists(st.integers(1, 12), min_size=1, max_size=3)
)
def test_a_slice_of_a_symbolic_axis_is_numpy_s_at_every_size(
    begin: int, end: int, sizes: list[int]
) -> None:
    """ONNX Slice semantics (negative bounds from the end, clamping, INT_MAX to the end)
    with the extent known only at run time: one kernel, numpy's slice at every size. (A
    slice empty at every size is a zero-size tensor, which kernels do not take.)"""
    assume(any(len(range(rows)[begin:end]) for rows in range(1, 13)))
    x = Var("x", TensorType((12, 3), "float32", (N, IntImm(3))))
    body = call(
        "add",
        call("strided_slice", x, begin=(begin,), end=(end,), axes=(0,)),
        Constant(np.float32(1)),
    )
    compiled = compile_model(optimize(infer_type(Function((x,), body))))
    for rows in sizes:
        data = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        np.testing.assert_array_equal(compiled.run({"x": data}), data[begin:end] + 1)
