"""Loop IR dtypes as LLVM types: register form, memory form, and vector helpers.

A `bool` lives in registers as `i1` and in memory as one byte (`i8`), matching
numpy's `bool_` layout; loads and stores convert between the two. The 4- and 2-bit
integers (ml_dtypes' int4, uint4, int2, uint2) take one byte each, the value in the low
bits; in registers they are `i8`s kept in range (sign- or zero-extended from their bits).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from codegen.errors import CodegenError

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()

_FLOAT_TYPES: dict[str, Any] = {
    "float16": ir.HalfType(),
    "float32": ir.FloatType(),
    "float64": ir.DoubleType(),
}
_INT_BITS = {
    "int8": 8, "int16": 16, "int32": 32, "int64": 64,
    "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
    "int4": 8, "uint4": 8, "int2": 8, "uint2": 8,  # registers; see narrow_bits
}  # fmt: skip
_NARROW_BITS = {"int4": 4, "uint4": 4, "int2": 2, "uint2": 2}
# Types kept as their bits (ir.graph.types.STORAGE_DTYPES): integers of their width.
_STORAGE_BITS = {
    "bfloat16": 16, "float8_e4m3fn": 8, "float8_e4m3fnuz": 8, "float8_e5m2": 8,
    "float8_e5m2fnuz": 8, "float8_e8m0fnu": 8, "float4_e2m1fn": 8,
}  # fmt: skip
_ITEM_BYTES = {"float16": 2, "float32": 4, "float64": 8, "bool": 1} | {
    name: bits // 8 for name, bits in (_INT_BITS | _STORAGE_BITS).items()
}


def check_dtype(dtype: str) -> None:
    """Raise a CodegenError unless `dtype` is one the LLVM backend can compile."""
    if dtype not in _ITEM_BYTES:
        known = ", ".join(sorted(_ITEM_BYTES))
        raise CodegenError(f"dtype {dtype!r} is not supported by the LLVM backend; known: {known}")


def is_float(dtype: str) -> bool:
    """Whether `dtype` is a floating-point type."""
    return dtype in _FLOAT_TYPES


def is_unsigned(dtype: str) -> bool:
    """Whether integer `dtype` uses unsigned division, comparison and extension (bool does)."""
    return dtype.startswith("uint") or dtype == "bool"


def item_bytes(dtype: str) -> int:
    """Bytes of one element of `dtype` in memory."""
    check_dtype(dtype)
    return _ITEM_BYTES[dtype]


def float_bits(dtype: str) -> int:
    """Bit width of float `dtype` (16, 32 or 64)."""
    return 8 * _ITEM_BYTES[dtype]


def int_bits(dtype: str) -> int:
    """Bit width of integer (or bits-only) `dtype` in registers (bool is 1)."""
    return 1 if dtype == "bool" else (_INT_BITS | _STORAGE_BITS)[dtype]


def is_storage(dtype: str) -> bool:
    """Whether `dtype` is kept as its bits only (bfloat16, the float8 types, ...)."""
    return dtype in _STORAGE_BITS


def narrow_bits(dtype: str) -> int | None:
    """The value bits of a sub-byte integer dtype (4 or 2), None for other dtypes."""
    return _NARROW_BITS.get(dtype)


def wrap_narrow(builder: ir.IRBuilder, value: Any, dtype: str) -> Any:
    """An i8 `value` wrapped into sub-byte `dtype`'s range, as a cast to it wraps: the low
    bits kept, sign-extended (int4, int2) or zero-extended (uint4, uint2)."""
    bits = _NARROW_BITS[dtype]
    if is_unsigned(dtype):
        return builder.and_(value, constant(value.type, (1 << bits) - 1))
    shift = constant(value.type, 8 - bits)
    return builder.ashr(builder.shl(value, shift), shift)


def scalar_type(dtype: str) -> Any:
    """The LLVM register type of one `dtype` value."""
    check_dtype(dtype)
    if dtype in _FLOAT_TYPES:
        return _FLOAT_TYPES[dtype]
    return ir.IntType(int_bits(dtype))


def memory_type(dtype: str) -> Any:
    """The LLVM type of one `dtype` element in memory (bool is a byte)."""
    return I8 if dtype == "bool" else scalar_type(dtype)


def value_type(dtype: str, lanes: int) -> Any:
    """The register type of `lanes` values of `dtype` (a scalar when lanes is 1)."""
    scalar = scalar_type(dtype)
    return scalar if lanes == 1 else ir.VectorType(scalar, lanes)


def lanes_of(value: Any) -> int:
    """Number of lanes of an LLVM value (1 for a scalar)."""
    return int(value.type.count) if isinstance(value.type, ir.VectorType) else 1


def like(value: Any, scalar: Any) -> Any:
    """`scalar` type widened to the lane count of `value`."""
    lanes = lanes_of(value)
    return scalar if lanes == 1 else ir.VectorType(scalar, lanes)


def constant(type_: Any, number: int | float) -> Any:
    """A constant `number` of LLVM type `type_` (splatted when it is a vector type)."""
    if isinstance(type_, ir.VectorType):
        return ir.Constant(type_, [number] * type_.count)
    return ir.Constant(type_, number)


def splat(builder: ir.IRBuilder, value: Any, lanes: int) -> Any:
    """Broadcast scalar `value` to `lanes` lanes (a no-op for vectors or lanes == 1)."""
    if lanes == 1 or isinstance(value.type, ir.VectorType):
        return value
    vector_type = ir.VectorType(value.type, lanes)
    if isinstance(value, ir.Constant) and isinstance(value.constant, int | float):
        return ir.Constant(vector_type, [value.constant] * lanes)
    single = builder.insert_element(ir.Constant(vector_type, ir.Undefined), value, I32(0))
    mask = ir.Constant(ir.VectorType(I32, lanes), [0] * lanes)
    return builder.shuffle_vector(single, ir.Constant(vector_type, ir.Undefined), mask)


def unify(builder: ir.IRBuilder, *values: Any) -> list[Any]:
    """Broadcast scalars among `values` so that all have the same lane count."""
    lanes = max(lanes_of(value) for value in values)
    for value in values:
        if lanes_of(value) not in (1, lanes):
            raise CodegenError(f"cannot mix vectors of {lanes_of(value)} and {lanes} lanes")
    return [splat(builder, value, lanes) for value in values]


def intrinsic_suffix(type_: Any) -> str:
    """The overload suffix LLVM intrinsics use for `type_`: f32, v16f32, i64, p0, ..."""
    if isinstance(type_, ir.VectorType):
        return f"v{type_.count}{intrinsic_suffix(type_.element)}"
    if isinstance(type_, ir.HalfType):
        return "f16"
    if isinstance(type_, ir.FloatType):
        return "f32"
    if isinstance(type_, ir.DoubleType):
        return "f64"
    if isinstance(type_, ir.IntType):
        return f"i{type_.width}"
    if isinstance(type_, ir.PointerType):
        return "p0"
    raise CodegenError(f"no intrinsic suffix for LLVM type {type_}")
