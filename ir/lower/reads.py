"""Steps 1 and 2 of lowering (`ir.lower.lower`): inlined stages expanded into their
readers, and TE reads turned into flat loads of buffers in their storage layouts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ir.errors import ScheduleError
from ir.lower.index import LinearIndexer, VarForm, combine_forms
from ir.schedule.schedule import Fuse, Schedule, Split, Stage
from ir.te.tensor import ComputeOp, Operation, PlaceholderOp
from ir.tir.expr import (
    Binary,
    Buffer,
    IntImm,
    Load,
    PrimExpr,
    TensorRead,
    Var,
    binary,
)
from ir.tir.visit import Rewrite, map_expr, map_expr_shared, substitute, walk_expr


def flat_index(indices: Sequence[PrimExpr], shape: Sequence[int | PrimExpr]) -> PrimExpr:
    """Row-major flat index of `indices` into a buffer of `shape` (dims may be symbolic)."""
    total: PrimExpr = IntImm(0)
    for index, extent in zip(indices, shape, strict=True):
        total = binary("add", binary("mul", total, extent), index)
    return total


# Expanded compute bodies by (body, inline signature): ops are hashed by identity, and
# the key holds them (and the body) alive, so an entry never matches a different object.
_EXPANSIONS: dict[tuple[PrimExpr, tuple[object, ...]], PrimExpr] = {}
_EXPANSION_CACHE_LIMIT = 1024
_READ_OPS: dict[int, tuple[PrimExpr, tuple[Operation, ...]]] = {}


def _read_ops(body: PrimExpr) -> tuple[Operation, ...]:
    """The ops of the tensors `body` reads, in walk order, each once (memoised by the
    body object, which the memo keeps alive)."""
    known = _READ_OPS.get(id(body))
    if known is not None and known[0] is body:
        return known[1]
    ops: dict[int, Operation] = {}
    for node in walk_expr(body):
        if type(node) is TensorRead:
            op = node.tensor.op  # type: ignore[attr-defined]
            ops.setdefault(id(op), op)
    result = tuple(ops.values())
    if len(_READ_OPS) >= _EXPANSION_CACHE_LIMIT:
        _READ_OPS.clear()
    _READ_OPS[id(body)] = (body, result)
    return result


def _is_plain_index(expr: PrimExpr) -> bool:
    """Whether `expr` is only arithmetic on variables and constants (it reads nothing)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Binary:
            stack.append(node.lhs)  # type: ignore[attr-defined]
            stack.append(node.rhs)  # type: ignore[attr-defined]
        elif kind is not Var and kind is not IntImm:
            return False
    return True


@dataclass(frozen=True)
class Storage:
    """A buffer layout: each dim is an expression of the root indices (placeholders)."""

    roots: tuple[Var, ...]
    dims: tuple[PrimExpr, ...]
    shape: tuple[int, ...]

    def map(self, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
        mapping = dict(zip(self.roots, indices, strict=True))
        return [substitute(dim, mapping) for dim in self.dims]

    def map_forms(self, forms: Sequence[VarForm], indexer: LinearIndexer) -> list[VarForm] | None:
        """The forms of `map(indices)` for indices of affine `forms` (None: not affine)."""
        return _forms_through(self.dims, self.roots, forms, indexer)


def _forms_through(
    dims: Sequence[PrimExpr],
    roots: Sequence[Var],
    forms: Sequence[VarForm],
    indexer: LinearIndexer,
) -> list[VarForm] | None:
    """The forms of `dims` (expressions of `roots`) with each root replaced by an index of
    that form; None when one may not be affine."""
    by_root = dict(zip(roots, forms, strict=True))

    def var_form(var: Var) -> VarForm | None:
        form = by_root.get(var)
        return indexer.var_form(var) if form is None else form

    result = []
    for dim in dims:
        form = indexer.form_at(dim, var_form)
        if form is None:
            return None
        result.append(form)
    return result


class _ReadsAt:
    """The state of one `ReadLowering.lower_reads_at` call.

    (Methods rather than closures: compiled by mypyc, closures that call each other share
    an environment that refers back to them, a reference cycle that keeps every node they
    saw alive until the cyclic garbage collector runs.)
    """

    __slots__ = ("indexer", "lowered", "lowering", "mapping")

    def __init__(self, lowering: ReadLowering, mapping: Mapping[Var, PrimExpr]) -> None:
        self.lowering = lowering
        self.mapping = mapping
        self.indexer = lowering.indexer
        # Each variable object met -> (it, its lowered value or None when unmapped): the
        # body's variables come again and again, and an id costs no Var hashing.
        self.lowered: dict[int, tuple[Var, PrimExpr | None]] = {}

    def value_of(self, var: Var) -> PrimExpr | None:
        known = self.lowered.get(id(var))
        if known is not None and known[0] is var:
            return known[1]
        value = self.mapping.get(var)
        if value is not None:
            value = self.lowering.lower_reads(value)
        self.lowered[id(var)] = (var, value)
        return value

    def var_form(self, var: Var) -> VarForm | None:
        value = self.value_of(var)
        return self.indexer.var_form(var) if value is None else self.indexer.form(value)

    def visit(self, node: PrimExpr, rewrite: Rewrite) -> PrimExpr | None:
        kind = type(node)
        if kind is Var:
            return self.value_of(node)  # type: ignore[arg-type]
        if kind is TensorRead:
            assert isinstance(node, TensorRead)
            # Affine indices go straight to the flat index, without the substituted trees,
            # which nothing else uses.
            load = self.lowering._load_at(node, self.var_form)
            if load is not None:
                return load
            return self.lowering._load(node, tuple(rewrite(index) for index in node.indices))
        return None


class ReadLowering:
    """Steps 1 and 2 of lowering one schedule: inlined stages expanded into their readers,
    buffers for the stages and inputs, and TE reads turned into flat loads of them (in
    each buffer's storage layout)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.inputs: dict[int, Buffer] = {}
        self.buffers: dict[str, Buffer] = {}
        self.offsets: dict[str, tuple[PrimExpr, ...]] = {}
        self.expanded: dict[int, PrimExpr] = {}
        self.layouts: dict[str, Storage] = {}
        self.indexer = LinearIndexer()
        # Each input layout's map over placeholder roots (the layout kept alive beside it).
        self._input_maps: dict[int, tuple[object, tuple[Var, ...], tuple[PrimExpr, ...]]] = {}
        # Whether each expression met is a plain index, by identity (the node kept beside it).
        self._plain: dict[int, tuple[PrimExpr, bool]] = {}

    def expand(self, expr: PrimExpr) -> PrimExpr:
        """Replace reads of inlined stages by their (expanded) bodies."""
        return map_expr(expr, self._expand_read)

    def _expand_read(self, node: PrimExpr) -> PrimExpr | None:
        # A method rather than a recursive closure: a closure that refers to itself is a
        # reference cycle, left (with every node it holds) to the cyclic collector.
        if not isinstance(node, TensorRead) or isinstance(node.tensor.op, PlaceholderOp):
            return None
        visit = self._expand_read
        name = self.schedule.stage_of_op.get(id(node.tensor.op))
        if name is None:
            raise ScheduleError(f"{node.tensor.name} is not computed by any stage")
        stage = self.schedule.stages[name]
        if stage.attach.kind != "inline":
            return TensorRead(node.tensor, tuple(map_expr(i, visit) for i in node.indices))
        body = self.expanded_body(stage.op)
        indices = [map_expr(i, visit) for i in node.indices]
        mapping = {axis.var: index for axis, index in zip(stage.op.axes, indices, strict=True)}
        return substitute(body, mapping)

    def expanded_body(self, op: ComputeOp) -> PrimExpr:
        key = id(op)
        if key not in self.expanded:
            self.expanded[key] = self._shared_expansion(op.body)
        return self.expanded[key]

    def _shared_expansion(self, body: PrimExpr) -> PrimExpr:
        """`expand(body)`, shared by every schedule that inlines the same stages into it.

        The expansion depends only on the body and, for each compute it reads, whether
        (and with which op) that stage is inlined: candidates of one search space differ
        in their loops, not in these, so the expansion is done once per space.
        """
        signature = self._inline_signature(body)
        if signature is None:  # a read of an unknown op: expand raises the error
            return self.expand(body)
        key = (body, signature)
        expanded = _EXPANSIONS.get(key)
        if expanded is None:
            expanded = self.expand(body)
            if len(_EXPANSIONS) >= _EXPANSION_CACHE_LIMIT:
                _EXPANSIONS.clear()
            _EXPANSIONS[key] = expanded
        return expanded

    def _inline_signature(self, body: PrimExpr) -> tuple[object, ...] | None:
        """What `expand(body)` depends on: each op `body` reads, and for an inlined
        stage its op and that op's own signature. None when a read op has no stage."""
        parts: list[object] = []
        for op in _read_ops(body):
            if isinstance(op, PlaceholderOp):
                continue
            name = self.schedule.stage_of_op.get(id(op))
            if name is None:
                return None
            stage = self.schedule.stages[name]
            if stage.attach.kind != "inline":
                parts.append(op)
                continue
            inner = self._inline_signature(stage.op.body)
            if inner is None:
                return None
            parts.append((op, stage.op, inner))
        return tuple(parts)

    # Step 2 -------------------------------------------------------------------------------

    def input_buffer(self, op: PlaceholderOp) -> Buffer:
        buffer = self.inputs.get(id(op))
        if buffer is None:
            layout = self.schedule.input_layouts.get(op.name)
            if layout is not None and op.runtime_dims:
                raise ScheduleError(
                    f"input {op.name} has symbolic dims; its layout cannot be rewritten"
                )
            shape = layout.new_shape if layout is not None else op.shape
            buffer = Buffer(op.name, shape, op.dtype, dims=op.runtime_dims)
            self.inputs[id(op)] = buffer
        return buffer

    def lower_reads(self, expr: PrimExpr) -> PrimExpr:
        """Turn TE reads into flat buffer loads."""
        known = self._plain.get(id(expr))
        if known is not None and known[0] is expr:
            plain = known[1]
        else:  # (each nest's index values come back for every statement of the nest)
            plain = _is_plain_index(expr)
            self._plain[id(expr)] = (expr, plain)
        if plain:  # (most are: loop indices and region starts)
            return expr
        return map_expr(expr, self._lower_read)

    def _lower_read(self, node: PrimExpr) -> PrimExpr | None:
        if not isinstance(node, TensorRead):
            return None
        visit = self._lower_read
        return self._load(node, tuple(map_expr(i, visit) for i in node.indices))

    def lower_reads_at(self, expr: PrimExpr, mapping: Mapping[Var, PrimExpr]) -> PrimExpr:
        """`lower_reads(substitute(expr, mapping))` in one pass over `expr`.

        The substituted index expressions are large and hold no TE reads: rather than
        searching them, each mapped value is lowered once and shared where it is used.
        """

        reads = _ReadsAt(self, mapping)
        return map_expr_shared(expr, reads.visit)

    def _load_at(self, read: TensorRead, var_form: Callable[[Var], VarForm | None]) -> Load | None:
        """`_load` of `read` with its indices substituted (the variables' forms given by
        `var_form`), built from the indices' affine forms; None when one may not be affine
        or `_load` would fail (it is then left to `_load`)."""
        indexer = self.indexer
        forms: list[VarForm] | None = []
        for index in read.indices:
            form = indexer.form_at(index, var_form)
            if form is None:
                return None
            forms.append(form)  # type: ignore[union-attr]
        op = read.tensor.op
        if isinstance(op, PlaceholderOp):
            buffer = self.input_buffer(op)
            if buffer.dims:
                return None  # (symbolic strides: `_load` builds the index)
            layout = self.schedule.input_layouts.get(op.name)
            if layout is not None:
                forms = self._input_layout_forms(layout, forms)  # type: ignore[arg-type]
                if forms is None:
                    return None
            return Load(buffer, indexer.flat_of_forms(forms, buffer.shape))  # type: ignore[arg-type]
        name = self.schedule.stage_of_op.get(id(op))
        stage_buffer = self.buffers.get(name) if name is not None else None
        if name is None or stage_buffer is None or stage_buffer.dims:
            return None
        offsets = self.offsets.get(name)
        if offsets is not None:
            shifted = []
            for form, start in zip(forms, offsets, strict=True):  # type: ignore[arg-type]
                start_form = indexer.form(start)
                if start_form is None:
                    return None
                shifted.append(combine_forms(form, start_form, -1))
            forms = shifted
        forms = self.stored_forms(name, forms)  # type: ignore[arg-type]
        if forms is None:
            return None
        return Load(stage_buffer, indexer.flat_of_forms(forms, stage_buffer.shape))

    def _input_layout_forms(self, layout: Any, forms: list[VarForm]) -> list[VarForm] | None:
        """The forms of `layout.map_indices(indices)` for indices of affine `forms`."""
        known = self._input_maps.get(id(layout))
        if known is None or known[0] is not layout:
            roots = tuple(Var(f"__root_{i}") for i in range(len(forms)))
            known = (layout, roots, layout.map_indices(roots))
            self._input_maps[id(layout)] = known
        _, roots, dims = known
        return _forms_through(dims, roots, forms, self.indexer)

    def stored_forms(self, stage: str, forms: list[VarForm]) -> list[VarForm] | None:
        """`permute` on the forms of affine indices (None: the result may not be affine)."""
        layout = self.layouts.get(stage)
        if layout is None:
            return forms
        return layout.map_forms(forms, self.indexer)

    def _load(self, read: TensorRead, indices: tuple[PrimExpr, ...]) -> Load:
        """The flat load of `read` at (lowered) `indices`."""
        op = read.tensor.op
        if isinstance(op, PlaceholderOp):
            buffer = self.input_buffer(op)
            layout = self.schedule.input_layouts.get(op.name)
            if layout is not None:
                indices = layout.map_indices(indices)
            return Load(buffer, self.buffer_index(indices, buffer))
        name = self.schedule.stage_of_op[id(op)]
        stage_buffer = self.buffers.get(name)
        if stage_buffer is None:
            raise ScheduleError(
                f"{name} is read where it is not computed (check compute_at placement)"
            )
        offsets = self.offsets.get(name)
        if offsets is not None:
            indices = tuple(
                binary("sub", index, start) for index, start in zip(indices, offsets, strict=True)
            )
        return Load(stage_buffer, self.buffer_index(self.permute(name, indices), stage_buffer))

    def flat_index(self, indices: Sequence[PrimExpr], shape: Sequence[int]) -> PrimExpr:
        """`flat_index`, built in canonical linear form when the indices are affine."""
        flat = self.indexer.flat(indices, shape)
        return flat if flat is not None else flat_index(indices, shape)

    def buffer_index(self, indices: Sequence[PrimExpr], buffer: Buffer) -> PrimExpr:
        """The flat index of `indices` into `buffer`, whose strides may be symbolic."""
        if buffer.dims:
            return flat_index(indices, buffer.dims)
        return self.flat_index(indices, buffer.shape)

    def permute(self, stage: str, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
        layout = self.layouts.get(stage)
        if layout is None:
            return list(indices)
        return layout.map(indices)

    def storage_layout(self, stage: Stage, extents: Mapping[str, int]) -> Storage | None:
        """How an intermediate buffer is laid out: its dims follow the stage's own spatial
        loops (split pieces included, innermost last), so the innermost (vectorized) loop
        writes contiguously and a split stage stores in tiled order (packing at run
        time). None keeps the plain row-major layout (no reorder, or a fused axis, or a
        symbolic dim)."""
        if stage.op.runtime_dims:
            return None
        axes = [axis.name for axis in stage.op.axes]
        splits = [
            r
            for r in stage.relations
            if isinstance(r, Split)
            and r.parent in stage.axis_kind
            and stage.axis_kind[r.parent] == "spatial"
        ]
        if any(
            isinstance(r, Fuse) and stage.axis_kind[r.fused] == "spatial" for r in stage.relations
        ):
            return None
        spatial_leaves = [leaf for leaf in stage.leaves if stage.axis_kind[leaf] == "spatial"]
        if not splits and spatial_leaves == axes:
            return None
        # Each leaf as an expression of its root axis index (a placeholder var per axis).
        roots = {axis: Var(f"__root_{i}") for i, axis in enumerate(axes)}
        values: dict[str, PrimExpr] = dict(roots)
        for relation in splits:
            inner_extent = extents[relation.inner]
            parent = values[relation.parent]
            values[relation.outer] = binary("floordiv", parent, inner_extent)
            values[relation.inner] = binary("floormod", parent, inner_extent)
        dims = tuple(values[leaf] for leaf in spatial_leaves)
        shape = tuple(extents[leaf] for leaf in spatial_leaves)
        return Storage(tuple(roots.values()), dims, shape)
