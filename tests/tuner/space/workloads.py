"""The workloads the search-space tests schedule: single ops, fused model functions, and
TE programs of unusual structure.

Each is one primitive function (or TE program) with the program inputs that are constants
(weights); the model functions come from light_squeezenet, light_resnet50 and the
decoder network of tests/support/onnx_models.py after
`optimize`, with their Constant arguments as constant inputs. The TE programs put a
compute-heavy stage where no output can take it: read by a reduction, an output read by
another output, and two matrix products feeding one output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ir.frontend.onnx import from_onnx
from ir.graph.nodes import Call, Constant, Expr, Function, Var, call
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import evaluate
from ir.te.evaluate import evaluate_te
from ir.te.program import TEProgram, function_to_te
from ir.te.tensor import Tensor, compute, placeholder, reduce_axis, sum_reduce
from tests.support.onnx_models import decoder_model, load_light_model


@dataclass(frozen=True)
class Workload:
    """A primitive function (or a TE program factory) and its constant program inputs."""

    name: str
    prim: Function | None
    constants: frozenset[str]
    make_program: Callable[[], TEProgram] | None = None
    # Values the model fixes for integer program inputs (take's indices, for example).
    fixed: Mapping[str, np.ndarray] = field(default_factory=dict)

    def inputs(self, rng: np.random.Generator) -> list[np.ndarray]:
        """Program inputs to run on: the fixed ones, and random float32 data elsewhere."""
        return [
            self.fixed[tensor.name].copy()
            if tensor.name in self.fixed
            else rng.standard_normal(tensor.shape).astype(np.float32)
            for tensor in self.program().inputs
        ]

    def program(self) -> TEProgram:
        """A fresh TE program of the workload."""
        if self.make_program is not None:
            return self.make_program()
        assert self.prim is not None
        return function_to_te(self.prim)

    def reference(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """The expected outputs for the program inputs `inputs` (numpy oracle)."""
        if self.prim is None:
            outputs = self.program().outputs
            return evaluate_te(outputs, {f"p{i}": value for i, value in enumerate(inputs)})
        params = self.prim.params
        expected = evaluate(self.prim, {p.name: v for p, v in zip(params, inputs, strict=True)})
        return list(expected) if isinstance(expected, tuple) else [expected]


def _primitive(params: list[Var], body: Expr) -> Function:
    fused = fuse_ops(infer_type(Function(tuple(params), body)))
    prims = [
        node.op
        for node in post_order(fused.body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]
    assert len(prims) == 1, f"expected one fused function, got {len(prims)}"
    return prims[0]


def _var(name: str, *shape: int) -> Var:
    return Var(name, TensorType(shape, "float32"))


def _conv(stride: int, groups: int = 1, out_channels: int = 32) -> Function:
    data = _var("x", 1, 16, 14, 14)
    weight = _var("w", 16 if groups > 1 else out_channels, 16 // groups, 3, 3)
    return _primitive(
        [data, weight],
        call("nn.conv2d", data, weight, strides=(stride, stride), padding=(1, 1), groups=groups),
    )


def _blocked_conv(data_shape: tuple[int, ...], stride: int) -> Function:
    """A conv in blocked channels (as BlockChannels makes them) with a relu: `data_shape`
    is NCHW (a network's first conv) or NCHW[b]c."""
    data = _var("x", *data_shape)
    in_block = data_shape[4] if len(data_shape) == 5 else data_shape[1]
    in_blocks = data_shape[1] if len(data_shape) == 5 else 1
    weight = _var("w", 2, in_blocks, 3, 3, in_block, 16)
    conv = call("nn.conv2d_nchwc", data, weight, strides=(stride, stride), padding=(1, 1, 1, 1))
    return _primitive([data, weight], call("nn.relu", conv))


def _integer_conv(requantized: bool = False) -> Workload:
    """An 8-bit conv as RealizeQuantized and BlockChannels make it (uint8 data padded with
    its zero point, a dot-product-packed int8 weight), its int32 sum scaled to float (and,
    `requantized`, rounded and saturated back to uint8, as a QDQ model's next conv reads
    it)."""
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, (1, 2, 9, 9, 8)).astype(np.uint8)
    weight = rng.integers(-128, 128, (2, 2, 3, 3, 2, 16 * 4)).astype(np.int8)
    x = Var("x", TensorType(data.shape, "uint8"))
    w = Var("w", TensorType(weight.shape, "int8"))
    conv = call("qnn.conv2d_nchwc", x, w, padding=(1, 1, 1, 1), pad_value=131)
    scaled = call("multiply", call("cast", conv, dtype="float32"), Constant(np.float32(0.5)))
    name = "qconv2d_nchwc"
    if requantized:
        name += "_requantized"
        rounded = call("add", call("round", scaled), Constant(np.float32(7.0)))
        scaled = call("cast", call("clip", rounded, a_min=0.0, a_max=255.0), dtype="uint8")
    return Workload(
        name, _primitive([x, w], scaled), frozenset({"p1"}), fixed={"p0": data, "p1": weight}
    )


def _pool(op: str) -> Function:
    data = _var("x", 1, 8, 14, 13)
    if op == "nn.avg_pool2d":
        body = call(
            op,
            data,
            pool_size=(3, 3),
            strides=(2, 2),
            padding=(1, 1, 1, 1),
            count_include_pad=False,
        )
    else:
        body = call(op, data, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1))
    return _primitive([data], body)


def _model_function(
    model: str, wanted: str, data_rank: int | None = None, padded: bool | None = True
) -> Workload:
    """The first fused function of `model` (a light model, or "decoder") named `wanted`
    or starting with it, whose TE program pads when `padded` (does not, when False; either,
    when None) and whose first input has `data_rank` dimensions, when given (5 for
    blocked-channel data)."""
    proto = decoder_model() if model == "decoder" else load_light_model(model)
    fn = optimize(from_onnx(proto))
    for node in post_order(fn.body):
        if not (isinstance(node, Call) and isinstance(node.op, Function)):
            continue
        if not str(node.op.attrs.get("name", "")).startswith(wanted):
            continue
        program = function_to_te(node.op)
        pads = any(op.name.startswith("pad") for op in program.computes)
        if padded is not None and pads != padded:
            continue
        if data_rank is not None and program.inputs[0].ndim != data_rank:
            continue
        constants = frozenset(
            f"p{index}" for index, arg in enumerate(node.args) if isinstance(arg, Constant)
        )
        fixed = {
            f"p{index}": arg.data
            for index, arg in enumerate(node.args)
            if isinstance(arg, Constant) and np.issubdtype(arg.data.dtype, np.integer)
        }
        suffix = "" if data_rank is None else f":rank{data_rank}"
        return Workload(f"{model}:{wanted}{suffix}", node.op, constants, fixed=fixed)
    raise LookupError(f"{model} has no fused function {wanted} (padded: {padded})")


def _matmul(lhs: Tensor, rhs: Tensor, name: str) -> Tensor:
    k = reduce_axis(lhs.shape[1], "k")
    return compute(
        (lhs.shape[0], rhs.shape[1]),
        lambda i, j: sum_reduce(lhs[i, k.var] * rhs[k.var, j], k),
        name=name,
        tag="matmul",
    )


def _matmul_rowsum() -> TEProgram:
    """A matrix product read by a reduction (no output can compute it at its tiles)."""
    lhs, rhs = placeholder((24, 40), name="p0"), placeholder((40, 36), name="p1")
    product = _matmul(lhs, rhs, "matmul")
    r = reduce_axis(36, "r")
    rowsum = compute((24,), lambda i: sum_reduce(product[i, r.var], r), "rowsum", "reduce")
    return TEProgram("matmul_rowsum", (lhs, rhs), (rowsum,))


def _matmul_two_outputs() -> TEProgram:
    """A matrix product that is an output and is read by a second output."""
    lhs, rhs = placeholder((20, 12), name="p0"), placeholder((12, 36), name="p1")
    product = _matmul(lhs, rhs, "matmul")
    scaled = compute(product.shape, lambda i, j: product[i, j] * 2.0 + 1.0, "scale", "elemwise")
    return TEProgram("matmul_two_outputs", (lhs, rhs), (product, scaled))


def _two_matmuls() -> TEProgram:
    """Two matrix products added by one output: only one of them can be its anchor."""
    a, b = placeholder((16, 24), name="p0"), placeholder((24, 40), name="p1")
    c, d = placeholder((16, 8), name="p2"), placeholder((8, 40), name="p3")
    first, second = _matmul(a, b, "matmul"), _matmul(c, d, "matmul2")
    total = compute(first.shape, lambda i, j: first[i, j] + second[i, j], "add", "elemwise")
    return TEProgram("two_matmuls", (a, b, c, d), (total,))


@cache
def workloads() -> dict[str, Workload]:
    """Every workload by name (built once)."""
    lhs, rhs = _var("a", 64, 48), _var("b", 48, 80)
    dense_in, dense_weight = _var("a", 1, 96), _var("w", 40, 96)
    batch_lhs, batch_rhs = _var("a", 4, 32, 16), _var("b", 4, 16, 24)
    # Prime row counts (as ViT's 197 tokens): tail tilings on a non-vector axis.
    prime_lhs, prime_weight = _var("a", 37, 24), _var("w", 40, 24)
    prime_batch_lhs, prime_batch_rhs = _var("a", 2, 19, 8), _var("b", 2, 8, 19)
    # A right-hand side over a core's cache (1.2 MiB) whose columns leave a narrower last
    # vector tile: column panels lead the loop nest.
    wide_lhs, wide_rhs = _var("a", 16, 600), _var("b", 600, 520)
    logits = _var("x", 2, 5, 20)
    norm_in, gamma, beta = _var("x", 3, 4, 24), _var("g", 24), _var("b", 24)
    weights = frozenset({"p1"})
    items = [
        Workload("matmul", _primitive([lhs, rhs], call("nn.matmul", lhs, rhs)), weights),
        Workload(
            "dense",
            _primitive([dense_in, dense_weight], call("nn.dense", dense_in, dense_weight)),
            weights,
        ),
        Workload(
            "batch_matmul",
            _primitive([batch_lhs, batch_rhs], call("nn.batch_matmul", batch_lhs, batch_rhs)),
            frozenset(),
        ),
        Workload(
            "dense_prime_rows",
            _primitive([prime_lhs, prime_weight], call("nn.dense", prime_lhs, prime_weight)),
            weights,
        ),
        Workload(
            "matmul_wide_tail",
            _primitive([wide_lhs, wide_rhs], call("nn.matmul", wide_lhs, wide_rhs)),
            frozenset(),
        ),
        Workload(
            "batch_matmul_prime_rows",
            _primitive(
                [prime_batch_lhs, prime_batch_rhs],
                call("nn.batch_matmul", prime_batch_lhs, prime_batch_rhs),
            ),
            frozenset(),
        ),
        Workload("conv2d", _conv(1), weights),
        Workload("conv2d_stride2", _conv(2), weights),
        # 20 output channels: full vectors and a shorter last channel tile
        Workload("conv2d_channel_tail", _conv(1, out_channels=20), weights),
        Workload("depthwise_conv2d", _conv(1, groups=16), weights),
        Workload("max_pool2d", _pool("nn.max_pool2d"), frozenset()),
        Workload("avg_pool2d", _pool("nn.avg_pool2d"), frozenset()),
        Workload("softmax", _primitive([logits], call("nn.softmax", logits, axis=-1)), frozenset()),
        Workload(
            "cumsum",
            _primitive([logits], call("cumsum", logits, axis=2, exclusive=True)),
            frozenset(),
        ),
        Workload(
            "layer_norm",
            _primitive([norm_in, gamma, beta], call("nn.layer_norm", norm_in, gamma, beta)),
            frozenset(),
        ),
        Workload("conv2d_nchwc", _blocked_conv((1, 2, 10, 10, 8), 1), weights),
        Workload("conv2d_nchwc_from_nchw", _blocked_conv((1, 3, 13, 13), 2), weights),
        _integer_conv(),
        _integer_conv(requantized=True),
        _model_function("light_squeezenet", "fused_nn_conv2d_nchwc_add_nn_relu", data_rank=5),
        _model_function("light_resnet50", "fused_nn_max_pool2d"),
        # A transposed conv's phase conv, its input padding fused into a norm's tail, the
        # interleaving of its phases (with a resized skip input), and a linear resize of a
        # depth-to-space.
        _model_function("decoder", "fused_nn_conv2d", padded=False),
        _model_function("decoder", "fused_reshape_multiply_add_nn_mish"),
        _model_function("decoder", "fused_reshape_transpose_reshape_nn_pad_add_take"),
        _model_function("decoder", "fused_reshape_transpose_reshape_take", padded=False),
        Workload("te:matmul_rowsum", None, weights, _matmul_rowsum),
        Workload("te:matmul_two_outputs", None, weights, _matmul_two_outputs),
        Workload("te:two_matmuls", None, frozenset({"p1", "p3"}), _two_matmuls),
    ]
    return {item.name: item for item in items}
