"""The one table from ONNX op type to converter, merged from the per-family modules."""

from __future__ import annotations

from ir.frontend.onnx import (
    converters_col2im,
    converters_control,
    converters_einsum,
    converters_image,
    converters_linalg,
    converters_math,
    converters_nn,
    converters_quantized,
    converters_reduce,
    converters_rnn,
    converters_sampling,
    converters_spectral,
    converters_tensor,
    converters_text,
    converters_unpool,
)
from ir.frontend.onnx.context import Converter

_FAMILIES = (
    converters_col2im,
    converters_control,
    converters_einsum,
    converters_image,
    converters_linalg,
    converters_math,
    converters_nn,
    converters_quantized,
    converters_reduce,
    converters_rnn,
    converters_sampling,
    converters_spectral,
    converters_tensor,
    converters_text,
    converters_unpool,
)


def _merge() -> dict[str, Converter]:
    table: dict[str, Converter] = {}
    for family in _FAMILIES:
        duplicated = sorted(set(table) & set(family.CONVERTERS))
        if duplicated:
            raise RuntimeError(f"{family.__name__} converts {duplicated} a second time")
        table.update(family.CONVERTERS)
    return dict(sorted(table.items()))


# ONNX op type (default domain) -> converter.
CONVERTERS: dict[str, Converter] = _merge()
