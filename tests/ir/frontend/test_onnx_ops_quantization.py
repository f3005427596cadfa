"""QuantizeLinear / DequantizeLinear against onnxruntime (per tensor and per axis)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    op_case,
    randn,
)

RNG = np.random.default_rng(5)
F32 = np.float32

QDQ = [
    op_case(
        "dequantize_uint8",
        "DequantizeLinear",
        ["x", "s", "z"],
        {"x": RNG.integers(0, 256, (3, 4)).astype(np.uint8)},
        consts={"s": np.array(0.05, F32), "z": np.array(128, np.uint8)},
    ),
    op_case(
        "dequantize_int8_per_axis",
        "DequantizeLinear",
        ["x", "s", "z"],
        {"x": RNG.integers(-128, 128, (4, 3, 2)).astype(np.int8)},
        consts={"s": np.array([0.1, 0.2, 0.05, 1.0], F32), "z": np.array([0, 3, -2, 1], np.int8)},
        axis=0,
    ),
    op_case(
        "dequantize_int32_no_zero_point",
        "DequantizeLinear",
        ["x", "s"],
        {"x": RNG.integers(-1000, 1000, (5,)).astype(np.int32)},
        consts={"s": np.array(0.001, F32)},
    ),
    op_case(
        "quantize_uint8",
        "QuantizeLinear",
        ["x", "s", "z"],
        {"x": np.concatenate([randn(10) * 4, np.array([0.25, 0.75, -0.25, 100, -100], F32)])},
        consts={"s": np.array(0.5, F32), "z": np.array(10, np.uint8)},
        outputs={"y": np.uint8},
    ),
    op_case(
        "quantize_int8_per_axis",
        "QuantizeLinear",
        ["x", "s", "z"],
        {"x": randn(2, 3, 4) * 10},
        consts={"s": np.array([0.1, 0.3, 0.07], F32), "z": np.array([0, -5, 7], np.int8)},
        outputs={"y": np.int8},
        axis=1,
    ),
    op_case(
        "quantize_21_output_dtype",
        "QuantizeLinear",
        ["x", "s"],
        {"x": randn(3, 4) * 30},
        consts={"s": np.array(0.3, F32)},
        outputs={"y": np.int8},
        opset=21,
        output_dtype=3,  # INT8
    ),
    op_case(
        "quantize_without_zero_point",
        "QuantizeLinear",
        ["x", "s"],
        {"x": randn(3, 4) * 50},
        consts={"s": np.array(0.3, F32)},
        outputs={"y": np.uint8},
    ),
]


@pytest.mark.parametrize("case", QDQ)
def test_quantization_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=0, atol=1e-6)
