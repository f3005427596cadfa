"""ONNX to the optimised graph a target compiles: the one place that writes "import the
model, then optimise it for this target" (`autotune tune`, `run`, `compile`, the service's
model store and artifact builds all go through it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from codegen.backends import backend_of
from codegen.target import Target
from ir.frontend.onnx import import_model
from ir.frontend.onnx.importer import ImportedModel, ModelSource
from ir.graph.nodes import Function
from ir.graph.passes.pipeline import optimize


@dataclass(frozen=True)
class PreparedModel:
    """An imported model (names, types, the graph as imported) and its graph optimised
    for a target (fused into primitive functions, in the target's layouts)."""

    imported: ImportedModel
    function: Function


def prepare_for_target(
    source: ModelSource,
    target: Target,
    shapes: Mapping[str, Sequence[int]] | None = None,
    example_shapes: Mapping[str, Sequence[int]] | None = None,
) -> PreparedModel:
    """Import the ONNX model `source` (bytes, a path: external tensors next to it load, or
    a ModelProto) with `shapes` binding input dims (and `example_shapes`, the shapes of the
    arrays it will run on, binding the dims still unknown), then optimise it for `target`:
    a CPU keeps convolution activations in blocked channels (NCHW[b]c) between kernels, a
    GPU in NCHW."""
    imported = import_model(source, shape=shapes or None, example_shape=example_shapes or None)
    return PreparedModel(
        imported, optimize(imported.function, blocked_layout=backend_of(target).blocked_layout)
    )
