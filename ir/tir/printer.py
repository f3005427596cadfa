"""Stable text printers for scalar expressions and loop IR."""

from __future__ import annotations

from ir.tir.expr import (
    Binary,
    Buffer,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Load,
    Logical,
    PrimExpr,
    Reduce,
    Select,
    TensorRead,
    Var,
)
from ir.tir.stmt import (
    Allocate,
    Barrier,
    For,
    IfThenElse,
    LetStmt,
    PrimFunc,
    Seq,
    Stmt,
    Store,
)

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "floormod": "%"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def format_expr(expr: PrimExpr) -> str:
    """Print an expression, fully parenthesised where operators nest."""
    if isinstance(expr, IntImm):
        if expr.dtype == "bool":
            return "True" if expr.value else "False"
        return str(expr.value) if expr.dtype in ("int64", "int32") else f"{expr.value}:{expr.dtype}"
    if isinstance(expr, FloatImm):
        suffix = "f" if expr.dtype == "float32" else f":{expr.dtype}"
        return f"{expr.value!r}{suffix}"
    if isinstance(expr, Var):
        return expr.name
    if isinstance(expr, Binary):
        lhs, rhs = format_expr(expr.lhs), format_expr(expr.rhs)
        if expr.op in _INFIX:
            return f"({lhs} {_INFIX[expr.op]} {rhs})"
        return f"{expr.op}({lhs}, {rhs})"
    if isinstance(expr, Compare):
        return f"({format_expr(expr.lhs)} {_COMPARE[expr.op]} {format_expr(expr.rhs)})"
    if isinstance(expr, Logical):
        if expr.op == "not" or expr.rhs is None:
            return f"!{format_expr(expr.lhs)}"
        word = "&&" if expr.op == "and" else "||"
        return f"({format_expr(expr.lhs)} {word} {format_expr(expr.rhs)})"
    if isinstance(expr, Select):
        return (
            f"select({format_expr(expr.condition)}, {format_expr(expr.true_value)}, "
            f"{format_expr(expr.false_value)})"
        )
    if isinstance(expr, Cast):
        return f"{expr.dtype}({format_expr(expr.value)})"
    if isinstance(expr, Call):
        return f"{expr.name}({', '.join(format_expr(arg) for arg in expr.args)})"
    if isinstance(expr, TensorRead):
        return f"{expr.tensor.name}[{', '.join(format_expr(i) for i in expr.indices)}]"
    if isinstance(expr, Reduce):
        axes = ", ".join(f"{axis.name}:{axis.extent}" for axis in expr.axes)
        where = f", where={format_expr(expr.condition)}" if expr.condition is not None else ""
        return f"{expr.combiner}({format_expr(expr.source)}, axis=[{axes}]{where})"
    if isinstance(expr, Load):
        return f"{expr.buffer.name}[{format_expr(expr.index)}]"
    raise TypeError(f"cannot print {type(expr).__name__}")


def format_stmt(stmt: Stmt, indent: int = 0) -> str:
    """Print a statement as indented pseudo-Python."""
    pad = "  " * indent
    if isinstance(stmt, For):
        kind = stmt.kind if stmt.kind != "thread_binding" else f"bind({stmt.thread_tag})"
        header = f"{pad}for {stmt.var.name} in range({format_expr(stmt.extent)})"
        header += "" if kind == "serial" else f"  # {kind}"
        return f"{header}:\n{format_stmt(stmt.body, indent + 1)}"
    if isinstance(stmt, Store):
        return f"{pad}{stmt.buffer.name}[{format_expr(stmt.index)}] = {format_expr(stmt.value)}"
    if isinstance(stmt, Allocate):
        buf = stmt.buffer
        return (
            f"{pad}allocate {buf.name}[{buf.size}] {buf.dtype} in {buf.scope}\n"
            f"{format_stmt(stmt.body, indent)}"
        )
    if isinstance(stmt, IfThenElse):
        text = f"{pad}if {format_expr(stmt.condition)}:\n{format_stmt(stmt.then_case, indent + 1)}"
        if stmt.else_case is not None:
            text += f"\n{pad}else:\n{format_stmt(stmt.else_case, indent + 1)}"
        return text
    if isinstance(stmt, Seq):
        return "\n".join(format_stmt(s, indent) for s in stmt.stmts)
    if isinstance(stmt, LetStmt):
        return f"{pad}{stmt.var.name} = {format_expr(stmt.value)}\n{format_stmt(stmt.body, indent)}"
    if isinstance(stmt, Barrier):
        return f"{pad}barrier({stmt.scope})"
    raise TypeError(f"cannot print {type(stmt).__name__}")


def format_func(func: PrimFunc) -> str:
    """Print a kernel with its signature (symbolic dims as their expressions, then the
    size parameters)."""
    params = [f"{buf.name}: {buf.dtype}[{_format_dims(buf)}]" for buf in func.params]
    params += [f"{var.name}: int64" for var in func.size_params]
    return f"def {func.name}({', '.join(params)}):\n{format_stmt(func.body, 1)}"


def _format_dims(buffer: Buffer) -> str:
    if buffer.dims:
        return ", ".join(format_expr(dim) for dim in buffer.dims)
    return ", ".join(str(dim) for dim in buffer.shape)
