"""InferType: annotate every node with its type using the ops' type relations."""

from __future__ import annotations

from dataclasses import replace

from ir.errors import IRError, TypeInferenceError
from ir.graph.nodes import Call, Expr, Function, Tuple, TupleGetItem
from ir.graph.ops.registry import get_op
from ir.graph.traversal import rewrite
from ir.graph.types import FuncType, TupleType


def describe_call(call: Call) -> str:
    """A short location for messages: the op and, when known, the source node name."""
    if call.span:
        return f"{call.op_name} (node {call.span!r})"
    return call.op_name


def infer_call(call: Call) -> Call:
    """Return `call` with its type inferred from its (already typed) arguments."""
    where = describe_call(call)
    for index, arg in enumerate(call.args):
        if not arg.has_type:
            raise IRError(f"{where}: argument {index} has no type; infer it first")
    arg_types = [arg.checked_type for arg in call.args]
    if isinstance(call.op, Function):
        fn_type = call.op.checked_type
        assert isinstance(fn_type, FuncType)
        if tuple(arg_types) != fn_type.params:
            got = ", ".join(str(t) for t in arg_types)
            want = ", ".join(str(t) for t in fn_type.params)
            raise TypeInferenceError(f"{where}: called with ({got}) but expects ({want})")
        return call if call.ty == fn_type.ret else replace(call, ty=fn_type.ret)
    op_def = get_op(call.op)
    op_def.check_arity(len(call.args), where)
    try:
        out_type = op_def.type_relation(arg_types, call.attrs)
    except TypeInferenceError as err:
        raise TypeInferenceError(f"{where}: {err}") from None
    except (TypeError, ValueError, KeyError, IndexError) as err:
        raise TypeInferenceError(f"{where}: invalid inputs or attributes: {err}") from None
    return call if call.ty == out_type else replace(call, ty=out_type)


def _infer_node(node: Expr) -> Expr:
    if isinstance(node, Call):
        if isinstance(node.op, Function):
            node = replace(node, op=infer_type(node.op))
        return infer_call(node)
    if isinstance(node, TupleGetItem):
        tuple_type = node.tuple_value.checked_type
        if not isinstance(tuple_type, TupleType) or not 0 <= node.index < len(tuple_type.fields):
            raise TypeInferenceError(f"tuple index {node.index} out of range for {tuple_type}")
        field_type = tuple_type.fields[node.index]
        return node if node.ty == field_type else replace(node, ty=field_type)
    if isinstance(node, Tuple):
        tuple_type = TupleType(tuple(f.checked_type for f in node.fields))
        return node if node.ty == tuple_type else replace(node, ty=tuple_type)
    return node


def infer_type(fn: Function) -> Function:
    """Annotate every Call, Tuple and TupleGetItem in `fn` (and fused functions) with its type."""
    result = rewrite(fn, _infer_node)
    assert isinstance(result, Function)
    return result


def infer_expr(expr: Expr) -> Expr:
    """Annotate an expression outside a function (used by the frontend while importing)."""
    return rewrite(expr, _infer_node)
