"""DeadCodeElimination: remove nodes that compute nothing new.

The graph IR is a pure, immutable DAG without let bindings, so a value nobody uses is
already gone: only what the function's body reaches exists. What this pass removes is
work that is dead in a subtler sense:

- `TupleGetItem(Tuple(fields), i)` becomes `fields[i]` (the tuple is never built);
- ops whose result equals their input: a reshape, flatten, squeeze, expand_dims,
  broadcast_to or tile to the input's own type, a cast to the input's dtype, a transpose
  with identity axes, a strided_slice with unit steps keeping the whole input, and a
  concatenate or add_n of a single input;
- a `split` whose consumers only ever read one field becomes a `strided_slice` of that
  field (or the input itself when the field is the whole input), so the other parts are
  never computed.

Parameters are never removed: they are the model's interface. The rules need types (run
infer_type first); untyped nodes are left as they are. The result stays typed.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from ir.graph.nodes import Call, Expr, Function, Tuple, TupleGetItem, call, with_type
from ir.graph.traversal import post_order, rewrite_function, with_children
from ir.graph.types import TensorType, TupleType

# Ops that keep the row-major order of their input's elements: same type means same value.
SAME_TYPE_IS_IDENTITY: frozenset[str] = frozenset(
    {"reshape", "flatten", "squeeze", "expand_dims", "broadcast_to", "tile", "cast"}
)
SINGLE_INPUT_IS_IDENTITY: frozenset[str] = frozenset({"concatenate", "add_n"})


def _is_identity(node: Call) -> bool:
    """Whether the typed call `node` returns its first argument unchanged."""
    if not isinstance(node.op, str):
        return False
    if node.op in SINGLE_INPUT_IS_IDENTITY:
        return len(node.args) == 1
    data = node.args[0] if node.args else None
    if data is None or not node.has_type or not data.has_type:
        return False
    if node.checked_type != data.checked_type:
        return False
    if node.op in SAME_TYPE_IS_IDENTITY:
        return True
    if node.op == "transpose":
        ndim = len(node.checked_type.shape) if isinstance(node.checked_type, TensorType) else 0
        axes = node.attrs["axes"]
        if axes is None:
            return ndim <= 1
        return tuple(int(axis) % ndim for axis in axes) == tuple(range(ndim))
    if node.op == "strided_slice":
        # Unit steps and an unchanged shape: every axis keeps [0, dim).
        strides = node.attrs["strides"]
        return strides is None or all(int(step) == 1 for step in strides)
    return False


def _remove_local(node: Expr) -> Expr:
    if isinstance(node, TupleGetItem) and isinstance(node.tuple_value, Tuple):
        return node.tuple_value.fields[node.index]
    if isinstance(node, Call) and _is_identity(node):
        return node.args[0]
    return node


def _split_bounds(split: Call) -> list[tuple[int, int]] | None:
    """Each field's [start, stop) on the split axis, or None when the split is unusual."""
    data_type = split.args[0].checked_type
    assert isinstance(data_type, TensorType)
    axis = int(split.attrs["axis"]) % data_type.ndim
    dim = data_type.shape[axis]
    sections = split.attrs["indices_or_sections"]
    if isinstance(sections, int):
        step = dim // sections
        return [(i * step, (i + 1) * step) for i in range(sections)]
    edges = [0, *(int(index) for index in sections), dim]
    if any(lo > hi for lo, hi in itertools.pairwise(edges)):
        return None  # negative, decreasing or too large indices: numpy clamps them
    return list(itertools.pairwise(edges))


def _single_field_splits(body: Expr) -> dict[int, int]:
    """Splits (by id) whose every consumer is a TupleGetItem of one index, with that index."""
    read: dict[int, set[int]] = {}
    other_use: set[int] = {id(body)}  # the function's result is used by its caller
    for node in post_order(body):
        for child in node.children():
            if isinstance(child, Call) and child.op == "split":
                if isinstance(node, TupleGetItem):
                    read.setdefault(id(child), set()).add(node.index)
                else:
                    other_use.add(id(child))
    return {
        split_id: next(iter(indices))
        for split_id, indices in read.items()
        if len(indices) == 1 and split_id not in other_use
    }


def _prune_splits(fn: Function) -> Function:
    single = _single_field_splits(fn.body)
    if not single:
        return fn
    # A hand-written rewrite loop: the splits are known by their ids in the input graph,
    # and their inputs may be rewritten too, so the original of each node must be at hand.
    rebuilt: dict[int, Expr] = {}
    slices: dict[int, Expr] = {}
    for node in post_order(fn.body):
        new = with_children(node, tuple(rebuilt[id(child)] for child in node.children()))
        if isinstance(node, TupleGetItem) and id(node.tuple_value) in single:
            split = rebuilt[id(node.tuple_value)]
            assert isinstance(split, Call)
            if id(split) not in slices:
                slices[id(split)] = _slice_of_split(split, node.index) or new
            new = slices[id(split)]
        rebuilt[id(node)] = new
    body = rebuilt[id(fn.body)]
    return fn if body is fn.body else replace(fn, body=body)


def _slice_of_split(split: Call, index: int) -> Expr | None:
    if not split.has_type or not split.args[0].has_type:
        return None
    split_type = split.checked_type
    data_type = split.args[0].checked_type
    assert isinstance(split_type, TupleType) and isinstance(data_type, TensorType)
    bounds = _split_bounds(split)
    if bounds is None:
        return None
    start, stop = bounds[index]
    field_type = split_type.fields[index]
    if field_type == data_type:
        return split.args[0]
    axis = int(split.attrs["axis"]) % data_type.ndim
    sliced = call(
        "strided_slice",
        split.args[0],
        begin=(start,),
        end=(stop,),
        strides=(1,),
        axes=(axis,),
        span=split.span,
    )
    return with_type(sliced, field_type)


def dead_code_elimination(fn: Function) -> Function:
    """Remove tuple round-trips, identity ops and unread split outputs (see the module doc)."""
    # Step 1. Local rules, bottom-up: each replacement has the type of what it replaces.
    fn = rewrite_function(fn, _remove_local)
    # Step 2. Splits read at one index only, found on the simplified graph.
    return _prune_splits(fn)
