"""A schedule's stages: one per compute, with its loop relations (splits, fuses), loop
annotations, attachment and scope; the loop extents those relations give; the tensor reads
of a compute body; and input layout rewrites."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ir.te.tensor import ComputeOp
from ir.tir.expr import (
    IterVar,
    PrimExpr,
    TensorRead,
    binary,
    ceil_div,
    slot_setters,
)
from ir.tir.visit import walk_expr

ANNOTATIONS = ("parallel", "vectorize", "unroll")
SCOPES = ("global", "shared", "local")
THREAD_TAGS = (
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread",
)


@dataclass(frozen=True, slots=True, init=False)
class Split:
    """`parent` = `outer` * factor + `inner` (factor given, or derived from nparts)."""

    parent: str
    outer: str
    inner: str
    factor: int | None
    nparts: int | None

    def __init__(
        self, parent: str, outer: str, inner: str, factor: int | None, nparts: int | None
    ) -> None:
        # (a replay makes several: the generated frozen `__init__` costs more)
        _set_split_parent(self, parent)
        _set_split_outer(self, outer)
        _set_split_inner(self, inner)
        _set_split_factor(self, factor)
        _set_split_nparts(self, nparts)


@dataclass(frozen=True, slots=True)
class Fuse:
    """`fused` = `outer` * extent(inner) + `inner`."""

    outer: str
    inner: str
    fused: str


Relation = Split | Fuse


@dataclass(frozen=True, slots=True, init=False)
class Attach:
    """Where a stage is computed: at the root, inlined into readers, or at a consumer's loop."""

    kind: str = "root"  # "root" | "inline" | "at"
    stage: str = ""
    axis: str = ""

    def __init__(self, kind: str = "root", stage: str = "", axis: str = "") -> None:
        # (every stage of every replay has one)
        _set_attach_kind(self, kind)
        _set_attach_stage(self, stage)
        _set_attach_axis(self, axis)


_set_split_parent, _set_split_outer, _set_split_inner, _set_split_factor, _set_split_nparts = (
    slot_setters(Split, "parent", "outer", "inner", "factor", "nparts")
)
_set_attach_kind, _set_attach_stage, _set_attach_axis = slot_setters(
    Attach, "kind", "stage", "axis"
)


@dataclass(frozen=True, slots=True)
class LayoutRewrite:
    """A constant input stored in a new layout: split each dim by `factors`, then permute.

    The outermost factor of a dimension may round it up; the rewritten constant is then
    zero-padded (reads never reach the padding).
    """

    input: str
    shape: tuple[int, ...]
    factors: tuple[tuple[int, ...], ...]
    order: tuple[int, ...]

    @property
    def new_shape(self) -> tuple[int, ...]:
        """The rewritten shape."""
        flat = [size for dims in self.factors for size in dims]
        return tuple(flat[i] for i in self.order)

    def apply(self, array: Any) -> Any:
        """Rewrite a numpy array of the original shape into the new layout.

        A dimension whose factors multiply past its size is padded with zeros first.
        """
        import numpy as np

        padding = [
            (0, math.prod(dims) - size) for dims, size in zip(self.factors, self.shape, strict=True)
        ]
        if any(after for _, after in padding):
            array = np.pad(array, padding)
        flat = [size for dims in self.factors for size in dims]
        # A fresh, writable array even when the rewrite is only a reshape (a view).
        return np.array(np.transpose(np.reshape(array, flat), self.order), order="C", copy=True)

    def map_indices(self, indices: Sequence[PrimExpr]) -> tuple[PrimExpr, ...]:
        """Indices into the new layout for `indices` into the original one."""
        sub: list[PrimExpr] = []
        for index, dims in zip(indices, self.factors, strict=True):
            strides = [math.prod(dims[pos + 1 :]) for pos in range(len(dims))]
            for pos, stride in enumerate(strides):
                part = index // stride if stride > 1 else index
                sub.append(part % dims[pos] if pos > 0 else part)
        return tuple(sub[i] for i in self.order)


@dataclass
class Stage:
    """The schedule of one compute: its loop axes, their order, annotations and placement."""

    name: str
    op: ComputeOp
    is_output: bool
    axis_kind: dict[str, str]
    root_axes: list[str]
    leaves: list[str]
    relations: list[Relation] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)
    attach: Attach = field(default_factory=Attach)
    scope: str = "global"

    @staticmethod
    def of(op: ComputeOp, is_output: bool) -> Stage:
        """A fresh stage for `op`: spatial axes then reduce axes, in definition order."""
        axes = [*op.axes, *op.reduce_axes]
        return Stage(
            name=op.name,
            op=op,
            is_output=is_output,
            axis_kind={axis.name: axis.kind for axis in axes},
            root_axes=[axis.name for axis in axes],
            leaves=[axis.name for axis in axes],
        )

    @property
    def iter_vars(self) -> dict[str, IterVar]:
        """The op's root iteration axes by name."""
        return {axis.name: axis for axis in (*self.op.axes, *self.op.reduce_axes)}

    def fresh_axis_name(self, base: str) -> str:
        """A new axis name not used in this stage."""
        name, counter = base, 1
        while name in self.axis_kind:
            name, counter = f"{base}{counter}", counter + 1
        return name


def loop_extents(
    stage: Stage, spatial_extents: Sequence[int] | None = None
) -> tuple[dict[str, int], list[int]]:
    """Every axis's loop extent, from the root extents (the op's shape unless
    `spatial_extents` gives a compute_at region) through the split/fuse relations, and the
    positions of the splits that leave a tail."""
    extents: dict[str, int] = {}
    for index, axis in enumerate(stage.op.axes):
        extents[axis.name] = spatial_extents[index] if spatial_extents else axis.extent
    for axis in stage.op.reduce_axes:
        extents[axis.name] = axis.extent
    tails: list[int] = []
    for position, relation in enumerate(stage.relations):
        if isinstance(relation, Split):
            parent = extents[relation.parent]
            if relation.factor is not None:
                inner = min(relation.factor, parent)
            else:
                assert relation.nparts is not None
                inner = math.ceil(parent / min(relation.nparts, parent))
            outer = math.ceil(parent / inner)
            extents[relation.outer], extents[relation.inner] = outer, inner
            if outer * inner != parent:
                tails.append(position)
        else:
            extents[relation.fused] = extents[relation.outer] * extents[relation.inner]
    return extents, tails


def runtime_loop_extents(
    stage: Stage, extents: Mapping[str, int], whole: frozenset[str]
) -> tuple[dict[str, PrimExpr], frozenset[str]]:
    """The run-time extents of the loops of `stage` over its symbolic axes (the spatial
    ones among the `whole` axes, which its loops cover whole), and the symbolic axes
    whose loops may run past their run-time extent, which need guards.

    A split's outer loop runs to the ceiling of its parent's extent over the inner loop's
    static one (its last tile may overshoot); a fuse runs to the product of its loops'
    extents, run-time or static (exactly: lowering divides the fused index by the inner
    loop's run-time extent); other loops keep their static extents.
    """
    dynamic: dict[str, PrimExpr] = {}
    roots: dict[str, frozenset[str]] = {}  # axis -> the symbolic axes its loop covers
    spatial = [axis for axis in stage.op.axes if axis.name in whole]
    for axis in (*spatial, *stage.op.reduce_axes):
        if axis.runtime_extent is not None:
            dynamic[axis.name] = axis.runtime_extent
            roots[axis.name] = frozenset((axis.name,))
    overshooting: set[str] = set()
    for relation in stage.relations:
        if isinstance(relation, Split):
            covered = roots.get(relation.parent)
            if covered is None:
                continue
            roots[relation.outer] = roots[relation.inner] = covered
            overshooting |= covered
            parent = dynamic.get(relation.parent)
            if parent is not None:
                dynamic[relation.outer] = ceil_div(parent, extents[relation.inner])
        else:
            outer_roots, inner_roots = roots.get(relation.outer), roots.get(relation.inner)
            if outer_roots is None and inner_roots is None:
                continue
            roots[relation.fused] = (outer_roots or frozenset()) | (inner_roots or frozenset())
            outer_extent = dynamic.get(relation.outer)
            inner_extent = dynamic.get(relation.inner)
            if (outer_roots is not None and outer_extent is None) or (
                inner_roots is not None and inner_extent is None
            ):
                overshooting |= roots[relation.fused]  # (a loop over part of an axis)
                continue
            dynamic[relation.fused] = binary(
                "mul",
                outer_extent if outer_extent is not None else extents[relation.outer],
                inner_extent if inner_extent is not None else extents[relation.inner],
            )
    return dynamic, frozenset(overshooting)


def symbolic_loops(stage: Stage) -> frozenset[str]:
    """The loops of `stage`, computed at the root, that run to run-time extents."""
    if not stage.op.runtime_dims and all(a.runtime_extent is None for a in stage.op.reduce_axes):
        return frozenset()
    whole = frozenset(axis.name for axis in stage.op.axes)
    dynamic, _ = runtime_loop_extents(stage, loop_extents(stage)[0], whole)
    return frozenset(leaf for leaf in stage.leaves if leaf in dynamic)


_READS: dict[int, tuple[PrimExpr, tuple[TensorRead, ...]]] = {}
_READS_LIMIT = 4096


def tensor_reads(expr: PrimExpr) -> tuple[TensorRead, ...]:
    """Every tensor read in `expr`, parents first (memoised by the expression object,
    which the memo keeps alive: search spaces ask this of the same compute bodies for
    every schedule they build)."""
    known = _READS.get(id(expr))
    if known is not None and known[0] is expr:
        return known[1]
    found = tuple(node for node in walk_expr(expr) if isinstance(node, TensorRead))
    if len(_READS) >= _READS_LIMIT:
        _READS.clear()
    _READS[id(expr)] = (expr, found)
    return found
