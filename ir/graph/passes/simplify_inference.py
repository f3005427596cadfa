"""SimplifyInference: rewrite training-time ops into their inference-time arithmetic.

`nn.batch_norm` becomes `x * scale + shift` with `scale = gamma / sqrt(var + eps)` and
`shift = beta - mean * scale`, both built as graph expressions on the parameters so that
FoldConstant turns them into two constants when the parameters are constants. `nn.dropout`
and `copy` are identities at inference and are removed.
"""

from __future__ import annotations

from ir.errors import IRError
from ir.graph.nodes import Call, Expr, Function, call, const
from ir.graph.passes.infer_type import describe_call, infer_type
from ir.graph.traversal import rewrite_function
from ir.graph.types import TensorType

IDENTITY_AT_INFERENCE: frozenset[str] = frozenset({"nn.dropout", "copy"})


def unfold_batch_norm(bn: Call) -> Expr:
    """The arithmetic of an inference batch norm, broadcasting its parameters on `axis`.

    `bn` must be typed: its rank decides how the per-channel vectors are broadcast (a
    vector of C channels on axis 1 of a 4-D tensor becomes shape (C, 1, 1)).
    """
    if not bn.has_type or not isinstance(bn.checked_type, TensorType):
        raise IRError(f"{describe_call(bn)}: simplify_inference needs types; run infer_type")
    out_type = bn.checked_type
    data, gamma, beta, mean, var = bn.args
    axis = int(bn.attrs["axis"]) % out_type.ndim
    epsilon = const(float(bn.attrs["epsilon"]), dtype=out_type.dtype)
    span = bn.span
    scale: Expr = call(
        "divide", gamma, call("sqrt", call("add", var, epsilon, span=span), span=span), span=span
    )
    shift: Expr = call("subtract", beta, call("multiply", mean, scale, span=span), span=span)
    trailing_dims = out_type.ndim - 1 - axis
    if trailing_dims > 0:
        new_axes = tuple(range(1, trailing_dims + 1))
        scale = call("expand_dims", scale, axes=new_axes, span=span)
        shift = call("expand_dims", shift, axes=new_axes, span=span)
    return call("add", call("multiply", data, scale, span=span), shift, span=span)


def _simplify_node(node: Expr) -> Expr:
    if not isinstance(node, Call) or not isinstance(node.op, str):
        return node
    if node.op in IDENTITY_AT_INFERENCE:
        return node.args[0]
    if node.op == "nn.batch_norm":
        return unfold_batch_norm(node)
    return node


def simplify_inference(fn: Function) -> Function:
    """Replace batch norms by scale-and-shift arithmetic and drop dropout and copies.

    Needs a typed `fn` (run infer_type first); returns a typed function.
    """
    return infer_type(rewrite_function(fn, _simplify_node))
