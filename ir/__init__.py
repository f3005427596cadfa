"""Intermediate representations: the graph IR, its op table and passes, and the ONNX frontend."""

from pathlib import Path

from ir.native import warn_of_stale_compiled_modules

warn_of_stale_compiled_modules(Path(__file__).parent)
