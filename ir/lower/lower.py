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
        A stage computed at another's loop fills its whole tile instead, where its loops
        stay within its buffer: its spatial axes unguarded, its reads made safe
        (`ir.lower.overcompute`), so a partial tile's reduction runs branch-free too.
Step 5. Simplify index arithmetic and drop guards that the loop ranges prove. Flat indices
        affine in the loop variables are built canonical already (`ir.lower.index`) and
        passed to the simplifier as hints, so it does not derive them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ir.errors import ScheduleError
from ir.lower.overcompute import may_overcompute, safe_reads
from ir.lower.reads import ReadLowering
from ir.lower.region import Region, constant_range, infer_region
from ir.schedule.schedule import RFACTOR_TAIL, Fuse, Schedule, Split, Stage, loop_extents
from ir.schedule.stage import runtime_loop_extents
from ir.te.tensor import ComputeOp, PlaceholderOp, reduce_identity
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
    eq,
    logical_and,
    select,
)
from ir.tir.simplify import simplify
from ir.tir.simplify_stmt import simplify_func
from ir.tir.stmt import Allocate, For, IfThenElse, LetStmt, PrimFunc, Stmt, Store, seq
from ir.tir.visit import free_index_vars, substitute, walk_expr

_LOOP_KIND = {"parallel": "parallel", "vectorize": "vectorized", "unroll": "unrolled"}
# A peeled tile loop's last tile gets one version per remainder up to this tile size.
MAX_REMAINDER_VERSIONS = 8
RFACTOR_PEELED = -1  # in `proven`: an rfactor's tail is peeled (split positions are >= 0)
_COMBINE = {"sum": "add", "max": "max", "min": "min", "prod": "mul"}


def _interval(expr: PrimExpr, ranges: Mapping[Var, tuple[int, int]]) -> tuple[int, int] | None:
    low, high = bound(expr, ranges)
    if low is None or high is None:
        return None
    return low, high


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
    # The run-time extents of the loops over symbolic axes (`runtime_loop_extents`).
    dynamic: dict[str, PrimExpr] = field(default_factory=dict)
    # Guards keeping symbolic axes within their run-time extents, by the loop position
    # they wrap: just inside the innermost loop they depend on (the whole nest at 0, the
    # statement at the number of leaves).
    # Each with the position of the split that, once its tail is peeled, proves it (-2:
    # none does).
    symbolic_guards: dict[int, list[tuple[int, PrimExpr]]] = field(default_factory=dict)
    # Those of spatial axes placed inside the reduction's init position: the init checks
    # them itself (by the same positions).
    init_guards: dict[int, list[tuple[int, PrimExpr]]] = field(default_factory=dict)
    # Loops over the tiles of a symbolic extent, peeled into a main part over the whole
    # tiles, where the guards they own (the split's) are proven, then the last tile if
    # partial: leaf -> (owner, symbolic extent E, tile size f).
    peelable: dict[str, tuple[int, PrimExpr, int]] = field(default_factory=dict)
    # Guards of partial tiles that no peel proves (a tile loop fused into a parallel one,
    # a stage computed at another's loop over part of a symbolic axis), by the loop
    # position where the tile is known: there the nest forks into a guard-free version for
    # whole tiles and the guarded one. Each: (the guard's owner, the tile-is-whole test).
    versions: dict[int, list[tuple[int, PrimExpr]]] = field(default_factory=dict)
    # Guards of spatial axes dropped from a stage computed at another's loop, which fills
    # its whole tile (`ir.lower.overcompute`): its reads are made safe without them.
    # Each with its owner, as the symbolic guards: where it is proven (a whole tile's
    # version), the reads stay as they are.
    overcompute: list[tuple[int, PrimExpr]] = field(default_factory=list)


class _Lowering(ReadLowering):
    def __init__(self, schedule: Schedule) -> None:
        super().__init__(schedule)
        self.attached: dict[tuple[str, str], list[Stage]] = {}
        # Indices of symbolic axes that their stages' loops keep within the run-time
        # extent, unguarded: a producer reading one position there needs no guard either.
        self.in_range: set[PrimExpr] = set()
        # The buffers of stages computed at another's loop (by name): private to its tile.
        self.private: set[str] = set()
        self.size_ranges: dict[Var, tuple[int, int]] | None = None
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

    # Step 3 -------------------------------------------------------------------------------

    def make_nest(self, stage: Stage, region: Region | None) -> _Nest:
        extents, tails = loop_extents(stage, region.extents if region is not None else None)
        loop_vars = {leaf: _loop_var(f"{stage.name}_{leaf}") for leaf in stage.leaves}
        self.indexer.bound(loop_vars, extents)
        symbolic = bool(stage.op.runtime_dims) or any(
            axis.runtime_extent is not None for axis in stage.op.reduce_axes
        )
        dynamic: dict[str, PrimExpr] = {}
        overshooting: frozenset[str] = frozenset()
        whole: frozenset[str] = frozenset()
        if symbolic:
            whole = _whole_axes(stage, region)
            dynamic, overshooting = runtime_loop_extents(stage, extents, whole)
        values: dict[str, PrimExpr] = dict(loop_vars)
        for relation in reversed(stage.relations):
            if isinstance(relation, Split):
                values[relation.parent] = binary(
                    "add",
                    binary("mul", values[relation.outer], extents[relation.inner]),
                    values[relation.inner],
                )
            else:
                inner_extent: PrimExpr | int = extents[relation.inner]
                if symbolic and relation.fused in dynamic:
                    inner_extent = dynamic.get(relation.inner, inner_extent)
                outer_value = binary("floordiv", values[relation.fused], inner_extent)
                if not isinstance(inner_extent, int):
                    # (never above it; said so, the bound of what it indexes is known)
                    outer_value = binary("min", outer_value, extents[relation.outer] - 1)
                values[relation.outer] = outer_value
                values[relation.inner] = binary("floormod", values[relation.fused], inner_extent)
        offsets = region.starts if region is not None else tuple(IntImm(0) for _ in stage.op.axes)
        if symbolic:  # (a guard keeps a symbolic axis within its run-time extent)
            tails = [p for p in tails if stage.relations[p].parent not in dynamic]  # type: ignore[union-attr]
        nest = _Nest(stage, extents, loop_vars, values, offsets, tails)
        if isinstance(stage.op.body, Reduce):
            nest.init_position = self.first_reduce_position(stage)
        if symbolic:
            nest.dynamic = dynamic
            self._guard_symbolic_axes(nest, overshooting, whole, region)
            for axis in stage.op.axes:
                if axis.runtime_extent is not None and axis.name in whole - overshooting:
                    self.in_range.add(simplify(values[axis.name]))
        return nest

    def _guard_symbolic_axes(
        self,
        nest: _Nest,
        overshooting: frozenset[str],
        whole: frozenset[str],
        region: Region | None,
    ) -> None:
        """Guard the loops over symbolic axes that may run past their run-time extents:
        each split of a loop with a run-time extent (its last tile may be partial), and
        each symbolic axis its loops may overshoot otherwise (a fuse over the static
        bound; a stage computed at another's loop over part of an axis)."""
        stage = nest.stage
        guards: list[tuple[int, PrimExpr, bool]] = []  # (owner, guard, of a spatial axis)
        for position, relation in enumerate(stage.relations):
            if isinstance(relation, Split) and relation.parent in nest.dynamic:
                value = nest.values[relation.parent]
                guard = compare("lt", value, nest.dynamic[relation.parent])
                guards.append((position, guard, stage.axis_kind[relation.parent] == "spatial"))
                if relation.parent in stage.iter_vars:
                    self._register_peelable(nest, relation.parent)
        for index, axis in enumerate(stage.op.axes):
            runtime = axis.runtime_extent
            if runtime is None or (axis.name in whole and axis.name not in overshooting):
                continue
            if nest.extents.get(axis.name) == 1 and simplify(nest.offsets[index]) in self.in_range:
                continue  # one position of the axis, which the consumer's loops keep in range
            absolute = binary("add", nest.offsets[index], nest.values[axis.name])
            owner = _NO_SPLIT - len(guards)  # (one of its own, to be versioned alone)
            guards.append((owner, compare("lt", absolute, runtime), True))
        for axis in stage.op.reduce_axes:
            runtime = axis.runtime_extent
            if runtime is not None and axis.name in overshooting:
                owner = _NO_SPLIT - len(guards)
                guards.append((owner, compare("lt", nest.values[axis.name], runtime), False))
        for index, axis in enumerate(stage.op.reduce_axes):
            # An rfactor's loop over the tiles of a symbolic reduction, ceil(E / f): its
            # main part runs the whole tiles, where the simplifier proves the lanes' bound.
            tiles = _tiles_of(axis.runtime_extent)
            if tiles is not None and axis.name in stage.leaves:
                nest.peelable[axis.name] = (_REDUCE_PEEL - index, *tiles)
        positions = {var: position for position, var in enumerate(nest.loop_vars.values())}
        init = nest.init_position
        overcompute = (
            region is not None
            and any(spatial for _, _, spatial in guards)
            and self._within_region(nest, region)
            and may_overcompute(self.expanded_body(stage.op), [axis.var for axis in stage.op.axes])
        )
        seen: set[PrimExpr] = set()
        for owner, guard, spatial in guards:
            if guard in seen:  # (a root axis's guard is its split's, owned by the split)
                continue
            seen.add(guard)
            position = _guard_position(guard, positions)
            if spatial and overcompute:
                nest.overcompute.append((owner, guard))
            else:
                nest.symbolic_guards.setdefault(position, []).append((owner, guard))
                if spatial and init is not None and position > init:
                    nest.init_guards.setdefault(position, []).append((owner, guard))
            version = _tile_version(nest, guard, positions)
            if version is not None and version[0] < position:
                nest.versions.setdefault(version[0], []).append((owner, version[1]))

    def _within_region(self, nest: _Nest, region: Region) -> bool:
        """Whether every position the loops of a stage computed at another's loop reach,
        at their static extents, lies within its region (its buffer): its splits may
        overshoot a symbolic axis, which only the guards kept in."""
        ranges = dict(self._known_size_ranges())
        for leaf, var in nest.loop_vars.items():
            ranges[var] = (0, nest.extents[leaf] - 1)
        for axis, extent in zip(nest.stage.op.axes, region.extents, strict=True):
            _, high = bound(nest.values[axis.name], ranges)
            if high is None or high >= extent:
                return False
        return True

    @staticmethod
    def _register_peelable(nest: _Nest, axis: str) -> None:
        """Register in `nest.peelable` the one split of symbolic root `axis` into two
        loops, the outer before the inner, when nothing else transforms the axis."""
        stage = nest.stage
        touching = [
            position
            for position, relation in enumerate(stage.relations)
            if (relation.parent if isinstance(relation, Split) else relation.outer) == axis
            or (isinstance(relation, Fuse) and relation.inner == axis)
        ]
        if len(touching) != 1:
            return
        relation = stage.relations[touching[0]]
        leaves = stage.leaves
        if (
            isinstance(relation, Split)
            and relation.outer in leaves
            and relation.inner in leaves
            and leaves.index(relation.inner) > leaves.index(relation.outer)
        ):
            runtime = stage.iter_vars[axis].runtime_extent
            assert runtime is not None
            nest.peelable[relation.outer] = (touching[0], runtime, nest.extents[relation.inner])

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
                    and (
                        bounds[1] + nest.extents[axis.name] <= axis.extent
                        # (a symbolic axis: its own guard keeps it below the run-time
                        # extent, at most the upper bound)
                        or axis.runtime_extent is not None
                    )
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
        innermost = _unproven(nest.symbolic_guards.get(len(nest.stage.leaves), ()), proven)
        for guard in (*nest.guards, *innermost):
            condition = guard if condition is None else logical_and(condition, guard)
        return condition

    def body_value(self, nest: _Nest) -> tuple[PrimExpr, Reduce | None]:
        op = nest.stage.op
        mapping = self.absolute(nest)
        body = self.expanded_body(op)
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
        buffer = self.buffers[nest.stage.name]
        if buffer.dims:
            indices = [nest.values[axis.name] for axis in nest.stage.op.axes]
            index = self.buffer_index(self.permute(nest.stage.name, indices), buffer)
        else:
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
            stored = self.stored_forms(nest.stage.name, forms)
            if stored is not None:  # (the layout's tree is built only when it is needed)
                return indexer.flat_of_forms(stored, buffer.shape)
        return self.flat_index(self.permute(nest.stage.name, indices), buffer.shape)

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
        dropped = _unproven(nest.overcompute, proven) if nest.overcompute else []
        if dropped:
            value = self._safe_reads(nest, value, dropped)
        stmt: Stmt = Store(buffer, index, value)
        condition = self.split_guards(nest, proven)
        if condition is not None:
            stmt = IfThenElse(condition, stmt)
        return stmt

    def _safe_reads(self, nest: _Nest, value: PrimExpr, dropped: list[PrimExpr]) -> PrimExpr:
        last = nest.stage.leaves[-1]  # (a vectorized loop is innermost: `_validate`)
        vector = nest.loop_vars[last] if nest.stage.annotations.get(last) == "vectorize" else None
        sizes = self._known_size_ranges().keys()
        return safe_reads(value, dropped, self.private, nest.loop_vars.values(), sizes, vector)

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
        leaves = nest.stage.leaves
        for index in range(len(leaves) - 1, position - 1, -1):
            leaf = leaves[index]
            if self._depends_on(nest, leaf, reduce_names):
                continue
            guards = _unproven(nest.init_guards.get(index + 1, ()), proven)
            if guards:
                stmt = IfThenElse(_all_of(guards), stmt)
            annotation = nest.stage.annotations.get(leaf, "")
            extent = _loop_extent(nest, leaf, overrides, overrides.get(leaf, nest.extents[leaf]))
            if annotation.startswith("bind:"):
                # The init runs on the same GPU threads as the reduction it starts.
                tag = annotation[len("bind:") :]
                stmt = For(nest.loop_vars[leaf], extent, "thread_binding", stmt, tag)
                continue
            kind = _LOOP_KIND.get(annotation, "serial")
            if kind == "parallel":
                kind = "serial"
            stmt = For(nest.loop_vars[leaf], extent, kind, stmt)
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
        versions = nest.versions.get(position) if nest.versions else None
        marker = _VERSIONED - position
        if versions and marker not in proven:
            pending = [(owner, whole) for owner, whole in versions if owner not in proven]
            if pending:
                owners = frozenset(owner for owner, _ in pending)
                whole_tiles = self.build(nest, position, overrides, proven | owners, ranges)
                partial = self.build(nest, position, overrides, proven | {marker}, ranges)
                return IfThenElse(_all_of([whole for _, whole in pending]), whole_tiles, partial)
        stmt = self._build_level(nest, position, overrides, proven, ranges)
        if nest.symbolic_guards and position < len(nest.stage.leaves):
            guards = _unproven(nest.symbolic_guards.get(position, ()), proven)
            if guards:
                stmt = IfThenElse(_all_of(guards), stmt)
        return stmt

    def _build_level(
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
        peel = nest.peelable.get(leaf) if nest.peelable else None
        if peel is not None and peel[0] not in proven:
            # Whole tiles without the guard, then the last tile where E leaves one.
            owner, runtime, tile = peel
            whole_tiles = binary("floordiv", runtime, tile)
            main = self.loop(
                nest, position, extent, overrides, proven | {owner}, ranges, whole_tiles
            )
            last_ranges = dict(ranges)
            last_ranges[nest.loop_vars[leaf]] = (0, extent - 1)
            last_body = self._last_tile(nest, position, overrides, proven, last_ranges, peel)
            partial = compare("ne", binary("floormod", runtime, tile), 0)
            last_tile = IfThenElse(partial, LetStmt(nest.loop_vars[leaf], whole_tiles, last_body))
            return seq(prefix, main, last_tile)
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

    def _last_tile(
        self,
        nest: _Nest,
        position: int,
        overrides: dict[str, int],
        proven: frozenset[int],
        ranges: dict[Var, tuple[int, int]],
        peel: tuple[int, PrimExpr, int],
    ) -> Stmt:
        """The body of a peeled loop's last, partial tile. Where the split's inner loop is
        short and not vectorized, one version per remainder E mod f, each with the inner
        loop that long (as a static tail gets): no guard, and the stages computed in it
        (a matmul's accumulators) sized to the rows there are; else one version, guarded."""
        owner, runtime, tile = peel
        relation = nest.stage.relations[owner] if owner >= 0 else None
        if (
            not isinstance(relation, Split)
            or not 1 < tile <= MAX_REMAINDER_VERSIONS
            or nest.stage.annotations.get(relation.inner) == "vectorize"
        ):
            return self.loop_body(nest, position, overrides, proven, ranges)
        remainder = binary("floormod", runtime, tile)
        versions: Stmt | None = None
        for rows in range(tile - 1, 0, -1):
            shorter = {**overrides, relation.inner: rows}
            body = self.loop_body(nest, position, shorter, proven | {owner}, ranges)
            versions = body if versions is None else IfThenElse(eq(remainder, rows), body, versions)
        assert versions is not None
        return versions

    def _partitionable(
        self, nest: _Nest, leaf: str, proven: frozenset[int]
    ) -> tuple[int, str, int] | None:
        for position in nest.tail_splits:
            relation = nest.stage.relations[position]
            assert isinstance(relation, Split)
            leaves = nest.stage.leaves
            if (
                position in proven
                or leaf in nest.dynamic
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
        runtime_extent: PrimExpr | None = None,
    ) -> Stmt:
        """The loop of the leaf at `position` (to `runtime_extent` when given, else to its
        own run-time or static extent; `extent` bounds it)."""
        leaf = nest.stage.leaves[position]
        var = nest.loop_vars[leaf]
        inner_ranges = dict(ranges)
        inner_ranges[var] = (0, extent - 1)
        body = self.loop_body(nest, position, overrides, proven, inner_ranges)
        annotation = nest.stage.annotations.get(leaf, "")
        if runtime_extent is None:
            runtime_extent = _loop_extent(nest, leaf, overrides, extent)
        if annotation.startswith("bind:"):
            return For(var, runtime_extent, "thread_binding", body, annotation[len("bind:") :])
        return For(var, runtime_extent, _LOOP_KIND.get(annotation, "serial"), body)

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
        self.private.add(buffer.name)
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
        for node in walk_expr(self.expanded_body(op)):
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
            buffer = Buffer(
                _identifier(stage_name), tensor.shape, tensor.dtype, dims=tensor.runtime_dims
            )
            self.buffers[stage_name] = buffer
            outputs.append(buffer)
        allocations: list[Buffer] = []
        stmts: list[Stmt] = []
        sizes = self._known_size_ranges()
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
                # (symbolic dims: sized and strided by the run-time extents)
                dims = stage.op.runtime_dims if layout is None else ()
                buffer = Buffer(_identifier(stage.name), shape, stage.op.dtype, stage.scope, dims)
                self.buffers[stage.name] = buffer
                allocations.append(buffer)
            stmts.append(self.emit_stage(stage, None, dict(sizes), nest))
        body = seq(*stmts)
        for buffer in reversed(allocations):
            body = Allocate(buffer, body)
        params = tuple(self.inputs[id(t.op)] for t in program.inputs) + tuple(outputs)
        return PrimFunc(
            _identifier(name),
            params,
            body,
            num_outputs=len(outputs),
            size_params=self._size_params(params),
        )

    def _known_size_ranges(self) -> dict[Var, tuple[int, int]]:
        """`_size_ranges`, worked out once per lowering."""
        if self.size_ranges is None:
            self.size_ranges = self._size_ranges()
        return self.size_ranges

    def _size_ranges(self) -> dict[Var, tuple[int, int]]:
        """The range of each size variable of the run-time extents: from 1 (a kernel is
        never called with a size below it) to the bound of an axis it is the extent of
        (else unbounded above); so that the index bounds analyses take it, as they take
        loop variables'."""
        ranges: dict[Var, tuple[int, int]] = {}
        for stage in self.schedule.stages.values():
            for axis in (*stage.op.axes, *stage.op.reduce_axes):
                extent = axis.runtime_extent
                if extent is None:
                    continue
                for var in free_index_vars(extent):
                    # (bounded by the axis where it is the extent itself)
                    upper = axis.extent if var is extent else _SIZE_UNBOUNDED
                    ranges[var] = (1, min(ranges.get(var, (1, upper))[1], upper))
        return ranges

    def _size_params(self, params: Sequence[Buffer]) -> tuple[Var, ...]:
        """The size variables of the symbolic dims and extents, by name."""
        found: dict[str, Var] = {}
        extents = [dim for buffer in params for dim in buffer.dims]
        for stage in self.schedule.stages.values():
            for axis in (*stage.op.axes, *stage.op.reduce_axes):
                if axis.runtime_extent is not None:
                    extents.append(axis.runtime_extent)
        for extent in extents:
            for node in walk_expr(extent):
                if isinstance(node, Var):
                    found.setdefault(node.name, node)
        return tuple(found[name] for name in sorted(found))


def _loop_extent(nest: _Nest, leaf: str, overrides: Mapping[str, int], static: int) -> PrimExpr:
    """The extent of `leaf`'s loop: its run-time extent over a symbolic axis (unless a
    tail overrides it), else `static`."""
    if nest.dynamic and leaf not in overrides:
        bound = nest.dynamic.get(leaf)
        if bound is not None:
            return bound
    return IntImm(static)


_SIZE_UNBOUNDED = 2**31  # (a size variable's range above, where no axis bounds it)
_NO_SPLIT = -2  # (split positions are >= 0, RFACTOR_PEELED is -1)
_REDUCE_PEEL = -3  # (and below: the peels of reduce axes over tiles, by axis)
# Owners of guards no split owns are _NO_SPLIT - i (i >= 0, below every peel of a reduce
# axis); a version point's marker is _VERSIONED - its position.
_VERSIONED = -(2**20)


def _tile_version(
    nest: _Nest, guard: PrimExpr, positions: Mapping[Var, int]
) -> tuple[int, PrimExpr] | None:
    """Where a symbolic guard `index < E` can be tested for a whole tile, and the test:
    just inside the innermost loop it reads that runs to a run-time extent (the tile
    loops), with the loops inside it at their last iteration. None where the guard reads
    no such inner loop, or reads one inside a floordiv or floormod (where the last
    iteration need not give the largest index)."""
    leaves = nest.stage.leaves
    read = [node for node in walk_expr(guard) if isinstance(node, Var) and node in positions]
    outer = [positions[var] for var in read if leaves[positions[var]] in nest.dynamic]
    at = 1 + max(outer, default=-1)
    inner = {var for var in read if positions[var] >= at}
    if not inner:
        return None
    for node in walk_expr(guard):
        divides = isinstance(node, Binary) and node.op in ("floordiv", "floormod")
        if divides and any(isinstance(n, Var) and n in inner for n in walk_expr(node)):
            return None
    last = {var: IntImm(nest.extents[leaves[positions[var]]] - 1) for var in inner}
    return at, substitute(guard, last)


def _tiles_of(extent: PrimExpr | None) -> tuple[PrimExpr, int] | None:
    """(E, f) for an extent `ceil_div(E, f)`; else None."""
    if (
        isinstance(extent, Binary)
        and extent.op == "floordiv"
        and isinstance(extent.rhs, IntImm)
        and isinstance(extent.lhs, Binary)
        and extent.lhs.op == "add"
        and isinstance(extent.lhs.rhs, IntImm)
        and extent.lhs.rhs.value == extent.rhs.value - 1
    ):
        return extent.lhs.lhs, extent.rhs.value
    return None


def _unproven(guards: Sequence[tuple[int, PrimExpr]], proven: frozenset[int]) -> list[PrimExpr]:
    return [guard for owner, guard in guards if owner not in proven]


def _all_of(conditions: Sequence[PrimExpr]) -> PrimExpr:
    condition = conditions[0]
    for other in conditions[1:]:
        condition = logical_and(condition, other)
    return condition


def _guard_position(guard: PrimExpr, positions: Mapping[Var, int]) -> int:
    """Just inside the innermost loop whose variable `guard` reads (0: outside them all)."""
    return 1 + max(
        (
            positions[node]
            for node in walk_expr(guard)
            if isinstance(node, Var) and node in positions
        ),
        default=-1,
    )


def _whole_axes(stage: Stage, region: Region | None) -> frozenset[str]:
    """The spatial axes of `stage` that its loops cover whole: all of them at the root;
    at another stage's loop, those whose region starts at 0 and spans the axis."""
    axes = stage.op.axes
    if region is None:
        return frozenset(axis.name for axis in axes)
    return frozenset(
        axis.name
        for axis, start, extent in zip(axes, region.starts, region.extents, strict=True)
        if extent == axis.extent and type(start) is IntImm and start.value == 0
    )


def lower(schedule: Schedule, name: str | None = None) -> PrimFunc:
    """Lower `schedule` into a loop IR kernel whose params are the inputs, then the outputs."""
    lowering = _Lowering(schedule)
    func = lowering.run(name or schedule.program.name)
    return simplify_func(func, lowering.indexer.hints)
