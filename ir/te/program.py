"""A TE program: the placeholders and computes of one fused primitive function.

`function_to_te` composes the TE compute of every op in a typed primitive function into
one program, whose stage names are unique ("relu", "relu_1", ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, TupleGetItem, Var
from ir.graph.ops.registry import get_op
from ir.graph.ops.te_common import te_dims
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.te.evaluate import topological_ops
from ir.te.tensor import ComputeOp, PlaceholderOp, TEError, Tensor, compute, placeholder
from ir.tir.expr import PrimExpr, TensorRead, const
from ir.tir.visit import map_expr

TEValue = Tensor | tuple["TEValue", ...]


@dataclass(frozen=True)
class TEProgram:
    """Placeholders (in the primitive function's parameter order) and the output tensors."""

    name: str
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]

    @property
    def computes(self) -> list[ComputeOp]:
        """The compute operations the outputs depend on, producers first."""
        return list(self._compute_order)

    @cached_property
    def _compute_order(self) -> tuple[ComputeOp, ...]:
        # Once per program: every schedule of it (a search builds thousands) starts here.
        return tuple(op for op in topological_ops(self.outputs) if isinstance(op, ComputeOp))

    @property
    def tensors_by_name(self) -> dict[str, Tensor]:
        """Every placeholder and compute output, by stage name."""
        tensors = {tensor.name: tensor for tensor in self.inputs}
        for op in topological_ops(self.outputs):
            if isinstance(op, ComputeOp):
                for read in op.input_tensors:
                    tensors.setdefault(read.name, read)
        for tensor in self.outputs:
            tensors.setdefault(tensor.name, tensor)
        return tensors


def function_to_te(fn: Function) -> TEProgram:
    """Compose the ops of a typed primitive function into one TE program.

    Parameters become placeholders p0, p1, ...; single-element constants become computes
    of their shape returning the value. Larger constants are refused: FuseOps lifts them
    to parameters.
    """
    name = str(fn.attrs.get("name", "fn"))
    values: dict[int, TEValue] = {}
    by_name: dict[str, TEValue] = {}
    inputs: list[Tensor] = []
    for index, param in enumerate(fn.params):
        ty = param.type_annotation
        if not isinstance(ty, TensorType):
            raise TEError(f"{name}: parameter %{param.name} must be a tensor, got {ty}")
        tensor = placeholder(te_dims(ty), ty.dtype, f"p{index}")
        inputs.append(tensor)
        by_name[param.name] = tensor
    for node in post_order(fn.body):
        if isinstance(node, Var):
            if node.name not in by_name:
                raise TEError(f"{name}: variable %{node.name} is not a parameter of the function")
            values[id(node)] = by_name[node.name]
        else:
            values[id(node)] = _lower_node(node, values, name)
    result = values[id(fn.body)]
    outputs = _flatten(result)
    renamed = _unique_names(outputs, {tensor.name for tensor in inputs})
    return TEProgram(name, tuple(inputs), tuple(renamed.get(id(t.op), t) for t in outputs))


def _lower_node(node: Expr, values: dict[int, TEValue], where: str) -> TEValue:
    if isinstance(node, Constant):
        return _constant_compute(node, where)
    if isinstance(node, Call):
        if not isinstance(node.op, str):
            raise TEError(f"{where}: a primitive function cannot call another function")
        op_def = get_op(node.op)
        if op_def.te_compute is None:
            raise TEError(f"{where}: op {node.op} has no TE compute")
        args = [values[id(arg)] for arg in node.args]
        tensors = [arg for arg in args if isinstance(arg, Tensor)]
        if len(tensors) != len(args):
            raise TEError(f"{where}: op {node.op} takes tensors, got a tuple argument")
        result: TEValue = op_def.te_compute(tensors, node.attrs, node.checked_type)
        return result
    if isinstance(node, Tuple):
        return tuple(values[id(field)] for field in node.fields)
    if isinstance(node, TupleGetItem):
        whole = values[id(node.tuple_value)]
        if not isinstance(whole, tuple):
            raise TEError(f"{where}: tuple projection of a tensor")
        return whole[node.index]
    raise TEError(f"{where}: cannot lower {type(node).__name__} to TE")


def _constant_compute(node: Constant, where: str) -> Tensor:
    if node.data.size != 1:
        raise TEError(
            f"{where}: constant of shape {node.data.shape} inside a primitive function; "
            "only single-element constants are inlined (FuseOps makes larger ones parameters)"
        )
    dtype = node.data.dtype.name
    value = const(node.data.reshape(-1)[0].item(), dtype)
    return compute(node.data.shape, lambda *indices: value, name="const", tag="injective")


def _flatten(value: TEValue) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    return [tensor for item in value for tensor in _flatten(item)]


def _unique_names(outputs: list[Tensor], taken: set[str]) -> dict[int, Tensor]:
    """Rebuild computes whose names repeat (or read renamed ones); keyed by old op id."""
    used = set(taken)
    renamed: dict[int, Tensor] = {}
    for op in topological_ops(outputs):
        if isinstance(op, PlaceholderOp):
            continue
        unique = _fresh_name(op.name, used)
        used.add(unique)
        reads_renamed = any(id(t.op) in renamed for t in op.input_tensors)
        if unique == op.name and not reads_renamed:
            continue
        body = _replace_reads(op.body, renamed) if reads_renamed else op.body
        renamed[id(op)] = Tensor(ComputeOp(unique, op.axes, body, op.tag, op.attrs))
    return renamed


def _fresh_name(name: str, used: set[str]) -> str:
    if name not in used:
        return name
    suffix = 1
    while f"{name}_{suffix}" in used:
        suffix += 1
    return f"{name}_{suffix}"


def _replace_reads(body: PrimExpr, renamed: dict[int, Tensor]) -> PrimExpr:
    def visit(node: PrimExpr) -> PrimExpr | None:
        if isinstance(node, TensorRead):
            indices = tuple(map_expr(index, visit) for index in node.indices)
            return TensorRead(renamed.get(id(node.tensor.op), node.tensor), indices)
        return None

    return map_expr(body, visit)
