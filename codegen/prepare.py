"""ONNX to the optimised graph a target compiles: the one place that writes "import the
model, then optimise it for this target" (`autotune tune`, `run`, `compile`, the service's
model store and artifact builds all go through it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from codegen.backends import backend_of
from codegen.llvm.target import CpuTarget
from codegen.target import Target
from ir.errors import ValueDependentError
from ir.frontend.onnx import import_model
from ir.frontend.onnx.importer import ImportedModel, ModelSource
from ir.frontend.onnx.symbolic_dims import DimBinding
from ir.graph.nodes import Function
from ir.graph.passes.pipeline import optimize
from ir.graph.passes.realize_quantized import NONE


@dataclass(frozen=True)
class PreparedModel:
    """An imported model (names, types, the graph as imported) and its graph optimised
    for a target (fused into primitive functions, in the target's layouts)."""

    imported: ImportedModel
    function: Function
    values: Mapping[str, np.ndarray] = field(default_factory=dict)  # inputs bound by value


def prepare_for_target(
    source: ModelSource,
    target: Target,
    shapes: Mapping[str, Sequence[DimBinding]] | None = None,
    example_shapes: Mapping[str, Sequence[int]] | None = None,
    values: Mapping[str, np.ndarray] | None = None,
) -> PreparedModel:
    """Import the ONNX model `source` (bytes, a path: external tensors next to it load, or
    a ModelProto) with `shapes` binding input dims (and `example_shapes`, the shapes of the
    arrays it will run on, binding the dims still unknown) and `values` binding inputs to
    constants, then optimise it for `target`: a CPU keeps convolution activations in
    blocked channels (NCHW[b]c) between kernels, a GPU in NCHW; a CPU runs a quantized
    model's convolutions on the integers where its instructions make that pay."""
    imported = import_model(
        source,
        shape=shapes or None,
        example_shape=example_shapes or None,
        values=values or None,
    )
    function = optimize(
        imported.function,
        blocked_layout=backend_of(target).blocked_layout,
        integer_products=target.integer_products if isinstance(target, CpuTarget) else NONE,
    )
    return PreparedModel(imported, function, dict(values or {}))


def prepare_for_inputs(
    source: ModelSource,
    target: Target,
    inputs: Mapping[str, np.ndarray],
    shapes: Mapping[str, Sequence[DimBinding]] | None = None,
) -> PreparedModel:
    """`prepare_for_target` for the arrays `inputs` it will run on: their shapes bind the
    unknown dims, and when an operand that must be constant (a Reshape target, Reduce
    axes, a Pad width...) depends on some inputs' values, the model is specialised to
    the values in `inputs` of those inputs (PreparedModel.values; the compiled model
    checks each run feeds the same). ValueDependentError when such an operand depends on
    a value that is not a model input."""
    examples = {name: np.shape(value) for name, value in inputs.items()}
    values: dict[str, np.ndarray] = {}
    while True:
        try:
            return prepare_for_target(source, target, shapes, examples, values)
        except ValueDependentError as err:
            more = [name for name in err.inputs if name in inputs and name not in values]
            if not more or len(more) < len(err.inputs):
                raise
            values.update((name, np.asarray(inputs[name])) for name in more)
