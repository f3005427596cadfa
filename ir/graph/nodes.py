"""Immutable graph IR nodes, equal and hashed by structure.

Nodes form a DAG: a value used twice is the same node object. Hashes are computed once,
from the children's cached hashes, so hashing and comparing large models stays linear.
Variables are named; names are unique within a function (the verifier checks it), so two
variables are the same variable exactly when their name and type agree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir.graph.attrs import Attrs
from ir.graph.types import FuncType, TensorType, TupleType, Type


class Expr:
    """Base class of every graph IR node."""

    __slots__ = ()

    @property
    def checked_type(self) -> Type:
        """The node's type; raises if type inference has not run on this node."""
        ty = self._type()
        if ty is None:
            raise ValueError(f"type of {type(self).__name__} is not inferred; run infer_type")
        return ty

    @property
    def has_type(self) -> bool:
        """Whether the node carries a type."""
        return self._type() is not None

    def _type(self) -> Type | None:
        raise NotImplementedError

    def children(self) -> tuple[Expr, ...]:
        """Child expressions in the same scope (a called Function is not a child)."""
        raise NotImplementedError

    def _shallow_equal(self, other: Any) -> bool:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return structural_equal(self, other)

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined, no-any-return]

    def __str__(self) -> str:
        from ir.graph.printer import print_expr

        return print_expr(self)


@dataclass(frozen=True, slots=True, eq=False)
class Var(Expr):
    """A named input of a function."""

    name: str
    type_annotation: Type
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(("Var", self.name, self.type_annotation)))

    def _type(self) -> Type | None:
        return self.type_annotation

    def children(self) -> tuple[Expr, ...]:
        return ()

    def _shallow_equal(self, other: Var) -> bool:
        return self.name == other.name and self.type_annotation == other.type_annotation


@dataclass(frozen=True, slots=True, eq=False)
class Constant(Expr):
    """A constant tensor. The array is copied once and made read-only."""

    data: np.ndarray
    digest: str = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        array = np.array(self.data, copy=True, order="C")
        array.setflags(write=False)
        object.__setattr__(self, "data", array)
        hasher = hashlib.blake2b(digest_size=16)
        hasher.update(f"{array.dtype.name}{array.shape}".encode())
        hasher.update(array.tobytes())
        object.__setattr__(self, "digest", hasher.hexdigest())
        object.__setattr__(self, "_hash", hash(("Constant", self.digest)))

    def _type(self) -> Type | None:
        return TensorType(self.data.shape, self.data.dtype.name)

    def children(self) -> tuple[Expr, ...]:
        return ()

    def _shallow_equal(self, other: Constant) -> bool:
        return self.digest == other.digest

    @property
    def is_scalar(self) -> bool:
        """Whether the constant holds a single element."""
        return bool(self.data.size == 1)


@dataclass(frozen=True, slots=True, eq=False)
class Call(Expr):
    """An application of a registered op (by name) or of a primitive Function."""

    op: str | Function
    args: tuple[Expr, ...]
    attrs: Attrs = field(default_factory=Attrs)
    ty: Type | None = None
    span: str = ""  # where the node came from (e.g. the ONNX node name); not compared
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        if not isinstance(self.attrs, Attrs):
            object.__setattr__(self, "attrs", Attrs(self.attrs))
        child_hashes = tuple(hash(arg) for arg in self.args)
        object.__setattr__(self, "_hash", hash(("Call", hash(self.op), child_hashes, self.attrs)))

    def _type(self) -> Type | None:
        return self.ty

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def _shallow_equal(self, other: Call) -> bool:
        if isinstance(self.op, str) or isinstance(other.op, str):
            same_op = self.op == other.op
        else:
            same_op = structural_equal(self.op, other.op)
        return same_op and len(self.args) == len(other.args) and self.attrs == other.attrs

    @property
    def op_name(self) -> str:
        """The op's name, or the primitive function's name for a fused call."""
        if isinstance(self.op, str):
            return self.op
        return str(self.op.attrs.get("name", "fn"))


@dataclass(frozen=True, slots=True, eq=False)
class Tuple(Expr):
    """A tuple of values."""

    fields: tuple[Expr, ...]
    ty: Type | None = None
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(self.fields))
        object.__setattr__(self, "_hash", hash(("Tuple", tuple(hash(f) for f in self.fields))))

    def _type(self) -> Type | None:
        if self.ty is not None:
            return self.ty
        if all(f.has_type for f in self.fields):
            return TupleType(tuple(f.checked_type for f in self.fields))
        return None

    def children(self) -> tuple[Expr, ...]:
        return self.fields

    def _shallow_equal(self, other: Tuple) -> bool:
        return len(self.fields) == len(other.fields)


@dataclass(frozen=True, slots=True, eq=False)
class TupleGetItem(Expr):
    """The `index`-th field of a tuple value."""

    tuple_value: Expr
    index: int
    ty: Type | None = None
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "_hash", hash(("TupleGetItem", hash(self.tuple_value), self.index))
        )

    def _type(self) -> Type | None:
        if self.ty is not None:
            return self.ty
        if self.tuple_value.has_type:
            tuple_type = self.tuple_value.checked_type
            if isinstance(tuple_type, TupleType) and 0 <= self.index < len(tuple_type.fields):
                return tuple_type.fields[self.index]
        return None

    def children(self) -> tuple[Expr, ...]:
        return (self.tuple_value,)

    def _shallow_equal(self, other: TupleGetItem) -> bool:
        return self.index == other.index


@dataclass(frozen=True, slots=True, eq=False)
class Function(Expr):
    """A function of named parameters. `attrs["primitive"]` marks a fused operator."""

    params: tuple[Var, ...]
    body: Expr
    attrs: Attrs = field(default_factory=Attrs)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", tuple(self.params))
        if not isinstance(self.attrs, Attrs):
            object.__setattr__(self, "attrs", Attrs(self.attrs))
        param_hashes = tuple(hash(p) for p in self.params)
        object.__setattr__(
            self, "_hash", hash(("Function", param_hashes, hash(self.body), self.attrs))
        )

    def _type(self) -> Type | None:
        if not self.body.has_type:
            return None
        return FuncType(tuple(p.type_annotation for p in self.params), self.body.checked_type)

    def children(self) -> tuple[Expr, ...]:
        return (self.body,)

    def _shallow_equal(self, other: Function) -> bool:
        return (
            len(self.params) == len(other.params)
            and all(a._shallow_equal(b) for a, b in zip(self.params, other.params, strict=True))
            and self.attrs == other.attrs
        )

    @property
    def is_primitive(self) -> bool:
        """Whether this function is a fused operator produced by FuseOps."""
        return bool(self.attrs.get("primitive", False))

    @property
    def ret_type(self) -> Type:
        """The type of the function's result."""
        return self.body.checked_type


@dataclass(frozen=True, slots=True, eq=False)
class If(Expr):
    """Runs one of two functions on `args`: `then_branch` when the one-element bool
    `condition` holds, else `else_branch`. Both take the args' types and return one type;
    they are closed (what they read from outside comes in through `args`) and pure, so
    only the branch taken runs."""

    condition: Expr
    then_branch: Function
    else_branch: Function
    args: tuple[Expr, ...]
    ty: Type | None = None
    span: str = ""  # where the node came from; not compared
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(
            self,
            "_hash",
            hash(
                (
                    "If",
                    hash(self.condition),
                    hash(self.then_branch),
                    hash(self.else_branch),
                    tuple(hash(arg) for arg in self.args),
                )
            ),
        )

    def _type(self) -> Type | None:
        return self.ty

    def children(self) -> tuple[Expr, ...]:
        return (self.condition, *self.args)

    def _shallow_equal(self, other: If) -> bool:
        return (
            len(self.args) == len(other.args)
            and structural_equal(self.then_branch, other.then_branch)
            and structural_equal(self.else_branch, other.else_branch)
        )

    @property
    def branches(self) -> tuple[Function, Function]:
        """The then and else functions."""
        return self.then_branch, self.else_branch


@dataclass(frozen=True, slots=True, eq=False)
class Loop(Expr):
    """A loop carrying state, ONNX Loop's semantics:

        iteration, running, states = 0, condition, initial states
        while iteration < trip_count and running:
            running, *states, *scanned = body(iteration, running, *states, *invariants)
            row `iteration` of each scan output = scanned
            iteration += 1

    `trip_count` is an int64 scalar and `condition` a bool scalar (run-time values or
    constants); the body takes an int64 scalar, a bool scalar, the states and the
    invariants (the values it reads from outside), and returns a tuple of the new
    condition, the new states (each of its state's type) and `scan_outputs` more tensors.
    The loop's value is the tuple of final states, then the scan outputs: each stacks one
    body result per iteration along a new first axis. A loop with scan outputs needs a
    constant trip count (their first dimension); the rows of iterations that did not run
    (the condition ended the loop early) are zero."""

    trip_count: Expr
    condition: Expr
    states: tuple[Expr, ...]
    invariants: tuple[Expr, ...]
    body: Function
    scan_outputs: int = 0
    ty: Type | None = None
    span: str = ""  # where the node came from; not compared
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "states", tuple(self.states))
        object.__setattr__(self, "invariants", tuple(self.invariants))
        object.__setattr__(
            self,
            "_hash",
            hash(
                (
                    "Loop",
                    hash(self.trip_count),
                    hash(self.condition),
                    tuple(hash(state) for state in self.states),
                    tuple(hash(value) for value in self.invariants),
                    hash(self.body),
                    self.scan_outputs,
                )
            ),
        )

    def _type(self) -> Type | None:
        return self.ty

    def children(self) -> tuple[Expr, ...]:
        return (self.trip_count, self.condition, *self.states, *self.invariants)

    def _shallow_equal(self, other: Loop) -> bool:
        return (
            len(self.states) == len(other.states)
            and len(self.invariants) == len(other.invariants)
            and self.scan_outputs == other.scan_outputs
            and structural_equal(self.body, other.body)
        )


ControlFlow = If | Loop  # the nodes that hold functions run by the main function


def nested_functions(node: Expr) -> tuple[Function, ...]:
    """The functions a control-flow node runs (branches, a loop body); () for others."""
    if isinstance(node, If):
        return node.branches
    if isinstance(node, Loop):
        return (node.body,)
    return ()


def with_nested_functions(node: Expr, functions: tuple[Function, ...]) -> Expr:
    """`node` with the functions it runs replaced (in `nested_functions` order)."""
    from dataclasses import replace

    old = nested_functions(node)
    if all(a is b for a, b in zip(old, functions, strict=True)):
        return node
    if isinstance(node, If):
        return replace(node, then_branch=functions[0], else_branch=functions[1])
    if isinstance(node, Loop):
        return replace(node, body=functions[0])
    raise TypeError(f"{type(node).__name__} runs no functions")


def structural_equal(lhs: Expr, rhs: Expr) -> bool:
    """Whether two expressions have the same structure (iterative, linear in DAG size)."""
    stack: list[tuple[Expr, Expr]] = [(lhs, rhs)]
    seen: set[tuple[int, int]] = set()
    while stack:
        left, right = stack.pop()
        if left is right:
            continue
        key = (id(left), id(right))
        if key in seen:
            continue
        seen.add(key)
        if type(left) is not type(right) or hash(left) != hash(right):
            return False
        if not left._shallow_equal(right):
            return False
        stack.extend(zip(left.children(), right.children(), strict=True))
    return True


def const(value: object, dtype: str | None = None) -> Constant:
    """Build a Constant from a Python or numpy value."""
    array = np.asarray(value, dtype=dtype)
    return Constant(array)


def with_type(expr: Expr, ty: Type) -> Expr:
    """Return `expr` carrying the type `ty` (Var and Constant types are intrinsic)."""
    if isinstance(expr, Call | Tuple | TupleGetItem | If | Loop):
        if expr.ty == ty:
            return expr
        from dataclasses import replace

        return replace(expr, ty=ty)
    return expr


def call(op: str, *args: Expr, span: str = "", **attrs: object) -> Call:
    """Build a call of a registered op, validating and defaulting its attributes."""
    from ir.graph.ops.registry import get_op

    op_def = get_op(op)
    return Call(op, tuple(args), op_def.make_attrs(attrs, where=span or op), span=span)


def attrs_of(mapping: Mapping[str, object]) -> Attrs:
    """Build an Attrs value from a mapping."""
    return Attrs(mapping)
