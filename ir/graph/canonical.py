"""The one canonical JSON form of a graph IR function (the source of workload keys).

Nodes are listed in post order and referenced by position, so the form depends only on
structure: parameter names can be replaced by positions, and constants appear by type
and content digest (with their values when small). `function_from_json` reads the form
back (workers rebuild a workload from it); a large constant known only by its digest
cannot come back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ir.errors import IRError
from ir.graph.attrs import Attrs, AttrValue
from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, TupleGetItem, Var
from ir.graph.ops.registry import get_op
from ir.graph.traversal import post_order
from ir.graph.types import FuncType, TensorType, TupleType, Type, type_to_json
from ir.tir.dim_text import parse_dim

FORMAT = "autotune.graph/1"
INLINE_CONSTANT_LIMIT = 16  # constants with at most this many elements carry their values


def _json_value(value: AttrValue) -> Any:
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # 'inf', '-inf', 'nan': strict JSON has no spelling for them
    return value


def _constant_json(constant: Constant) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": "constant", "type": type_to_json(constant.checked_type)}
    if constant.data.size <= INLINE_CONSTANT_LIMIT:
        entry["value"] = _json_value(tuple(constant.data.reshape(-1).tolist()))
    else:
        entry["digest"] = constant.digest
    return entry


def function_to_json(fn: Function, positional_params: bool = False) -> dict[str, Any]:
    """Describe `fn` as plain JSON data; with `positional_params`, params are named p0, p1, ..."""
    refs: dict[int, Any] = {}
    params = []
    for position, param in enumerate(fn.params):
        name = f"p{position}" if positional_params else param.name
        refs[id(param)] = {"param": position}
        params.append({"name": name, "type": type_to_json(param.type_annotation)})
    nodes: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    function_index: dict[int, int] = {}
    for node in post_order(fn.body):
        if id(node) in refs:
            continue
        entry: dict[str, Any]
        if isinstance(node, Var):
            entry = {"kind": "free_var", "name": node.name}
        elif isinstance(node, Constant):
            entry = _constant_json(node)
        elif isinstance(node, Call):
            if isinstance(node.op, Function):
                if id(node.op) not in function_index:
                    function_index[id(node.op)] = len(functions)
                    functions.append(function_to_json(node.op, positional_params=True))
                op: Any = {"function": function_index[id(node.op)]}
            else:
                op = node.op
            entry = {
                "kind": "call",
                "op": op,
                "args": [refs[id(arg)] for arg in node.args],
                "attrs": {key: _json_value(val) for key, val in node.attrs.items()},
            }
        elif isinstance(node, Tuple):
            entry = {"kind": "tuple", "fields": [refs[id(f)] for f in node.fields]}
        elif isinstance(node, TupleGetItem):
            entry = {"kind": "get", "tuple": refs[id(node.tuple_value)], "index": node.index}
        else:
            raise TypeError(f"cannot serialise {type(node).__name__}")
        if node.has_type and "type" not in entry:
            entry["type"] = type_to_json(node.checked_type)
        refs[id(node)] = {"node": len(nodes)}
        nodes.append(entry)
    result: dict[str, Any] = {
        "format": FORMAT,
        "params": params,
        "nodes": nodes,
        "output": refs[id(fn.body)],
        "attrs": {key: _json_value(val) for key, val in fn.attrs.items()},
    }
    if functions:
        result["functions"] = functions
    return result


def canonical_json(fn: Function, positional_params: bool = False) -> str:
    """The canonical JSON text of `fn`: sorted keys, no whitespace, strict JSON."""
    return json.dumps(
        function_to_json(fn, positional_params),
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    )


# -- reading the canonical form back ------------------------------------------------------

_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def type_from_json(data: Any) -> Type:
    """Rebuild a type from `type_to_json` output; raises IRError on malformed data."""
    if not isinstance(data, Mapping):
        raise IRError(f"malformed type {data!r}: expected an object")
    try:
        if "tuple" in data:
            return TupleType(tuple(type_from_json(field) for field in data["tuple"]))
        if "ret" in data:
            return FuncType(
                tuple(type_from_json(param) for param in data["params"]),
                type_from_json(data["ret"]),
            )
        dims = tuple(parse_dim(str(dim)) for dim in data.get("dims", ()))
        return TensorType(tuple(data["shape"]), data["dtype"], dims)
    except (KeyError, TypeError, ValueError) as err:
        raise IRError(f"malformed type {data!r}: {err}") from None


def _float_value(value: Any) -> Any:
    """Undo `_json_value`'s spelling of non-finite floats (also inside lists)."""
    if isinstance(value, list):
        return [_float_value(item) for item in value]
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    return value


def _plain_attrs(attrs: Mapping[str, Any]) -> Attrs:
    return Attrs({key: _float_value(value) for key, value in attrs.items()})


def _op_attrs(op: str, attrs: Mapping[str, Any]) -> Attrs:
    # 'inf', '-inf' and 'nan' are floats spelled as strings, except in attributes whose
    # default is a string (a genuine string value that happens to read "inf").
    defaults = get_op(op).attrs
    return Attrs(
        {
            key: value if isinstance(defaults.get(key), str) else _float_value(value)
            for key, value in attrs.items()
        }
    )


def _constant_from_json(entry: Mapping[str, Any]) -> Constant:
    ty = type_from_json(entry.get("type"))
    if not isinstance(ty, TensorType):
        raise IRError(f"constant of non-tensor type {ty}")
    if "value" not in entry:
        raise IRError(
            f"constant {ty} (digest {entry.get('digest', '?')}) has more than "
            f"{INLINE_CONSTANT_LIMIT} elements, so the canonical form carries only its digest; "
            "its values cannot be rebuilt"
        )
    values = _float_value(entry["value"])
    try:
        array = np.asarray(values, dtype=ty.dtype).reshape(ty.shape)
    except (TypeError, ValueError) as err:
        raise IRError(f"constant {ty}: bad value {entry['value']!r}: {err}") from None
    return Constant(array)


class _Reader:
    """Rebuilds one function (and the functions it calls) from its JSON description."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        if data.get("format") != FORMAT:
            raise IRError(f"unknown function format {data.get('format')!r}; expected {FORMAT!r}")
        self.data = data
        self.params = tuple(
            Var(str(param["name"]), type_from_json(param["type"])) for param in data["params"]
        )
        self.functions = [_Reader(sub).function() for sub in data.get("functions", [])]
        self.nodes: list[Expr] = []

    def ref(self, ref: Mapping[str, Any]) -> Expr:
        if "param" in ref:
            return self.params[int(ref["param"])]
        index = int(ref["node"])
        if not 0 <= index < len(self.nodes):
            raise IRError(f"node reference {index} is not an earlier node")
        return self.nodes[index]

    def node(self, entry: Mapping[str, Any]) -> Expr:
        kind = entry["kind"]
        ty = type_from_json(entry["type"]) if "type" in entry else None
        if kind == "constant":
            return _constant_from_json(entry)
        if kind == "free_var":
            if ty is None:
                raise IRError(f"free variable %{entry['name']} has no type")
            return Var(str(entry["name"]), ty)
        if kind == "call":
            args = tuple(self.ref(arg) for arg in entry["args"])
            op_data = entry["op"]
            if isinstance(op_data, Mapping):
                op: str | Function = self.functions[int(op_data["function"])]
                attrs = _plain_attrs(entry.get("attrs", {}))
            else:
                op = str(op_data)
                attrs = _op_attrs(op, entry.get("attrs", {}))
            return Call(op, args, attrs, ty=ty)
        if kind == "tuple":
            return Tuple(tuple(self.ref(field) for field in entry["fields"]), ty=ty)
        if kind == "get":
            return TupleGetItem(self.ref(entry["tuple"]), int(entry["index"]), ty=ty)
        raise IRError(f"unknown node kind {kind!r}")

    def function(self) -> Function:
        for position, entry in enumerate(self.data["nodes"]):
            try:
                self.nodes.append(self.node(entry))
            except IRError as err:
                raise IRError(f"node {position}: {err}") from None
        body = self.ref(self.data["output"])
        return Function(self.params, body, _plain_attrs(self.data.get("attrs", {})))


def function_from_json(data: str | Mapping[str, Any]) -> Function:
    """Rebuild a function from `canonical_json` / `function_to_json` output.

    Constants come back only when the form carries their values (at most
    INLINE_CONSTANT_LIMIT elements); a larger one, present by digest only, raises IRError.
    Spans are not part of the form and come back empty. Raises IRError on malformed data.
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            raise IRError(f"function is not valid JSON: {err}") from None
    if not isinstance(data, Mapping):
        raise IRError("a function's JSON form must be an object")
    try:
        return _Reader(data).function()
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise IRError(f"malformed function JSON: {type(err).__name__}: {err}") from None
