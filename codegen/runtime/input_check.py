"""Which dimensions of an input array differ from the shape a model was compiled for (numpy
only, like the rest of the runtime)."""

from __future__ import annotations

from collections.abc import Sequence


def shape_difference(expected: Sequence[int], got: Sequence[int]) -> str:
    """' (rank R, not E)' or ' (dim D is G, not E; ...)' naming what differs between two
    shapes, or '' when they are equal; appended to an input error's expected/got text."""
    if len(got) != len(expected):
        return f" (rank {len(got)}, not {len(expected)})"
    dims = [
        f"dim {dim} is {size}, not {want}"
        for dim, (size, want) in enumerate(zip(got, expected, strict=True))
        if size != want
    ]
    return f" ({'; '.join(dims)})" if dims else ""
