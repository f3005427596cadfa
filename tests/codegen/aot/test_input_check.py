"""shape_difference (codegen/runtime/input_check.py): what an input error says differs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime.input_check import shape_difference

SHAPES = st.lists(st.integers(0, 9), max_size=5).map(tuple)


@given(expected=SHAPES, got=SHAPES)
def test_it_names_the_rank_or_exactly_the_dims_that_differ(
    expected: tuple[int, ...], got: tuple[int, ...]
) -> None:
    text = shape_difference(expected, got)
    if got == expected:
        assert text == ""
    elif len(got) != len(expected):
        assert text == f" (rank {len(got)}, not {len(expected)})"
    else:
        named = [part.split()[1] for part in text.strip(" ()").split("; ")]
        differing = [
            str(dim) for dim, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b
        ]
        assert named == differing
        for dim in differing:
            assert f"dim {dim} is {got[int(dim)]}, not {expected[int(dim)]}" in text
