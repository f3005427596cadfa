"""Input shape bindings (parsed from `NAME=1x3x224x224` text, and written into a model),
and models made self-contained for sending as bytes.

A model exported with dynamic axes (a symbolic batch, say) compiles once its input dims
are static. `bind_input_shapes` writes the bound dims into the model's graph inputs, so
that the stored model is static and everything downstream (tasks, tuning, artifacts)
sees one shape; the same model bound the same way gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ir.errors import ShapeBindingError
from ir.frontend.onnx.importer import (
    ModelSource,
    complete_shapes,
    input_type,
    load_model,
    uses_external_data,
)


def parse_shape_bindings(
    values: Sequence[str], what: str = "--shape"
) -> dict[str, tuple[int, ...]]:
    """Parse `NAME=1x3x224x224` texts into a dict of shapes; `what` names the option in
    errors."""
    bindings: dict[str, tuple[int, ...]] = {}
    for text in values:
        name, sep, dims = text.rpartition("=")
        if not sep or not name or not dims:
            raise ShapeBindingError(f"{what} {text!r}: expected NAME=DxDxD, e.g. input=1x3x224x224")
        try:
            shape = tuple(int(dim) for dim in dims.lower().split("x"))
        except ValueError:
            raise ShapeBindingError(
                f"{what} {text!r}: dimensions must be integers, e.g. 1x3x224x224"
            ) from None
        if any(dim < 0 for dim in shape):
            raise ShapeBindingError(f"{what} {text!r}: dimensions must not be negative")
        bindings[name] = shape
    return bindings


def bind_input_shapes(model: ModelSource, shapes: Mapping[str, Sequence[int]]) -> bytes:
    """The serialized model with the graph inputs named in `shapes` given those static
    shapes (checked against the declared ones: rank, and every static dim), and the
    inputs whose every unknown dim is a named dim those bind given theirs too
    (`complete_shapes`)."""
    proto, _ = load_model(model)
    initializers = {init.name for init in proto.graph.initializer}
    inputs = {info.name: info for info in proto.graph.input if info.name not in initializers}
    unknown = sorted(set(shapes) - set(inputs))
    if unknown:
        raise ShapeBindingError(
            f"cannot bind the shape of {unknown}: not an input of the model; inputs: {list(inputs)}"
        )
    for name, shape in complete_shapes(list(inputs.values()), shapes).items():
        info = inputs[name]
        bound = input_type(info, shape).shape  # raises on a conflicting rank or dim
        dims = info.type.tensor_type.shape.dim
        del dims[:]
        for size in bound:
            dims.add().dim_value = size
    return bytes(proto.SerializeToString(deterministic=True))


def self_contained_bytes(path: Path) -> bytes:
    """The ONNX file at `path` as bytes that carry all its tensors: the file itself, or,
    when it keeps tensors in external files next to it, the model with them inside."""
    data = path.read_bytes()
    if not uses_external_data(data):
        return data
    proto, _ = load_model(path)
    return bytes(proto.SerializeToString(deterministic=True))
