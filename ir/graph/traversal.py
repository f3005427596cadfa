"""Iterative traversals and rewrites of graph IR DAGs (no recursion, so deep models work)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, TupleGetItem, Var


def post_order(root: Expr) -> list[Expr]:
    """Every node reachable from `root` in the same scope, children before parents, once each."""
    order: list[Expr] = []
    visited: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for child in reversed(node.children()):
            if id(child) not in visited:
                stack.append((child, False))
    return order


def with_children(node: Expr, children: tuple[Expr, ...]) -> Expr:
    """Return `node` with its children replaced (the same object when nothing changed)."""
    old = node.children()
    if len(old) == len(children) and all(a is b for a, b in zip(old, children, strict=True)):
        return node
    if isinstance(node, Call):
        return replace(node, args=children)
    if isinstance(node, Tuple):
        return replace(node, fields=children)
    if isinstance(node, TupleGetItem):
        return replace(node, tuple_value=children[0])
    if isinstance(node, Function):
        return replace(node, body=children[0])
    raise TypeError(f"{type(node).__name__} has no children to replace")


def rewrite(root: Expr, visit: Callable[[Expr], Expr]) -> Expr:
    """Rebuild `root` bottom-up: each node gets its rewritten children, then `visit` maps it.

    `visit` receives the node with already-rewritten children and returns its replacement.
    Shared nodes are rewritten once, so the result keeps the input's sharing.
    """
    memo: dict[int, Expr] = {}
    for node in post_order(root):
        children = tuple(memo[id(child)] for child in node.children())
        memo[id(node)] = visit(with_children(node, children))
    return memo[id(root)]


def rewrite_function(fn: Function, visit: Callable[[Expr], Expr]) -> Function:
    """Rewrite the body of `fn` with `visit`, keeping its parameters and attributes."""
    body = rewrite(fn.body, visit)
    if body is fn.body:
        return fn
    return replace(fn, body=body)


def free_vars(root: Expr) -> list[Var]:
    """Variables used in `root`, in first-use order (a Function's own params excluded)."""
    bound: set[Var] = set(root.params) if isinstance(root, Function) else set()
    result: list[Var] = []
    seen: set[Var] = set()
    for node in post_order(root):
        if isinstance(node, Var) and node not in bound and node not in seen:
            seen.add(node)
            result.append(node)
    return result


def count_uses(root: Expr) -> dict[int, int]:
    """How many times each node (by id) is used as a child within `root`'s scope."""
    uses: dict[int, int] = {}
    for node in post_order(root):
        for child in node.children():
            uses[id(child)] = uses.get(id(child), 0) + 1
    return uses


def is_constant(expr: Expr) -> bool:
    """Whether `expr` is a Constant node."""
    return isinstance(expr, Constant)
