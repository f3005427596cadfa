"""What the rules need to know about a program's stages, read from the compute structure.

Nothing here looks at op names: a stage is "compute heavy" when it is a reduction with
data reuse (some input read misses one of its spatial axes, as in Ansor's
NeedsMultiLevelTiling), a padding stage is an injective stage named `pad*`, and the
candidate vector axes come from how the stage's output and constant inputs are indexed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ir.schedule.schedule import Schedule, Stage, tensor_reads
from ir.tir.expr import Reduce, TensorRead, Var
from ir.tir.visit import walk_expr


def reads(stage: Stage) -> list[TensorRead]:
    """Every tensor read in the stage's body."""
    return list(tensor_reads(stage.op.body))


def is_reduction(stage: Stage) -> bool:
    """Whether the stage's body is a reduction."""
    return isinstance(stage.op.body, Reduce)


def is_padding(schedule: Schedule, name: str) -> bool:
    """An injective `pad*` stage feeding a reduction: inlining it is a decision."""
    stage = schedule.stages[name]
    return (
        name.startswith("pad")
        and stage.op.tag == "injective"
        and not stage.is_output
        and any(is_reduction(schedule.stages[reader]) for reader in schedule.readers(name))
    )


def _index_vars(read: TensorRead) -> set[Var]:
    return {node for index in read.indices for node in walk_expr(index) if isinstance(node, Var)}


def is_compute_heavy(stage: Stage) -> bool:
    """A reduction with data reuse: some read leaves out a spatial axis longer than 1, so
    the read value is reused across that axis (matmul, dense, conv, depthwise conv)."""
    if not is_reduction(stage) or not stage.op.axes:
        return False
    long_axes = {axis.var for axis in stage.op.axes if axis.extent > 1}
    return any(long_axes - _index_vars(read) for read in reads(stage))


def effective_readers(schedule: Schedule, name: str) -> set[str]:
    """The stages that read `name`, looking through inlined stages."""
    found: set[str] = set()
    for reader in schedule.readers(name):
        if schedule.stages[reader].attach.kind == "inline":
            found |= effective_readers(schedule, reader)
        else:
            found.add(reader)
    return found


def fusion_anchor(schedule: Schedule, name: str, taken: Collection[str]) -> str | None:
    """The output stage that can compute the heavy stage `name` at its tiles: the only
    (effective) reader of `name`, of the same shape, not already taken by another."""
    stage = schedule.stages[name]
    if stage.is_output:
        return None
    readers = effective_readers(schedule, name)
    if len(readers) != 1:
        return None
    (reader,) = readers
    consumer = schedule.stages[reader]
    if (
        not consumer.is_output
        or reader in taken
        or is_reduction(consumer)
        or consumer.op.shape != stage.op.shape
        or consumer.attach.kind != "root"
    ):
        return None
    return reader


def weight_dimension(
    schedule: Schedule, stage: Stage, axis: int, constant_inputs: Collection[str]
) -> tuple[str, int] | None:
    """A constant input indexed by spatial axis `axis` of `stage` alone, and which of its
    dimensions: the input whose layout can be packed so that axis is contiguous."""
    return _input_dimension(schedule, stage, axis, lambda name: name in constant_inputs)


def runtime_input_dimension(
    schedule: Schedule, stage: Stage, axis: int, constant_inputs: Collection[str]
) -> tuple[str, int] | None:
    """A program input that is not constant, indexed by spatial axis `axis` of `stage`
    alone, and which of its dimensions: the input a copy at run time can pack so that
    axis is contiguous."""
    return _input_dimension(schedule, stage, axis, lambda name: name not in constant_inputs)


def _input_dimension(
    schedule: Schedule, stage: Stage, axis: int, accept: Callable[[str], bool]
) -> tuple[str, int] | None:
    var = stage.op.axes[axis].var
    for read in reads(stage):
        tensor = read.tensor
        if not accept(tensor.name) or tensor.name in schedule.input_layouts:
            continue
        if not any(placeholder.op is tensor.op for placeholder in schedule.program.inputs):
            continue
        for dim, index in enumerate(read.indices):
            if index == var:
                return tensor.name, dim
    return None


def vector_axis_candidates(
    schedule: Schedule, stage: Stage, constant_inputs: Collection[str]
) -> list[int]:
    """Spatial axes that may be vectorized innermost: the last axis (contiguous in the
    output) and axes indexing a constant input (contiguous once it is repacked); any
    axis longer than 1 when neither applies."""
    axes = stage.op.axes
    long_axes = [index for index, axis in enumerate(axes) if axis.extent > 1]
    candidates = [
        index
        for index in long_axes
        if index == len(axes) - 1
        or weight_dimension(schedule, stage, index, constant_inputs) is not None
    ]
    return candidates or long_axes
