"""The 64-byte aligned arrays that kernels run on (`aligned_empty`, `aligned_copy`)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from codegen.runtime.aligned import aligned_copy, aligned_empty

SHAPES = st.lists(st.integers(0, 9), max_size=4).map(tuple)
DTYPES = st.sampled_from(["float32", "float64", "int8", "int32", "int64", "bool", "float16"])


@given(SHAPES, DTYPES)
def test_aligned_empty_has_the_shape_and_dtype_asked_for(
    shape: tuple[int, ...], dtype: str
) -> None:
    array = aligned_empty(shape, dtype)
    assert array.shape == shape and array.dtype == np.dtype(dtype)
    assert array.ctypes.data % 64 == 0 or array.size == 0  # (no data to align)
    assert array.flags.c_contiguous and array.flags.writeable
    array[...] = 1  # every element is writable memory of its own
    assert np.count_nonzero(array == 1) == array.size  # (a float16 sum would round)


@given(SHAPES, DTYPES, st.integers(0, 2**32 - 1))
def test_aligned_copy_is_an_aligned_equal_copy(
    shape: tuple[int, ...], dtype: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    source = np.asfortranarray(rng.integers(0, 2, shape).astype(dtype))
    copy = aligned_copy(source)
    assert copy.ctypes.data % 64 == 0 or copy.size == 0
    assert copy.flags.c_contiguous
    assert copy.dtype == source.dtype and np.array_equal(copy, source)
    if copy.size:
        copy.flat[0] = 0 if copy.flat[0] else 1
        assert not np.array_equal(copy, source)  # a copy, not a view


def test_aligned_copy_of_a_strided_view_and_a_scalar() -> None:
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    view = base[::2, 1::3]
    assert np.array_equal(aligned_copy(view), view)
    scalar = aligned_copy(np.float32(2.5))
    assert scalar.shape == () and scalar.ctypes.data % 64 == 0 and float(scalar) == 2.5
