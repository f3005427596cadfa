"""Import an ONNX model into a typed graph IR Function.

Step 1. Load the model from bytes, a path or a ModelProto; unreadable input is a
        ModelImportError that says so.
Step 2. Validate it with `onnx.checker` and read the default-domain opset (9..21; newer
        opsets are accepted for ops whose interface did not change after 21, and opsets 7
        and 8 for ops that did not change until 9).
        Model-local functions, and ops that ONNX defines as functions of other ops and
        that have no converter here, are expanded into their nodes.
Step 3. Bind inputs: graph inputs without an initializer become typed Vars, with symbolic
        dims taken from the caller's `shape` mapping; initializers become Constants.
Step 4. Select the nodes the requested outputs need, and reject unsupported ops up front,
        listing them all.
Step 5. Convert the nodes in topological order through the converter table, typing every
        call as it is built so that converters can read their inputs' shapes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from ir.errors import ModelImportError, ShapeBindingError, UnsupportedOpError
from ir.frontend.onnx.context import (
    Captures,
    NodeContext,
    onnx_dtype_name,
    parse_attributes,
    tensor_to_array,
)
from ir.frontend.onnx.contrib_quantized import expand_contrib_quantized
from ir.frontend.onnx.converters import CONVERTERS
from ir.frontend.onnx.converters_ml import ML_CONVERTERS
from ir.frontend.onnx.functions import expand_functions
from ir.frontend.onnx.symbolic_dims import (
    DimBinding,
    DimRange,
    size_var,
    size_var_name,
    stored_dim_ranges,
)
from ir.graph.nodes import Constant, Expr, Function, Tuple, Var
from ir.graph.passes.fold_constant import fold_expr
from ir.graph.types import TensorType, TupleType
from ir.tir.expr import IntImm

MIN_OPSET = 9
OLDEST_OPSET = 1  # older models: each op must be the version it is at MIN_OPSET
MAX_OPSET = 21  # the newest opset the converters are written and tested against
DEFAULT_DOMAINS = ("", "ai.onnx")
ML_DOMAIN = "ai.onnx.ml"  # the traditional-ML ops (tree ensembles, scalers, ...)
# Ops whose converters also read their versions from before MIN_OPSET.
OLDER_VERSIONS_CONVERTED = frozenset({"Scan"})
# Attributes added after MAX_OPSET that the converters read.
NEWER_ATTRIBUTES: dict[str, set[str]] = {
    "SpaceToDepth": {"mode"},
    "Cast": {"round_mode"},
    "CastLike": {"round_mode"},
}

ModelSource = bytes | str | os.PathLike[str] | onnx.ModelProto
Dim = int | str  # a fixed size, or the name of a symbolic dim ("?" when unnamed)


@dataclass(frozen=True)
class ImportedModel:
    """An imported model: the graph IR function and the model's interface."""

    function: Function
    input_names: tuple[str, ...]
    input_types: tuple[TensorType, ...]
    output_names: tuple[str, ...]
    opset: int
    producer: str
    # The range of each size variable of the inputs' symbolic dims, by name.
    dim_ranges: Mapping[str, DimRange] = field(default_factory=dict)


def from_onnx(
    model: ModelSource,
    shape: Mapping[str, Sequence[DimBinding]] | None = None,
    outputs: Sequence[str] | None = None,
    example_shape: Mapping[str, Sequence[int]] | None = None,
) -> Function:
    """Import an ONNX model as a typed Function of its non-initializer inputs.

    `shape` binds symbolic or unknown input dims (`{"input": (1, 3, 224, 224)}`), or
    keeps them symbolic over a range (`{"input": (DimRange(1, 8), 3, 224, 224)}`); `outputs`
    selects ONNX value names to return instead of the graph outputs (a Tuple when several).
    `example_shape` gives the shapes of the arrays the caller will run: they bind the
    inputs with unknown dims that `shape` leaves unbound (a dynamic batch, for example).
    """
    return import_model(model, shape, outputs, example_shape).function


def import_model(
    model: ModelSource,
    shape: Mapping[str, Sequence[DimBinding]] | None = None,
    outputs: Sequence[str] | None = None,
    example_shape: Mapping[str, Sequence[int]] | None = None,
    values: Mapping[str, np.ndarray] | None = None,
) -> ImportedModel:
    """Like `from_onnx`, also returning input/output names and types, opset and producer.

    `values` binds graph inputs to constants (checked against their declared type): the
    model is specialised to those values and they are no longer inputs of the function
    (the inputs an operand such as a Reshape target or Reduce axes depends on).
    """
    proto, path = load_model(model)
    check_model(proto, path)
    opset = default_opset(proto)
    proto = expand_contrib_quantized(proto, opset)
    proto = expand_functions(proto, opset, CONVERTERS)
    importer = _GraphImporter(proto.graph, opset, ml=ml_opset(proto))
    shape = {**_stored_bindings(proto, shape or {}), **(shape or {})}
    params = importer.bind_inputs(shape, example_shape or {}, values or {})
    output_names = importer.select_outputs(outputs)
    body = importer.convert(output_names)
    return ImportedModel(
        function=Function(tuple(params), body),
        input_names=tuple(param.name for param in params),
        input_types=tuple(param.type_annotation for param in params),  # type: ignore[misc]
        output_names=tuple(output_names),
        opset=opset,
        producer=str(proto.producer_name),
        dim_ranges=importer.dim_ranges,
    )


def _stored_bindings(
    proto: onnx.ModelProto, shape: Mapping[str, Sequence[DimBinding]]
) -> dict[str, tuple[DimBinding, ...]]:
    """The ranges the model carries (`stored_dim_ranges`) as bindings of the inputs
    `shape` leaves unbound whose every unknown dim is a named dim with a stored range."""
    ranges = stored_dim_ranges(proto)
    if not ranges:
        return {}
    initializers = {init.name for init in proto.graph.initializer}
    bindings: dict[str, tuple[DimBinding, ...]] = {}
    for info in proto.graph.input:
        dims = declared_dims(info)
        if info.name in shape or info.name in initializers or dims is None:
            continue
        if all(isinstance(dim, int) or dim in ranges for dim in dims):
            bindings[info.name] = tuple(
                dim if isinstance(dim, int) else ranges[dim] for dim in dims
            )
    return bindings


def load_model(model: ModelSource) -> tuple[onnx.ModelProto, str | None]:
    """Parse `model` into a ModelProto (external data loaded for a path) and its path."""
    if isinstance(model, onnx.ModelProto):
        _refuse_external_data(model)
        return model, None
    if isinstance(model, bytes | bytearray | memoryview):
        proto = _parse(bytes(model), "bytes")
        _refuse_external_data(proto)
        return proto, None
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise ModelImportError(f"cannot read ONNX model file {path!r}: {err}") from err
        proto = _parse(data, repr(path))
        try:
            onnx.external_data_helper.load_external_data_for_model(
                proto, os.path.dirname(os.path.abspath(path))
            )
        except (OSError, ValueError) as err:
            raise ModelImportError(f"cannot load external data of {path!r}: {err}") from err
        return proto, path
    raise ModelImportError(
        f"cannot import a {type(model).__name__}: expected bytes, a path or an onnx.ModelProto"
    )


def _all_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    """Every tensor a graph holds: initializers and tensor attributes, subgraphs included."""
    yield from graph.initializer
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            if attribute.HasField("g"):
                yield from _all_tensors(attribute.g)
            for subgraph in attribute.graphs:
                yield from _all_tensors(subgraph)


def _external_tensors(proto: onnx.ModelProto) -> Iterator[onnx.TensorProto]:
    """The model's tensors whose data lives in an external file."""
    for tensor in _all_tensors(proto.graph):
        if onnx.external_data_helper.uses_external_data(tensor):
            yield tensor


def uses_external_data(model: bytes) -> bool:
    """Whether the serialized model keeps any tensor in an external file."""
    return next(_external_tensors(_parse(model, "bytes")), None) is not None


def _refuse_external_data(proto: onnx.ModelProto) -> None:
    """A model given without its path cannot say where its external tensor files are (and
    must not read files relative to wherever this process runs): ModelImportError."""
    tensor = next(_external_tensors(proto), None)
    if tensor is None:
        return
    location = next((entry.value for entry in tensor.external_data if entry.key == "location"), "?")
    raise ModelImportError(
        f"tensor {tensor.name!r} is stored in an external file {location!r}, which a model "
        "given as bytes cannot reach: pass the model's path, or save it with its weights "
        "inside (onnx.save(model, path, save_as_external_data=False))"
    )


def _parse(data: bytes, source: str) -> onnx.ModelProto:
    if not data:
        raise ModelImportError(f"cannot parse ONNX model: {source} is empty")
    try:
        proto = onnx.load_model_from_string(data)
    except (DecodeError, ValueError, RuntimeError) as err:
        raise ModelImportError(f"cannot parse ONNX model: {err}") from err
    if not proto.HasField("graph"):
        raise ModelImportError("cannot parse ONNX model: it has no graph (is it an ONNX file?)")
    return proto


# Before IR version 4 every initializer had to be a graph input too; tools that add
# initializers to such models (onnxruntime's quantizer) leave the new ones out, which the
# checker refuses though the meaning is plain (constants) and onnxruntime runs them.
_INITIALIZER_NOT_INPUT = "in initializer but not in graph input"
_FIRST_IR_WITHOUT_THAT_RULE = 4


def check_model(proto: onnx.ModelProto, path: str | None = None) -> None:
    """Run the ONNX checker; a failure is a ModelImportError carrying its message. An
    initializer missing from the graph inputs of a model before IR version 4 is read as
    the constant it is (the model is checked as of IR version 4)."""
    try:
        onnx.checker.check_model(path if path is not None else proto)
    except (onnx.checker.ValidationError, ValueError) as err:
        if (
            _INITIALIZER_NOT_INPUT not in str(err)
            or proto.ir_version >= _FIRST_IR_WITHOUT_THAT_RULE
        ):
            raise ModelImportError(f"invalid ONNX model: {err}") from err
        original = proto.ir_version
        proto.ir_version = _FIRST_IR_WITHOUT_THAT_RULE
        try:
            onnx.checker.check_model(proto)
        except (onnx.checker.ValidationError, ValueError) as again:
            raise ModelImportError(f"invalid ONNX model: {again}") from again
        finally:
            proto.ir_version = original


def default_opset(proto: onnx.ModelProto) -> int:
    """The model's opset of the default ONNX domain: at least OLDEST_OPSET.

    Opsets before MIN_OPSET and after MAX_OPSET are accepted node by node (see
    `check_older_op_version` and `check_newer_op_version`).
    """
    versions = [
        int(entry.version) for entry in proto.opset_import if entry.domain in DEFAULT_DOMAINS
    ]
    if not versions and ml_opset(proto) is not None:
        return MAX_OPSET  # only ML ops: no default-domain op to read at an opset
    if not versions:
        domains = sorted({entry.domain for entry in proto.opset_import})
        raise UnsupportedOpError(
            f"the model imports no opset of the default ONNX domain, only {domains}; "
            "only the default domain's ops are supported"
        )
    opset = max(versions)
    if opset < OLDEST_OPSET:
        raise UnsupportedOpError(
            f"opset {opset} of the default ONNX domain is not supported; "
            f"supported opsets: {MIN_OPSET}..{MAX_OPSET} (and {OLDEST_OPSET}..{MIN_OPSET - 1} "
            f"for ops that did not change until {MIN_OPSET})"
        )
    return opset


def ml_opset(proto: onnx.ModelProto) -> int | None:
    """The model's opset of the ai.onnx.ml domain, or None when it imports none."""
    versions = [int(entry.version) for entry in proto.opset_import if entry.domain == ML_DOMAIN]
    return max(versions) if versions else None


def _schemas(
    op_type: str, first: int, second: int
) -> tuple[onnx.defs.OpSchema, onnx.defs.OpSchema] | None:
    """The default domain's schemas of `op_type` at two opsets, or None if it has none."""
    try:
        return onnx.defs.get_schema(op_type, first, ""), onnx.defs.get_schema(op_type, second, "")
    except onnx.defs.SchemaError:
        return None


def check_older_op_version(node: onnx.NodeProto, name: str, opset: int) -> None:
    """Accept a node of a model older than MIN_OPSET only if its op is the version it is
    at MIN_OPSET (the converters are written for opsets MIN_OPSET and later), or one of
    OLDER_VERSIONS_CONVERTED."""
    if opset >= MIN_OPSET or node.op_type in OLDER_VERSIONS_CONVERTED:
        return
    schemas = _schemas(node.op_type, opset, MIN_OPSET)
    if schemas is None:
        return
    old, known = schemas
    if old.since_version != known.since_version:
        raise UnsupportedOpError(
            f"ONNX node {name!r} ({node.op_type}, opset {opset}): {node.op_type}-"
            f"{old.since_version} changed before opset {MIN_OPSET}, and that older version "
            f"is not supported; supported opsets: {MIN_OPSET}..{MAX_OPSET}"
        )


def check_newer_op_version(node: onnx.NodeProto, name: str, opset: int) -> None:
    """Accept a node of a model newer than MAX_OPSET only if its op kept its interface.

    Versions of our ops after MAX_OPSET mostly add element types; a version that changed the
    inputs or outputs, or a node that sets an attribute added after MAX_OPSET, is rejected.
    """
    schemas = None if opset <= MAX_OPSET else _schemas(node.op_type, MAX_OPSET, opset)
    if schemas is None:
        return
    known, current = schemas
    if current.since_version <= MAX_OPSET:
        return

    def signature(schema: onnx.defs.OpSchema) -> object:
        return (
            [(param.name, param.option) for param in schema.inputs],
            [(param.name, param.option) for param in schema.outputs],
        )

    understood = set(known.attributes) | NEWER_ATTRIBUTES.get(node.op_type, set())
    new_attrs = sorted({attr.name for attr in node.attribute} - understood)
    if signature(known) != signature(current) or new_attrs:
        change = f"sets attribute(s) {new_attrs}" if new_attrs else "changed inputs or outputs"
        raise UnsupportedOpError(
            f"ONNX node {name!r} ({node.op_type}, opset {opset}): {node.op_type}-"
            f"{current.since_version} {change} after opset {MAX_OPSET}, which is not "
            f"supported; supported opsets: {MIN_OPSET}..{MAX_OPSET}"
        )


def _describe(dims: Sequence[Dim]) -> str:
    return "[" + ", ".join(str(dim) for dim in dims) + "]"


def declared_dims(value_info: onnx.ValueInfoProto) -> list[Dim] | None:
    """An input's declared dims (ints, or names of symbolic dims), or None if rank is unknown."""
    tensor_type = value_info.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return [
        int(dim.dim_value) if dim.HasField("dim_value") else (dim.dim_param or "?")
        for dim in tensor_type.shape.dim
    ]


def has_unknown_dims(dims: Sequence[Dim] | None) -> bool:
    """Whether a declared shape leaves a dim (or the whole shape) unknown."""
    return dims is None or any(isinstance(dim, str) for dim in dims)


def input_type(value_info: onnx.ValueInfoProto, bound: Sequence[DimBinding] | None) -> TensorType:
    """The type of a graph input: its declared shape with symbolic dims bound, to a size
    or (kept symbolic, as a size variable) to a range."""
    name = value_info.name
    if value_info.type.WhichOneof("value") != "tensor_type":
        raise UnsupportedOpError(f"input {name!r}: only tensor inputs are supported")
    dtype = onnx_dtype_name(value_info.type.tensor_type.elem_type, f"input {name!r}")
    dims = declared_dims(value_info)
    hint = (
        f"bind it with --shape {name}=DxDx... on the command line (shape={{{name!r}: (...)}} "
        "in Python)"
    )
    if bound is not None:
        given = tuple(dim if isinstance(dim, DimRange) else int(dim) for dim in bound)
        shown = "[" + ", ".join(map(str, given)) + "]"
        if any(isinstance(dim, int) and dim < 0 for dim in given):
            raise ShapeBindingError(f"input {name!r}: bound shape {shown} has a negative dim")
        if dims is not None and len(given) != len(dims):
            raise ShapeBindingError(
                f"input {name!r}: bound shape {shown} has rank {len(given)}, but the "
                f"model declares rank {len(dims)} {_describe(dims)}"
            )
        for axis, (declared, size) in enumerate(zip(dims or given, given, strict=True)):
            if isinstance(declared, int) and declared != size and dims is not None:
                raise ShapeBindingError(
                    f"input {name!r}: bound shape {shown} conflicts with the model's "
                    f"shape {_describe(dims)} at dim {axis} ({size} vs {declared})"
                )
        return _bound_type(name, dims, given, dtype)
    if dims is None:
        raise ShapeBindingError(f"input {name!r} has no declared shape; {hint}")
    unknown = [(axis, dim) for axis, dim in enumerate(dims) if isinstance(dim, str)]
    if unknown:
        listed = ", ".join(f"{axis} ({dim!r})" for axis, dim in unknown)
        raise ShapeBindingError(
            f"input {name!r} has shape {_describe(dims)} with unknown dim(s) {listed}; {hint}"
        )
    return TensorType(tuple(int(dim) for dim in dims), dtype)


def _bound_type(
    name: str, dims: Sequence[Dim] | None, given: Sequence[DimBinding], dtype: str
) -> TensorType:
    """The type of input `name` (declared `dims`) bound to `given`: static, or with a
    size variable for each dim bound to a range."""
    shape = tuple(dim.high if isinstance(dim, DimRange) else dim for dim in given)
    if not any(isinstance(dim, DimRange) for dim in given):
        return TensorType(shape, dtype)
    symbolic = tuple(
        size_var(size_var_name(_dim_param(dims, axis), name, axis))
        if isinstance(dim, DimRange)
        else IntImm(dim, "int64")
        for axis, dim in enumerate(given)
    )
    return TensorType(shape, dtype, symbolic)


def _dim_param(dims: Sequence[Dim] | None, axis: int) -> str | None:
    declared = dims[axis] if dims is not None else None
    return declared if isinstance(declared, str) else None


def input_dim_ranges(
    inputs: Sequence[onnx.ValueInfoProto], shapes: Mapping[str, Sequence[DimBinding]]
) -> dict[str, DimRange]:
    """The range of each size variable that binding `inputs` to `shapes` makes, by name;
    ShapeBindingError where two dims make one variable with different ranges."""
    ranges: dict[str, tuple[DimRange, str]] = {}
    for info in inputs:
        dims = declared_dims(info)
        for axis, dim in enumerate(shapes.get(info.name, ())):
            if not isinstance(dim, DimRange):
                continue
            var = size_var_name(_dim_param(dims, axis), info.name, axis)
            where = f"input {info.name!r} (dim {axis})"
            known, origin = ranges.setdefault(var, (dim, where))
            if known != dim:
                raise ShapeBindingError(
                    f"dim {var!r} is {known} in {origin} but {dim} in {where}: a symbolic "
                    "dim has one range in every input that declares it"
                )
    return {var: dim_range for var, (dim_range, _) in ranges.items()}


def _named_sizes(
    name: str,
    dims: Sequence[Dim] | None,
    shape: Sequence[DimBinding],
    sizes: dict[str, tuple[DimBinding, str, int]],
) -> None:
    """Record in `sizes` (dim name -> (size, input, axis)) the sizes that binding input
    `name` (declared `dims`) to `shape` gives its named dims; ShapeBindingError where one
    is already another size."""
    if dims is None or len(dims) != len(shape):
        return  # input_type says what is wrong with the rank
    for axis, (declared, size) in enumerate(zip(dims, shape, strict=True)):
        if not isinstance(declared, str) or declared == "?":
            continue
        known = sizes.setdefault(declared, (size, name, axis))
        if known[0] != size:
            raise ShapeBindingError(
                f"dim {declared!r} is {known[0]} in input {known[1]!r} (dim {known[2]}) but "
                f"{size} in input {name!r} (dim {axis}): a named dim has one size (or "
                "range) in every input that declares it"
            )


def complete_shapes(
    inputs: Sequence[onnx.ValueInfoProto],
    shapes: Mapping[str, Sequence[DimBinding]],
    examples: Mapping[str, Sequence[int]] | None = None,
) -> dict[str, tuple[DimBinding, ...]]:
    """The shape each of `inputs` binds to: `shapes`' where given; else, for an input
    with unknown dims, `examples`' (the arrays the caller will run), or the one its named
    dims (ONNX dim_params) take in the inputs bound so far where they name every unknown
    dim it has. A named dim has one size wherever it appears: ShapeBindingError names the
    dim and the two inputs that bind it to different sizes."""
    declared = {info.name: declared_dims(info) for info in inputs}
    bound: dict[str, tuple[DimBinding, ...]] = {
        name: tuple(dim if isinstance(dim, DimRange) else int(dim) for dim in shape)
        for name, shape in shapes.items()
    }
    for name, example in (examples or {}).items():
        if name in declared and name not in bound and has_unknown_dims(declared[name]):
            bound[name] = tuple(int(dim) for dim in example)
    sizes: dict[str, tuple[DimBinding, str, int]] = {}
    for name, shape in bound.items():
        _named_sizes(name, declared.get(name), shape, sizes)
    for info in inputs:
        dims = declared[info.name]
        if info.name in bound or dims is None or not has_unknown_dims(dims):
            continue
        if all(isinstance(dim, int) or dim in sizes for dim in dims):
            bound[info.name] = tuple(dim if isinstance(dim, int) else sizes[dim][0] for dim in dims)
    return bound


class _GraphImporter:
    """The state of one graph's import: the ONNX value name -> Expr table."""

    def __init__(
        self,
        graph: onnx.GraphProto,
        opset: int,
        parent: _GraphImporter | None = None,
        ml: int | None = None,
    ) -> None:
        self.graph = graph
        self.opset = opset
        self.parent = parent  # the enclosing graph's importer, for a subgraph
        self.ml_opset: int | None = parent.ml_opset if parent is not None else ml
        self.nodes: list[onnx.NodeProto] = list(graph.node)
        self.initializers: dict[str, onnx.TensorProto] = {
            tensor.name: tensor for tensor in graph.initializer
        }
        self.sparse: set[str] = {
            tensor.values.name for tensor in graph.sparse_initializer if tensor.values.name
        }
        self.values: dict[str, Expr] = {}
        self.folded: dict[int, tuple[Expr, Expr]] = {}
        # size variable -> its range (a subgraph's are its graph's)
        self.dim_ranges: dict[str, DimRange] = dict(parent.dim_ranges) if parent else {}

    def bind_inputs(
        self,
        shapes: Mapping[str, Sequence[DimBinding]],
        examples: Mapping[str, Sequence[int]],
        values: Mapping[str, np.ndarray],
    ) -> list[Var]:
        """Vars for the graph inputs that have no initializer, typed with `shapes` bound
        (and `examples` where `shapes` leaves unknown dims unbound); the inputs in
        `values` become those constants instead."""
        inputs = [info for info in self.graph.input if info.name not in self.initializers]
        names = [info.name for info in inputs]
        for what, bound_names in (("shape", shapes), ("value", values)):
            unknown = sorted(set(bound_names) - set(names))
            if unknown:
                raise ShapeBindingError(
                    f"cannot bind the {what} of {unknown}: not an input of the model; "
                    f"inputs: {names}"
                )
        examples = {**examples, **{name: np.shape(value) for name, value in values.items()}}
        bound_shapes = complete_shapes(inputs, shapes, examples)
        self.dim_ranges = input_dim_ranges(inputs, bound_shapes)
        params = []
        for info in inputs:
            if info.name in values:
                self.values[info.name] = _bound_value(info, values[info.name], shapes)
                continue
            var = Var(info.name, input_type(info, bound_shapes.get(info.name)))
            self.values[info.name] = var
            params.append(var)
        return params

    def select_outputs(self, outputs: Sequence[str] | None) -> list[str]:
        """The value names to return: `outputs`, or the graph outputs."""
        graph_outputs = [info.name for info in self.graph.output]
        if outputs is None:
            return graph_outputs
        names = [outputs] if isinstance(outputs, str) else list(outputs)
        if not names:
            raise ModelImportError("outputs must name at least one value")
        known = set(self.values) | set(self.initializers)
        known.update(name for node in self.nodes for name in node.output if name)
        missing = [name for name in names if name not in known]
        if missing:
            raise ModelImportError(
                f"unknown output value(s) {missing}: no node, input or initializer has that "
                f"name; graph outputs: {graph_outputs}"
            )
        return names

    def convert(self, output_names: Sequence[str]) -> Expr:
        """Convert the nodes `output_names` depend on; the body: one value or a Tuple."""
        fields = self._convert_outputs(output_names, "graph output")
        if len(fields) == 1:
            return fields[0]
        return Tuple(tuple(fields), ty=TupleType(tuple(field.checked_type for field in fields)))

    def _needed_nodes(self, output_names: Sequence[str]) -> list[int]:
        producer = {name: i for i, node in enumerate(self.nodes) for name in node.output if name}
        needed: set[int] = set()
        stack = list(output_names)
        while stack:
            index = producer.get(stack.pop())
            if index is None or index in needed:
                continue
            needed.add(index)
            stack.extend(name for name in self.nodes[index].input if name)
            stack.extend(_subgraph_inputs(self.nodes[index]))
        return sorted(needed)

    def convert_subgraph(self, graph: onnx.GraphProto, inputs: Sequence[Expr]) -> list[Expr]:
        """A subgraph's outputs with its inputs bound to `inputs` (see NodeContext)."""
        child = _GraphImporter(graph, self.opset, parent=self)
        for info, value in zip(graph.input, inputs, strict=True):
            child.values[info.name] = value
        output_names = [info.name for info in graph.output]
        return child._convert_outputs(output_names, f"subgraph {graph.name!r} output")

    def convert_closure(
        self, graph: onnx.GraphProto, params: Sequence[Expr], captures: Captures
    ) -> list[Expr]:
        """A subgraph's outputs as a closed body (see NodeContext.convert_closure)."""
        child = _GraphImporter(graph, self.opset, parent=self)
        local = {info.name for info in graph.input} | set(child.initializers)
        local.update(name for node in graph.node for name in node.output if name)
        for info, param in zip(graph.input, params, strict=True):
            child.values[info.name] = param
        read = [name for node in graph.node for name in (*node.input, *_subgraph_inputs(node))]
        where = f"subgraph {graph.name!r}"
        for name in dict.fromkeys(read):
            if not name or name in local:
                continue
            if name in captures:
                child.values[name] = captures[name][0]
                continue
            try:
                outer = self._value(name, where)
            except ModelImportError:
                continue  # made inside a nested subgraph, not read from outside
            folded = self._fold(outer)
            if isinstance(folded, Constant):
                # A constant stays one inside the body: weights keep their layouts, and
                # shapes computed outside stay compile-time operands.
                child.values[name] = folded
                continue
            var = Var(name, outer.checked_type)
            captures[name] = (var, outer)
            child.values[name] = var
        output_names = [info.name for info in graph.output]
        return child._convert_outputs(output_names, f"{where} output")

    def _convert_outputs(self, output_names: Sequence[str], where: str) -> list[Expr]:
        """Convert the nodes the outputs depend on (all checked first); their values."""
        needed = self._needed_nodes(output_names)
        self._check_supported(needed)
        used = {name for index in needed for name in self.nodes[index].input if name}
        used.update(output_names)
        for index in needed:
            self._convert_node(index, used)
        return [self._value(name, where) for name in output_names]

    def _check_supported(self, needed: Sequence[int]) -> None:
        unsupported: dict[str, str] = {}
        for index in needed:
            node = self.nodes[index]
            name = node.name or f"{node.op_type}_{index}"
            if node.domain == ML_DOMAIN and self.ml_opset is not None:
                if node.op_type not in ML_CONVERTERS:
                    unsupported.setdefault(f"{ML_DOMAIN}.{node.op_type}", name)
                continue
            if node.domain not in DEFAULT_DOMAINS:
                raise UnsupportedOpError(
                    f"ONNX node {name!r} ({node.op_type}): domain {node.domain!r} is not "
                    "supported; only the default ONNX domain is"
                )
            if node.op_type not in CONVERTERS:
                unsupported.setdefault(node.op_type, name)
            else:
                check_older_op_version(node, name, self.opset)
                check_newer_op_version(node, name, self.opset)
        if unsupported:
            listed = ", ".join(f"{op} (node {name!r})" for op, name in unsupported.items())
            ml = f"; of {ML_DOMAIN}: {', '.join(ML_CONVERTERS)}" if self.ml_opset else ""
            raise UnsupportedOpError(
                f"unsupported ONNX op(s) at opset {self.opset}: {listed}; "
                f"supported op types: {', '.join(CONVERTERS)}{ml}"
            )

    def _value(self, name: str, where: str) -> Expr:
        value = self.values.get(name)
        if value is not None:
            return value
        if name in self.initializers:
            constant = Constant(tensor_to_array(self.initializers[name], f"initializer {name!r}"))
            self.values[name] = constant
            return constant
        if name in self.sparse:
            raise UnsupportedOpError(f"{where}: sparse initializer {name!r} is not supported")
        if self.parent is not None:
            return self.parent._value(name, where)
        raise ModelImportError(f"{where}: value {name!r} is used before it is defined")

    def _fold(self, expr: Expr) -> Expr:
        # Cache by identity (keeping `expr` alive so that its id stays unique).
        hit = self.folded.get(id(expr))
        if hit is not None and hit[0] is expr:
            return hit[1]
        folded = fold_expr(expr)
        self.folded[id(expr)] = (expr, folded)
        return folded

    def _convert_node(self, index: int, used: set[str]) -> None:
        node = self.nodes[index]
        name = node.name or f"{node.op_type}_{index}"
        ml = node.domain == ML_DOMAIN
        opset = self.ml_opset if ml and self.ml_opset is not None else self.opset
        table = ML_CONVERTERS if ml else CONVERTERS
        where = f"ONNX node {name!r} ({node.op_type}, opset {opset})"
        inputs = tuple(self._value(value, where) if value else None for value in node.input)
        attrs = parse_attributes(node, where)
        ctx = NodeContext(
            node,
            index,
            opset,
            inputs,
            attrs,
            self._fold,
            self.convert_subgraph,
            self.convert_closure,
            self.dim_ranges,
        )
        try:
            result = table[node.op_type](ctx)
        except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError) as err:
            raise ModelImportError(f"{where}: cannot convert: {err}") from err
        results = [
            _empty_as_constant(value)
            for value in ([result] if isinstance(result, Expr) else result)
        ]
        for position, output in enumerate(node.output):
            if not output:
                continue
            if position < len(results):
                self.values[output] = results[position]
            elif output in used:
                raise UnsupportedOpError(
                    f"{where}: output {position} ({_output_name(node, self.opset, position)}, "
                    f"value {output!r}) is used, but only the first {len(results)} output(s) "
                    "are supported"
                )


def _bound_value(
    info: onnx.ValueInfoProto, value: np.ndarray, shapes: Mapping[str, Sequence[DimBinding]]
) -> Constant:
    """The constant an input is bound to, checked against its declared (or bound) type."""
    array = np.asarray(value)
    ty = input_type(info, shapes.get(info.name, array.shape))
    if array.shape != ty.shape or array.dtype.name != ty.dtype:
        raise ShapeBindingError(
            f"input {info.name!r}: the value bound to it has shape {list(array.shape)} "
            f"{array.dtype.name}, but the input is {list(ty.shape)} {ty.dtype}"
        )
    return Constant(np.array(array, copy=True))


def _subgraph_inputs(node: onnx.NodeProto) -> Iterator[str]:
    """Names the node's subgraphs (at any depth) read: their nodes' inputs, a superset of
    the values they take from enclosing graphs."""
    for attr in node.attribute:
        graphs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
        for graph in graphs:
            for inner in graph.node:
                yield from (name for name in inner.input if name)
                yield from _subgraph_inputs(inner)


def _empty_as_constant(value: Expr) -> Expr:
    """A value with no elements holds no data: an empty Constant of its type, so that the
    ops reading it fold away instead of becoming kernels over nothing."""
    ty = value.checked_type
    if isinstance(ty, TensorType) and ty.size == 0 and not isinstance(value, Constant):
        return Constant(np.zeros(ty.shape, ty.dtype))
    return value


def _output_name(node: onnx.NodeProto, opset: int, position: int) -> str:
    """The schema's name of an output (e.g. "Indices"), for messages."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "")
        return str(schema.outputs[position].name)
    except (onnx.defs.SchemaError, IndexError):
        return f"output {position}"
