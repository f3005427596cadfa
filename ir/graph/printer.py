"""A Relay-style text printer: `%3 = nn.conv2d(%x, meta[Constant][0], strides=[2, 2])`."""

from __future__ import annotations

import math

import numpy as np

from ir.graph.attrs import AttrValue
from ir.graph.nodes import Call, Constant, Expr, Function, If, Loop, Tuple, TupleGetItem, Var
from ir.graph.traversal import post_order


def format_attr_value(value: AttrValue) -> str:
    """Format one attribute value the way the text format shows it."""
    if isinstance(value, tuple):
        return "[" + ", ".join(format_attr_value(item) for item in value) + "]"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value) + "f"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _format_scalar(constant: Constant) -> str:
    value = constant.data.reshape(()).item()
    suffix = {"float32": "f", "float64": "f64", "int64": "i64", "int32": "", "bool": ""}
    text = format_attr_value(value) if not isinstance(value, float) else repr(value)
    return f"{text}{suffix.get(constant.data.dtype.name, ':' + constant.data.dtype.name)}"


class _Printer:
    def __init__(self, show_types: bool) -> None:
        self.show_types = show_types
        self.constants: dict[int, int] = {}
        self.functions: dict[int, str] = {}
        self.definitions: list[str] = []

    def name_constant(self, constant: Constant) -> str:
        if constant.data.ndim == 0 or (constant.data.size == 1 and constant.data.ndim <= 1):
            return _format_scalar(constant)
        index = self.constants.setdefault(id(constant), len(self.constants))
        return f"meta[Constant][{index}]"

    def name_function(self, fn: Function) -> str:
        if id(fn) not in self.functions:
            base = str(fn.attrs.get("name", "fn"))
            taken = set(self.functions.values())
            name, suffix = f"@{base}", 1
            while name in taken:
                name, suffix = f"@{base}_{suffix}", suffix + 1
            self.functions[id(fn)] = name
            self.definitions.append(self.print_function(fn, name))
        return self.functions[id(fn)]

    def print_function(self, fn: Function, name: str = "fn") -> str:
        names: dict[int, str] = {}
        lines: list[str] = []
        for param in fn.params:
            names[id(param)] = f"%{param.name}"
        counter = 0
        for node in post_order(fn.body):
            if isinstance(node, Var):
                names[id(node)] = f"%{node.name}"
                continue
            if isinstance(node, Constant):
                names[id(node)] = self.name_constant(node)
                continue
            text = self.print_node(node, names)
            names[id(node)] = f"%{counter}"
            lines.append(f"  %{counter} = {text}{self.type_comment(node)};")
            counter += 1
        params = ", ".join(f"%{p.name}: {p.type_annotation}" for p in fn.params)
        ret = f" -> {fn.body.checked_type}" if fn.body.has_type else ""
        attrs = [f"{k}={format_attr_value(v)}" for k, v in fn.attrs.items() if k != "name"]
        attr_text = (", " + ", ".join(attrs)) if attrs else ""
        prefix = "fn " if name == "fn" else f"def {name}"
        header = f"{prefix}({params}{attr_text}){ret} {{"
        result = names.get(id(fn.body), "")
        return "\n".join([header, *lines, f"  {result}", "}"])

    def type_comment(self, node: Expr) -> str:
        if self.show_types and node.has_type:
            return f" /* ty={node.checked_type} */"
        return ""

    def print_node(self, node: Expr, names: dict[int, str]) -> str:
        if isinstance(node, Call):
            args = [names[id(arg)] for arg in node.args]
            if isinstance(node.op, Function):
                return f"{self.name_function(node.op)}({', '.join(args)})"
            attrs = [f"{key}={format_attr_value(val)}" for key, val in node.attrs.items()]
            return f"{node.op}({', '.join(args + attrs)})"
        if isinstance(node, Tuple):
            return "(" + ", ".join(names[id(f)] for f in node.fields) + ")"
        if isinstance(node, TupleGetItem):
            return f"{names[id(node.tuple_value)]}.{node.index}"
        if isinstance(node, If):
            then_name, else_name = (self.name_function(f) for f in node.branches)
            operands = ", ".join(names[id(arg)] for arg in node.args)
            condition = names[id(node.condition)]
            return f"if({condition}, then={then_name}, else={else_name}, args=({operands}))"
        if isinstance(node, Loop):
            states = ", ".join(names[id(state)] for state in node.states)
            invariants = ", ".join(names[id(value)] for value in node.invariants)
            body = self.name_function(node.body)
            scans = f", scan_outputs={node.scan_outputs}" if node.scan_outputs else ""
            return (
                f"loop(trips={names[id(node.trip_count)]}, while={names[id(node.condition)]}, "
                f"states=({states}), invariants=({invariants}), body={body}{scans})"
            )
        raise TypeError(f"cannot print {type(node).__name__}")


def print_expr(expr: Expr, show_types: bool = True) -> str:
    """Print a function (with the primitive functions it calls first) or any expression."""
    printer = _Printer(show_types)
    if isinstance(expr, Function):
        main = printer.print_function(expr, "@main" if _has_fused_calls(expr) else "fn")
        return "\n\n".join([*printer.definitions, main])
    if isinstance(expr, Var):
        return f"%{expr.name}"
    if isinstance(expr, Constant):
        if expr.data.size == 1:
            return _format_scalar(expr)
        return f"Constant[{np.array2string(expr.data, threshold=8)}]"
    wrapper = Function((), expr)
    return printer.print_function(wrapper)


def _has_fused_calls(fn: Function) -> bool:
    return any(isinstance(n, Call) and isinstance(n.op, Function) for n in post_order(fn.body))
