"""Intermediate representations: the graph IR, its op table and passes, and the ONNX frontend."""
