"""Iterative traversals and rewrites of graph IR DAGs (no recursion, so deep models work)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ir.graph.nodes import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Loop,
    Tuple,
    TupleGetItem,
    Var,
    nested_functions,
    with_nested_functions,
)


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
    if isinstance(node, If):
        return replace(node, condition=children[0], args=children[1:])
    if isinstance(node, Loop):
        count = len(node.states)
        return replace(
            node,
            trip_count=children[0],
            condition=children[1],
            states=children[2 : 2 + count],
            invariants=children[2 + count :],
        )
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


def map_nested_functions(fn: Function, transform: Callable[[Function], Function]) -> Function:
    """`fn` with `transform` applied to every function its control flow runs (If branches,
    Loop bodies), innermost first; `fn` itself is not transformed."""

    def visit(node: Expr) -> Expr:
        functions = nested_functions(node)
        if not functions:
            return node
        inner = tuple(transform(map_nested_functions(f, transform)) for f in functions)
        return with_nested_functions(node, inner)

    return rewrite_function(fn, visit)


def nodes_everywhere(fn: Function) -> list[Expr]:
    """The nodes of `fn`'s body and of every function its control flow runs (If branches,
    Loop bodies, at any depth), each function's in post order after the function that runs
    it. A primitive function's nodes are not included (it is only called)."""
    return [node for node, _ in nodes_with_runs(fn)]


def nodes_with_runs(fn: Function) -> list[tuple[Expr, int]]:
    """The nodes of `nodes_everywhere(fn)`, in its order, each with how many times it runs
    per run of `fn`: a Loop body's nodes once per iteration of a loop whose trip count is a
    constant (its most iterations: a condition may end it sooner), once per run of the loop
    otherwise (the count is a run-time value); each If branch's as often as the If runs."""
    runs: dict[int, int] = {id(fn): 1}
    order: list[tuple[Expr, int]] = []
    pending = [fn]
    while pending:
        function = pending.pop(0)
        times = runs[id(function)]
        nodes = post_order(function.body)
        order += [(node, times) for node in nodes]
        for node in nodes:
            per_run = 1
            if isinstance(node, Loop) and isinstance(node.trip_count, Constant):
                per_run = max(1, int(node.trip_count.data))
            for nested in nested_functions(node):
                if id(nested) not in runs:
                    runs[id(nested)] = times * per_run
                    pending.append(nested)
    return order


def has_control_flow(fn: Function) -> bool:
    """Whether `fn`'s body branches or loops."""
    return any(isinstance(node, If | Loop) for node in post_order(fn.body))


def substitute(fn: Function, args: tuple[Expr, ...]) -> Expr:
    """The body of the closed function `fn` with its parameters replaced by `args`."""
    bound = {id(param): arg for param, arg in zip(fn.params, args, strict=True)}
    by_name = {param.name: arg for param, arg in zip(fn.params, args, strict=True)}

    def visit(node: Expr) -> Expr:
        if isinstance(node, Var):
            return bound.get(id(node), by_name.get(node.name, node))
        return node

    return rewrite(fn.body, visit)


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
