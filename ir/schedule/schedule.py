"""Schedule primitives on the stages of a TE program; every primitive is recorded as a step.

A Schedule is a builder: it starts from a TE program with one stage per compute, and each
primitive (split, reorder, compute_at, cache_write, ...) changes the stages and appends a
Step to `schedule.trace`. Replaying the trace on a fresh program gives the same schedule.
An invalid step raises ScheduleError naming the step and the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ir.errors import ScheduleError
from ir.schedule.stage import (
    ANNOTATIONS,
    SCOPES,
    THREAD_TAGS,
    Attach,
    Fuse,
    LayoutRewrite,
    Split,
    Stage,
    loop_extents,
    tensor_reads,
)
from ir.schedule.trace import Step, Trace
from ir.te.tensor import ComputeOp, PlaceholderOp, Tensor
from ir.tir.expr import (
    IterVar,
    PrimExpr,
    Reduce,
    TensorRead,
    Var,
    binary,
    ceil_div,
    compare,
    logical_and,
)
from ir.tir.visit import Rewrite, map_expr_shared, substitute, walk_expr

if TYPE_CHECKING:
    from ir.te.program import TEProgram

__all__ = [
    "ANNOTATIONS",
    "RFACTOR_TAIL",
    "SCOPES",
    "STEP_KINDS",
    "THREAD_TAGS",
    "Attach",
    "Fuse",
    "LayoutRewrite",
    "Schedule",
    "Split",
    "Stage",
    "loop_extents",
    "tensor_reads",
]


class Schedule:
    """A mutable schedule of a TE program; `trace` records every primitive applied."""

    def __init__(self, program: TEProgram, *, undo_on_error: bool = True) -> None:
        """A fresh schedule of `program`. With `undo_on_error` False a failed primitive
        may leave the schedule half-changed (for builders that drop it on any error: it
        saves a copy of every stage before each primitive)."""
        self.program = program
        self.undo_on_error = undo_on_error
        self.trace = Trace()
        self.stages: dict[str, Stage] = {}
        self.stage_of_op: dict[int, str] = {}
        self.input_layouts: dict[str, LayoutRewrite] = {}
        output_ops = {id(t.op) for t in program.outputs}
        for op in program.computes:
            stage = Stage.of(op, id(op) in output_ops)
            self.stages[stage.name] = stage
            self.stage_of_op[id(op)] = stage.name

    # -- lookups -------------------------------------------------------------------------

    def stage(self, name: str) -> Stage:
        """The stage called `name`."""
        try:
            return self.stages[name]
        except KeyError:
            raise ScheduleError(f"no stage {name!r}; stages: {', '.join(self.stages)}") from None

    def stage_name_of(self, tensor: Tensor) -> str | None:
        """The stage computing `tensor`, or None for a program input."""
        return self.stage_of_op.get(id(tensor.op))

    def readers(self, name: str) -> list[str]:
        """Stages whose op reads the stage `name`."""
        result = []
        for stage in self.stages.values():
            for read in tensor_reads(stage.op.body):
                if self.stage_of_op.get(id(read.tensor.op)) == name:
                    result.append(stage.name)
                    break
        return result

    def _leaf(self, stage: Stage, axis: str) -> None:
        if axis not in stage.leaves:
            raise ScheduleError(
                f"{axis!r} is not a loop axis of stage {stage.name}; its axes: {stage.leaves}"
            )

    # -- the step machinery ----------------------------------------------------------------

    def apply(
        self, step: Step, index: int | None = None, *, undo_on_error: bool | None = None
    ) -> Any:
        """Apply one recorded step (used by replay); raises ScheduleError naming the step.

        A failed step leaves the schedule as it was, unless `undo_on_error` (by default
        the schedule's own setting) is False: for a caller that discards the schedule on
        error (replay), which then skips the copy of the whole schedule state that
        undoing needs before every step.
        """
        if undo_on_error is None:
            undo_on_error = self.undo_on_error
        position = len(self.trace) if index is None else index
        result = self.apply_unrecorded(step, position, undo_on_error)
        self.trace = self.trace.append(step)
        return result

    def apply_unrecorded(self, step: Step, position: int, undo_on_error: bool) -> Any:
        """`apply` without adding `step` to `trace` (for a replay, which sets the whole
        trace at the end); `position` names the step in errors."""
        kind = step.kind
        method = _HANDLERS.get(kind) if isinstance(kind, str) else None
        handler: Callable[..., Any] | None = None if method is None else getattr(self, method)
        if handler is None:
            raise ScheduleError(
                f"step {position} {step}: unknown primitive {step.kind!r}; "
                f"known: {', '.join(STEP_KINDS)}"
            )
        snapshot = self._snapshot() if undo_on_error else None
        try:
            result = handler(**dict(step.args))  # (`step.arguments`, without the call)
        except ScheduleError as err:
            if snapshot is not None:
                self._restore(snapshot)
            raise ScheduleError(f"step {position} {step}: {err}") from None
        except (TypeError, ValueError, KeyError) as err:
            if snapshot is not None:
                self._restore(snapshot)
            raise ScheduleError(f"step {position} {step}: invalid arguments: {err}") from None
        return result

    def _snapshot(self) -> tuple[Any, ...]:
        """The mutable state, copied deeply enough that a failed step can be undone."""
        stages = {
            name: replace(
                stage,
                axis_kind=dict(stage.axis_kind),
                root_axes=list(stage.root_axes),
                leaves=list(stage.leaves),
                relations=list(stage.relations),
                annotations=dict(stage.annotations),
            )
            for name, stage in self.stages.items()
        }
        return stages, dict(self.stage_of_op), dict(self.input_layouts)

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        self.stages, self.stage_of_op, self.input_layouts = snapshot

    def _record(self, kind: str, **args: Any) -> Any:
        return self.apply(Step.make(kind, **args))

    # -- public primitives (each records a step) --------------------------------------------

    def split(
        self, stage: str, axis: str, factor: int | None = None, nparts: int | None = None
    ) -> tuple[str, str]:
        """Split `axis` into (outer, inner) by an inner `factor` or an outer `nparts`."""
        result: tuple[str, str] = self._record(
            "split", stage=stage, axis=axis, factor=factor, nparts=nparts
        )
        return result

    def tile(
        self, stage: str, x: str, y: str, x_factor: int, y_factor: int
    ) -> tuple[str, str, str, str]:
        """Split two axes and order them (x_outer, y_outer, x_inner, y_inner)."""
        result: tuple[str, str, str, str] = self._record(
            "tile", stage=stage, x=x, y=y, x_factor=x_factor, y_factor=y_factor
        )
        return result

    def reorder(self, stage: str, *axes: str) -> None:
        """Put `axes` in this order, in the loop positions they occupy."""
        self._record("reorder", stage=stage, axes=list(axes))

    def fuse(self, stage: str, outer: str, inner: str) -> str:
        """Fuse two adjacent loops into one."""
        result: str = self._record("fuse", stage=stage, outer=outer, inner=inner)
        return result

    def vectorize(self, stage: str, axis: str) -> None:
        """Run the innermost loop `axis` as SIMD lanes (a reduce axis: the lanes' partial
        results combined by a horizontal reduction, in another order than a serial loop)."""
        self._record("annotate", stage=stage, axis=axis, annotation="vectorize")

    def parallel(self, stage: str, axis: str) -> None:
        """Run the (spatial) loop `axis` across threads."""
        self._record("annotate", stage=stage, axis=axis, annotation="parallel")

    def unroll(self, stage: str, axis: str) -> None:
        """Unroll the loop `axis` completely."""
        self._record("annotate", stage=stage, axis=axis, annotation="unroll")

    def bind(self, stage: str, axis: str, thread: str) -> None:
        """Bind the loop `axis` to a GPU block or thread index."""
        self._record("bind", stage=stage, axis=axis, thread=thread)

    def compute_at(self, stage: str, target: str, axis: str) -> None:
        """Compute `stage` inside loop `axis` of `target`, only the region that loop needs."""
        self._record("compute_at", stage=stage, target=target, axis=axis)

    def compute_inline(self, stage: str) -> None:
        """Substitute `stage` into the expressions that read it."""
        self._record("compute_inline", stage=stage)

    def compute_root(self, stage: str) -> None:
        """Compute `stage` entirely, before its readers, in its own buffer."""
        self._record("compute_root", stage=stage)

    def cache_write(self, stage: str, scope: str = "local") -> str:
        """Compute `stage` into a new buffer of `scope`; `stage` becomes the copy-out."""
        result: str = self._record("cache_write", stage=stage, scope=scope)
        return result

    def rfactor(self, stage: str, axis: str, factor: int) -> str:
        """Split the reduce axis `axis` of `stage` by `factor` and reduce its outer part in
        a new stage (its name is returned), in which the inner part is a spatial axis of
        extent `factor` (vectorizable: each lane a partial result); `stage` then reduces
        the `factor` partials. A `factor` that does not divide the axis leaves a tail that
        the new stage's reduction skips."""
        result: str = self._record("rfactor", stage=stage, axis=axis, factor=factor)
        return result

    def cache_read(self, tensor: str, scope: str, readers: Sequence[str]) -> str:
        """Copy `tensor` into a new buffer of `scope` that `readers` read instead."""
        result: str = self._record("cache_read", tensor=tensor, scope=scope, readers=list(readers))
        return result

    def set_scope(self, stage: str, scope: str) -> None:
        """Store the stage's output in `scope` (global, shared, local)."""
        self._record("set_scope", stage=stage, scope=scope)

    def layout_rewrite(
        self, input: str, factors: Sequence[Sequence[int]], order: Sequence[int]
    ) -> None:
        """Store the constant input `input` split by `factors` and permuted by `order`."""
        self._record(
            "layout_rewrite", input=input, factors=[list(f) for f in factors], order=list(order)
        )

    # -- implementations -------------------------------------------------------------------

    def _split(
        self, stage: str, axis: str, factor: object = None, nparts: object = None
    ) -> tuple[str, str]:
        # (`object`: a trace's step may hold anything, and compiled code would convert a
        # bool annotated `int` to an int before the check could see it)
        target = self.stage(stage)
        self._leaf(target, axis)
        if (factor is None) == (nparts is None):
            raise ScheduleError("give exactly one of factor and nparts")
        amount = factor if factor is not None else nparts
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
            raise ScheduleError(f"split amount must be a positive integer, got {amount!r}")
        factor, nparts = (amount, None) if factor is not None else (None, amount)
        if target.annotations.get(axis):
            raise ScheduleError(f"axis {axis} is annotated {target.annotations[axis]}; split first")
        kind = target.axis_kind[axis]
        outer = target.fresh_axis_name(f"{axis}_o")
        target.axis_kind[outer] = kind
        inner = target.fresh_axis_name(f"{axis}_i")
        target.axis_kind[inner] = kind
        position = target.leaves.index(axis)
        target.leaves[position : position + 1] = [outer, inner]
        target.relations.append(Split(axis, outer, inner, factor, nparts))
        self._retarget_attachments(stage, axis, inner)
        return outer, inner

    def _tile(
        self, stage: str, x: str, y: str, x_factor: int, y_factor: int
    ) -> tuple[str, str, str, str]:
        x_outer, x_inner = self._split(stage, x, x_factor, None)
        y_outer, y_inner = self._split(stage, y, y_factor, None)
        self._reorder(stage, [x_outer, y_outer, x_inner, y_inner])
        return x_outer, y_outer, x_inner, y_inner

    def _reorder(self, stage: str, axes: Sequence[str]) -> None:
        target = self.stage(stage)
        for axis in axes:
            self._leaf(target, axis)
        if len(set(axes)) != len(axes):
            raise ScheduleError(f"reorder lists an axis twice: {list(axes)}")
        positions = sorted(target.leaves.index(axis) for axis in axes)
        for position, axis in zip(positions, axes, strict=True):
            target.leaves[position] = axis

    def _fuse(self, stage: str, outer: str, inner: str) -> str:
        target = self.stage(stage)
        self._leaf(target, outer)
        self._leaf(target, inner)
        position = target.leaves.index(outer)
        if position + 1 >= len(target.leaves) or target.leaves[position + 1] != inner:
            raise ScheduleError(
                f"{outer} and {inner} are not adjacent (outer first): {target.leaves}"
            )
        if target.axis_kind[outer] != target.axis_kind[inner]:
            raise ScheduleError(f"cannot fuse a spatial axis with a reduce axis ({outer}, {inner})")
        for axis in (outer, inner):
            if target.annotations.get(axis):
                raise ScheduleError(f"axis {axis} is annotated {target.annotations[axis]}")
        fused = target.fresh_axis_name(f"{outer}_{inner}_f")
        target.axis_kind[fused] = target.axis_kind[outer]
        target.leaves[position : position + 2] = [fused]
        target.relations.append(Fuse(outer, inner, fused))
        self._retarget_attachments(stage, inner, fused)
        self._retarget_attachments(stage, outer, fused)
        return fused

    def _annotate(self, stage: str, axis: str, annotation: str) -> None:
        target = self.stage(stage)
        self._leaf(target, axis)
        if annotation not in ANNOTATIONS:
            raise ScheduleError(f"unknown annotation {annotation!r}; known: {ANNOTATIONS}")
        if annotation == "parallel" and target.axis_kind[axis] == "reduce":
            raise ScheduleError(f"cannot parallel reduce axis {axis}: iterations would race")
        if annotation == "vectorize" and target.leaves[-1] != axis:
            raise ScheduleError(
                f"only the innermost loop can be vectorized; {axis} is not "
                f"innermost in {target.leaves}"
            )
        if target.annotations.get(axis) not in (None, annotation):
            raise ScheduleError(f"axis {axis} is already annotated {target.annotations[axis]}")
        if annotation == "parallel" and any(a == "parallel" for a in target.annotations.values()):
            raise ScheduleError(f"stage {stage} already has a parallel loop")
        target.annotations[axis] = annotation

    def _bind(self, stage: str, axis: str, thread: str) -> None:
        target = self.stage(stage)
        self._leaf(target, axis)
        if thread not in THREAD_TAGS:
            raise ScheduleError(f"unknown thread tag {thread!r}; known: {THREAD_TAGS}")
        if target.axis_kind[axis] == "reduce":
            raise ScheduleError(f"cannot bind reduce axis {axis} to {thread}")
        target.annotations[axis] = f"bind:{thread}"

    def _compute_at(self, stage: str, target: str, axis: str) -> None:
        producer = self.stage(stage)
        consumer = self.stage(target)
        self._leaf(consumer, axis)
        if producer.is_output:
            raise ScheduleError(f"{stage} is an output; it cannot be computed at another stage")
        if stage == target:
            raise ScheduleError(f"{stage} cannot be computed at itself")
        point = Attach("at", target, axis)
        readers = [
            name
            for name in self.stages
            if name != stage
            and self.stages[name].attach.kind != "inline"
            and stage in self._stages_read_by(name)
        ]
        if not any(name == target or self.stages[name].attach == point for name in readers):
            raise ScheduleError(
                f"{target} does not read {stage} (directly, through inlined stages or through "
                f"stages computed at {target}.{axis})"
            )
        outside = [name for name in readers if name != target and self.stages[name].attach != point]
        if outside:
            raise ScheduleError(
                f"{stage} is also read by {', '.join(outside)}; compute_at needs each of its "
                f"readers to be {target} or computed at {target}.{axis} already"
            )
        producer.attach = point

    def _stages_read_by(self, name: str) -> set[str]:
        """Stages read by `name` directly or through inlined stages."""
        found: set[str] = set()
        pending = [self.stage(name)]
        while pending:
            stage = pending.pop()
            for read in tensor_reads(stage.op.body):
                producer = self.stage_of_op.get(id(read.tensor.op))
                if producer is not None and producer not in found:
                    found.add(producer)
                    if self.stages[producer].attach.kind == "inline":
                        pending.append(self.stages[producer])
        return found

    def _compute_inline(self, stage: str) -> None:
        target = self.stage(stage)
        if target.is_output:
            raise ScheduleError(f"{stage} is an output; it cannot be inlined")
        if isinstance(target.op.body, Reduce):
            raise ScheduleError(f"{stage} is a reduction; only elementwise computes can be inlined")
        if len(target.leaves) != len(target.root_axes) or target.annotations:
            raise ScheduleError(f"{stage} has loop transformations; it cannot be inlined")
        if any(s.attach.kind == "at" and s.attach.stage == stage for s in self.stages.values()):
            raise ScheduleError(f"other stages are computed at {stage}; it cannot be inlined")
        target.attach = Attach("inline")

    def _compute_root(self, stage: str) -> None:
        self.stage(stage).attach = Attach("root")

    def _set_scope(self, stage: str, scope: str) -> None:
        if scope not in SCOPES:
            raise ScheduleError(f"unknown scope {scope!r}; known: {SCOPES}")
        target = self.stage(stage)
        if target.is_output and scope != "global":
            raise ScheduleError(f"{stage} is an output; it must stay in global memory")
        target.scope = scope

    def _cache_write(self, stage: str, scope: str) -> str:
        if scope not in SCOPES:
            raise ScheduleError(f"unknown scope {scope!r}; known: {SCOPES}")
        original = self.stage(stage)
        if original.relations or original.attach.kind != "root" or original.annotations:
            raise ScheduleError(f"cache_write must come before other steps on {stage}")
        name = self._fresh_stage_name(f"{stage}_{scope}")
        cached_op, copy_op = _cache_write_ops(original.op, name)
        cache_stage = Stage.of(cached_op, False)
        cache_stage.scope = scope
        copy_stage = Stage.of(copy_op, original.is_output)
        self._insert_before(stage, cache_stage)
        self.stages[stage] = copy_stage
        self.stage_of_op[id(cached_op)] = name
        self.stage_of_op[id(copy_op)] = stage
        return name

    def _rfactor(self, stage: str, axis: str, factor: object) -> str:
        original = self.stage(stage)
        op = original.op
        if not isinstance(op.body, Reduce):
            raise ScheduleError(f"{stage} is not a reduction; only a reduction has a factor")
        if original.relations or original.attach.kind != "root" or original.annotations:
            raise ScheduleError(f"rfactor must come before other steps on {stage}")
        reduced = next((a for a in op.reduce_axes if a.name == axis), None)
        if reduced is None:
            names = [a.name for a in op.reduce_axes]
            raise ScheduleError(f"{axis!r} is not a reduce axis of {stage}; reduce axes: {names}")
        if (
            not isinstance(factor, int)
            or isinstance(factor, bool)
            or not 2 <= factor < reduced.extent
        ):
            raise ScheduleError(
                f"rfactor factor must be an integer from 2 to {reduced.extent - 1} (below the "
                f"extent of {axis}), got {factor!r}"
            )
        name = self._fresh_stage_name(f"{stage}_rf")
        partial_op, final_op = _rfactor_ops(op, axis, factor, name)
        partial_stage = Stage.of(partial_op, False)
        final_stage = Stage.of(final_op, original.is_output)
        final_stage.scope = original.scope
        self._insert_before(stage, partial_stage)
        self.stages[stage] = final_stage
        self.stage_of_op[id(partial_op)] = name
        self.stage_of_op[id(final_op)] = stage
        return name

    def _cache_read(self, tensor: str, scope: str, readers: Sequence[str]) -> str:
        if scope not in SCOPES:
            raise ScheduleError(f"unknown scope {scope!r}; known: {SCOPES}")
        source = self._tensor_by_name(tensor)
        name = self._fresh_stage_name(f"{tensor}_{scope}")
        runtime = source.runtime_dims
        axes = tuple(
            IterVar(Var(f"ax{i}"), extent, "spatial", runtime[i] if runtime else None)
            for i, extent in enumerate(source.shape)
        )
        copy_op = ComputeOp(name, axes, source[tuple(axis.var for axis in axes)], "copy")
        copy = Tensor(copy_op)
        if not readers:
            raise ScheduleError("cache_read needs at least one reader stage")
        for reader_name in readers:
            reader = self.stage(reader_name)
            if not any(read.tensor.op is source.op for read in tensor_reads(reader.op.body)):
                raise ScheduleError(f"stage {reader_name} does not read {tensor}")

            def swap(node: PrimExpr, rewrite: Rewrite) -> PrimExpr | None:
                # (through `rewrite`: a closure calling itself would be a reference cycle)
                if isinstance(node, TensorRead) and node.tensor.op is source.op:
                    return TensorRead(copy, tuple(rewrite(i) for i in node.indices))
                return None

            old_op = reader.op
            new_body = map_expr_shared(old_op.body, swap)
            new_op = ComputeOp(old_op.name, old_op.axes, new_body, old_op.tag, old_op.attrs)
            reader.op = new_op
            self.stage_of_op[id(new_op)] = reader_name
        stage = Stage.of(copy_op, False)
        stage.scope = scope
        first_reader = min(readers, key=list(self.stages).index)
        self._insert_before(first_reader, stage)
        self.stage_of_op[id(copy_op)] = name
        return name

    def _layout_rewrite(
        self, input: str, factors: Sequence[Sequence[int]], order: Sequence[int]
    ) -> None:
        placeholder = next((t for t in self.program.inputs if t.name == input), None)
        if placeholder is None:
            names = [t.name for t in self.program.inputs]
            raise ScheduleError(f"no program input {input!r}; inputs: {names}")
        if input in self.input_layouts:
            raise ScheduleError(f"input {input} already has a layout rewrite")
        shape = placeholder.shape
        values = [f for dims in factors for f in dims] + list(order)
        if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
            raise ScheduleError("layout factors and order must be integers")
        factor_tuples = tuple(tuple(int(f) for f in dims) for dims in factors)
        if len(factor_tuples) != len(shape):
            raise ScheduleError(f"factors must list one split per dimension of {shape}")
        for dim, dims in zip(shape, factor_tuples, strict=True):
            if not dims or any(f < 1 for f in dims):
                raise ScheduleError(f"factors {list(dims)} of dimension {dim} must be positive")
            inner = math.prod(dims[1:])
            # The outermost factor may round up (the packed constant is zero-padded).
            if not (dims[0] - 1) * inner < dim <= dims[0] * inner:
                raise ScheduleError(
                    f"factors {list(dims)} do not cover dimension {dim} (their product must "
                    f"be {dim}, or round it up by less than one outermost step)"
                )
        count = sum(len(dims) for dims in factor_tuples)
        if sorted(order) != list(range(count)):
            raise ScheduleError(f"order {list(order)} is not a permutation of {count} dimensions")
        self.input_layouts[input] = LayoutRewrite(input, shape, factor_tuples, tuple(order))

    # -- helpers ---------------------------------------------------------------------------

    def _tensor_by_name(self, name: str) -> Tensor:
        for tensor in self.program.inputs:
            if tensor.name == name:
                return tensor
        if name in self.stages:
            return Tensor(self.stages[name].op)
        raise ScheduleError(f"no tensor {name!r}")

    def _fresh_stage_name(self, base: str) -> str:
        name, counter = base, 1
        taken = set(self.stages) | {t.name for t in self.program.inputs}
        while name in taken:
            name, counter = f"{base}{counter}", counter + 1
        return name

    def _insert_before(self, anchor: str, stage: Stage) -> None:
        items = list(self.stages.items())
        position = [name for name, _ in items].index(anchor)
        items.insert(position, (stage.name, stage))
        self.stages = dict(items)

    def _retarget_attachments(self, stage: str, old_axis: str, new_axis: str) -> None:
        for other in self.stages.values():
            if (
                other.attach.kind == "at"
                and other.attach.stage == stage
                and other.attach.axis == old_axis
            ):
                other.attach = Attach("at", stage, new_axis)

    def input_placeholders(self) -> list[PlaceholderOp]:
        """The program's input operations, in parameter order."""
        return [t.op for t in self.program.inputs if isinstance(t.op, PlaceholderOp)]


# The ops of each cache_write, by the op cached and the new stage's name (the op kept
# alive beside them): ops are immutable, so every schedule of a search space that caches
# the same stage under the same name can share them, and the caches keyed by op identity
# (compute expansions, tensor reads) then serve them all.
_CACHE_WRITES: dict[tuple[int, str], tuple[ComputeOp, ComputeOp, ComputeOp]] = {}
_CACHE_WRITES_LIMIT = 1024


def _cache_write_ops(op: ComputeOp, name: str) -> tuple[ComputeOp, ComputeOp]:
    """The op computing `op` under `name`, and the op copying it out under `op`'s name."""
    known = _CACHE_WRITES.get((id(op), name))
    if known is not None and known[0] is op:
        return known[1], known[2]
    cached_op = ComputeOp(name, op.axes, op.body, op.tag, op.attrs)
    cached = Tensor(cached_op)
    fresh_axes = tuple(
        IterVar(Var(axis.name), axis.extent, "spatial", axis.runtime_extent) for axis in op.axes
    )
    copy_op = ComputeOp(op.name, fresh_axes, cached[tuple(axis.var for axis in fresh_axes)], "copy")
    if len(_CACHE_WRITES) >= _CACHE_WRITES_LIMIT:
        _CACHE_WRITES.clear()
    _CACHE_WRITES[(id(op), name)] = (op, cached_op, copy_op)
    return cached_op, copy_op


# The attribute of an rfactor's partial op whose split of the reduce axis leaves a tail:
# (outer reduce axis, inner spatial axis, the original extent).
RFACTOR_TAIL = "rfactor_tail"
_RFACTORS: dict[tuple[int, str, int, str], tuple[ComputeOp, ComputeOp, ComputeOp]] = {}


def _fresh_var_name(base: str, taken: set[str]) -> str:
    name, counter = base, 1
    while name in taken:
        name, counter = f"{base}{counter}", counter + 1
    taken.add(name)
    return name


def _rfactor_ops(op: ComputeOp, axis: str, factor: int, name: str) -> tuple[ComputeOp, ComputeOp]:
    """The op computing `op`'s partial reductions under `name` (the inner part of `axis`
    spatial, innermost) and the op reducing them under `op`'s name; shared like
    `_cache_write_ops`'."""
    key = (id(op), axis, factor, name)
    known = _RFACTORS.get(key)
    if known is not None and known[0] is op:
        return known[1], known[2]
    body = op.body
    assert isinstance(body, Reduce)
    reduced = next(a for a in body.axes if a.name == axis)
    runtime = reduced.runtime_extent
    taken = {a.name for a in (*op.axes, *body.axes)}
    taken |= {node.name for node in walk_expr(body) if isinstance(node, Var)}
    inner = IterVar(Var(_fresh_var_name(f"{axis}_i", taken)), factor)
    outer = IterVar(
        Var(_fresh_var_name(f"{axis}_o", taken)),
        -(-reduced.extent // factor),
        "reduce",
        None if runtime is None else ceil_div(runtime, factor),
    )
    index = binary("add", binary("mul", outer.var, factor), inner.var)
    mapping = {reduced.var: index}
    condition = None if body.condition is None else substitute(body.condition, mapping)
    if runtime is not None:
        # (a symbolic extent: the last outer step's lanes past it add the identity)
        bound = compare("lt", index, runtime)
        condition = bound if condition is None else logical_and(condition, bound)
    elif reduced.extent % factor:
        bound = compare("lt", index, reduced.extent)
        condition = bound if condition is None else logical_and(condition, bound)
    attrs = op.attrs
    if runtime is None and reduced.extent % factor:
        # Lowering peels the last outer iteration, with a shorter inner loop, so the
        # bound is proven in both parts and the vector loop needs no masks.
        tail = (RFACTOR_TAIL, (outer.name, inner.name, reduced.extent))
        attrs = tuple(sorted((*attrs, tail)))
    partial_axes = tuple(outer if a is reduced else a for a in body.axes)
    partial_op = ComputeOp(
        name,
        (*op.axes, inner),
        Reduce(body.combiner, substitute(body.source, mapping), partial_axes, condition),
        op.tag,
        attrs,
    )
    spatial = tuple(IterVar(Var(a.name), a.extent, "spatial", a.runtime_extent) for a in op.axes)
    lanes = IterVar(Var(inner.name), factor, "reduce")
    partials = Tensor(partial_op)[(*(a.var for a in spatial), lanes.var)]
    final_op = ComputeOp(
        op.name, spatial, Reduce(body.combiner, partials, (lanes,)), op.tag, op.attrs
    )
    if len(_RFACTORS) >= _CACHE_WRITES_LIMIT:
        _RFACTORS.clear()
    _RFACTORS[key] = (op, partial_op, final_op)
    return partial_op, final_op


STEP_KINDS = (
    "split",
    "tile",
    "reorder",
    "fuse",
    "annotate",
    "bind",
    "compute_at",
    "compute_inline",
    "compute_root",
    "cache_write",
    "cache_read",
    "rfactor",
    "set_scope",
    "layout_rewrite",
)

# The method applying each step kind (by name: a replay looks one up per step).
_HANDLERS = {kind: f"_{kind}" for kind in STEP_KINDS}
