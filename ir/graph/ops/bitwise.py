"""Bitwise ops on integer tensors: and, or, xor, not, and shifts (ONNX's Bitwise* and
BitShift). A shift by the type's width or more gives 0 (all sign bits for a negative value
shifted right), and so does a negative shift (ONNX's reading: the amount as unsigned),
rather than C's undefined result."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ir.errors import TypeInferenceError
from ir.graph.attrs import Attrs
from ir.graph.ops.common import broadcast_shapes, same_dtype, tensor_args
from ir.graph.ops.registry import OpDef, OpPattern
from ir.graph.ops.te_common import map_compute
from ir.graph.types import TensorType, Type
from ir.te.tensor import Tensor
from ir.tir.expr import PrimExpr, const, intrinsic, is_float, logical_or, select, zero

Reference = Callable[..., np.ndarray]


def _integer_relation(name: str) -> Callable[[Sequence[Type], Attrs], Type]:
    def relation(arg_types: Sequence[Type], attrs: Attrs) -> Type:
        types = tensor_args(arg_types, name)
        dtype = same_dtype(types, name)
        if is_float(dtype) or dtype == "bool":
            raise TypeInferenceError(f"{name}: needs integer tensors, got {dtype}")
        shape = types[0].shape
        for ty in types[1:]:
            shape = broadcast_shapes(shape, ty.shape, name)
        return TensorType(shape, dtype)

    return relation


def _bitwise(name: str, reference: Reference, scalar: Callable[..., PrimExpr], doc: str) -> OpDef:
    arity = 1 if name == "bitwise_not" else 2

    def evaluate(inputs: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        return np.asarray(reference(*inputs), dtype=inputs[0].dtype)

    def te_compute(inputs: Sequence[Tensor], attrs: Attrs, out_type: Type) -> Tensor:
        return map_compute(
            inputs, out_type, scalar, name, "elemwise" if arity == 1 else "broadcast"
        )

    return OpDef(
        name=name,
        pattern=OpPattern.ELEMWISE if arity == 1 else OpPattern.BROADCAST,
        num_inputs=arity,
        attrs={},
        type_relation=_integer_relation(name),
        reference=evaluate,
        te_compute=te_compute,
        doc=doc,
        input_names=("data",) if arity == 1 else ("lhs", "rhs"),
    )


def _width(dtype: np.dtype | str) -> int:
    return 8 * np.dtype(dtype).itemsize


def _shift_reference(left: bool) -> Reference:
    def shift(data: np.ndarray, amount: np.ndarray) -> np.ndarray:
        too_far = (amount < 0) | (amount >= _width(data.dtype))
        safe = np.where(too_far, 0, amount).astype(data.dtype)
        shifted = np.left_shift(data, safe) if left else np.right_shift(data, safe)
        fill = np.zeros_like(data) if left else np.where(data < 0, -1, 0).astype(data.dtype)
        return np.where(too_far, fill, shifted)

    return shift


def _shift_te(left: bool) -> Callable[[PrimExpr, PrimExpr], PrimExpr]:
    def shift(data: PrimExpr, amount: PrimExpr) -> PrimExpr:
        shifted = intrinsic("shift_left" if left else "shift_right", data, amount)
        fill = zero(data.dtype)
        if not left and not data.dtype.startswith("uint"):
            fill = select(data < 0, const(-1, data.dtype), fill)
        too_far = amount >= _width(data.dtype)
        if not amount.dtype.startswith("uint"):
            too_far = logical_or(too_far, amount < 0)
        return select(too_far, fill, shifted)

    return shift


def _intrinsic(name: str) -> Callable[..., PrimExpr]:
    return lambda *values: intrinsic(name, *values)


OPS: tuple[OpDef, ...] = (
    _bitwise("bitwise_and", np.bitwise_and, _intrinsic("bitwise_and"), "lhs & rhs"),
    _bitwise("bitwise_or", np.bitwise_or, _intrinsic("bitwise_or"), "lhs | rhs"),
    _bitwise("bitwise_xor", np.bitwise_xor, _intrinsic("bitwise_xor"), "lhs ^ rhs"),
    _bitwise("bitwise_not", np.invert, _intrinsic("bitwise_not"), "~data"),
    _bitwise("left_shift", _shift_reference(True), _shift_te(True), "lhs << rhs"),
    _bitwise("right_shift", _shift_reference(False), _shift_te(False), "lhs >> rhs"),
)
