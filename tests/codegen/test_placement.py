"""Argument placements of a measurement: fixed page offsets, copies that hold the same
data, and repeats that rotate over them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.measure import MeasureOptions
from codegen.measure_child import _repeat_timer, _time_kernel
from codegen.placement import (
    ALIGN_BYTES,
    PAGE_BYTES,
    PLACEMENTS,
    page_offset,
    placed_arguments,
    placed_copy,
)


def _offset(array: np.ndarray) -> int:
    return int(array.ctypes.data) % PAGE_BYTES


def test_offsets_are_aligned_fixed_and_differ_between_placements() -> None:
    table = [[page_offset(p, i) for i in range(4)] for p in range(PLACEMENTS)]
    assert all(0 <= o < PAGE_BYTES and o % ALIGN_BYTES == 0 for row in table for o in row)
    assert table == [[page_offset(p, i) for i in range(4)] for p in range(PLACEMENTS)]
    # The point is to vary the arguments' relative offsets from one placement to the next.
    relative = {tuple((row[i] - row[0]) % PAGE_BYTES for i in range(1, 4)) for row in table}
    assert len(relative) == PLACEMENTS


@given(
    shape=st.lists(st.integers(0, 70), min_size=0, max_size=3),
    dtype=st.sampled_from(["float32", "float16", "int64", "int8", "bool"]),
    slot=st.integers(0, PAGE_BYTES // ALIGN_BYTES - 1),
)
def test_a_placed_copy_holds_the_data_at_its_offset(
    shape: list[int], dtype: str, slot: int
) -> None:
    array = (np.arange(int(np.prod(shape)), dtype=np.int64) % 7).astype(dtype).reshape(shape)
    copy = placed_copy(array, slot * ALIGN_BYTES)
    assert copy.shape == array.shape and copy.dtype == array.dtype
    assert copy.flags.c_contiguous and copy.flags.writeable
    assert np.array_equal(copy, array)
    if copy.size:
        assert _offset(copy) == slot * ALIGN_BYTES
        assert not np.shares_memory(copy, array)


@pytest.mark.parametrize("offset", [-64, 32, PAGE_BYTES, PAGE_BYTES + 64])
def test_an_offset_off_the_grid_is_refused(offset: int) -> None:
    with pytest.raises(ValueError, match="multiple of 64 below 4096"):
        placed_copy(np.zeros(4, np.float32), offset)


def test_placed_arguments_copy_every_argument_to_its_offset() -> None:
    args = [np.full((5, 300), i, np.float32) for i in range(3)]
    for placement in range(PLACEMENTS):
        placed = placed_arguments(args, placement)
        assert [_offset(a) for a in placed] == [page_offset(placement, i) for i in range(3)]
        assert all(np.array_equal(p, a) for p, a in zip(placed, args, strict=True))


class _RecordingKernel:
    """A stand-in kernel that records the page offsets of the arguments of each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def __call__(self, *args: np.ndarray) -> None:
        self.calls.append(tuple(_offset(a) for a in args))


@pytest.mark.parametrize("flush_cache", [False, True])
def test_repeats_rotate_over_the_placements(flush_cache: bool) -> None:
    kernel = _RecordingKernel()
    args = [np.ones((64, 64), np.float32), np.zeros((64, 64), np.float32)]
    options = MeasureOptions(number=2, repeat=4, flush_cache=flush_cache)
    timer = _repeat_timer(kernel, args, options)  # type: ignore[arg-type]
    layouts = [tuple(page_offset(p, i) for i in range(2)) for p in range(PLACEMENTS)]
    assert kernel.calls == layouts  # one warm-up run on each placement
    kernel.calls.clear()
    for index in range(4):
        assert timer(index) >= 0
    expected = [layouts[index % PLACEMENTS] for index in range(4) for _ in range(2)]
    assert kernel.calls == expected


def test_a_kernel_is_timed_on_every_placement() -> None:
    kernel = _RecordingKernel()
    args: list[Any] = [np.ones(1000, np.float32), np.zeros(1000, np.float32)]
    costs = _time_kernel(kernel, args, MeasureOptions(number=1, repeat=PLACEMENTS))  # type: ignore[arg-type]
    assert len(costs) == PLACEMENTS
    timed = kernel.calls[PLACEMENTS:]  # after the warm-up runs
    assert sorted(set(timed)) == sorted(
        {tuple(page_offset(p, i) for i in range(2)) for p in range(PLACEMENTS)}
    )
