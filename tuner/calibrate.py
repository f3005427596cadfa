"""Calibration for post-training quantization: the range of values each named tensor of an
ONNX model takes over a set of inputs, observed by running the model compiled by autotune
itself (the tensors become extra graph outputs of a copy of the model).

Two methods: "minmax" (the smallest and largest value seen) and "percentile" (the values
below which `percentile` % and above which 100 - `percentile` % of all the values seen
fall, read off a histogram of 2048 bins over the min-max range, from a second pass over
the inputs): a few outliers then do not stretch an 8-bit grid over a range that almost
no value uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import onnx

from codegen.executor import CompiledModel, compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_inputs
from ir.errors import AutotuneError

HISTOGRAM_BINS = 2048
METHODS = ("minmax", "percentile")


class CalibrationError(AutotuneError, ValueError):
    """Calibration cannot run: no inputs, an unknown method or percentile, or a tensor
    that is not in the model; says which."""


@dataclass(frozen=True)
class TensorRange:
    """The calibrated range of one tensor's values."""

    low: float
    high: float


def _with_outputs(model: onnx.ModelProto, names: Sequence[str]) -> onnx.ModelProto:
    """A copy of `model` whose graph also returns the tensors `names` (float, after the
    graph's own outputs)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    present = {info.name for info in copy.graph.output}
    wanted = [name for name in names if name not in present]
    if not wanted:
        return copy
    inferred = onnx.shape_inference.infer_shapes(model).graph.value_info
    types = {info.name: info for info in inferred}
    for name in wanted:
        info = types.get(name)
        if info is None or not info.type.tensor_type.HasField("shape"):
            raise CalibrationError(f"the shape of tensor {name!r} cannot be inferred")
        copy.graph.output.append(info)
    return copy


class _Observer:
    """Runs the compiled copy of the model and hands each batch's tensors to a consumer."""

    def __init__(
        self, model: onnx.ModelProto, names: Sequence[str], first: Mapping[str, np.ndarray]
    ) -> None:
        graph_inputs = {info.name for info in model.graph.input}
        self.names = list(names)
        self.from_inputs = [name for name in self.names if name in graph_inputs]
        computed = [name for name in self.names if name not in graph_inputs]
        copy = _with_outputs(model, computed)
        target = host_target()
        prepared = prepare_for_inputs(copy, target, first)
        self.output_names = list(prepared.imported.output_names)
        self.compiled: CompiledModel = compile_model(
            prepared.function, target, bound_values=prepared.values
        )

    def tensors(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The observed tensors for one batch of inputs."""
        outputs = self.compiled.run(inputs)
        values = list(outputs) if isinstance(outputs, tuple) else [outputs]
        by_name = dict(zip(self.output_names, values, strict=True))
        by_name.update((name, np.asarray(inputs[name])) for name in self.from_inputs)
        return {name: np.asarray(by_name[name]) for name in self.names}


def calibrate(
    model: onnx.ModelProto,
    names: Sequence[str],
    batches: Callable[[], Iterable[Mapping[str, np.ndarray]]],
    method: str = "minmax",
    percentile: float = 99.99,
) -> dict[str, TensorRange]:
    """The range of each tensor `names` over the inputs `batches()` yields (called once
    per pass: twice for "percentile"), by `method` (see the module docstring)."""
    if method not in METHODS:
        raise CalibrationError(f"unknown calibration method {method!r}; known: {METHODS}")
    if not 50.0 < percentile <= 100.0:
        raise CalibrationError(f"the percentile must be in (50, 100], got {percentile}")
    known = {value for node in model.graph.node for value in node.output}
    known.update(info.name for info in model.graph.input)
    missing = [name for name in names if name not in known]
    if missing:
        raise CalibrationError(f"tensors {missing} are not computed by the model")
    observer: _Observer | None = None
    lows = {name: np.inf for name in names}
    highs = {name: -np.inf for name in names}
    count = 0
    for batch in batches():
        if observer is None:
            observer = _Observer(model, names, batch)
        for name, values in observer.tensors(batch).items():
            if values.size:
                lows[name] = min(lows[name], float(values.min()))
                highs[name] = max(highs[name], float(values.max()))
        count += 1
    if observer is None or not count:
        raise CalibrationError("calibration needs at least one set of inputs")
    ranges = {name: TensorRange(lows[name], highs[name]) for name in names}
    if method == "minmax" or percentile == 100.0:
        return ranges
    histograms = {name: np.zeros(HISTOGRAM_BINS, np.int64) for name in names}
    for batch in batches():
        for name, values in observer.tensors(batch).items():
            span = ranges[name]
            if values.size and span.high > span.low:
                counts, _ = np.histogram(values, HISTOGRAM_BINS, (span.low, span.high))
                histograms[name] += counts
    return {name: _percentile_range(ranges[name], histograms[name], percentile) for name in names}


def _percentile_range(span: TensorRange, counts: np.ndarray, percentile: float) -> TensorRange:
    """The bin edges below which (100 - percentile) % and above which the same share of
    the histogrammed values lie."""
    total = int(counts.sum())
    if total == 0 or span.high <= span.low:
        return span
    edges = np.linspace(span.low, span.high, HISTOGRAM_BINS + 1)
    cumulative = np.cumsum(counts)
    tail = total * (100.0 - percentile) / 100.0
    low_bin = int(np.searchsorted(cumulative, tail, side="right"))
    high_bin = int(np.searchsorted(cumulative, total - tail, side="left"))
    return TensorRange(float(edges[low_bin]), float(edges[min(high_bin + 1, HISTOGRAM_BINS)]))
