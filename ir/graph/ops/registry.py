"""The op definition record: every op's attributes, type relation, fusion kind and reference."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from ir.errors import IRError
from ir.graph.attrs import Attrs
from ir.graph.types import TensorType, Type


class OpPattern(IntEnum):
    """How an op may fuse with its neighbours (ordered: a larger kind fuses less)."""

    ELEMWISE = 0  # out[i] = f(in[i]) for inputs of the output's shape
    BROADCAST = 1  # elementwise with numpy broadcasting of inputs
    INJECTIVE = 2  # each output element reads one input element (reshape, transpose, ...)
    COMM_REDUCE = 3  # commutative reduction (sum, max, pooling, softmax)
    OUT_ELEMWISE_FUSABLE = 4  # complex op whose output can absorb elementwise ops (conv, dense)
    TUPLE = 7  # tuple construction
    OPAQUE = 8  # never fused


class Required:
    """Marker for an attribute without a default."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = Required()

TypeRelation = Callable[[Sequence[Type], Attrs], Type]
# The type of a call with symbolic arguments, from the arguments' types, the attributes
# and the static type the op's relation gives at their upper bounds.
SymbolicRelation = Callable[[Sequence[Type], Attrs, Type], Type]
Reference = Callable[[Sequence[np.ndarray], Attrs], Any]
FlopCounter = Callable[[Sequence[Type], Type, Attrs], int]


def elementwise_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    """One operation per output element."""
    if isinstance(out_type, TensorType):
        return out_type.size
    return 0


def zero_flops(arg_types: Sequence[Type], out_type: Type, attrs: Attrs) -> int:
    """Data movement only."""
    return 0


@dataclass(frozen=True)
class OpDef:
    """Everything known about one op, defined once.

    `num_inputs` is the exact input count, or None for a variadic op (at least one input).
    `attrs` maps each attribute name to its default (REQUIRED when the caller must give it).
    `te_compute` is the tensor-expression definition, filled in by the code-generation layer.
    """

    name: str
    pattern: OpPattern
    num_inputs: int | None
    attrs: Mapping[str, object]
    type_relation: TypeRelation
    reference: Reference
    flops: FlopCounter = elementwise_flops
    te_compute: Callable[..., Any] | None = None
    doc: str = ""
    input_names: tuple[str, ...] = field(default=())
    # How the op maps symbolic dims (None: it takes static shapes only).
    symbolic_relation: SymbolicRelation | None = None

    def make_attrs(self, given: Mapping[str, object], where: str = "") -> Attrs:
        """Validate `given` against the attribute schema and fill in defaults."""
        location = where or self.name
        unknown = sorted(set(given) - set(self.attrs))
        if unknown:
            raise IRError(
                f"{location}: op {self.name} has no attribute(s) {unknown}; "
                f"known: {sorted(self.attrs)}"
            )
        values: dict[str, object] = {}
        for name, default in self.attrs.items():
            if name in given:
                values[name] = given[name]
            elif default is REQUIRED:
                raise IRError(f"{location}: op {self.name} requires attribute {name!r}")
            else:
                values[name] = default
        return Attrs(values)

    def check_arity(self, count: int, where: str = "") -> None:
        """Raise IRError when `count` inputs do not suit this op."""
        location = where or self.name
        if self.num_inputs is None:
            if count < 1:
                raise IRError(f"{location}: op {self.name} needs at least one input")
        elif count != self.num_inputs:
            raise IRError(
                f"{location}: op {self.name} takes {self.num_inputs} input(s), got {count}"
            )


def get_op(name: str) -> OpDef:
    """Look an op up in the op table, raising IRError with the known names if absent."""
    from ir.graph.ops import OP_TABLE

    try:
        return OP_TABLE[name]
    except KeyError:
        raise IRError(f"unknown op {name!r}; known ops: {', '.join(sorted(OP_TABLE))}") from None
