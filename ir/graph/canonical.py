"""The one canonical JSON form of a graph IR function (the source of workload keys).

Nodes are listed in post order and referenced by position, so the form depends only on
structure: parameter names can be replaced by positions, and constants appear by type
and content digest (with their values when small).
"""

from __future__ import annotations

import json
import math
from typing import Any

from ir.graph.attrs import AttrValue
from ir.graph.nodes import Call, Constant, Function, Tuple, TupleGetItem, Var
from ir.graph.traversal import post_order
from ir.graph.types import type_to_json

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
