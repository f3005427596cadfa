"""The ONNX frontend: `from_onnx` imports an ONNX model into a typed graph IR Function."""

from ir.frontend.onnx.converters import CONVERTERS
from ir.frontend.onnx.importer import (
    MAX_OPSET,
    MIN_OPSET,
    ImportedModel,
    from_onnx,
    import_model,
)

__all__ = ["CONVERTERS", "MAX_OPSET", "MIN_OPSET", "ImportedModel", "from_onnx", "import_model"]
