"""What the rules need to know about a program's stages, read from the compute structure.

A stage is "compute heavy" when it is a reduction with data reuse (some input read misses
one of its spatial axes, as in Ansor's NeedsMultiLevelTiling), a padding stage is an
injective stage named `pad*`, and the candidate vector axes come from how the stage's
output and constant inputs are indexed. Row producers (softmax's and layer_norm's
statistics) are found by how their readers index them. Op tags name only the matrix
products (`GEMM_TAGS`), which the default schedule register-tiles by kind.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ir.schedule.schedule import Schedule, Stage, tensor_reads
from ir.te.program import TEProgram
from ir.tir.expr import Call, Reduce, TensorRead, Var
from ir.tir.visit import walk_expr

GEMM_TAGS = (
    "conv2d",
    "conv2d_nchwc",
    "depthwise_conv2d_nchwc",
    "dense",
    "matmul",
    "batch_matmul",
)
# Functions a vector computes in tens of instructions: an elementwise stage computing one
# is computed once rather than inlined into several readers.
TRANSCENDENTALS = frozenset(
    {"exp", "log", "erf", "tanh", "sigmoid", "pow", "sin", "cos"}
    | {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"}
)


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


def work(stage: Stage) -> int:
    """The stage's iterations: the product of its spatial and reduce extents."""
    total = 1
    for axis in (*stage.op.axes, *stage.op.reduce_axes):
        total *= axis.extent
    return total


def is_depthwise_conv(program: TEProgram, stage: Stage) -> bool:
    """Whether `stage` is a depthwise conv: in NCHW[b]c, or an NCHW conv of several input
    channels whose output channels each read one of them (a depthwise conv, or a grouped
    one of one channel per group)."""
    if stage.op.tag == "depthwise_conv2d_nchwc":
        return True
    if stage.op.tag != "conv2d" or len(stage.op.axes) != 4 or len(program.inputs) < 2:
        return False
    data, weight = program.inputs[:2]
    return data.ndim == 4 and data.shape[1] > 1 and weight.ndim == 4 and weight.shape[1] == 1


def reduces_along_rows(stage: Stage) -> bool:
    """Whether a reduction reads some input's innermost dimension along its innermost
    reduce axis (softmax's or layer_norm's statistics over the last axis), and not
    along its last spatial axis."""
    last_reduce = stage.op.reduce_axes[-1].var
    last_spatial = stage.op.axes[-1].var if stage.op.axes else None
    for node in walk_expr(stage.op.body):
        if isinstance(node, TensorRead) and node.indices:
            innermost = node.indices[-1]
            mentions = {n for n in walk_expr(innermost) if isinstance(n, Var)}
            if last_reduce in mentions and last_spatial not in mentions:
                return True
    return False


def recomputes_transcendentals(schedule: Schedule, name: str) -> bool:
    """Whether inlining the elementwise stage `name` would compute a transcendental
    function once per reader: it computes one and two stages or more read it (softmax's
    exp(x - max), read by the row sum and the output)."""
    stage = schedule.stages[name]
    if isinstance(stage.op.body, Reduce) or len(schedule.readers(name)) < 2:
        return False
    return computes_transcendental(stage)


def computes_transcendental(stage: Stage) -> bool:
    """Whether the stage's body calls exp, log, erf, tanh or another TRANSCENDENTALS."""
    return any(
        isinstance(node, Call) and node.name in TRANSCENDENTALS for node in walk_expr(stage.op.body)
    )


def row_producers(schedule: Schedule, output: str) -> list[str]:
    """The root stages that one row of `output` (one iteration of its loops but the last)
    needs only a row of, in stage order: softmax's and layer_norm's statistics and
    intermediates, which can then be computed per row inside the output's row loop
    (compute_at) rather than each over the whole tensor. Such a stage has the output's
    leading extents and every reader (the output, another such stage, or a stage inlined
    into one) reads it at the reader's own row indices; matrix products are left out
    (they are tiled)."""
    stages = schedule.stages
    out = stages[output]
    rows = len(out.op.axes) - 1
    if rows < 1 or out.op.reduce_axes:
        return []
    leading = out.op.shape[:rows]
    aligned = {output}
    found: list[str] = []
    for name in reversed(list(stages)):
        stage = stages[name]
        if name in aligned or stage.is_output or stage.op.tag in GEMM_TAGS:
            continue
        if len(stage.op.axes) < rows or stage.op.shape[:rows] != leading:
            continue
        readers = schedule.readers(name)
        if readers and all(
            reader in aligned and _reads_at_rows(stages[reader], name, schedule, rows)
            for reader in readers
        ):
            aligned.add(name)
            if stage.attach.kind == "root":
                found.append(name)
    return found[::-1]


def _reads_at_rows(reader: Stage, name: str, schedule: Schedule, rows: int) -> bool:
    """Whether every read of stage `name` in `reader` indexes its first `rows` dimensions
    by the reader's first `rows` axes."""
    axes = [axis.var for axis in reader.op.axes[:rows]]
    return all(
        len(axes) == rows and list(read.indices[:rows]) == axes
        for read in tensor_reads(reader.op.body)
        if schedule.stage_of_op.get(id(read.tensor.op)) == name
    )
