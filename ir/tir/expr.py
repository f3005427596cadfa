"""Scalar expressions shared by tensor expressions (TE) and the loop IR.

Nodes are immutable values compared by structure (`==` is structural equality; use
`eq(a, b)` to build an equality test). Arithmetic operators build nodes, and fold
constants on the way, so index arithmetic stays small from the start.

This module is compiled by mypyc (see ir/native.py), so its classes keep to what compiled
classes support: every node class writes its `__eq__` and `__hash__` out (compiled, a
dataclass gets no `__hash__` generated, and a `PrimExpr`, whose class defines the other
comparisons, no working `__eq__`), and every node stores its `dtype` in a field, never a
property (compiled code reads `expr.dtype` from the base class's slot).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, Union

from ir.tir.intrinsic_names import INTRINSICS

INDEX_DTYPE = "int64"

BINARY_OPS = ("add", "sub", "mul", "div", "floordiv", "floormod", "min", "max")
_BINARY_OP_SET = frozenset(BINARY_OPS)
COMPARE_OPS = ("lt", "le", "gt", "ge", "eq", "ne")


class PrimExpr:
    """Base class of scalar expressions; arithmetic operators build new nodes."""

    __slots__ = ()
    dtype: str

    def __add__(self, other: ExprLike) -> PrimExpr:
        return binary("add", self, other)

    def __radd__(self, other: ExprLike) -> PrimExpr:
        return binary("add", other, self)

    def __sub__(self, other: ExprLike) -> PrimExpr:
        return binary("sub", self, other)

    def __rsub__(self, other: ExprLike) -> PrimExpr:
        return binary("sub", other, self)

    def __mul__(self, other: ExprLike) -> PrimExpr:
        return binary("mul", self, other)

    def __rmul__(self, other: ExprLike) -> PrimExpr:
        return binary("mul", other, self)

    def __truediv__(self, other: ExprLike) -> PrimExpr:
        return binary("div", self, other)

    def __rtruediv__(self, other: ExprLike) -> PrimExpr:
        return binary("div", other, self)

    def __floordiv__(self, other: ExprLike) -> PrimExpr:
        return binary("floordiv", self, other)

    def __mod__(self, other: ExprLike) -> PrimExpr:
        return binary("floormod", self, other)

    def __neg__(self) -> PrimExpr:
        return binary("sub", zero(self.dtype), self)

    def __lt__(self, other: ExprLike) -> PrimExpr:
        return compare("lt", self, other)

    def __le__(self, other: ExprLike) -> PrimExpr:
        return compare("le", self, other)

    def __gt__(self, other: ExprLike) -> PrimExpr:
        return compare("gt", self, other)

    def __ge__(self, other: ExprLike) -> PrimExpr:
        return compare("ge", self, other)

    def __bool__(self) -> bool:
        raise TypeError("a symbolic expression has no truth value; use select() or logical ops")

    def __str__(self) -> str:
        from ir.tir.printer import format_expr

        return format_expr(self)


ExprLike = Union[PrimExpr, int, float, bool, "IterVar"]


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of the slots `names` of a frozen node class, for its own `__init__`.

    Lowering builds hundreds of nodes per candidate: filling a slot through its
    descriptor costs half of `object.__setattr__` (which looks the name up first), the
    way dataclasses' generated `__init__` does it.
    """
    return tuple(cls.__dict__[name].__set__ for name in names)


class _CompositeExpr(PrimExpr):
    """A node with operands, equal to another of its class with equal `_fields()`; it
    remembers its structural hash after the first call. (Its subclasses are dataclasses
    with `eq=False`, which keeps these methods.)

    Hashing a node hashes its operands, which hash theirs: a dict keyed by a deep index
    expression would cost a walk of the whole tree per lookup.
    """

    __slots__ = ("_hash",)
    _hash: int

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined,no-any-return]

    def __hash__(self) -> int:
        value: int | None = getattr(self, "_hash", None)  # (cheaper than catching the miss)
        return value if value is not None else _remember_hash(self)

    def _fields(self) -> tuple[Any, ...]:
        """What equality compares and the hash hashes."""
        raise NotImplementedError


def _remember_hash(node: _CompositeExpr) -> int:
    value = hash(node._fields())
    _set_hash(node, value)
    return value


@dataclass(frozen=True, slots=True, init=False)
class IntImm(PrimExpr):
    """An integer (or bool) constant."""

    value: int
    dtype: str = INDEX_DTYPE

    def __init__(self, value: int, dtype: str = INDEX_DTYPE) -> None:
        _set_int_value(self, value)
        _set_int_dtype(self, dtype)

    def __eq__(self, other: object) -> bool:
        # (the generated method builds a tuple of the fields on each side)
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.value == other.value and self.dtype == other.dtype  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.value, self.dtype))


@dataclass(frozen=True, slots=True, init=False)
class FloatImm(PrimExpr):
    """A floating-point constant."""

    value: float
    dtype: str = "float32"

    def __init__(self, value: float, dtype: str = "float32") -> None:
        _set_float_value(self, value)
        _set_float_dtype(self, dtype)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.value == other.value and self.dtype == other.dtype  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.value, self.dtype))


@dataclass(frozen=True, slots=True, init=False)
class Var(PrimExpr):
    """A scalar variable (a loop index or a bound value); names are unique in a kernel."""

    name: str
    dtype: str = INDEX_DTYPE
    _hash: int = field(init=False, repr=False, compare=False)

    def __init__(self, name: str, dtype: str = INDEX_DTYPE) -> None:
        _set_var_name(self, name)
        _set_var_dtype(self, dtype)
        # Variables key most dicts of lowering and simplification: hashed once, here.
        _set_var_hash(self, hash((name, dtype)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # (the generated method builds a tuple of the fields on each side)
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.name == other.name and self.dtype == other.dtype  # type: ignore[attr-defined]


@dataclass(frozen=True, eq=False, slots=True, init=False)
class Binary(_CompositeExpr):
    """An arithmetic operation; `op` is one of BINARY_OPS (its dtype is the operands')."""

    op: str
    lhs: PrimExpr
    rhs: PrimExpr
    # Stored once: index arithmetic nests deeply, and a property would walk the whole
    # left spine on every read.
    dtype: str = field(init=False, repr=False, compare=False)

    def __init__(self, op: str, lhs: PrimExpr, rhs: PrimExpr) -> None:
        _set_binary_op(self, op)
        _set_binary_lhs(self, lhs)
        _set_binary_rhs(self, rhs)
        _set_binary_dtype(self, lhs.dtype)

    def __eq__(self, other: object) -> bool:
        # The generated method compares two tuples of the fields: cache lookups compare
        # equal trees node by node, so each level skips building them.
        if other.__class__ is not self.__class__:
            return NotImplemented
        lhs, rhs = self.lhs, other.lhs  # type: ignore[attr-defined]
        if self.op != other.op or not (lhs is rhs or lhs == rhs):  # type: ignore[attr-defined]
            return False
        lhs, rhs = self.rhs, other.rhs  # type: ignore[attr-defined]
        return lhs is rhs or lhs == rhs

    def __hash__(self) -> int:  # (a class that defines `__eq__` must define this too)
        value: int | None = getattr(self, "_hash", None)
        return value if value is not None else _remember_hash(self)

    def _fields(self) -> tuple[Any, ...]:
        return (self.op, self.lhs, self.rhs)


@dataclass(frozen=True, eq=False, slots=True, init=False)
class Compare(_CompositeExpr):
    """A comparison producing a bool; `op` is one of COMPARE_OPS."""

    op: str
    lhs: PrimExpr
    rhs: PrimExpr
    dtype: str = "bool"

    def __init__(self, op: str, lhs: PrimExpr, rhs: PrimExpr, dtype: str = "bool") -> None:
        _set_compare_op(self, op)
        _set_compare_lhs(self, lhs)
        _set_compare_rhs(self, rhs)
        _set_compare_dtype(self, dtype)

    def __eq__(self, other: object) -> bool:
        # (as `Binary.__eq__`, with the dtype field compared too)
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self.op != other.op or self.dtype != other.dtype:  # type: ignore[attr-defined]
            return False
        lhs, rhs = self.lhs, other.lhs  # type: ignore[attr-defined]
        if not (lhs is rhs or lhs == rhs):
            return False
        lhs, rhs = self.rhs, other.rhs  # type: ignore[attr-defined]
        return lhs is rhs or lhs == rhs

    def __hash__(self) -> int:  # (a class that defines `__eq__` must define this too)
        value: int | None = getattr(self, "_hash", None)
        return value if value is not None else _remember_hash(self)

    def _fields(self) -> tuple[Any, ...]:
        return (self.op, self.lhs, self.rhs, self.dtype)


@dataclass(frozen=True, eq=False, slots=True, init=False)
class Logical(_CompositeExpr):
    """`and` / `or` of two bools, or `not` of one (rhs is None)."""

    op: str
    lhs: PrimExpr
    rhs: PrimExpr | None = None
    dtype: str = "bool"

    def __init__(
        self, op: str, lhs: PrimExpr, rhs: PrimExpr | None = None, dtype: str = "bool"
    ) -> None:
        _set_logical_op(self, op)
        _set_logical_lhs(self, lhs)
        _set_logical_rhs(self, rhs)
        _set_logical_dtype(self, dtype)

    def _fields(self) -> tuple[Any, ...]:
        return (self.op, self.lhs, self.rhs, self.dtype)


@dataclass(frozen=True, eq=False, slots=True)
class Select(_CompositeExpr):
    """`true_value if condition else false_value`.

    A select may guard loads that would be out of bounds (padding, concatenation): code
    generators evaluate a side that can fault only where it is taken (a branch for a
    scalar condition, masked loads per lane); cheap side-effect-free sides may be
    evaluated eagerly.
    """

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    dtype: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _set_select_dtype(self, self.true_value.dtype)

    def _fields(self) -> tuple[Any, ...]:
        return (self.condition, self.true_value, self.false_value)


@dataclass(frozen=True, eq=False, slots=True, init=False)
class Cast(_CompositeExpr):
    """Convert `value` to `dtype`."""

    dtype: str
    value: PrimExpr

    # (written out: compiled, the base class's `dtype` slot would read as a default here)
    def __init__(self, dtype: str, value: PrimExpr) -> None:
        _set_cast_dtype(self, dtype)
        _set_cast_value(self, value)

    def _fields(self) -> tuple[Any, ...]:
        return (self.dtype, self.value)


@dataclass(frozen=True, eq=False, slots=True)
class Call(_CompositeExpr):
    """A math intrinsic (one of INTRINSICS) applied to arguments of its dtype, or
    "reinterpret": its one argument's bits read as the call's dtype."""

    name: str
    args: tuple[PrimExpr, ...]
    dtype: str = "float32"

    def _fields(self) -> tuple[Any, ...]:
        return (self.name, self.args, self.dtype)


class TensorLike(Protocol):
    """What a TensorRead needs of a tensor (the TE Tensor satisfies it)."""

    @property
    def name(self) -> str: ...

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> str: ...


@dataclass(frozen=True, slots=True, init=False)
class IterVar:
    """An iteration axis of a compute: a variable over [0, extent), spatial or reduce.

    A symbolic axis runs over [0, runtime_extent), an expression of size variables known
    when the kernel is called; `extent` is then its upper bound, which every static
    analysis (bounds, tile sizes, features) uses in its place.
    """

    var: Var
    extent: int
    kind: str = "spatial"  # or "reduce"
    runtime_extent: PrimExpr | None = None
    # The variable's name, stored once: schedules and lowering look axes up by name all
    # the time, and a property costs a call per read.
    name: str = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        var: Var,
        extent: int,
        kind: str = "spatial",
        runtime_extent: PrimExpr | None = None,
    ) -> None:
        _set_iter_var(self, var)
        _set_iter_extent(self, extent)
        _set_iter_kind(self, kind)
        _set_iter_runtime_extent(self, runtime_extent)
        _set_iter_name(self, var.name)

    def __hash__(self) -> int:
        return hash((self.var, self.extent, self.kind, self.runtime_extent))


@dataclass(frozen=True, eq=False, slots=True)
class TensorRead(_CompositeExpr):
    """Read one element of a TE tensor (before lowering)."""

    tensor: Any  # a TE Tensor; compared by identity of the tensor object
    indices: tuple[PrimExpr, ...]

    dtype: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _set_tensorread_dtype(self, str(self.tensor.dtype))

    def _fields(self) -> tuple[Any, ...]:
        return (self.tensor, self.indices)


@dataclass(frozen=True, eq=False, slots=True)
class Reduce(_CompositeExpr):
    """A commutative reduction of `source` over `axes`; `combiner` is sum, max or min."""

    combiner: str
    source: PrimExpr
    axes: tuple[IterVar, ...]
    condition: PrimExpr | None = None

    dtype: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _set_reduce_dtype(self, self.source.dtype)

    def _fields(self) -> tuple[Any, ...]:
        return (self.combiner, self.source, self.axes, self.condition)


@dataclass(frozen=True, slots=True)
class Buffer:
    """A region of memory: logical shape, dtype and storage scope (global, shared, local).

    A buffer with symbolic dims (a kernel parameter whose shape holds size variables)
    lists them in `dims`, which then give its row-major strides; `shape` holds their
    upper bounds.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    scope: str = "global"
    dims: tuple[PrimExpr, ...] = ()

    @property
    def size(self) -> int:
        """Number of elements (at the upper bounds, for symbolic dims)."""
        return math.prod(self.shape)

    def __hash__(self) -> int:
        return hash((self.name, self.shape, self.dtype, self.scope, self.dims))


@dataclass(frozen=True, eq=False, slots=True, init=False)
class Load(_CompositeExpr):
    """Read element `index` (flat, row-major) of a buffer (after lowering)."""

    buffer: Buffer
    index: PrimExpr

    def __init__(self, buffer: Buffer, index: PrimExpr) -> None:
        _set_load_buffer(self, buffer)
        _set_load_index(self, index)
        _set_load_dtype(self, buffer.dtype)

    dtype: str = field(init=False, repr=False, compare=False)

    def _fields(self) -> tuple[Any, ...]:
        return (self.buffer, self.index)


_set_int_value, _set_int_dtype = slot_setters(IntImm, "value", "dtype")
_set_float_value, _set_float_dtype = slot_setters(FloatImm, "value", "dtype")
_set_var_name, _set_var_dtype = slot_setters(Var, "name", "dtype")
_set_binary_op, _set_binary_lhs, _set_binary_rhs, _set_binary_dtype = slot_setters(
    Binary, "op", "lhs", "rhs", "dtype"
)
_set_compare_op, _set_compare_lhs, _set_compare_rhs, _set_compare_dtype = slot_setters(
    Compare, "op", "lhs", "rhs", "dtype"
)
_set_load_buffer, _set_load_index = slot_setters(Load, "buffer", "index")
_set_logical_op, _set_logical_lhs, _set_logical_rhs, _set_logical_dtype = slot_setters(
    Logical, "op", "lhs", "rhs", "dtype"
)
_set_iter_var, _set_iter_extent, _set_iter_kind, _set_iter_runtime_extent, _set_iter_name = (
    slot_setters(IterVar, "var", "extent", "kind", "runtime_extent", "name")
)
(_set_hash,) = slot_setters(_CompositeExpr, "_hash")
(_set_var_hash,) = slot_setters(Var, "_hash")
(_set_select_dtype,) = slot_setters(Select, "dtype")
_set_cast_dtype, _set_cast_value = slot_setters(Cast, "dtype", "value")
(_set_tensorread_dtype,) = slot_setters(TensorRead, "dtype")
(_set_reduce_dtype,) = slot_setters(Reduce, "dtype")
(_set_load_dtype,) = slot_setters(Load, "dtype")


def is_float(dtype: str) -> bool:
    """Whether `dtype` is a floating-point type."""
    return dtype.startswith("float")


def const(value: int | float | bool, dtype: str) -> PrimExpr:
    """A constant of `dtype`."""
    if is_float(dtype):
        return FloatImm(float(value), dtype)
    if dtype == "bool":
        return IntImm(int(bool(value)), "bool")
    return IntImm(int(value), dtype)


def zero(dtype: str) -> PrimExpr:
    """The constant 0 of `dtype`."""
    return const(0, dtype)


def as_expr(value: ExprLike, dtype: str | None = None) -> PrimExpr:
    """Wrap a Python number as a constant (of `dtype` when given)."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, IterVar):
        return value.var
    if isinstance(value, bool):
        return IntImm(int(value), "bool")
    if isinstance(value, int):
        return const(value, dtype or INDEX_DTYPE)
    if isinstance(value, float):
        return const(value, dtype if dtype and is_float(dtype) else "float32")
    raise TypeError(f"cannot use {value!r} as an expression")


def _fold(op: str, lhs: int | float, rhs: int | float, is_int: bool) -> int | float | None:
    if op == "add":
        return lhs + rhs
    if op == "sub":
        return lhs - rhs
    if op == "mul":
        return lhs * rhs
    if op == "min":
        return min(lhs, rhs)
    if op == "max":
        return max(lhs, rhs)
    if rhs == 0:
        return None
    if op == "div":
        return lhs / rhs if not is_int else None
    if op == "floordiv":
        return lhs // rhs if is_int else math.floor(lhs / rhs)
    if op == "floormod":
        return lhs % rhs
    return None


def binary(op: str, lhs: ExprLike, rhs: ExprLike) -> PrimExpr:
    """Build `lhs op rhs`, folding constants and the identities x+0, x*1, x*0 (ints)."""
    if op not in _BINARY_OP_SET:
        raise ValueError(f"unknown binary op {op!r}")
    # Lowering calls this for every index operation: nodes skip the generic conversion.
    if isinstance(lhs, PrimExpr):
        left = lhs
        if isinstance(rhs, PrimExpr):
            right = rhs
        elif type(rhs) is int and left.dtype == INDEX_DTYPE:
            right = IntImm(rhs)
        else:
            right = as_expr(rhs, left.dtype)
    else:
        left = as_expr(lhs, rhs.dtype if isinstance(rhs, PrimExpr) else None)
        right = as_expr(rhs, left.dtype)
    dtype = left.dtype
    if dtype != right.dtype:
        raise TypeError(f"{op}: operand dtypes differ ({dtype} vs {right.dtype})")
    left_kind, right_kind = type(left), type(right)
    left_const = left_kind is IntImm or left_kind is FloatImm
    right_const = right_kind is IntImm or right_kind is FloatImm
    is_int = not dtype.startswith("float")
    if left_const and right_const:
        folded = _fold(op, left.value, right.value, is_int)  # type: ignore[attr-defined]
        if folded is not None:
            return const(folded, dtype)
    if is_int and (left_kind is IntImm or right_kind is IntImm):
        left_value = left.value if left_kind is IntImm else None  # type: ignore[attr-defined]
        right_value = right.value if right_kind is IntImm else None  # type: ignore[attr-defined]
        if op == "add":
            if left_value == 0:
                return right
            if right_value == 0:
                return left
        elif op == "sub" and right_value == 0:
            return left
        elif op == "mul":
            if left_value == 1:
                return right
            if right_value == 1:
                return left
            if left_value == 0 or right_value == 0:
                return zero(dtype)
        elif (op == "floordiv" or op == "div") and right_value == 1:
            return left
        elif op == "floormod" and right_value == 1:
            return zero(dtype)
    return Binary(op, left, right)


def ceil_div(value: PrimExpr, factor: int) -> PrimExpr:
    """ceil(value / factor) of a non-negative integer `value`, written
    `(value + (factor - 1)) // factor`."""
    return binary("floordiv", binary("add", value, factor - 1), factor)


def compare(op: str, lhs: ExprLike, rhs: ExprLike) -> PrimExpr:
    """Build a comparison, folding constants."""
    if op not in COMPARE_OPS:
        raise ValueError(f"unknown comparison {op!r}")
    left = as_expr(lhs, rhs.dtype if isinstance(rhs, PrimExpr) else None)
    right = as_expr(rhs, left.dtype)
    if isinstance(left, IntImm | FloatImm) and isinstance(right, IntImm | FloatImm):
        a, b = left.value, right.value
        result = {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b, "ne": a != b}
        return IntImm(int(result[op]), "bool")
    return Compare(op, left, right)


def eq(lhs: ExprLike, rhs: ExprLike) -> PrimExpr:
    """Build `lhs == rhs` (Python's `==` on nodes is structural equality)."""
    return compare("eq", lhs, rhs)


def ne(lhs: ExprLike, rhs: ExprLike) -> PrimExpr:
    """Build `lhs != rhs`."""
    return compare("ne", lhs, rhs)


def logical_and(lhs: PrimExpr, rhs: PrimExpr) -> PrimExpr:
    """Build `lhs and rhs`, dropping constant-true sides."""
    if isinstance(lhs, IntImm):
        return rhs if lhs.value else lhs
    if isinstance(rhs, IntImm):
        return lhs if rhs.value else rhs
    return Logical("and", lhs, rhs)


def logical_or(lhs: PrimExpr, rhs: PrimExpr) -> PrimExpr:
    """Build `lhs or rhs`, dropping constant-false sides."""
    if isinstance(lhs, IntImm):
        return lhs if lhs.value else rhs
    if isinstance(rhs, IntImm):
        return rhs if rhs.value else lhs
    return Logical("or", lhs, rhs)


def logical_not(value: PrimExpr) -> PrimExpr:
    """Build `not value`."""
    if isinstance(value, IntImm):
        return IntImm(int(not value.value), "bool")
    return Logical("not", value)


def select(condition: PrimExpr, true_value: ExprLike, false_value: ExprLike) -> PrimExpr:
    """Build a select, folding a constant condition."""
    true_expr = as_expr(
        true_value, false_value.dtype if isinstance(false_value, PrimExpr) else None
    )
    false_expr = as_expr(false_value, true_expr.dtype)
    if isinstance(condition, IntImm):
        return true_expr if condition.value else false_expr
    return Select(condition, true_expr, false_expr)


def cast(dtype: str, value: ExprLike) -> PrimExpr:
    """Convert `value` to `dtype` (a no-op when it already has it)."""
    expr = as_expr(value)
    if expr.dtype == dtype:
        return expr
    if isinstance(expr, IntImm | FloatImm):
        return const(expr.value, dtype)
    return Cast(dtype, expr)


def minimum(lhs: ExprLike, rhs: ExprLike) -> PrimExpr:
    """Build `min(lhs, rhs)`."""
    return binary("min", lhs, rhs)


def maximum(lhs: ExprLike, rhs: ExprLike) -> PrimExpr:
    """Build `max(lhs, rhs)`."""
    return binary("max", lhs, rhs)


def reinterpret(value: PrimExpr, dtype: str) -> PrimExpr:
    """The bits of `value` read as `dtype`, a type of the same width in memory."""
    return Call("reinterpret", (value,), dtype)


def intrinsic(name: str, *args: ExprLike) -> PrimExpr:
    """Apply a math intrinsic (exp, log, tanh, sqrt, erf, pow, sigmoid, ...)."""
    if name not in INTRINSICS:
        raise ValueError(f"unknown intrinsic {name!r}; known: {', '.join(INTRINSICS)}")
    exprs = [as_expr(arg) for arg in args]
    dtype = exprs[0].dtype
    exprs = [as_expr(arg, dtype) for arg in args]
    return Call(name, tuple(exprs), dtype)
