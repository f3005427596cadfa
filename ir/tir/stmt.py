"""Loop IR statements and kernels (PrimFunc): loops, stores, allocations, conditionals.

Loops run from 0 to `extent`. Buffers are addressed with one flat, row-major index
(storage flattening happens during lowering).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ir.tir.expr import Buffer, PrimExpr, Var, slot_setters

LOOP_KINDS = ("serial", "parallel", "vectorized", "unrolled", "thread_binding")
THREAD_TAGS = (
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread",
)


class Stmt:
    """Base class of loop IR statements."""

    __slots__ = ()

    def __str__(self) -> str:
        from ir.tir.printer import format_stmt

        return format_stmt(self)


@dataclass(frozen=True, slots=True, init=False)
class For(Stmt):
    """`for var in range(extent): body`, run as `kind` (thread_binding uses `thread_tag`)."""

    var: Var
    extent: PrimExpr
    kind: str
    body: Stmt
    thread_tag: str = ""

    def __init__(
        self, var: Var, extent: PrimExpr, kind: str, body: Stmt, thread_tag: str = ""
    ) -> None:
        _set_for_var(self, var)
        _set_for_extent(self, extent)
        _set_for_kind(self, kind)
        _set_for_body(self, body)
        _set_for_thread_tag(self, thread_tag)


@dataclass(frozen=True, slots=True, init=False)
class Store(Stmt):
    """`buffer[index] = value`."""

    buffer: Buffer
    index: PrimExpr
    value: PrimExpr

    def __init__(self, buffer: Buffer, index: PrimExpr, value: PrimExpr) -> None:
        _set_store_buffer(self, buffer)
        _set_store_index(self, index)
        _set_store_value(self, value)


@dataclass(frozen=True, slots=True)
class Allocate(Stmt):
    """Allocate `buffer` (in its scope) for the duration of `body`."""

    buffer: Buffer
    body: Stmt


@dataclass(frozen=True, slots=True)
class IfThenElse(Stmt):
    """`if condition: then_case else: else_case`."""

    condition: PrimExpr
    then_case: Stmt
    else_case: Stmt | None = None


@dataclass(frozen=True, slots=True)
class Seq(Stmt):
    """Statements run in order."""

    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class LetStmt(Stmt):
    """Bind `var` to `value` within `body`."""

    var: Var
    value: PrimExpr
    body: Stmt


@dataclass(frozen=True, slots=True)
class Barrier(Stmt):
    """Synchronise the threads of a block (GPU); a no-op on CPUs."""

    scope: str = "shared"


@dataclass(frozen=True, slots=True)
class PrimFunc:
    """A kernel: buffer parameters (inputs, then outputs) and a body; a kernel with
    symbolic dims also takes the values of its size variables (`size_params`, int64,
    after the buffers)."""

    name: str
    params: tuple[Buffer, ...]
    body: Stmt
    num_outputs: int = 1
    attrs: tuple[tuple[str, str], ...] = field(default=())
    size_params: tuple[Var, ...] = ()

    @property
    def inputs(self) -> tuple[Buffer, ...]:
        """The input buffers."""
        return self.params[: len(self.params) - self.num_outputs]

    @property
    def outputs(self) -> tuple[Buffer, ...]:
        """The output buffers."""
        return self.params[len(self.params) - self.num_outputs :]


# (See `slot_setters`: lowering and simplification build a loop per leaf per candidate.)
_set_for_var, _set_for_extent, _set_for_kind, _set_for_body, _set_for_thread_tag = slot_setters(
    For, "var", "extent", "kind", "body", "thread_tag"
)
_set_store_buffer, _set_store_index, _set_store_value = slot_setters(
    Store, "buffer", "index", "value"
)


def seq(*stmts: Stmt | None) -> Stmt:
    """A statement running `stmts` in order, flattening nested sequences."""
    flat: list[Stmt] = []
    for stmt in stmts:
        if stmt is None:
            continue
        if isinstance(stmt, Seq):
            flat.extend(stmt.stmts)
        else:
            flat.append(stmt)
    if len(flat) == 1:
        return flat[0]
    return Seq(tuple(flat))
