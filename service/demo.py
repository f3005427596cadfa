"""The demo's compile-and-run step: our compiled model next to the numpy reference and
ONNX Runtime (when installed), on the ONNX backend runner's standard input."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx

from codegen.executor import compile_model
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.reference import check_close, evaluate


def _median_ms(fn: Callable[[], object], runs: int = 10) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _standard_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    initializers = {init.name for init in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        shape = [dim.dim_value for dim in value.type.tensor_type.shape.dim]
        size = int(np.prod(shape))
        inputs[value.name] = (np.arange(size, dtype=np.float32).reshape(shape) / size).astype(
            np.float32
        )
    return inputs


def compile_and_compare(path: Path) -> list[str]:
    """Compile the model, check it against the numpy reference, and time it."""
    model = onnx.load(str(path))
    inputs = _standard_inputs(model)
    fn = optimize(from_onnx(model))
    start = time.perf_counter()
    compiled = compile_model(fn)
    compile_s = time.perf_counter() - start
    ours = compiled.run(inputs)
    check_close(ours, evaluate(fn, inputs), rtol=1e-3, atol=1e-5, what="compiled model")
    lines = [
        f"{compiled.num_kernels} kernels compiled in {compile_s:.1f} s; "
        "output matches the numpy reference",
        f"autotune (untuned): {_median_ms(lambda: compiled.run(inputs)):8.2f} ms",
    ]
    try:
        import onnxruntime
    except ImportError:
        lines.append("ONNX Runtime is not installed: no comparison")
        return lines
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    lines.append(f"ONNX Runtime:       {_median_ms(lambda: session.run(None, inputs)):8.2f} ms")
    return lines
