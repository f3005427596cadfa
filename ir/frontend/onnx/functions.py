"""ONNX functions expanded before import: model-local functions, and the ops whose schema
defines them as a function of other ops (Attention, RMSNormalization, Swish, the losses…)
where the converter table has no converter of its own for them.

Each such op node becomes a call of a model-local function holding the schema's body (built
for the node's attributes and input types where the schema's body depends on them), and
onnx's inliner then replaces every call of a local function by its nodes, renamed apart.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import onnx
import onnx.inliner

from ir.errors import ModelImportError, UnsupportedOpError

EXPANDED_DOMAIN = "autotune.expanded"
MAX_ROUNDS = 4  # a function's body may use ops that are functions themselves


def _schema(op_type: str, opset: int) -> Any:
    """The op's schema at `opset`, or None (typed Any: onnx's stubs lack its function API)."""
    try:
        return onnx.defs.get_schema(op_type, opset, "")
    except onnx.defs.SchemaError:
        return None


def defined_as_function(op_type: str, opset: int) -> bool:
    """Whether the default domain's `op_type` at `opset` has a function body in its schema
    (fixed, or built from the node's attributes and input types)."""
    schema = _schema(op_type, opset)
    return schema is not None and bool(schema.has_function or schema.has_context_dependent_function)


def _value_types(proto: onnx.ModelProto, weights: onnx.GraphProto) -> dict[str, onnx.TypeProto]:
    """The type of every value shape inference can type (graph inputs at least); the
    initializers in `weights` are typed by their own dims."""
    try:
        graph = onnx.shape_inference.infer_shapes(proto).graph
    except Exception:  # a model inference cannot follow still expands what it can
        graph = proto.graph
    types = {value.name: value.type for value in (*graph.input, *graph.value_info)}
    for tensor in (*graph.initializer, *weights.initializer):
        types.setdefault(
            tensor.name, onnx.helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
        )
    return types


def _body(node: onnx.NodeProto, opset: int, types: dict[str, onnx.TypeProto]) -> onnx.FunctionProto:
    schema = _schema(node.op_type, opset)
    assert schema is not None
    if schema.has_context_dependent_function:
        input_types = [
            (types.get(name) or onnx.TypeProto()).SerializeToString() if name else b""
            for name in node.input
        ]
        data = schema.get_context_dependent_function(node.SerializeToString(), input_types)
    else:
        data = schema.get_function_with_opset_version(opset)
    body: onnx.FunctionProto = onnx.FunctionProto.FromString(data)
    _align_opset(body, opset, node.op_type)
    return body


def _same_interface(node: onnx.NodeProto, older: Any, newer: Any) -> bool:
    """Whether `node`, written for schema `older`, means the same under `newer`: its
    inputs and outputs where they were (inputs added since optional), its attributes
    still there, and no attribute added since required (ReduceMin-18 takes its axes as an
    optional input: a node reducing every axis reads the same)."""
    for mine, theirs, used in (
        (older.inputs, newer.inputs, len(node.input)),
        (older.outputs, newer.outputs, len(node.output)),
    ):
        kept = [(param.name, param.option) for param in mine[:used]]
        if kept != [(param.name, param.option) for param in theirs[:used]]:
            return False
    if any(
        param.option != onnx.defs.OpSchema.FormalParameterOption.Optional
        for param in newer.inputs[len(node.input) :]
        if param.option != onnx.defs.OpSchema.FormalParameterOption.Variadic
    ):
        return False
    added = set(newer.attributes) - set(older.attributes)
    return {attr.name for attr in node.attribute} <= set(newer.attributes) and not any(
        newer.attributes[name].required for name in added
    )


def _align_opset(body: onnx.FunctionProto, opset: int, op_type: str) -> None:
    """Declare `body` at the model's `opset` where it was written for an older one (the
    inliner leaves a function of another opset in place): allowed when each op of the body
    kept its meaning between the two (`_same_interface`: later versions of most ops only
    add element types or optional attributes), refused by name otherwise."""
    for entry in body.opset_import:
        if entry.domain not in ("", "ai.onnx") or entry.version == opset:
            continue
        for inner in body.node:
            older, newer = _schema(inner.op_type, entry.version), _schema(inner.op_type, opset)
            if older is None or newer is None or not _same_interface(inner, older, newer):
                raise UnsupportedOpError(
                    f"{op_type}'s function body is written for opset {entry.version} and "
                    f"uses {inner.op_type}, which changed by opset {opset}; not supported"
                )
        entry.version = opset


def _function_ops(
    proto: onnx.ModelProto, opset: int, converted: Collection[str]
) -> list[onnx.NodeProto]:
    return [
        node
        for node in proto.graph.node
        if node.domain in ("", "ai.onnx")
        and node.op_type not in converted
        and defined_as_function(node.op_type, opset)
    ]


def _set_default_attributes(node: onnx.NodeProto, opset: int) -> None:
    """Write the schema's default of every attribute the node leaves out: a function body
    refers to attributes by name, and the inliner fills in only those the node sets."""
    schema = _schema(node.op_type, opset)
    given = {attr.name for attr in node.attribute}
    for name, declared in schema.attributes.items():
        default = declared.default_value
        if name in given or default.type == onnx.AttributeProto.UNDEFINED:
            continue
        attr = node.attribute.add()
        attr.CopyFrom(default)
        attr.name = name


def _expand_round(
    proto: onnx.ModelProto,
    opset: int,
    converted: Collection[str],
    typing_model: onnx.ModelProto,
    weights: onnx.GraphProto,
) -> bool:
    """Turn this round's function-op nodes into local-function calls; whether any was.
    Shape inference (of `typing_model`) runs only for bodies built from input types."""
    nodes = _function_ops(proto, opset, converted)
    if not nodes:
        return False
    types: dict[str, onnx.TypeProto] = {}
    if any(_schema(node.op_type, opset).has_context_dependent_function for node in nodes):
        types = _value_types(typing_model, weights)
    for node in nodes:
        _set_default_attributes(node, opset)
        body = _body(node, opset, types)
        body.domain = EXPANDED_DOMAIN
        body.name = f"{node.op_type}_{len(proto.functions)}"
        node.domain, node.op_type = EXPANDED_DOMAIN, body.name
        proto.functions.append(body)
    if not any(entry.domain == EXPANDED_DOMAIN for entry in proto.opset_import):
        proto.opset_import.append(onnx.helper.make_opsetid(EXPANDED_DOMAIN, 1))
    return True


def expand_functions(
    proto: onnx.ModelProto, opset: int, converted: Collection[str]
) -> onnx.ModelProto:
    """`proto` with its model-local functions inlined, and every default-domain node whose
    op type is not in `converted` but is a schema function at `opset` replaced by the
    function's nodes; `proto` itself when there is nothing to expand."""
    if not proto.functions and not _function_ops(proto, opset, converted):
        return proto
    expanded = onnx.ModelProto()
    expanded.CopyFrom(proto)
    # The inliner takes and returns the model serialised: the weights stay out of it.
    weights = onnx.GraphProto()
    weights.initializer.extend(expanded.graph.initializer)
    expanded.graph.ClearField("initializer")
    try:
        for round_index in range(MAX_ROUNDS):
            # The first round types values with the weights (shapes computed from them).
            typing_model = proto if round_index == 0 else expanded
            if (
                not _expand_round(expanded, opset, converted, typing_model, weights)
                and not expanded.functions
            ):
                break
            expanded = onnx.inliner.inline_local_functions(expanded)
            del expanded.functions[:]
    except UnsupportedOpError:
        raise
    except Exception as err:  # onnx reports a bad function as a plain C++ error
        raise ModelImportError(f"cannot expand the model's functions: {err}") from err
    expanded.graph.initializer.extend(weights.initializer)
    kept = [entry for entry in expanded.opset_import if entry.domain != EXPANDED_DOMAIN]
    del expanded.opset_import[:]
    expanded.opset_import.extend(kept)
    return expanded
