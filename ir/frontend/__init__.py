"""Model frontends: importers from exchange formats into the graph IR."""

from ir.frontend.onnx import ImportedModel, from_onnx, import_model

__all__ = ["ImportedModel", "from_onnx", "import_model"]
