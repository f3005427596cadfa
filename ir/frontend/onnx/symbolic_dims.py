"""Symbolic input dims at import: the ranges a caller gives an input's dims (`1..8` in
`--shape input_ids=1..8x1..512`), and the size variables they become.

A dim bound to a range stays symbolic: its type dim is a size variable named after the
ONNX `dim_param` (the input's name and axis where the model leaves it unnamed), and its
static shape is the range's upper bound, which memory plans and tile choices use. The
same name is one variable in every input that declares it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import onnx

from ir.errors import ShapeBindingError
from ir.tir.expr import Var as SizeVar


@dataclass(frozen=True)
class DimRange:
    """The sizes a symbolic dim takes: every size in [low, high]."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not 1 <= self.low <= self.high:
            raise ShapeBindingError(f"dim range {self.low}..{self.high}: expected 1 <= low <= high")

    def __str__(self) -> str:
        return f"{self.low}..{self.high}"

    @staticmethod
    def parse(text: str) -> DimRange:
        """`LOW..HIGH` as a range; ShapeBindingError saying what is wrong otherwise."""
        low, sep, high = text.partition("..")
        try:
            if not sep:
                raise ValueError
            return DimRange(int(low), int(high))
        except ValueError:
            raise ShapeBindingError(
                f"dim range {text!r}: expected LOW..HIGH with integers, e.g. 1..64"
            ) from None


DimBinding = int | DimRange  # a dim bound to one size, or kept symbolic over a range


def size_var_name(dim_param: str | None, input_name: str, axis: int) -> str:
    """The name of the size variable for a symbolic dim: its ONNX dim_param, or the
    input's name and axis where the model leaves it unnamed, made an identifier."""
    raw = dim_param if dim_param and dim_param != "?" else f"{input_name}_dim{axis}"
    name = re.sub(r"\W", "_", raw)
    return name if name[:1].isalpha() or name[:1] == "_" else f"d_{name}"


def size_var(name: str) -> SizeVar:
    """The int64 size variable called `name` (one object per name is not needed: size
    variables compare by name)."""
    return SizeVar(name, "int64")


RANGE_METADATA_PREFIX = "autotune.dim_range."  # + a size variable's name: "LOW..HIGH"


def stored_dim_ranges(model: onnx.ModelProto) -> dict[str, DimRange]:
    """The ranges a model carries for its symbolic dims (written by `bind_input_shapes`),
    by dim name; ShapeBindingError for one that does not parse."""
    ranges: dict[str, DimRange] = {}
    for entry in model.metadata_props:
        if entry.key.startswith(RANGE_METADATA_PREFIX):
            name = entry.key[len(RANGE_METADATA_PREFIX) :]
            ranges[name] = DimRange.parse(entry.value)
    return ranges


def store_dim_ranges(model: onnx.ModelProto, ranges: Mapping[str, DimRange]) -> None:
    """Record `ranges` (dim name -> range) in the model's metadata, replacing what it
    carried for those names."""
    keys = {RANGE_METADATA_PREFIX + name for name in ranges}
    kept = [entry for entry in model.metadata_props if entry.key not in keys]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    for name, dim_range in sorted(ranges.items()):
        entry = model.metadata_props.add()
        entry.key, entry.value = RANGE_METADATA_PREFIX + name, str(dim_range)
