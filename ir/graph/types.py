"""Types of graph IR values: tensors (of static or symbolic shapes), tuples and functions."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes  # (also registers int4, bfloat16, float8_e4m3fn, ... with numpy)
import numpy as np

from ir.errors import IRError
from ir.tir.expr import PrimExpr
from ir.tir.printer import format_expr

# Element types kept as their bits (ml_dtypes' arrays): tensors of them move, reshape and
# are selected like any other, and convert to and from other types through `reinterpret`
# and integer or float32 arithmetic on their bits (the ONNX frontend writes those
# conversions); no kernel computes with them.
STORAGE_DTYPES: frozenset[str] = frozenset(
    {
        "bfloat16",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "float4_e2m1fn",
    }
)

# Element types the IR understands, in the numpy spelling. The 4- and 2-bit integers
# are ml_dtypes': one element per byte, the value in the low bits.
DTYPES: frozenset[str] = (
    frozenset(
        {
            "float16",
            "float32",
            "float64",
            "int8",
            "int16",
            "int32",
            "int64",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "int4",
            "uint4",
            "int2",
            "uint2",
            "bool",
        }
    )
    | STORAGE_DTYPES
)


def integer_limits(dtype: str) -> tuple[int, int]:
    """The least and greatest value of an integer dtype, ml_dtypes' sub-byte ones too
    (int4: -8 and 7)."""
    limits = ml_dtypes.iinfo(dtype)  # type: ignore[no-untyped-call]
    return int(limits.min), int(limits.max)


def normalize_dtype(dtype: object) -> str:
    """Return the canonical dtype string for a numpy dtype, type or name."""
    name = str(np.dtype(dtype).name)  # type: ignore[call-overload]
    if name not in DTYPES:
        raise TypeError(f"unsupported dtype {name!r}; supported: {sorted(DTYPES)}")
    return name


@dataclass(frozen=True, slots=True)
class TensorType:
    """A tensor of a shape and an element dtype.

    A symbolic shape lists its dims in `dims` (int64 expressions of size variables, known
    when the model runs); `shape` then holds their upper bounds, which every static
    analysis uses. Only ops with a symbolic relation take symbolic dims (InferType).
    """

    shape: tuple[int, ...]
    dtype: str = "float32"
    dims: tuple[PrimExpr, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(int(dim) for dim in self.shape))
        object.__setattr__(self, "dtype", normalize_dtype(self.dtype))
        if any(dim < 0 for dim in self.shape):
            raise TypeError(f"negative dimension in shape {self.shape}")
        if self.dims and (
            len(self.dims) != len(self.shape) or any(dim.dtype != "int64" for dim in self.dims)
        ):
            raise TypeError(f"symbolic dims {self.dims} do not fit shape {self.shape}")

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        return self.size * np.dtype(self.dtype).itemsize

    def __str__(self) -> str:
        if self.dims:
            dims = ", ".join(format_expr(dim) for dim in self.dims)
        else:
            dims = ", ".join(str(dim) for dim in self.shape)
        return f"Tensor[({dims}), {self.dtype}]"


@dataclass(frozen=True, slots=True)
class TupleType:
    """A tuple of values, each with its own type."""

    fields: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(field) for field in self.fields) + ")"


@dataclass(frozen=True, slots=True)
class FuncType:
    """The type of a function: parameter types and the return type."""

    params: tuple[Type, ...]
    ret: Type

    def __str__(self) -> str:
        params = ", ".join(str(param) for param in self.params)
        return f"fn ({params}) -> {self.ret}"


Type = TensorType | TupleType | FuncType


def as_tensor_type(ty: Type, where: str) -> TensorType:
    """Return `ty` as a TensorType, or raise a TypeError naming `where`."""
    if not isinstance(ty, TensorType):
        raise TypeError(f"{where}: expected a tensor, got {ty}")
    return ty


def tensor_types(ty: Type) -> list[TensorType]:
    """The tensors of a tensor or (nested) tuple type, in order; IRError for any other."""
    if isinstance(ty, TensorType):
        return [ty]
    if isinstance(ty, TupleType):
        return [t for field in ty.fields for t in tensor_types(field)]
    raise IRError(f"unsupported value type {ty}")


def type_to_json(ty: Type) -> object:
    """Return a JSON-serialisable description of a type."""
    if isinstance(ty, TensorType):
        if ty.dims:
            dims = [format_expr(dim) for dim in ty.dims]
            return {"shape": list(ty.shape), "dims": dims, "dtype": ty.dtype}
        return {"shape": list(ty.shape), "dtype": ty.dtype}
    if isinstance(ty, TupleType):
        return {"tuple": [type_to_json(field) for field in ty.fields]}
    return {"params": [type_to_json(p) for p in ty.params], "ret": type_to_json(ty.ret)}
