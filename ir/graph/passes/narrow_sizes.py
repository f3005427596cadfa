"""NarrowSizes: a typed function over symbolic dims, retyped for a smaller range of its size
variables (or bound to one size each: `bind_sizes`).

A symbolic type's `shape` holds the upper bounds of its dims over the size variables'
ranges, and every static analysis (the schedule rules' tile sizes, the lowering's index
bounds) works from those bounds. Narrowing a size variable (`seq` at most 32 rather than
384) recomputes them: each parameter's bounds and each symbolic attribute entry's (a
reshape's `(dim text, upper)`) over the narrower ranges, then the body's types by
inference. The dims themselves are unchanged, so the narrowed function computes the same
thing wherever the size variables are within the narrower ranges.

`small_size_limits` is the one rule for which kernels get a narrowed body (a size bucket
of their own): compiles use it to dispatch between the two bodies, and the tuner to tune
each bucket as a task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from ir.graph.attrs import Attrs, is_dim_entry
from ir.graph.nodes import Call, Expr, Function, Var
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import rewrite
from ir.graph.types import TensorType, tensor_types
from ir.tir.arith import bound
from ir.tir.dim_text import parse_dim
from ir.tir.expr import INDEX_DTYPE, PrimExpr
from ir.tir.expr import Var as SizeVar
from ir.tir.sizes import evaluate_dim, solve_dim
from ir.tir.visit import walk_expr

# A size variable whose range reaches past twice this gets kernels of two lowerings, one
# fitted to its sizes up to this: at the range's upper bound, a sequence of 16 tokens ran
# all in partial tiles, twice a specialised artifact's time.
SMALL_SIZE = 32


def small_size_limits(fn: Function, uppers: Mapping[str, int]) -> dict[str, int]:
    """The small-size bucket of primitive function `fn`, given the model's size variables
    and their upper bounds: SMALL_SIZE for each size variable of `fn`'s parameter dims
    whose range reaches past 2 x SMALL_SIZE (empty: `fn` gets no bucket)."""
    names = size_names(fn, results=False)
    return {name: SMALL_SIZE for name in sorted(names) if uppers.get(name, 0) > 2 * SMALL_SIZE}


def size_names(fn: Function, results: bool = True) -> set[str]:
    """The size variables the dims of `fn`'s parameters (and, with `results`, of its
    results) are written in."""
    types = [param.type_annotation for param in fn.params]
    if results:
        types += tensor_types(fn.body.checked_type)
    return {
        node.name
        for ty in types
        if isinstance(ty, TensorType)
        for dim in ty.dims
        for node in walk_expr(dim)
        if isinstance(node, SizeVar)
    }


def size_uppers(fn: Function) -> dict[str, int]:
    """The largest value of each size variable that a dim of `fn`'s parameters or results
    binds (by itself, or plus, minus or times constants): the sizes a function covers (a
    kernel reads them off its arguments' shapes)."""
    uppers: dict[str, int] = {}
    types = [param.type_annotation for param in fn.params]
    for ty in [*types, *tensor_types(fn.body.checked_type)]:
        if not isinstance(ty, TensorType):
            continue
        for dim, upper in zip(ty.dims, ty.shape, strict=False):
            solved = solve_dim(dim, upper)
            if solved is not None:
                name = solved[0].name
                uppers[name] = min(solved[1], uppers.get(name, solved[1]))
    return uppers


def narrow_sizes(fn: Function, uppers: Mapping[str, int]) -> Function:
    """`fn` (typed; its dims over size variables) retyped for the size variables at most
    `uppers` (by name, each at least 1): the parameters' and symbolic attribute entries'
    upper bounds recomputed over those ranges (never above what they were), the body's
    types inferred again. A size variable missing from `uppers` is unbounded, so a dim
    that involves it keeps its bound."""
    ranges = {SizeVar(name, INDEX_DTYPE): (1, int(upper)) for name, upper in uppers.items()}

    def narrowed(dim: PrimExpr, upper: int) -> int:
        _, high = bound(dim, ranges)
        return upper if high is None else max(1, min(upper, high))

    def param_type(ty: TensorType) -> TensorType:
        shape = tuple(narrowed(d, u) for d, u in zip(ty.dims, ty.shape, strict=True))
        return TensorType(shape, ty.dtype, ty.dims)

    return _retyped(fn, param_type, lambda text, upper: (text, narrowed(parse_dim(text), upper)))


def bind_sizes(fn: Function, sizes: Mapping[str, int]) -> Function:
    """`fn` (typed; its dims over size variables) specialised to the size variables at
    `sizes` (by name): its parameters static, each symbolic attribute entry its value, the
    body's types inferred again (what the numpy reference evaluates). SizeBindingError
    where a dim names a size variable `sizes` lacks."""
    values = {SizeVar(name, INDEX_DTYPE): int(size) for name, size in sizes.items()}

    def param_type(ty: TensorType) -> TensorType:
        return TensorType(tuple(evaluate_dim(dim, values) for dim in ty.dims), ty.dtype)

    return _retyped(fn, param_type, lambda text, _: evaluate_dim(parse_dim(text), values))


def _retyped(
    fn: Function,
    param_type: Callable[[TensorType], TensorType],
    dim_entry: Callable[[str, int], object],
) -> Function:
    """`fn` with each parameter of symbolic type retyped by `param_type`, each symbolic
    attribute entry (dim text, upper bound) replaced by `dim_entry`'s value for it, and
    the body's types inferred again."""
    params: dict[int, Var] = {}
    for param in fn.params:
        ty = param.type_annotation
        if isinstance(ty, TensorType) and ty.dims:
            params[id(param)] = Var(param.name, param_type(ty))

    def entry(value: object) -> object:
        if is_dim_entry(value):
            assert isinstance(value, tuple)
            return dim_entry(value[0], value[1])
        if isinstance(value, tuple):
            return tuple(entry(item) for item in value)
        return value

    def visit(node: Expr) -> Expr:
        if isinstance(node, Var):
            return params.get(id(node), node)
        if isinstance(node, Call) and isinstance(node.op, str):
            attrs = Attrs({key: entry(value) for key, value in node.attrs.items()})
            if attrs != node.attrs:
                return replace(node, attrs=attrs)
        return node

    body = rewrite(fn.body, visit)
    return infer_type(Function(tuple(params.get(id(p), p) for p in fn.params), body, fn.attrs))
