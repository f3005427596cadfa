"""bench/forests.py: its forests are valid ONNX that onnxruntime runs, and ours match it."""

from __future__ import annotations

from dataclasses import replace

import onnx
import pytest

from bench.forests import SHAPES, ForestShape, forest_model, measure


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_each_benchmark_forest_matches_onnxruntime(shape: ForestShape) -> None:
    small = replace(shape, trees=3, depth=3)
    onnx.checker.check_model(forest_model(small, rows=16))
    assert measure(small, rows=16)["error"] < 1e-5
