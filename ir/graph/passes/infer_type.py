"""InferType: annotate every node with its type using the ops' type relations."""

from __future__ import annotations

from dataclasses import replace

from ir.errors import IRError, TypeInferenceError
from ir.graph.attrs import has_dim_entries
from ir.graph.nodes import Call, Constant, Expr, Function, If, Loop, Tuple, TupleGetItem
from ir.graph.ops.registry import get_op
from ir.graph.traversal import rewrite
from ir.graph.types import FuncType, TensorType, TupleType, Type


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
    symbolic = [i for i, ty in enumerate(arg_types) if isinstance(ty, TensorType) and ty.dims]
    if symbolic or has_dim_entries(call.attrs):
        if op_def.symbolic_relation is None:
            first = symbolic[0] if symbolic else 0
            raise TypeInferenceError(
                f"{where}: {call.op_name} does not take symbolic dims yet (argument {first} "
                f"is {arg_types[first]}); bind them to numbers"
            )
        try:
            out_type = op_def.symbolic_relation(arg_types, call.attrs, out_type)
        except TypeInferenceError as err:
            raise TypeInferenceError(f"{where}: {err}") from None
    return call if call.ty == out_type else replace(call, ty=out_type)


def _scalar_type(dtype: str) -> TensorType:
    return TensorType((), dtype)


def _control_where(kind: str, span: str) -> str:
    return f"{kind} (node {span!r})" if span else kind


def _check_operands(where: str, what: str, given: list[Type], expected: tuple[Type, ...]) -> None:
    if tuple(given) != expected:
        got = ", ".join(str(t) for t in given)
        want = ", ".join(str(t) for t in expected)
        raise TypeInferenceError(f"{where}: {what} takes ({want}) but is given ({got})")


def infer_if(node: If) -> If:
    """`node` with its branches typed and its type inferred: the branches' common result
    type; TypeInferenceError when the condition is not one bool, the args do not match the
    branches' parameters, or the branches' results differ."""
    where = _control_where("if", node.span)
    condition = node.condition.checked_type
    if not isinstance(condition, TensorType) or condition.dtype != "bool" or condition.size != 1:
        raise TypeInferenceError(f"{where}: the condition must be one bool, got {condition}")
    then_branch, else_branch = infer_type(node.then_branch), infer_type(node.else_branch)
    arg_types = [arg.checked_type for arg in node.args]
    for name, branch in (("then branch", then_branch), ("else branch", else_branch)):
        _check_operands(
            where, f"the {name}", arg_types, tuple(p.type_annotation for p in branch.params)
        )
    then_type, else_type = then_branch.ret_type, else_branch.ret_type
    if then_type != else_type:
        raise TypeInferenceError(
            f"{where}: the branches return different types: then {then_type}, else {else_type}"
        )
    if then_branch is node.then_branch and else_branch is node.else_branch and node.ty == then_type:
        return node
    return replace(node, then_branch=then_branch, else_branch=else_branch, ty=then_type)


def infer_loop(node: Loop) -> Loop:
    """`node` with its body typed and its type inferred: its states' types, then its scan
    outputs' (each body result's type with the trip count as a new first dimension);
    TypeInferenceError when the trip count is not an int64 scalar (a constant one, given
    scan outputs), the condition not a bool scalar, or the body's parameters or results do
    not match the states."""
    where = _control_where("loop", node.span)
    for what, value, dtype in (
        ("trip count", node.trip_count, "int64"),
        ("condition", node.condition, "bool"),
    ):
        if value.checked_type != _scalar_type(dtype):
            raise TypeInferenceError(
                f"{where}: the {what} must be a {dtype} scalar, got {value.checked_type}"
            )
    trips = _scan_rows(node, where)
    body = infer_type(node.body)
    state_types = tuple(state.checked_type for state in node.states)
    operand_types = [
        _scalar_type("int64"),
        _scalar_type("bool"),
        *state_types,
        *(value.checked_type for value in node.invariants),
    ]
    _check_operands(where, "the body", operand_types, tuple(p.type_annotation for p in body.params))
    returned = body.ret_type
    fields = returned.fields if isinstance(returned, TupleType) else ()
    expected = TupleType((_scalar_type("bool"), *state_types))
    scanned = fields[len(expected.fields) :]
    if (
        len(fields) != len(expected.fields) + node.scan_outputs
        or TupleType(fields[: len(expected.fields)]) != expected
        or not all(isinstance(ty, TensorType) for ty in scanned)
    ):
        scans = f" and {node.scan_outputs} scan output tensors" if node.scan_outputs else ""
        raise TypeInferenceError(
            f"{where}: the body must return (condition, states{scans}) of types "
            f"{expected}{' + tensors' if scans else ''}, got {returned}"
        )
    stacked = tuple(
        TensorType((trips, *ty.shape), ty.dtype) for ty in scanned if isinstance(ty, TensorType)
    )
    ty = TupleType((*state_types, *stacked))
    if body is node.body and node.ty == ty:
        return node
    return replace(node, body=body, ty=ty)


def _scan_rows(node: Loop, where: str) -> int:
    """The number of rows of a loop's scan outputs: its constant trip count (0 without
    scan outputs)."""
    if node.scan_outputs < 0:
        raise TypeInferenceError(f"{where}: {node.scan_outputs} scan outputs")
    if not node.scan_outputs:
        return 0
    if not isinstance(node.trip_count, Constant):
        raise TypeInferenceError(
            f"{where}: a loop with scan outputs needs a constant trip count (the outputs' "
            "first dimension)"
        )
    trips = int(node.trip_count.data)
    if trips < 0:
        raise TypeInferenceError(f"{where}: a trip count of {trips} for scan outputs")
    return trips


def _infer_node(node: Expr) -> Expr:
    if isinstance(node, If):
        return infer_if(node)
    if isinstance(node, Loop):
        return infer_loop(node)
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
