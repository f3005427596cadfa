"""The graph verifier: checks the invariants every pass must keep, raising IRError if broken.

It checks scoping (every Var is a parameter of the function it appears in, names unique),
calls (the op exists, or the callee is a primitive function of matching arity; arity and
attribute names match the op definition), nesting (primitive functions are only called,
never nested in each other) and, when asked, types (every node typed, and each stored type
equal to what its type relation recomputes from the arguments' types).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ir.errors import AutotuneError, IRError
from ir.graph.nodes import (
    Call,
    Constant,
    Function,
    If,
    Loop,
    Tuple,
    TupleGetItem,
    Var,
    nested_functions,
)
from ir.graph.ops.registry import OpDef, get_op
from ir.graph.passes.infer_type import describe_call, infer_call, infer_if, infer_loop
from ir.graph.traversal import post_order
from ir.graph.types import TupleType


def verify(fn: Function, require_types: bool = True) -> None:
    """Raise IRError describing the first broken invariant of `fn`; return None if it is valid.

    With `require_types`, every Call, Tuple and TupleGetItem must carry a type, and that type
    must equal the one recomputed from its arguments (a stale type is an error).
    """
    _Verifier(require_types).check_function(fn, where="the main function", primitive=False)


@dataclass
class _Verifier:
    require_types: bool
    checked_primitives: set[int] = field(default_factory=set)

    def check_function(self, fn: Function, where: str, primitive: bool) -> None:
        # Step 1. Parameters: unique names; they are the only variables the body may use.
        params: dict[str, Var] = {}
        for param in fn.params:
            if param.name in params:
                raise IRError(f"{where}: duplicate parameter name %{param.name}")
            params[param.name] = param
        # Step 2. Functions are only callees (a Call's op, which is not a child).
        nodes = post_order(fn.body)
        if any(isinstance(node, Function) for node in nodes):
            raise IRError(f"{where}: a function appears as a value; functions may only be called")
        # Step 3. Every node of the body, in post order.
        for node in nodes:
            if isinstance(node, Var):
                self.check_var(node, params, where)
            elif isinstance(node, Call):
                self.check_call(node, where, primitive)
            elif isinstance(node, Tuple):
                self.check_tuple(node, where)
            elif isinstance(node, TupleGetItem):
                self.check_tuple_get_item(node, where)
            elif isinstance(node, If | Loop):
                self.check_control_flow(node, where, primitive)
            elif not isinstance(node, Constant):
                raise IRError(f"{where}: unknown node kind {type(node).__name__}")

    def check_var(self, var: Var, params: dict[str, Var], where: str) -> None:
        param = params.get(var.name)
        if param is None:
            known = ", ".join(f"%{name}" for name in params) or "none"
            raise IRError(
                f"{where}: variable %{var.name} is not a parameter of the enclosing function "
                f"(parameters: {known})"
            )
        if param.type_annotation != var.type_annotation:
            raise IRError(
                f"{where}: variable %{var.name} is used with type {var.type_annotation}, "
                f"but the parameter has type {param.type_annotation}"
            )

    def check_call(self, call: Call, where: str, in_primitive: bool) -> None:
        location = f"{where}: {describe_call(call)}"
        if isinstance(call.op, Function):
            self.check_primitive_call(call, location, in_primitive)
        else:
            op_def = get_op_checked(call.op, location)
            op_def.check_arity(len(call.args), location)
            given, expected = set(call.attrs), set(op_def.attrs)
            if given - expected:
                raise IRError(
                    f"{location}: unknown attribute(s) {sorted(given - expected)}; "
                    f"op {call.op} has {sorted(expected)}"
                )
            if expected - given:
                raise IRError(f"{location}: missing attribute(s) {sorted(expected - given)}")
        if self.require_types or call.has_type:
            self.check_call_type(call, location)

    def check_primitive_call(self, call: Call, location: str, in_primitive: bool) -> None:
        callee = call.op
        assert isinstance(callee, Function)
        if not callee.is_primitive:
            raise IRError(f"{location}: calls a function that is not marked primitive")
        if in_primitive:
            raise IRError(f"{location}: a primitive function calls another primitive function")
        if len(call.args) != len(callee.params):
            raise IRError(
                f"{location}: primitive function takes {len(callee.params)} argument(s), "
                f"got {len(call.args)}"
            )
        if id(callee) not in self.checked_primitives:
            self.checked_primitives.add(id(callee))
            self.check_function(callee, where=f"primitive function {call.op_name}", primitive=True)

    def check_call_type(self, call: Call, location: str) -> None:
        if not call.has_type:
            raise IRError(f"{location}: node has no type; run infer_type")
        if not all(arg.has_type for arg in call.args):
            return  # the untyped argument is reported when it is visited (it comes first)
        try:
            expected = infer_call(call).checked_type
        except AutotuneError as err:
            raise IRError(f"{location}: type relation rejects the arguments: {err}") from err
        if expected != call.checked_type:
            raise IRError(
                f"{location}: stale type: stored {call.checked_type}, "
                f"but the arguments give {expected}"
            )

    def check_control_flow(self, node: If | Loop, where: str, in_primitive: bool) -> None:
        kind = "if" if isinstance(node, If) else "loop"
        location = f"{where}: {kind}" + (f" (node {node.span!r})" if node.span else "")
        if in_primitive:
            raise IRError(f"{location}: control flow inside a primitive function")
        names = ("then branch", "else branch") if isinstance(node, If) else ("body",)
        for name, function in zip(names, nested_functions(node), strict=True):
            self.check_function(function, where=f"{location} {name}", primitive=False)
        if not (self.require_types or node.has_type):
            return
        if not node.has_type:
            raise IRError(f"{location}: node has no type; run infer_type")
        if not all(child.has_type for child in node.children()):
            return
        try:
            expected = (infer_if(node) if isinstance(node, If) else infer_loop(node)).checked_type
        except AutotuneError as err:
            raise IRError(f"{location}: {err}") from err
        if expected != node.checked_type:
            raise IRError(
                f"{location}: stale type: stored {node.checked_type}, expected {expected}"
            )

    def check_tuple(self, node: Tuple, where: str) -> None:
        if node.ty is None:
            if self.require_types and not node.has_type:
                raise IRError(f"{where}: tuple has no type; run infer_type")
            return
        if all(f.has_type for f in node.fields):
            expected = TupleType(tuple(f.checked_type for f in node.fields))
            if node.ty != expected:
                raise IRError(
                    f"{where}: stale tuple type: stored {node.ty}, fields give {expected}"
                )

    def check_tuple_get_item(self, node: TupleGetItem, where: str) -> None:
        if not node.tuple_value.has_type:
            if self.require_types:
                raise IRError(f"{where}: tuple item {node.index} has no type; run infer_type")
            return
        tuple_type = node.tuple_value.checked_type
        if not isinstance(tuple_type, TupleType):
            raise IRError(f"{where}: tuple item {node.index} taken from a non-tuple {tuple_type}")
        if not 0 <= node.index < len(tuple_type.fields):
            raise IRError(f"{where}: tuple index {node.index} out of range for {tuple_type}")
        if node.ty is not None and node.ty != tuple_type.fields[node.index]:
            raise IRError(
                f"{where}: stale type of tuple item {node.index}: stored {node.ty}, "
                f"tuple gives {tuple_type.fields[node.index]}"
            )


def get_op_checked(name: str, location: str) -> OpDef:
    """Look an op up, naming the call site (not the whole op table) when it is unknown."""
    try:
        return get_op(name)
    except IRError:
        raise IRError(f"{location}: unknown op {name!r}") from None
