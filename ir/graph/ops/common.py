"""Helpers shared by type relations: argument checks, broadcasting, axis normalisation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.types import TensorType, Type


def unblock_channels(data: np.ndarray) -> np.ndarray:
    """An NCHW[b]c array as NCHW: the block axis goes back next to the channel-block axis."""
    batch, blocks, height, width, block = data.shape
    return data.transpose(0, 1, 4, 2, 3).reshape(batch, blocks * block, height, width)


def block_channels(data: np.ndarray, block: int) -> np.ndarray:
    """An NCHW array as NCHW[block]c: channels split into blocks, the block innermost."""
    batch, channels, height, width = data.shape
    blocked = data.reshape(batch, channels // block, block, height, width)
    return np.ascontiguousarray(blocked.transpose(0, 1, 3, 4, 2))


def tensor_arg(arg_types: Sequence[Type], index: int, op: str) -> TensorType:
    """The `index`-th argument type as a tensor, or a TypeInferenceError."""
    ty = arg_types[index]
    if not isinstance(ty, TensorType):
        raise TypeInferenceError(f"{op}: input {index} must be a tensor, got {ty}")
    return ty


def tensor_args(arg_types: Sequence[Type], op: str) -> list[TensorType]:
    """All argument types as tensors."""
    return [tensor_arg(arg_types, i, op) for i in range(len(arg_types))]


def broadcast_shapes(lhs: tuple[int, ...], rhs: tuple[int, ...], op: str) -> tuple[int, ...]:
    """The numpy broadcast of two shapes, or an error naming both."""
    ndim = max(len(lhs), len(rhs))
    left = (1,) * (ndim - len(lhs)) + lhs
    right = (1,) * (ndim - len(rhs)) + rhs
    out: list[int] = []
    for axis, (a, b) in enumerate(zip(left, right, strict=True)):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise TypeInferenceError(
                f"{op}: shapes {lhs} and {rhs} do not broadcast (axis {axis}: {a} vs {b})"
            )
    return tuple(out)


def same_dtype(types: Sequence[TensorType], op: str) -> str:
    """The common dtype of `types`, or an error listing the dtypes."""
    dtypes = {ty.dtype for ty in types}
    if len(dtypes) != 1:
        listed = ", ".join(f"{ty.dtype}{list(ty.shape)}" for ty in types)
        raise TypeInferenceError(f"{op}: inputs must share one dtype, got {listed}")
    return types[0].dtype


def normalize_axis(axis: int, ndim: int, op: str) -> int:
    """`axis` in [0, ndim), accepting negative axes, or an error naming the rank."""
    if not -ndim <= axis < ndim:
        raise TypeInferenceError(f"{op}: axis {axis} is out of range for rank {ndim}")
    return axis % ndim


def normalize_axes(axes: Sequence[int] | None, ndim: int, op: str) -> tuple[int, ...]:
    """Sorted unique axes in [0, ndim); None means every axis."""
    if axes is None:
        return tuple(range(ndim))
    normalized = sorted({normalize_axis(axis, ndim, op) for axis in axes})
    return tuple(normalized)


def require_float(ty: TensorType, op: str) -> None:
    """Raise when `ty` is not a floating-point tensor."""
    if not ty.dtype.startswith("float"):
        raise TypeInferenceError(f"{op}: expects a floating-point tensor, got {ty.dtype}")


def int_tuple(value: object, length: int, name: str, op: str) -> tuple[int, ...]:
    """Attribute `name` as `length` ints; a single int is repeated `length` times."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * length
    if not isinstance(value, tuple) or len(value) != length:
        raise TypeInferenceError(f"{op}: attribute {name} must be {length} ints, got {value!r}")
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        raise TypeInferenceError(f"{op}: attribute {name} must hold ints, got {value!r}")
    return value


def optional_int_tuple(value: object, name: str, op: str) -> tuple[int, ...] | None:
    """Attribute `name` as None, or a tuple of ints (a single int becomes a 1-tuple)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if not isinstance(value, tuple):
        raise TypeInferenceError(f"{op}: attribute {name} must be ints, got {value!r}")
    return int_tuple(value, len(value), name, op)


def window_pads(value: object, op: str) -> tuple[int, int, int, int]:
    """2-D padding as (top, left, bottom, right); (height, width) pads both sides alike."""
    if isinstance(value, tuple) and len(value) == 2:
        value = value + value
    top, left, bottom, right = int_tuple(value, 4, "padding", op)
    if min(top, left, bottom, right) < 0:
        raise TypeInferenceError(f"{op}: padding must be non-negative, got {value!r}")
    return top, left, bottom, right


def window_output_size(
    size: int,
    kernel: int,
    stride: int,
    dilation: int,
    pad_before: int,
    pad_after: int,
    ceil_mode: bool = False,
) -> int:
    """Output length of a sliding window along one axis (ONNX / PyTorch rules).

    With `ceil_mode` a last partial window counts, unless it would start inside the
    trailing padding.
    """
    span = (kernel - 1) * dilation + 1
    room = size + pad_before + pad_after - span
    if room < 0:
        return 0
    if not ceil_mode:
        return room // stride + 1
    out = -(-room // stride) + 1
    if (out - 1) * stride >= size + pad_before:
        out -= 1
    return out
