"""Elementwise and broadcasting ops: activations, math functions, arithmetic, comparisons."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.ops.common import broadcast_shapes, same_dtype, tensor_arg, tensor_args
from ir.graph.ops.registry import OpDef, OpPattern
from ir.graph.ops.te_common import (
    broadcast_dims,
    float_math,
    map_compute,
    stage_name,
    trunc_div,
)
from ir.graph.types import TensorType, Type, normalize_dtype
from ir.te.tensor import ComputeOp, Tensor
from ir.tir.expr import (
    FloatImm,
    PrimExpr,
    TensorRead,
    cast,
    const,
    eq,
    intrinsic,
    is_float,
    logical_and,
    logical_or,
    maximum,
    minimum,
    ne,
    reinterpret,
    select,
    zero,
)

ScalarFn = Callable[[PrimExpr, Attrs], PrimExpr]

_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf_reference(values: np.ndarray) -> np.ndarray:
    """Elementwise erf in float64 precision, cast back to the input dtype."""
    return np.asarray(_erf(values.astype(np.float64)), dtype=values.dtype)


def _unary_relation(name: str) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        return tensor_arg(arg_types, 0, name)

    return relation


def _unary(
    name: str,
    fn: Callable[[np.ndarray, Attrs], np.ndarray],
    scalar: ScalarFn,
    doc: str,
    **attrs: object,
) -> OpDef:
    def reference(inputs: Sequence[np.ndarray], op_attrs: Attrs) -> np.ndarray:
        data = inputs[0]
        return np.asarray(fn(data, op_attrs), dtype=data.dtype)

    def te_compute(inputs: Sequence[Tensor], op_attrs: Attrs, out_type: Type) -> Tensor:
        return map_compute(
            inputs, out_type, lambda x: scalar(x, op_attrs), stage_name(name), "elemwise"
        )

    return OpDef(
        name=name,
        pattern=OpPattern.ELEMWISE,
        num_inputs=1,
        attrs=attrs,
        type_relation=_unary_relation(name),
        reference=reference,
        te_compute=te_compute,
        doc=doc,
        input_names=("data",),
        symbolic_relation=broadcast_dims,
    )


def _math(name: str) -> ScalarFn:
    """A float intrinsic (integers go through float64 and truncate back, as numpy does)."""
    return lambda x, attrs: float_math(x, lambda value: intrinsic(name, value))


def _clip_scalar(x: PrimExpr, attrs: Attrs) -> PrimExpr:
    def clip(value: PrimExpr) -> PrimExpr:
        low = const(float(attrs["a_min"]), value.dtype)
        high = const(float(attrs["a_max"]), value.dtype)
        return minimum(maximum(value, low), high)

    return float_math(x, clip)


def _gelu_scalar(x: PrimExpr, attrs: Attrs) -> PrimExpr:
    def gelu(value: PrimExpr) -> PrimExpr:
        if attrs["approximate"] == "tanh":
            cubic = value + 0.044715 * (value * value * value)
            inner = math.sqrt(2.0 / math.pi) * cubic
            return 0.5 * value * (1.0 + intrinsic("tanh", inner))
        return 0.5 * value * (1.0 + intrinsic("erf", value / math.sqrt(2.0)))

    return float_math(x, gelu)


def _abs_te(value: PrimExpr) -> PrimExpr:
    if value.dtype.startswith("float"):
        return intrinsic("fabs", value)
    return select(value < 0, zero(value.dtype) - value, value)


def _gelu(data: np.ndarray, attrs: Attrs) -> np.ndarray:
    if attrs["approximate"] == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (data + 0.044715 * data**3)
        return np.asarray(0.5 * data * (1.0 + np.tanh(inner)))
    return np.asarray(0.5 * data * (1.0 + erf_reference(data / math.sqrt(2.0))))


def _sigmoid(data: np.ndarray, attrs: Attrs) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(1.0 / (1.0 + np.exp(-data)))


def _elu_te(value: PrimExpr, alpha: float) -> PrimExpr:
    return select(value > 0, value, alpha * (intrinsic("exp", value) - 1.0))


def _elu(data: np.ndarray, alpha: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(np.where(data > 0, data, alpha * np.expm1(np.minimum(data, 0))))


def _softplus_te(value: PrimExpr) -> PrimExpr:
    # max(x, 0) + log(1 + exp(-|x|)) never overflows, unlike log(1 + exp(x)).
    magnitude = intrinsic("fabs", value)
    return maximum(value, const(0, value.dtype)) + intrinsic(
        "log", 1.0 + intrinsic("exp", zero(value.dtype) - magnitude)
    )


def _softplus(data: np.ndarray) -> np.ndarray:
    return np.asarray(np.maximum(data, 0) + np.log1p(np.exp(-np.abs(data))))


def _sign_te(value: PrimExpr) -> PrimExpr:
    one, zero_value = const(1, value.dtype), zero(value.dtype)
    negative_one = zero_value - one
    return select(value > zero_value, one, select(value < zero_value, negative_one, zero_value))


def _floor_mod_te(lhs: PrimExpr, rhs: PrimExpr) -> PrimExpr:
    if not is_float(lhs.dtype):
        return lhs % rhs
    remainder = lhs - intrinsic("floor", lhs / rhs) * rhs
    # The rounded quotient can land on the next integer: move the remainder back into
    # the divisor's half-open range [0, rhs) (or (rhs, 0] for a negative divisor).
    outside = logical_and(ne(remainder, zero(lhs.dtype)), ne(remainder < 0, rhs < 0))
    wrapped = select(outside, remainder + rhs, remainder)
    # An infinite divisor leaves a finite lhs of its sign (or zero) as it is and takes any
    # other to the divisor, as Python's and numpy's mod do (the formula gives 0 * inf).
    infinity = const(math.inf, lhs.dtype)
    infinite_divisor = logical_and(
        eq(intrinsic("fabs", rhs), infinity), intrinsic("fabs", lhs) < infinity
    )
    keeps_lhs = logical_or(eq(lhs, zero(lhs.dtype)), eq(lhs < 0, rhs < 0))
    return select(infinite_divisor, select(keeps_lhs, lhs, rhs), wrapped)


def _trunc_mod_te(lhs: PrimExpr, rhs: PrimExpr) -> PrimExpr:
    if not is_float(lhs.dtype):
        return lhs - trunc_div(lhs, rhs) * rhs
    remainder = lhs - intrinsic("trunc", lhs / rhs) * rhs
    # C's fmod: the remainder takes the dividend's sign.
    magnitude = intrinsic("fabs", rhs)
    too_low = logical_and(lhs >= 0, remainder < 0)
    too_high = logical_and(lhs < 0, remainder > 0)
    return select(
        too_low, remainder + magnitude, select(too_high, remainder - magnitude, remainder)
    )


def _bool_binary(name: str) -> Callable[[PrimExpr, PrimExpr], PrimExpr]:
    if name == "and":
        return lambda a, b: select(a, b, const(False, "bool"))
    if name == "or":
        return lambda a, b: select(a, const(True, "bool"), b)
    return ne


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
    scalar: Callable[[PrimExpr, PrimExpr], PrimExpr],
    doc: str,
    out_dtype: str | None = None,
) -> OpDef:
    def reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        lhs, rhs = inputs
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            result = fn(lhs, rhs)
        return np.asarray(result, dtype=out_dtype or lhs.dtype)

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        return map_compute(inputs, out_type, scalar, name, "broadcast")

    return OpDef(
        name=name,
        pattern=OpPattern.BROADCAST,
        num_inputs=2,
        attrs={},
        type_relation=_binary_relation(name, out_dtype),
        reference=reference,
        te_compute=te_compute,
        doc=doc,
        input_names=("lhs", "rhs"),
        symbolic_relation=broadcast_dims,
    )


def _divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if np.issubdtype(lhs.dtype, np.integer):
        # ONNX integer division truncates toward zero, like C.
        return np.asarray(np.trunc(np.true_divide(lhs, rhs)), dtype=lhs.dtype)
    return np.asarray(np.true_divide(lhs, rhs))


def _divide_scalar(lhs: PrimExpr, rhs: PrimExpr) -> PrimExpr:
    return lhs / rhs if is_float(lhs.dtype) else trunc_div(lhs, rhs)


def _power_scalar(base: PrimExpr, exponent: PrimExpr) -> PrimExpr:
    """base ** exponent; by a constant exponent of 2, 3 or 4, products (as onnxruntime's
    Pow computes squares and cubes), which vectorize where pow is called lane by lane."""
    value = _constant_value(exponent)
    if is_float(base.dtype) and value in (2, 3, 4):
        square = base * base
        return {2: square, 3: square * base, 4: square * square}[int(value)]
    return intrinsic("pow", base, exponent)


def _constant_value(expr: PrimExpr) -> float | None:
    """The value of a float immediate, or of a read of a constant's stage; else None."""
    if isinstance(expr, TensorRead) and isinstance(expr.tensor.op, ComputeOp):
        expr = expr.tensor.op.body
    return expr.value if isinstance(expr, FloatImm) else None


def _add_n_te(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
    def total(*values: PrimExpr) -> PrimExpr:
        result = values[0]
        for value in values[1:]:
            result = result + value
        return result

    return map_compute(inputs, out_type, total, "add_n", "broadcast")


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


def _cast_reference(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    """numpy's astype, quietly: floats out of an integer type's range convert as numpy
    (and ml_dtypes, for the sub-byte ones: to 0) converts them, without its warning."""
    with np.errstate(invalid="ignore"):
        return inputs[0].astype(str(attrs["dtype"]))


def _cast_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "cast")
    return TensorType(data.shape, str(attrs["dtype"]))


def _reinterpret_relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
    data = tensor_arg(arg_types, 0, "reinterpret")
    dtype = normalize_dtype(attrs["dtype"])
    if "bool" in (dtype, data.dtype) or np.dtype(dtype).itemsize != np.dtype(data.dtype).itemsize:
        raise TypeInferenceError(
            f"reinterpret: {data.dtype} and {dtype} must be non-bool types of one width"
        )
    return TensorType(data.shape, dtype)


OPS: tuple[OpDef, ...] = (
    _unary(
        "nn.relu",
        lambda x, a: np.maximum(x, 0),
        lambda x, a: maximum(x, const(0, x.dtype)),
        "max(x, 0)",
    ),
    _unary(
        "nn.leaky_relu",
        lambda x, a: np.where(x >= 0, x, x * a["alpha"]),
        lambda x, a: float_math(x, lambda v: select(v >= 0, v, v * float(a["alpha"]))),
        "x if x >= 0 else alpha * x",
        alpha=0.01,
    ),
    _unary(
        "clip",
        lambda x, a: np.clip(x, a["a_min"], a["a_max"]),
        _clip_scalar,
        "min(max(x, a_min), a_max); relu6 is clip(0, 6)",
        a_min=-math.inf,
        a_max=math.inf,
    ),
    _unary("sigmoid", _sigmoid, _math("sigmoid"), "1 / (1 + exp(-x))"),
    _unary("tanh", lambda x, a: np.tanh(x), _math("tanh"), "hyperbolic tangent"),
    _unary("erf", lambda x, a: erf_reference(x), _math("erf"), "Gauss error function"),
    _unary(
        "nn.gelu",
        _gelu,
        _gelu_scalar,
        "x * Phi(x), exact (erf) or tanh approximation",
        approximate="none",
    ),
    _unary("exp", lambda x, a: np.exp(x), _math("exp"), "e ** x"),
    _unary("log", lambda x, a: np.log(x), _math("log"), "natural logarithm"),
    _unary("sqrt", lambda x, a: np.sqrt(x), _math("sqrt"), "square root"),
    _unary("rsqrt", lambda x, a: 1.0 / np.sqrt(x), _math("rsqrt"), "1 / sqrt(x)"),
    _unary("negative", lambda x, a: np.negative(x), lambda x, a: -x, "-x"),
    _unary("abs", lambda x, a: np.abs(x), lambda x, a: _abs_te(x), "|x|"),
    _unary(
        "reciprocal",
        lambda x, a: 1.0 / x,
        lambda x, a: float_math(x, lambda v: 1.0 / v),
        "1 / x",
    ),
    _unary("floor", lambda x, a: np.floor(x), _math("floor"), "round toward -inf"),
    _unary("ceil", lambda x, a: np.ceil(x), _math("ceil"), "round toward +inf"),
    _unary(
        "nn.elu",
        lambda x, a: _elu(x, float(a["alpha"])),
        lambda x, a: float_math(x, lambda v: _elu_te(v, float(a["alpha"]))),
        "x if x > 0 else alpha * (exp(x) - 1)",
        alpha=1.0,
    ),
    _unary(
        "nn.selu",
        lambda x, a: float(a["gamma"]) * _elu(x, float(a["alpha"])),
        lambda x, a: float_math(x, lambda v: float(a["gamma"]) * _elu_te(v, float(a["alpha"]))),
        "gamma * (x if x > 0 else alpha * (exp(x) - 1))",
        alpha=1.6732632423543772,
        gamma=1.0507009873554805,
    ),
    _unary(
        "nn.celu",
        lambda x, a: float(a["alpha"]) * _elu(x / float(a["alpha"]), 1.0),
        lambda x, a: float_math(
            x, lambda v: float(a["alpha"]) * _elu_te(v / float(a["alpha"]), 1.0)
        ),
        "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
        alpha=1.0,
    ),
    _unary(
        "nn.softplus",
        lambda x, a: _softplus(x),
        lambda x, a: float_math(x, _softplus_te),
        "log(1 + exp(x)), computed without overflow",
    ),
    _unary(
        "nn.softsign",
        lambda x, a: x / (1 + np.abs(x)),
        lambda x, a: float_math(x, lambda v: v / (1.0 + intrinsic("fabs", v))),
        "x / (1 + |x|)",
    ),
    _unary(
        "nn.mish",
        lambda x, a: x * np.tanh(_softplus(x)),
        lambda x, a: float_math(x, lambda v: v * intrinsic("tanh", _softplus_te(v))),
        "x * tanh(softplus(x))",
    ),
    _unary(
        "nn.thresholded_relu",
        lambda x, a: np.where(x > float(a["alpha"]), x, 0),
        lambda x, a: float_math(x, lambda v: select(v > float(a["alpha"]), v, const(0, v.dtype))),
        "x if x > alpha else 0",
        alpha=1.0,
    ),
    _unary("sign", lambda x, a: np.sign(x), lambda x, a: _sign_te(x), "-1, 0 or 1"),
    _unary("sin", lambda x, a: np.sin(x), _math("sin"), "sine"),
    _unary("round", lambda x, a: np.round(x), _math("round"), "round half to even"),
    _unary("cos", lambda x, a: np.cos(x), _math("cos"), "cosine"),
    _unary("tan", lambda x, a: np.tan(x), _math("tan"), "tangent"),
    _unary("asin", lambda x, a: np.arcsin(x), _math("asin"), "inverse sine"),
    _unary("acos", lambda x, a: np.arccos(x), _math("acos"), "inverse cosine"),
    _unary("atan", lambda x, a: np.arctan(x), _math("atan"), "inverse tangent"),
    _unary("sinh", lambda x, a: np.sinh(x), _math("sinh"), "hyperbolic sine"),
    _unary("cosh", lambda x, a: np.cosh(x), _math("cosh"), "hyperbolic cosine"),
    _unary("asinh", lambda x, a: np.arcsinh(x), _math("asinh"), "inverse hyperbolic sine"),
    _unary("acosh", lambda x, a: np.arccosh(x), _math("acosh"), "inverse hyperbolic cosine"),
    _unary("atanh", lambda x, a: np.arctanh(x), _math("atanh"), "inverse hyperbolic tangent"),
    _unary("copy", lambda x, a: x.copy(), lambda x, a: x, "identity copy"),
    OpDef(
        name="cast",
        pattern=OpPattern.ELEMWISE,
        num_inputs=1,
        attrs={"dtype": "float32"},
        type_relation=_cast_relation,
        reference=_cast_reference,
        te_compute=lambda inputs, attrs, out_type: map_compute(
            inputs, out_type, lambda x: cast(str(attrs["dtype"]), x), "cast", "elemwise"
        ),
        flops=lambda *_: 0,
        doc="convert the element type",
        input_names=("data",),
        symbolic_relation=broadcast_dims,
    ),
    OpDef(
        name="reinterpret",
        pattern=OpPattern.ELEMWISE,
        num_inputs=1,
        attrs={"dtype": "uint8"},
        type_relation=_reinterpret_relation,
        reference=lambda inputs, attrs: np.ascontiguousarray(inputs[0]).view(
            np.dtype(str(attrs["dtype"]))
        ),
        te_compute=lambda inputs, attrs, out_type: map_compute(
            inputs,
            out_type,
            lambda x: reinterpret(x, str(attrs["dtype"])),
            "reinterpret",
            "elemwise",
        ),
        flops=lambda *_: 0,
        doc="the same bits read as another element type of the same width",
        input_names=("data",),
        symbolic_relation=broadcast_dims,
    ),
    _binary("add", np.add, lambda a, b: a + b, "lhs + rhs"),
    _binary("subtract", np.subtract, lambda a, b: a - b, "lhs - rhs"),
    _binary("multiply", np.multiply, lambda a, b: a * b, "lhs * rhs"),
    _binary("divide", _divide, _divide_scalar, "lhs / rhs (integer division truncates)"),
    _binary("power", np.power, _power_scalar, "lhs ** rhs"),
    _binary("maximum", np.maximum, maximum, "elementwise max"),
    _binary("minimum", np.minimum, minimum, "elementwise min"),
    _binary("equal", np.equal, eq, "lhs == rhs", out_dtype="bool"),
    _binary("less", np.less, lambda a, b: a < b, "lhs < rhs", out_dtype="bool"),
    _binary("greater", np.greater, lambda a, b: a > b, "lhs > rhs", out_dtype="bool"),
    # (not `not greater`: like every ordered comparison, false where either side is NaN)
    _binary("less_equal", np.less_equal, lambda a, b: a <= b, "lhs <= rhs", out_dtype="bool"),
    _binary("greater_equal", np.greater_equal, lambda a, b: a >= b, "lhs >= rhs", out_dtype="bool"),
    _binary(
        "floor_mod",
        lambda a, b: np.mod(a, b),
        _floor_mod_te,
        "remainder with the divisor's sign (Python's %)",
    ),
    _binary("trunc_mod", np.fmod, _trunc_mod_te, "remainder with the dividend's sign (C's fmod)"),
    _binary("logical_and", np.logical_and, _bool_binary("and"), "lhs and rhs", out_dtype="bool"),
    _binary("logical_or", np.logical_or, _bool_binary("or"), "lhs or rhs", out_dtype="bool"),
    _binary("logical_xor", np.logical_xor, _bool_binary("xor"), "lhs xor rhs", out_dtype="bool"),
    OpDef(
        name="add_n",
        pattern=OpPattern.BROADCAST,
        num_inputs=None,
        attrs={},
        type_relation=_binary_relation("add_n", None),
        reference=_add_n_reference,
        te_compute=_add_n_te,
        flops=lambda args, out, attrs: (
            (len(args) - 1) * out.size if isinstance(out, TensorType) else 0
        ),
        doc="sum of any number of inputs, with broadcasting",
        symbolic_relation=broadcast_dims,
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
        te_compute=lambda inputs, attrs, out_type: map_compute(
            inputs, out_type, select, "where", "broadcast"
        ),
        doc="select lhs where cond else rhs, with broadcasting",
        input_names=("cond", "lhs", "rhs"),
        symbolic_relation=broadcast_dims,
    ),
)
