"""Post-training static quantization of an ONNX model into a standard QDQ model
(`autotune quantize`; onnxruntime and autotune both run the result).

Every Conv, Gemm and MatMul whose weight is a float initializer, and that the skip list
does not name (by op type or node name), gets:
- its weight stored as int8, symmetric (zero point 0, values in [-127, 127]), with one
  scale per output channel (axis 0 of a Conv's weight, the output axis of a Gemm's or
  MatMul's), read through a DequantizeLinear; per tensor before opset 13, whose
  DequantizeLinear has no axis;
- its activation input passed through QuantizeLinear and DequantizeLinear to uint8,
  asymmetric, over the range calibration observed (`tuner.calibrate`, min-max or
  percentile), widened to hold 0 so that zero padding stays exact.
Biases stay float: a runtime that fuses the pattern into an integer kernel derives their
int32 form from the two scales. Nothing else of the model changes: its inputs, outputs and
other nodes keep their names, and an activation read by several quantized nodes is
quantized once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ir.errors import AutotuneError
from tuner.calibrate import TensorRange, calibrate

QUANTIZED_OPS = ("Conv", "Gemm", "MatMul")
WEIGHT_LIMIT = 127  # symmetric int8 weights: [-127, 127]
REDUCED_WEIGHT_LIMIT = 64  # 7-bit weights: any pair's products of uint8 values fit int16
ACTIVATION_LEVELS = 255  # uint8 activations: [0, 255]
OLDEST_OPSET = 10  # QuantizeLinear and DequantizeLinear
PER_CHANNEL_OPSET = 13  # DequantizeLinear's axis


class QuantizeError(AutotuneError, ValueError):
    """A model cannot be quantized as asked: an old opset, nothing to quantize, an unknown
    option; says which."""


@dataclass(frozen=True)
class QuantizeOptions:
    """How to quantize: the calibration `method` ("minmax" or "percentile") and its
    `percentile`; op types or node names to leave in float (`skip`); `reduce_range`:
    weights in [-64, 64] (7 bits) so that CPUs without 8-bit dot products (AVX2) run
    them exactly with vpmaddubsw, at some cost in accuracy."""

    method: str = "minmax"
    percentile: float = 99.99
    skip: frozenset[str] = field(default_factory=frozenset)
    reduce_range: bool = False


@dataclass(frozen=True)
class QuantizedNode:
    """One node given int8 weights and a quantized activation."""

    name: str
    op_type: str
    weight: str
    activation: str
    per_channel: bool


@dataclass(frozen=True)
class QuantizeResult:
    """The QDQ model, the nodes quantized, the quantizable nodes skipped (by name) and the
    calibrated range of each quantized activation."""

    model: onnx.ModelProto
    nodes: tuple[QuantizedNode, ...]
    skipped: tuple[str, ...]
    ranges: Mapping[str, TensorRange]


@dataclass(frozen=True)
class _Candidate:
    index: int
    node: onnx.NodeProto
    activation: str
    weight: str
    axis: int  # the weight's output-channel axis


def _opset(model: onnx.ModelProto) -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    raise QuantizeError("the model imports no default-domain (ai.onnx) opset")


def _attribute(node: onnx.NodeProto, name: str, default: int) -> int:
    for attribute in node.attribute:
        if attribute.name == name:
            return int(helper.get_attribute_value(attribute))
    return default


def _candidate(
    index: int, node: onnx.NodeProto, weights: Mapping[str, np.ndarray]
) -> _Candidate | None:
    """The node as a quantization candidate, or None where its pattern does not apply (no
    float initializer weight, an activation on the weight's side)."""
    if node.op_type not in QUANTIZED_OPS or len(node.input) < 2:
        return None
    activation, weight = node.input[0], node.input[1]
    array = weights.get(weight)
    if not activation or array is None or array.dtype != np.float32 or activation in weights:
        return None
    if node.op_type == "Conv":
        axis = 0 if array.ndim >= 3 else -1
    elif node.op_type == "Gemm":
        if _attribute(node, "transA", 0) or array.ndim != 2:
            return None
        axis = 0 if _attribute(node, "transB", 0) else 1
    else:
        axis = 1 if array.ndim == 2 else -1
    return None if axis < 0 else _Candidate(index, node, activation, weight, axis)


def _activation_parameters(span: TensorRange) -> tuple[np.ndarray, np.ndarray]:
    """uint8 asymmetric scale and zero point for values in `span` (widened to hold 0)."""
    low, high = min(span.low, 0.0), max(span.high, 0.0)
    scale = (high - low) / ACTIVATION_LEVELS if high > low else 1.0
    zero_point = int(np.clip(np.rint(-low / scale), 0, ACTIVATION_LEVELS))
    return np.array(scale, np.float32), np.array(zero_point, np.uint8)


def _weight_scales(peaks: np.ndarray, limit: int) -> np.ndarray:
    """float32 scales mapping each peak magnitude to the int8 `limit`; 1 for an all-zero
    slice. A peak so small that peak / limit would be subnormal or zero gets float32's
    smallest normal scale instead, so no scale is zero and no value overflows the limit."""
    tiny = np.finfo(np.float32).tiny
    scaled = np.maximum(np.asarray(peaks, np.float32) / np.float32(limit), tiny)
    return np.where(peaks > 0, scaled, np.float32(1.0)).astype(np.float32)


def quantize_weight(
    weight: np.ndarray, axis: int | None, limit: int = WEIGHT_LIMIT
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`weight` as symmetric int8 values in [-limit, limit], their scales and zero points:
    one scale per slice along `axis`, or one for the whole tensor when `axis` is None."""
    if axis is None:
        peaks = np.array(np.abs(weight).max(initial=0.0), np.float32)
        scales = _weight_scales(peaks, limit)
        values = np.clip(np.rint(weight / scales), -limit, limit)
        return values.astype(np.int8), scales, np.array(0, np.int8)
    others = tuple(i for i in range(weight.ndim) if i != axis)
    peaks = np.abs(weight).max(axis=others, initial=0.0)
    scales = _weight_scales(peaks, limit)
    shape = [1] * weight.ndim
    shape[axis] = -1
    values = np.clip(np.rint(weight / scales.reshape(shape)), -limit, limit)
    return values.astype(np.int8), scales, np.zeros(scales.shape, np.int8)


class _Names:
    """Fresh value names beside the model's own."""

    def __init__(self, model: onnx.ModelProto) -> None:
        graph = model.graph
        self.used = {value for node in graph.node for value in (*node.input, *node.output)}
        self.used.update(info.name for info in (*graph.input, *graph.output))
        self.used.update(init.name for init in graph.initializer)

    def fresh(self, base: str) -> str:
        name, count = base, 1
        while name in self.used:
            name, count = f"{base}_{count}", count + 1
        self.used.add(name)
        return name


def quantize_model(
    model: onnx.ModelProto,
    batches: Callable[[], Iterable[Mapping[str, np.ndarray]]],
    options: QuantizeOptions | None = None,
) -> QuantizeResult:
    """The QDQ model of `model` (see the module docstring), its activations calibrated on
    the input sets `batches()` yields (called once per calibration pass)."""
    options = options or QuantizeOptions()
    opset = _opset(model)
    if opset < OLDEST_OPSET:
        raise QuantizeError(
            f"the model's opset {opset} has no QuantizeLinear: opset {OLDEST_OPSET} or later"
        )
    graph = model.graph
    weights = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    candidates: list[_Candidate] = []
    skipped: list[str] = []
    for index, node in enumerate(graph.node):
        candidate = _candidate(index, node, weights)
        if candidate is None:
            continue
        if node.op_type in options.skip or (node.name and node.name in options.skip):
            skipped.append(node.name or f"{node.op_type}#{index}")
        else:
            candidates.append(candidate)
    if not candidates:
        raise QuantizeError(
            f"nothing to quantize: no {', '.join(QUANTIZED_OPS)} node with a float32 "
            f"initializer weight{' outside the skip list' if skipped else ''}"
        )
    activations = list(dict.fromkeys(c.activation for c in candidates))
    ranges = calibrate(model, activations, batches, options.method, options.percentile)
    per_channel = opset >= PER_CHANNEL_OPSET
    quantized = onnx.ModelProto()
    quantized.CopyFrom(model)
    new_graph = quantized.graph
    names = _Names(quantized)
    replaced: dict[str, str] = {}  # a quantized value -> its dequantized copy
    before: dict[int, list[onnx.NodeProto]] = {}
    kept_initializers = {init.name: init for init in new_graph.initializer}
    done: list[QuantizedNode] = []
    for candidate in candidates:
        inserted = before.setdefault(candidate.index, [])
        if candidate.activation not in replaced:
            scale, zero_point = _activation_parameters(ranges[candidate.activation])
            base = candidate.activation
            scale_name, zero_name = names.fresh(f"{base}_scale"), names.fresh(f"{base}_zero_point")
            q_name, dq_name = names.fresh(f"{base}_quantized"), names.fresh(f"{base}_dequantized")
            new_graph.initializer.extend(
                [
                    numpy_helper.from_array(scale, scale_name),
                    numpy_helper.from_array(zero_point, zero_name),
                ]
            )
            inserted.append(
                helper.make_node(
                    "QuantizeLinear", [base, scale_name, zero_name], [q_name], name=q_name
                )
            )
            inserted.append(
                helper.make_node(
                    "DequantizeLinear", [q_name, scale_name, zero_name], [dq_name], name=dq_name
                )
            )
            replaced[candidate.activation] = dq_name
        if candidate.weight not in replaced:
            axis = candidate.axis if per_channel else None
            limit = REDUCED_WEIGHT_LIMIT if options.reduce_range else WEIGHT_LIMIT
            values, scales, zeros = quantize_weight(weights[candidate.weight], axis, limit)
            base = candidate.weight
            q_name = names.fresh(f"{base}_quantized")
            scale_name, zero_name = names.fresh(f"{base}_scale"), names.fresh(f"{base}_zero_point")
            dq_name = names.fresh(f"{base}_dequantized")
            new_graph.initializer.extend(
                [
                    numpy_helper.from_array(values, q_name),
                    numpy_helper.from_array(scales, scale_name),
                    numpy_helper.from_array(zeros, zero_name),
                ]
            )
            dequantize = helper.make_node(
                "DequantizeLinear", [q_name, scale_name, zero_name], [dq_name], name=dq_name
            )
            if axis is not None:
                dequantize.attribute.append(helper.make_attribute("axis", axis))
            inserted.append(dequantize)
            replaced[candidate.weight] = dq_name
        node = new_graph.node[candidate.index]
        node.input[0] = replaced[candidate.activation]
        node.input[1] = replaced[candidate.weight]
        done.append(
            QuantizedNode(
                node.name or f"{node.op_type}#{candidate.index}",
                node.op_type,
                candidate.weight,
                candidate.activation,
                per_channel,
            )
        )
    # Float weights no node reads any more go (from the inputs too, where an old model
    # lists its initializers there); a weight another node still reads stays.
    still_read = {value for node in new_graph.node for value in node.input}
    for name in dict.fromkeys(c.weight for c in candidates):
        if name in still_read:
            continue
        new_graph.initializer.remove(kept_initializers.pop(name))
        for info in [info for info in new_graph.input if info.name == name]:
            new_graph.input.remove(info)
    nodes = list(new_graph.node)
    del new_graph.node[:]
    for index, node in enumerate(nodes):
        new_graph.node.extend(before.get(index, []))
        new_graph.node.append(node)
    onnx.checker.check_model(quantized)
    return QuantizeResult(
        quantized, tuple(done), tuple(skipped), {a: ranges[a] for a in activations}
    )
