"""Cache eviction for cold timing: it must leave every array exactly as it was."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.llvm.cache_flush import can_evict, evict_arrays

pytestmark = pytest.mark.skipif(not can_evict(), reason="clflush eviction is x86-only")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16"])
def test_eviction_leaves_contents_unchanged(dtype: str) -> None:
    rng = np.random.default_rng(0)
    array = (rng.normal(size=(3, 1000, 7)) * 100).astype(dtype)
    expected = array.copy()
    evict_arrays([array, array[1], array.T])  # a row block, an F-contiguous view
    np.testing.assert_array_equal(array, expected)


def test_unaligned_and_empty_arrays_are_evicted_without_touching_neighbours() -> None:
    backing = np.arange(1001, dtype=np.float32)
    unaligned = backing[1:]  # starts 4 bytes into a cache line
    assert unaligned.ctypes.data % 64 != 0
    evict_arrays([unaligned, np.empty((0, 4), np.float32)])
    np.testing.assert_array_equal(backing, np.arange(1001, dtype=np.float32))


def test_a_strided_view_is_refused() -> None:
    array = np.zeros((8, 8), np.float32)
    with pytest.raises(ValueError, match="non-contiguous"):
        evict_arrays([array[:, ::2]])
