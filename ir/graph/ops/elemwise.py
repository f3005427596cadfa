"""Elementwise and broadcasting ops: activations, math functions, arithmetic, comparisons."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ir.graph.attrs import Attrs
from ir.graph.ops.common import broadcast_shapes, same_dtype, tensor_arg, tensor_args
from ir.graph.ops.registry import OpDef, OpPattern
from ir.graph.types import TensorType, Type

_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf_reference(values: np.ndarray) -> np.ndarray:
    """Elementwise erf in float64 precision, cast back to the input dtype."""
    return np.asarray(_erf(values.astype(np.float64)), dtype=values.dtype)


def _unary_relation(name: str) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        return tensor_arg(arg_types, 0, name)

    return relation


def _unary(
    name: str, fn: Callable[[np.ndarray, Attrs], np.ndarray], doc: str, **attrs: object
) -> OpDef:
    def reference(inputs: Sequence[np.ndarray], op_attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        return np.asarray(fn(data, op_attrs), dtype=data.dtype)

    return OpDef(
        name=name,
        pattern=OpPattern.ELEMWISE,
        num_inputs=1,
        attrs=attrs,
        type_relation=_unary_relation(name),
        reference=reference,
        doc=doc,
        input_names=("data",),
    )


def _gelu(data: np.ndarray, attrs: Attrs) -> np.ndarray:
    if attrs["approximate"] == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (data + 0.044715 * data**3)
        return np.asarray(0.5 * data * (1.0 + np.tanh(inner)))
    return np.asarray(0.5 * data * (1.0 + erf_reference(data / math.sqrt(2.0))))


def _sigmoid(data: np.ndarray, attrs: Attrs) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(1.0 / (1.0 + np.exp(-data)))


def _binary_relation(name: str, out_dtype: str | None) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        types = tensor_args(arg_types, name)
        dtype = same_dtype(types, name)
        shape = types[0].shape
        for ty in types[1:]:
            shape = broadcast_shapes(shape, ty.shape, name)
        return TensorType(shape, out_dtype or dtype)

    return relation


def _binary(
    name: str,
    fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    doc: str,
    out_dtype: str | None = None,
) -> OpDef:
    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        lhs, rhs = inputs
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            result = fn(lhs, rhs)
        return np.asarray(result, dtype=out_dtype or lhs.dtype)

    return OpDef(
        name=name,
        pattern=OpPattern.BROADCAST,
        num_inputs=2,
        attrs={},
        type_relation=_binary_relation(name, out_dtype),
        reference=reference,
        doc=doc,
        input_names=("lhs", "rhs"),
    )


def _divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if np.issubdtype(lhs.dtype, np.integer):
        # ONNX integer division truncates toward zero, like C.
        return np.asarray(np.trunc(np.true_divide(lhs, rhs)), dtype=lhs.dtype)
    return np.asarray(np.true_divide(lhs, rhs))


def _add_n_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    total = inputs[0]
    for value in inputs[1:]:
        total = total + value
    return np.asarray(total, dtype=inputs[0].dtype)


def _where_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    cond, lhs, rhs = tensor_args(arg_types, "where")
    if cond.dtype != "bool":
        from ir.errors import TypeInferenceError

        raise TypeInferenceError(f"where: condition must be bool, got {cond.dtype}")
    dtype = same_dtype([lhs, rhs], "where")
    shape = broadcast_shapes(broadcast_shapes(cond.shape, lhs.shape, "where"), rhs.shape, "where")
    return TensorType(shape, dtype)


def _cast_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "cast")
    return TensorType(data.shape, str(attrs["dtype"]))


OPS: tuple[OpDef, ...] = (
    _unary("nn.relu", lambda x, a: np.maximum(x, 0), "max(x, 0)"),
    _unary(
        "nn.leaky_relu",
        lambda x, a: np.where(x >= 0, x, x * a["alpha"]),
        "x if x >= 0 else alpha * x",
        alpha=0.01,
    ),
    _unary(
        "clip",
        lambda x, a: np.clip(x, a["a_min"], a["a_max"]),
        "min(max(x, a_min), a_max); relu6 is clip(0, 6)",
        a_min=-math.inf,
        a_max=math.inf,
    ),
    _unary("sigmoid", _sigmoid, "1 / (1 + exp(-x))"),
    _unary("tanh", lambda x, a: np.tanh(x), "hyperbolic tangent"),
    _unary("erf", lambda x, a: erf_reference(x), "Gauss error function"),
    _unary("nn.gelu", _gelu, "x * Phi(x), exact (erf) or tanh approximation", approximate="none"),
    _unary("exp", lambda x, a: np.exp(x), "e ** x"),
    _unary("log", lambda x, a: np.log(x), "natural logarithm"),
    _unary("sqrt", lambda x, a: np.sqrt(x), "square root"),
    _unary("rsqrt", lambda x, a: 1.0 / np.sqrt(x), "1 / sqrt(x)"),
    _unary("negative", lambda x, a: np.negative(x), "-x"),
    _unary("abs", lambda x, a: np.abs(x), "|x|"),
    _unary("reciprocal", lambda x, a: 1.0 / x, "1 / x"),
    _unary("floor", lambda x, a: np.floor(x), "round toward -inf"),
    _unary("ceil", lambda x, a: np.ceil(x), "round toward +inf"),
    _unary("copy", lambda x, a: x.copy(), "identity copy"),
    OpDef(
        name="cast",
        pattern=OpPattern.ELEMWISE,
        num_inputs=1,
        attrs={"dtype": "float32"},
        type_relation=_cast_relation,
        reference=lambda inputs, attrs: inputs[0].astype(str(attrs["dtype"])),
        flops=lambda *_: 0,
        doc="convert the element type",
        input_names=("data",),
    ),
    _binary("add", np.add, "lhs + rhs"),
    _binary("subtract", np.subtract, "lhs - rhs"),
    _binary("multiply", np.multiply, "lhs * rhs"),
    _binary("divide", _divide, "lhs / rhs (integer division truncates)"),
    _binary("power", np.power, "lhs ** rhs"),
    _binary("maximum", np.maximum, "elementwise max"),
    _binary("minimum", np.minimum, "elementwise min"),
    _binary("equal", np.equal, "lhs == rhs", out_dtype="bool"),
    _binary("less", np.less, "lhs < rhs", out_dtype="bool"),
    _binary("greater", np.greater, "lhs > rhs", out_dtype="bool"),
    OpDef(
        name="add_n",
        pattern=OpPattern.BROADCAST,
        num_inputs=None,
        attrs={},
        type_relation=_binary_relation("add_n", None),
        reference=_add_n_reference,
        flops=lambda args, out, attrs: (
            (len(args) - 1) * out.size if isinstance(out, TensorType) else 0
        ),
        doc="sum of any number of inputs, with broadcasting",
    ),
    OpDef(
        name="where",
        pattern=OpPattern.BROADCAST,
        num_inputs=3,
        attrs={},
        type_relation=_where_relation,
        reference=lambda inputs, attrs: np.where(inputs[0], inputs[1], inputs[2]).astype(
            inputs[1].dtype
        ),
        doc="select lhs where cond else rhs, with broadcasting",
        input_names=("cond", "lhs", "rhs"),
    ),
)
