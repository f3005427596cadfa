"""The nine "light" model-zoo models shipped with onnx import with a typed [1, 1000] output.

Only the import is checked here; the numeric comparison of whole models lives elsewhere.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import onnx
import pytest

from ir.frontend.onnx import import_model
from ir.graph.types import TensorType

LIGHT_DIR = Path(os.path.dirname(onnx.__file__)) / "backend" / "test" / "data" / "light"
LIGHT_MODELS = sorted(LIGHT_DIR.glob("light_*.onnx"))


def test_all_nine_light_models_are_present() -> None:
    assert len(LIGHT_MODELS) == 9


@pytest.mark.parametrize("path", LIGHT_MODELS, ids=lambda path: path.stem)
def test_light_model_imports(path: Path) -> None:
    imported = import_model(path)
    declared = onnx.load(path, load_external_data=False).graph.output[0].type.tensor_type
    declared_shape = tuple(dim.dim_value for dim in declared.shape.dim)
    output_type = imported.function.ret_type
    # squeezenet and densenet121 end in (1, 1000, 1, 1); the others in (1, 1000).
    assert output_type == TensorType(declared_shape, "float32")
    assert declared_shape[:2] == (1, 1000) and math.prod(declared_shape) == 1000
    assert imported.input_types == (TensorType((1, 3, 224, 224), "float32"),)
