"""The static memory plan: every intermediate tensor gets an offset in one workspace.

Tensors whose lifetimes do not overlap share memory. A lifetime is the closed interval of
kernel steps [producer, last reader]; a kernel's outputs therefore never share memory with
its own inputs (kernel parameters are `noalias`). Placement is greedy by size: the largest
tensors are placed first, each at the lowest 64-byte aligned offset that does not collide
with an already placed tensor whose lifetime overlaps its own. The order is fully
determined by (size, first step, id), so the same graph always gets the same plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ALIGN_BYTES = 64


@dataclass(frozen=True)
class Lifetime:
    """A tensor to place: `nbytes` live from step `first` to step `last` (inclusive)."""

    value: int
    nbytes: int
    first: int
    last: int


@dataclass(frozen=True)
class MemoryPlan:
    """Byte offsets into the workspace, the workspace size and the naive total."""

    offsets: dict[int, int]
    workspace_bytes: int
    total_bytes: int  # sum of every intermediate tensor (aligned): the no-reuse size


def align_up(nbytes: int, alignment: int = ALIGN_BYTES) -> int:
    """`nbytes` rounded up to a multiple of `alignment`."""
    return -(-nbytes // alignment) * alignment


def plan_memory(lifetimes: Sequence[Lifetime]) -> MemoryPlan:
    """Place every tensor of `lifetimes` in one workspace, reusing memory between tensors
    that are never live at the same step."""
    placed: list[tuple[int, int, Lifetime]] = []  # (offset, end, lifetime)
    offsets: dict[int, int] = {}
    order = sorted(lifetimes, key=lambda t: (-align_up(t.nbytes), t.first, t.value))
    for tensor in order:
        size = align_up(max(tensor.nbytes, 1))
        # Step 1. The byte ranges already taken by tensors live at the same time.
        busy = sorted(
            (start, end)
            for start, end, other in placed
            if other.first <= tensor.last and tensor.first <= other.last
        )
        # Step 2. The lowest gap that fits.
        offset = 0
        for start, end in busy:
            if offset + size <= start:
                break
            offset = max(offset, end)
        placed.append((offset, offset + size, tensor))
        offsets[tensor.value] = offset
    workspace = max((end for _, end, _ in placed), default=0)
    total = sum(align_up(max(t.nbytes, 1)) for t in lifetimes)
    return MemoryPlan(offsets=offsets, workspace_bytes=workspace, total_bytes=total)
