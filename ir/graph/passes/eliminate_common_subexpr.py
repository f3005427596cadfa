"""EliminateCommonSubexpr: compute each distinct value once.

Nodes are rebuilt bottom-up, so when a node is visited its children are already the one
canonical object for their value. Two Calls are then the same value exactly when they have
the same op, the same attributes and the same argument objects; Tuples and TupleGetItems
likewise. Constants are merged by content (their equality is a digest of dtype, shape and
bytes). One dict lookup per node: linear in the size of the graph.
"""

from __future__ import annotations

from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, TupleGetItem
from ir.graph.traversal import rewrite_function


def eliminate_common_subexpr(fn: Function) -> Function:
    """Merge structurally equal Calls, Tuples, TupleGetItems and Constants of `fn`'s body.

    The first occurrence (in post order) survives and keeps its source span. Types are
    kept: equal values have equal types.
    """
    canonical: dict[Expr, Expr] = {}

    def merge(node: Expr) -> Expr:
        if not isinstance(node, Call | Tuple | TupleGetItem | Constant):
            return node  # Vars are unique per name already; Functions are only callees
        # Node equality is structural; with canonical children it stops at the children.
        return canonical.setdefault(node, node)

    return rewrite_function(fn, merge)
