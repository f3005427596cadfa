"""Lower a schedule to a loop IR kernel.

Step 1. Expand inlined stages into their readers.
Step 2. Give every stage a buffer: parameters for inputs and outputs, allocations for the
        rest (sized by bound inference for stages computed at another stage's loop).
Step 3. Build each root stage's loop nest from its leaf axes; root indices are recovered
        from the split/fuse relations; reductions get an init nest before their first
        reduce loop; attached producers are emitted inside their target loop.
Step 4. Tails of splits that do not divide get guards; when the split's inner axis is a
        loop of its own the outer loop is partitioned into a guard-free main part and one
        tail iteration with a shorter inner loop, so vectorized loops stay branch-free.
Step 5. Simplify index arithmetic and drop guards that the loop ranges prove. Flat indices
        affine in the loop variables are built canonical already (`ir.lower.index`) and
        passed to the simplifier as hints, so it does not derive them again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ir.errors import ScheduleError
from ir.lower.index import LinearIndexer, VarForm, combine_forms
from ir.lower.region import Region, constant_range, infer_region
from ir.schedule.schedule import RFACTOR_TAIL, Fuse, Schedule, Split, Stage, loop_extents
from ir.te.tensor import ComputeOp, Operation, PlaceholderOp, reduce_identity
from ir.tir.arith import bound
from ir.tir.expr import (
    Binary,
    Buffer,
    IntImm,
    Load,
    PrimExpr,
    Reduce,
    TensorRead,
    Var,
    binary,
    compare,
    logical_and,
    select,
)
from ir.tir.simplify import simplify_func
from ir.tir.stmt import Allocate, For, IfThenElse, LetStmt, PrimFunc, Stmt, Store, seq
from ir.tir.visit import Rewrite, map_expr, map_expr_shared, substitute, walk_expr

_LOOP_KIND = {"parallel": "parallel", "vectorize": "vectorized", "unroll": "unrolled"}
RFACTOR_PEELED = -1  # in `proven`: an rfactor's tail is peeled (split positions are >= 0)
_COMBINE = {"sum": "add", "max": "max", "min": "min", "prod": "mul"}


def _interval(expr: PrimExpr, ranges: Mapping[Var, tuple[int, int]]) -> tuple[int, int] | None:
    low, high = bound(expr, ranges)
    if low is None or high is None:
        return None
    return low, high


def flat_index(indices: Sequence[PrimExpr], shape: Sequence[int]) -> PrimExpr:
    """Row-major flat index of `indices` into a buffer of `shape`."""
    total: PrimExpr = IntImm(0)
    for index, extent in zip(indices, shape, strict=True):
        total = binary("add", binary("mul", total, extent), index)
    return total


@lru_cache(maxsize=4096)  # called for every loop variable of every lowering; few names
def _identifier(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)


@lru_cache(maxsize=4096)
def _loop_var(text: str) -> Var:
    """The loop variable named after `text`, one object per name across lowerings.

    Variables are values (equal by name and dtype), and a kernel's loop names are unique,
    so sharing the object changes nothing but speed: the dicts keyed by variables, and
    the shared caches comparing trees of other candidates, meet the same object.
    """
    return Var(_identifier(text))


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
class _Storage:
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


@dataclass
class _Nest:
    """The loop structure of one stage as it is being emitted."""

    stage: Stage
    extents: dict[str, int]
    loop_vars: dict[str, Var]
    values: dict[str, PrimExpr]  # root axis -> index relative to the stage's region
    offsets: tuple[PrimExpr, ...]  # region start per spatial axis (zeros for root stages)
    tail_splits: list[int]
    guards: list[PrimExpr] = field(default_factory=list)
    # Each axis variable of the op -> its absolute index (built once per nest).
    absolute: dict[Var, PrimExpr] | None = None
    # The output index and the indexer generation it was built in (init and update share it).
    output_index: tuple[PrimExpr, int] | None = None
    # The loop position of a reduction's init nest (None: no init).
    init_position: int | None = None


class _ReadsAt:
    """The state of one `_Lowering.lower_reads_at` call.

    (Methods rather than closures: compiled by mypyc, closures that call each other share
    an environment that refers back to them, a reference cycle that keeps every node they
    saw alive until the cyclic garbage collector runs.)
    """

    __slots__ = ("indexer", "lowered", "lowering", "mapping")

    def __init__(self, lowering: _Lowering, mapping: Mapping[Var, PrimExpr]) -> None:
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


class _Lowering:
    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.inputs: dict[int, Buffer] = {}
        self.buffers: dict[str, Buffer] = {}
        self.offsets: dict[str, tuple[PrimExpr, ...]] = {}
        self.expanded: dict[int, PrimExpr] = {}
        self.attached: dict[tuple[str, str], list[Stage]] = {}
        self.layouts: dict[str, _Storage] = {}
        self.indexer = LinearIndexer()
        # Each input layout's map over placeholder roots (the layout kept alive beside it).
        self._input_maps: dict[int, tuple[object, tuple[Var, ...], tuple[PrimExpr, ...]]] = {}
        # Whether each expression met is a plain index, by identity (the node kept beside it).
        self._plain: dict[int, tuple[PrimExpr, bool]] = {}
        self._validate()

    # Step 1 -------------------------------------------------------------------------------

    def _validate(self) -> None:
        for stage in self.schedule.stages.values():
            if stage.attach.kind == "at":
                key = (stage.attach.stage, stage.attach.axis)
                self.attached.setdefault(key, []).append(stage)
                target = self.schedule.stage(stage.attach.stage)
                if stage.attach.axis not in target.leaves:
                    raise ScheduleError(
                        f"{stage.name} is computed at {target.name}.{stage.attach.axis}, "
                        f"which is no longer a loop of {target.name}"
                    )
                if target.annotations.get(stage.attach.axis) == "vectorize":
                    raise ScheduleError(
                        f"{stage.name} cannot be computed inside vectorized loop "
                        f"{target.name}.{stage.attach.axis}"
                    )
            if stage.attach.kind == "at":
                others = [
                    name
                    for name, other in self.schedule.stages.items()
                    if name not in (stage.name, stage.attach.stage)
                    and other.attach.kind != "inline"
                    and other.attach != stage.attach  # (a sibling: computed after it)
                    and stage.name in self.schedule._stages_read_by(name)
                ]
                if others:
                    raise ScheduleError(
                        f"{stage.name} is computed at {stage.attach.stage} but also read by "
                        f"{', '.join(others)}"
                    )
            for axis, annotation in stage.annotations.items():
                if annotation == "vectorize" and stage.leaves[-1] != axis:
                    raise ScheduleError(
                        f"stage {stage.name}: vectorized loop {axis} is not innermost "
                        f"({stage.leaves})"
                    )
            if stage.is_output and stage.attach.kind != "root":
                raise ScheduleError(f"output stage {stage.name} must be computed at the root")

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
        body = self._expanded_body(stage.op)
        indices = [map_expr(i, visit) for i in node.indices]
        mapping = {axis.var: index for axis, index in zip(stage.op.axes, indices, strict=True)}
        return substitute(body, mapping)

    def _expanded_body(self, op: ComputeOp) -> PrimExpr:
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
            shape = layout.new_shape if layout is not None else op.shape
            buffer = Buffer(op.name, shape, op.dtype)
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
            layout = self.schedule.input_layouts.get(op.name)
            if layout is not None:
                forms = self._input_layout_forms(layout, forms)  # type: ignore[arg-type]
                if forms is None:
                    return None
            return Load(buffer, indexer.flat_of_forms(forms, buffer.shape))  # type: ignore[arg-type]
        name = self.schedule.stage_of_op.get(id(op))
        stage_buffer = self.buffers.get(name) if name is not None else None
        if name is None or stage_buffer is None:
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
        forms = self._stored_forms(name, forms)  # type: ignore[arg-type]
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

    def _stored_forms(self, stage: str, forms: list[VarForm]) -> list[VarForm] | None:
        """`_permute` on the forms of affine indices (None: the result may not be affine)."""
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
            return Load(buffer, self.flat_index(indices, buffer.shape))
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
        return Load(stage_buffer, self.flat_index(self._permute(name, indices), stage_buffer.shape))

    # Step 3 -------------------------------------------------------------------------------

    def make_nest(self, stage: Stage, region: Region | None) -> _Nest:
        extents, tails = loop_extents(stage, region.extents if region is not None else None)
        loop_vars = {leaf: _loop_var(f"{stage.name}_{leaf}") for leaf in stage.leaves}
        self.indexer.bound(loop_vars, extents)
        values: dict[str, PrimExpr] = dict(loop_vars)
        for relation in reversed(stage.relations):
            if isinstance(relation, Split):
                values[relation.parent] = binary(
                    "add",
                    binary("mul", values[relation.outer], extents[relation.inner]),
                    values[relation.inner],
                )
            else:
                inner_extent = extents[relation.inner]
                values[relation.outer] = binary("floordiv", values[relation.fused], inner_extent)
                values[relation.inner] = binary("floormod", values[relation.fused], inner_extent)
        offsets = region.starts if region is not None else tuple(IntImm(0) for _ in stage.op.axes)
        nest = _Nest(stage, extents, loop_vars, values, offsets, tails)
        if isinstance(stage.op.body, Reduce):
            nest.init_position = self.first_reduce_position(stage)
        return nest

    def absolute(self, nest: _Nest) -> dict[Var, PrimExpr]:
        """The index of each axis of the nest's op in the whole tensor (offsets added)."""
        if nest.absolute is None:
            op, values = nest.stage.op, nest.values
            mapping: dict[Var, PrimExpr] = {
                axis.var: binary("add", offset, values[axis.name])
                for axis, offset in zip(op.axes, nest.offsets, strict=True)
            }
            for axis in op.reduce_axes:
                mapping[axis.var] = values[axis.name]
            nest.absolute = mapping
        return nest.absolute

    def emit_stage(
        self,
        stage: Stage,
        region: Region | None,
        outer_ranges: dict[Var, tuple[int, int]],
        nest: _Nest | None = None,
    ) -> Stmt:
        """The loop nest of `stage` over `region` (`nest`: its `make_nest`, when made)."""
        if nest is None:
            nest = self.make_nest(stage, region)
        op = stage.op
        # Region guards: a producer region may reach past the producer's domain at tails.
        if region is not None:
            for index, axis in enumerate(op.axes):
                start = nest.offsets[index]
                bounds = constant_range(start, outer_ranges) or _interval(start, outer_ranges)
                if (
                    bounds is not None
                    and bounds[0] >= 0
                    and bounds[1] + nest.extents[axis.name] <= axis.extent
                ):
                    continue
                absolute = binary("add", start, nest.values[axis.name])
                nest.guards.append(
                    logical_and(compare("ge", absolute, 0), compare("lt", absolute, axis.extent))
                )
        return self.build(nest, 0, {}, frozenset(), dict(outer_ranges))

    def split_guards(self, nest: _Nest, proven: frozenset[int]) -> PrimExpr | None:
        condition: PrimExpr | None = None
        for position in nest.tail_splits:
            if position in proven:
                continue
            relation = nest.stage.relations[position]
            assert isinstance(relation, Split)
            check = compare("lt", nest.values[relation.parent], nest.extents[relation.parent])
            condition = check if condition is None else logical_and(condition, check)
        for guard in nest.guards:
            condition = guard if condition is None else logical_and(condition, guard)
        return condition

    def body_value(self, nest: _Nest) -> tuple[PrimExpr, Reduce | None]:
        op = nest.stage.op
        mapping = self.absolute(nest)
        body = self._expanded_body(op)
        reduce = body if isinstance(body, Reduce) else None
        source = reduce.source if reduce is not None else body
        value = self.lower_reads_at(source, mapping)
        if reduce is not None and reduce.condition is not None:
            condition = self.lower_reads_at(reduce.condition, mapping)
            reduce = Reduce(reduce.combiner, reduce.source, reduce.axes, condition)
        return value, reduce

    def output_index(self, nest: _Nest) -> PrimExpr:
        known = nest.output_index
        generation = self.indexer.generation
        if known is not None and known[1] == generation:
            return known[0]
        index = self._output_index(nest)
        nest.output_index = (index, generation)
        return index

    def _output_index(self, nest: _Nest) -> PrimExpr:
        buffer = self.buffers[nest.stage.name]
        indices = [nest.values[axis.name] for axis in nest.stage.op.axes]
        indexer = self.indexer
        forms = []
        for index in indices:
            form = indexer.form(index)
            if form is None:
                break
            forms.append(form)
        else:
            stored = self._stored_forms(nest.stage.name, forms)
            if stored is not None:  # (the layout's tree is built only when it is needed)
                return indexer.flat_of_forms(stored, buffer.shape)
        return self.flat_index(self._permute(nest.stage.name, indices), buffer.shape)

    def flat_index(self, indices: Sequence[PrimExpr], shape: Sequence[int]) -> PrimExpr:
        """`flat_index`, built in canonical linear form when the indices are affine."""
        flat = self.indexer.flat(indices, shape)
        return flat if flat is not None else flat_index(indices, shape)

    def _permute(self, stage: str, indices: Sequence[PrimExpr]) -> list[PrimExpr]:
        layout = self.layouts.get(stage)
        if layout is None:
            return list(indices)
        return layout.map(indices)

    def storage_layout(self, stage: Stage, extents: Mapping[str, int]) -> _Storage | None:
        """How an intermediate buffer is laid out: its dims follow the stage's own spatial
        loops (split pieces included, innermost last), so the innermost (vectorized) loop
        writes contiguously and a split stage stores in tiled order (packing at run
        time). None keeps the plain row-major layout (no reorder, or a fused axis)."""
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
        return _Storage(tuple(roots.values()), dims, shape)

    def main_statement(self, nest: _Nest, proven: frozenset[int]) -> Stmt:
        buffer = self.buffers[nest.stage.name]
        index = self.output_index(nest)
        value, reduce = self.body_value(nest)
        if reduce is not None:
            current = Load(buffer, index)
            combined = binary(_COMBINE[reduce.combiner], current, value)
            if reduce.condition is not None:
                combined = select(reduce.condition, combined, current)
            value = combined
        stmt: Stmt = Store(buffer, index, value)
        condition = self.split_guards(nest, proven)
        if condition is not None:
            stmt = IfThenElse(condition, stmt)
        return stmt

    def init_statement(
        self, nest: _Nest, position: int, overrides: Mapping[str, int], proven: frozenset[int]
    ) -> Stmt:
        op = nest.stage.op
        assert isinstance(op.body, Reduce)
        buffer = self.buffers[nest.stage.name]
        stmt: Stmt = Store(
            buffer, self.output_index(nest), reduce_identity(op.body.combiner, op.dtype)
        )
        reduce_names = {axis.name for axis in op.reduce_axes}
        # Guards that mention reduce loops do not apply to the init.
        condition = self._guards_without(nest, proven, reduce_names)
        if condition is not None:
            stmt = IfThenElse(condition, stmt)
        for leaf in reversed(nest.stage.leaves[position:]):
            if self._depends_on(nest, leaf, reduce_names):
                continue
            annotation = nest.stage.annotations.get(leaf, "")
            extent = overrides.get(leaf, nest.extents[leaf])
            if annotation.startswith("bind:"):
                # The init runs on the same GPU threads as the reduction it starts.
                tag = annotation[len("bind:") :]
                stmt = For(nest.loop_vars[leaf], IntImm(extent), "thread_binding", stmt, tag)
                continue
            kind = _LOOP_KIND.get(annotation, "serial")
            if kind == "parallel":
                kind = "serial"
            stmt = For(nest.loop_vars[leaf], IntImm(extent), kind, stmt)
        return stmt

    def _guards_without(
        self, nest: _Nest, proven: frozenset[int], reduce_names: set[str]
    ) -> PrimExpr | None:
        condition: PrimExpr | None = None
        for position in nest.tail_splits:
            relation = nest.stage.relations[position]
            assert isinstance(relation, Split)
            if position in proven or self._axis_is_reduce(nest, relation.parent, reduce_names):
                continue
            check = compare("lt", nest.values[relation.parent], nest.extents[relation.parent])
            condition = check if condition is None else logical_and(condition, check)
        for guard in nest.guards:
            condition = guard if condition is None else logical_and(condition, guard)
        return condition

    @staticmethod
    def _axis_is_reduce(nest: _Nest, axis: str, reduce_names: set[str]) -> bool:
        return nest.stage.axis_kind.get(axis) == "reduce" or axis in reduce_names

    def _depends_on(self, nest: _Nest, leaf: str, reduce_names: set[str]) -> bool:
        return nest.stage.axis_kind[leaf] == "reduce"

    def first_reduce_position(self, stage: Stage) -> int | None:
        for position, leaf in enumerate(stage.leaves):
            if stage.axis_kind[leaf] == "reduce":
                return position
        return None

    def build(
        self,
        nest: _Nest,
        position: int,
        overrides: dict[str, int],
        proven: frozenset[int],
        ranges: dict[Var, tuple[int, int]],
    ) -> Stmt:
        stage = nest.stage
        leaves = stage.leaves
        if position == len(leaves):
            return self.main_statement(nest, proven)
        prefix: Stmt | None = None
        if position == nest.init_position:
            prefix = self.init_statement(nest, position, overrides, proven)
        leaf = leaves[position]
        extent = overrides.get(leaf, nest.extents[leaf])
        tail = self._partitionable(nest, leaf, proven)
        if tail is not None and extent > 1:
            split_position, inner, remainder = tail
            proven_here = proven | {split_position}
            main = self.loop(nest, position, extent - 1, overrides, proven_here, ranges)
            last = dict(overrides)
            last[inner] = remainder
            tail_ranges = dict(ranges)
            tail_ranges[nest.loop_vars[leaf]] = (extent - 1, extent - 1)
            tail_body = self.loop_body(nest, position, last, proven_here, tail_ranges)
            tail_stmt = LetStmt(nest.loop_vars[leaf], IntImm(extent - 1), tail_body)
            return seq(prefix, main, tail_stmt)
        loop = self.loop(nest, position, extent, overrides, proven, ranges)
        return loop if prefix is None else seq(prefix, loop)

    def _partitionable(
        self, nest: _Nest, leaf: str, proven: frozenset[int]
    ) -> tuple[int, str, int] | None:
        for position in nest.tail_splits:
            relation = nest.stage.relations[position]
            assert isinstance(relation, Split)
            leaves = nest.stage.leaves
            if (
                position in proven
                or relation.outer != leaf
                or relation.inner not in leaves
                or leaves.index(relation.inner) < leaves.index(leaf)
            ):
                continue
            remainder = (
                nest.extents[relation.parent]
                - (nest.extents[leaf] - 1) * nest.extents[relation.inner]
            )
            return position, relation.inner, remainder
        return self._rfactor_tail(nest, leaf, proven)

    @staticmethod
    def _rfactor_tail(
        nest: _Nest, leaf: str, proven: frozenset[int]
    ) -> tuple[int, str, int] | None:
        """An rfactor's outer reduce loop whose last iteration covers only part of the
        inner loop: peeled like a split's tail (position -1 marks it proven), so that the
        bound the reduction checks is proven in both parts."""
        tail = nest.stage.op.attr(RFACTOR_TAIL)
        if tail is None or RFACTOR_PEELED in proven:
            return None
        outer, inner, extent = tail
        leaves = nest.stage.leaves
        if leaf != outer or inner not in leaves or leaves.index(inner) < leaves.index(leaf):
            return None
        # Only where the inner loop runs whole (from 0): a stage computed at another's loop
        # may compute part of it.
        factor = nest.stage.iter_vars[inner].extent
        if nest.extents[inner] != factor:
            return None
        return RFACTOR_PEELED, inner, extent - (nest.extents[leaf] - 1) * factor

    def loop(
        self,
        nest: _Nest,
        position: int,
        extent: int,
        overrides: dict[str, int],
        proven: frozenset[int],
        ranges: dict[Var, tuple[int, int]],
    ) -> Stmt:
        leaf = nest.stage.leaves[position]
        var = nest.loop_vars[leaf]
        inner_ranges = dict(ranges)
        inner_ranges[var] = (0, extent - 1)
        body = self.loop_body(nest, position, overrides, proven, inner_ranges)
        annotation = nest.stage.annotations.get(leaf, "")
        if annotation.startswith("bind:"):
            return For(var, IntImm(extent), "thread_binding", body, annotation[len("bind:") :])
        return For(var, IntImm(extent), _LOOP_KIND.get(annotation, "serial"), body)

    def loop_body(
        self,
        nest: _Nest,
        position: int,
        overrides: dict[str, int],
        proven: frozenset[int],
        ranges: dict[Var, tuple[int, int]],
    ) -> Stmt:
        leaf = nest.stage.leaves[position]
        producers = self.attached.get((nest.stage.name, leaf))
        if not producers:
            return self.build(nest, position + 1, overrides, proven, ranges)
        # Regions last to first: a producer may be read by a later one computed here too.
        free = {
            nest.loop_vars[inner]: overrides.get(inner, nest.extents[inner])
            for inner in nest.stage.leaves[position + 1 :]
        }
        regions: dict[str, Region] = {}
        for producer in reversed(producers):
            reads = self._reads_of(producer, nest, producers, regions, free)
            regions[producer.name] = infer_region(reads, free, producer.op.shape)
        # Producers first: their buffers must exist before the consumer's reads are lowered.
        prepared = [self.emit_attached(p, regions[p.name], ranges) for p in producers]
        inner = self.build(nest, position + 1, overrides, proven, ranges)
        for buffer, compute in reversed(prepared):
            inner = Allocate(buffer, seq(compute, inner))
        return inner

    def emit_attached(
        self, producer: Stage, region: Region, ranges: dict[Var, tuple[int, int]]
    ) -> tuple[Buffer, Stmt]:
        nest = self.make_nest(producer, region)
        layout = self.storage_layout(producer, nest.extents)
        shape = region.extents if layout is None else layout.shape
        if layout is not None:
            self.layouts[producer.name] = layout
        buffer = Buffer(_identifier(producer.name), shape, producer.op.dtype, producer.scope)
        self.buffers[producer.name] = buffer
        self.offsets[producer.name] = region.starts
        return buffer, self.emit_stage(producer, region, ranges, nest)

    def _reads_of(
        self,
        producer: Stage,
        consumer: _Nest,
        siblings: Sequence[Stage],
        regions: Mapping[str, Region],
        free: dict[Var, int],
    ) -> list[tuple[PrimExpr, ...]]:
        """Where one iteration of the consumer's loop reads `producer`: the consumer's own
        reads, and those of the `siblings` computed at the same loop (over their
        `regions`, already inferred), in absolute indices. Adds each sibling's axes, as
        free variables, to `free`."""
        reads = self._reads_in(producer, consumer.stage.op, self.absolute(consumer))
        for sibling in siblings:
            region = regions.get(sibling.name)
            if region is None:  # (the producer itself, or a stage computed before it)
                continue
            mapping: dict[Var, PrimExpr] = {}
            for axis, start, extent in zip(
                sibling.op.axes, region.starts, region.extents, strict=True
            ):
                var = Var(f"__{sibling.name}_{axis.name}")
                free[var] = extent
                mapping[axis.var] = binary("add", start, var) if extent > 1 else start
            for axis in sibling.op.reduce_axes:
                var = Var(f"__{sibling.name}_{axis.name}")
                free[var] = axis.extent
                mapping[axis.var] = var
            reads += self._reads_in(producer, sibling.op, mapping)
        if not reads:
            raise ScheduleError(
                f"{producer.name} is computed at {consumer.stage.name}, which does not read it"
            )
        return reads

    def _reads_in(
        self, producer: Stage, op: ComputeOp, mapping: Mapping[Var, PrimExpr]
    ) -> list[tuple[PrimExpr, ...]]:
        """The indices, under `mapping`, of every read of `producer` in `op`'s body."""
        reads = []
        for node in walk_expr(self._expanded_body(op)):
            if (
                isinstance(node, TensorRead)
                and self.schedule.stage_of_op.get(id(node.tensor.op)) == producer.name
            ):
                reads.append(tuple(substitute(index, mapping) for index in node.indices))
        return reads

    # Step 4 -------------------------------------------------------------------------------

    def run(self, name: str) -> PrimFunc:
        program = self.schedule.program
        for tensor in program.inputs:
            assert isinstance(tensor.op, PlaceholderOp)
            self.input_buffer(tensor.op)
        outputs: list[Buffer] = []
        for tensor in program.outputs:
            stage_name = self.schedule.stage_of_op[id(tensor.op)]
            buffer = Buffer(_identifier(stage_name), tensor.shape, tensor.dtype)
            self.buffers[stage_name] = buffer
            outputs.append(buffer)
        allocations: list[Buffer] = []
        stmts: list[Stmt] = []
        for stage in self.schedule.stages.values():
            if stage.attach.kind != "root":
                continue
            nest = None
            if stage.name not in self.buffers:
                nest = self.make_nest(stage, None)
                layout = self.storage_layout(stage, nest.extents)
                shape = stage.op.shape if layout is None else layout.shape
                if layout is not None:
                    self.layouts[stage.name] = layout
                buffer = Buffer(_identifier(stage.name), shape, stage.op.dtype, stage.scope)
                self.buffers[stage.name] = buffer
                allocations.append(buffer)
            stmts.append(self.emit_stage(stage, None, {}, nest))
        body = seq(*stmts)
        for buffer in reversed(allocations):
            body = Allocate(buffer, body)
        params = tuple(self.inputs[id(t.op)] for t in program.inputs) + tuple(outputs)
        return PrimFunc(_identifier(name), params, body, num_outputs=len(outputs))


def lower(schedule: Schedule, name: str | None = None) -> PrimFunc:
    """Lower `schedule` into a loop IR kernel whose params are the inputs, then the outputs."""
    lowering = _Lowering(schedule)
    func = lowering.run(name or schedule.program.name)
    return simplify_func(func, lowering.indexer.hints)
