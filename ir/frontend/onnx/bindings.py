"""Input shape bindings (parsed from `NAME=1x3x224x224` text, and written into a model),
and models made self-contained for sending as bytes.

A model exported with dynamic axes (a symbolic batch, say) compiles once its input dims
are bound, each to a size or a range. `bind_input_shapes` writes the bindings into the
model's graph inputs (a size as the dim, a range as the dim's name plus the range in the
model's metadata), so that the stored model says everything downstream (tasks, tuning,
artifacts) needs; the same model bound the same way gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ir.errors import ShapeBindingError
from ir.frontend.onnx.importer import (
    ModelSource,
    complete_shapes,
    input_dim_ranges,
    input_type,
    load_model,
    uses_external_data,
)
from ir.frontend.onnx.symbolic_dims import DimBinding, DimRange, store_dim_ranges
from ir.tir.expr import Var as SizeVar


def parse_shape_bindings(
    values: Sequence[str], what: str = "--shape"
) -> dict[str, tuple[DimBinding, ...]]:
    """Parse `NAME=1x3x224x224` texts into a dict of shapes; a dim written `LOW..HIGH`
    (`input_ids=1..8x1..512`) stays symbolic over that range. `what` names the option in
    errors."""
    bindings: dict[str, tuple[DimBinding, ...]] = {}
    for text in values:
        name, sep, dims = text.rpartition("=")
        if not sep or not name or not dims:
            raise ShapeBindingError(
                f"{what} {text!r}: expected NAME=DxDxD, e.g. input=1x3x224x224 (a dim "
                "LOW..HIGH stays symbolic, e.g. input_ids=1..8x1..512)"
            )
        shape: list[DimBinding] = []
        for dim in dims.lower().split("x"):
            if ".." in dim:
                try:
                    shape.append(DimRange.parse(dim))
                except ShapeBindingError as error:
                    raise ShapeBindingError(f"{what} {text!r}: {error}") from None
                continue
            try:
                size = int(dim)
            except ValueError:
                raise ShapeBindingError(
                    f"{what} {text!r}: dimensions must be integers or LOW..HIGH ranges, e.g. "
                    "1x3x224x224 or 1..8x128"
                ) from None
            if size < 0:
                raise ShapeBindingError(f"{what} {text!r}: dimensions must not be negative")
            shape.append(size)
        bindings[name] = tuple(shape)
    return bindings


def static_shape_bindings(
    bindings: Mapping[str, Sequence[DimBinding]], what: str
) -> dict[str, tuple[int, ...]]:
    """`bindings` where every dim is a size; ShapeBindingError naming the input and saying
    that `what` (a command, an endpoint) takes no dim ranges where one holds a range."""
    static: dict[str, tuple[int, ...]] = {}
    for name, shape in bindings.items():
        sizes = tuple(dim for dim in shape if not isinstance(dim, DimRange))
        if len(sizes) != len(shape):
            ranges = ", ".join(str(dim) for dim in shape if isinstance(dim, DimRange))
            raise ShapeBindingError(
                f"input {name!r}: {what} binds every dim to one size; dim ranges "
                f"({ranges}) work with `autotune run`, `inspect`, `tune` and `compile`"
            )
        static[name] = tuple(int(dim) for dim in sizes)
    return static


def bind_input_shapes(model: ModelSource, shapes: Mapping[str, Sequence[DimBinding]]) -> bytes:
    """The serialized model with the graph inputs named in `shapes` given those shapes
    (checked against the declared ones: rank, and every static dim), and the inputs whose
    every unknown dim is a named dim those bind given theirs too (`complete_shapes`). A dim
    bound to a range stays symbolic, named as its size variable, and the model records
    the range in its metadata (`stored_dim_ranges`), which an import without bindings
    uses."""
    proto, _ = load_model(model)
    initializers = {init.name for init in proto.graph.initializer}
    inputs = {info.name: info for info in proto.graph.input if info.name not in initializers}
    unknown = sorted(set(shapes) - set(inputs))
    if unknown:
        raise ShapeBindingError(
            f"cannot bind the shape of {unknown}: not an input of the model; inputs: {list(inputs)}"
        )
    completed = complete_shapes(list(inputs.values()), shapes)
    ranges = input_dim_ranges(list(inputs.values()), completed)
    for name, shape in completed.items():
        info = inputs[name]
        bound = input_type(info, shape)  # raises on a conflicting rank or dim
        dims = info.type.tensor_type.shape.dim
        del dims[:]
        for size, dim in zip(bound.shape, bound.dims or bound.shape, strict=True):
            if isinstance(dim, SizeVar):  # (a range: the dim stays symbolic, by its name)
                dims.add().dim_param = dim.name
            else:
                dims.add().dim_value = size
    if ranges:
        store_dim_ranges(proto, ranges)
    return bytes(proto.SerializeToString(deterministic=True))


def self_contained_bytes(path: Path) -> bytes:
    """The ONNX file at `path` as bytes that carry all its tensors: the file itself, or,
    when it keeps tensors in external files next to it, the model with them inside."""
    data = path.read_bytes()
    if not uses_external_data(data):
        return data
    proto, _ = load_model(path)
    return bytes(proto.SerializeToString(deterministic=True))
