"""Example models for the demo and the tests: the bundled light model, the ONNX backend
runner's standard input, and seeded random weights.

The light models in the onnx wheel make their weights with ConstantOfShape fills, so every
class scores the same and a wrong convolution would go unnoticed. `randomize_weights`
replaces every float initializer and weight-making ConstantOfShape with seeded random values
scaled by their role (He-scaled conv/gemm weights, positive BN variances); compare the
logits before the final softmax (`logits_name`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ir.errors import AutotuneError

BUNDLED_MODEL = "light_squeezenet"


def bundled_model_path() -> Path:
    """The example model the demo uses: light_squeezenet from the onnx wheel's test data."""
    path = Path(onnx.__file__).parent / "backend/test/data/light" / f"{BUNDLED_MODEL}.onnx"
    if not path.is_file():
        raise AutotuneError(
            f"bundled example model not found at {path}; reinstall the onnx package"
        )
    return path


def runtime_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """What ONNX's backend runner feeds: arange(n).reshape(shape) / n as float32."""
    initializers = {init.name for init in model.graph.initializer}
    inputs: dict[str, np.ndarray] = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        shape = [dim.dim_value for dim in value.type.tensor_type.shape.dim]
        size = int(np.prod(shape))
        inputs[value.name] = (np.arange(size, dtype=np.float32).reshape(shape) / size).astype(
            np.float32
        )
    return inputs


def _consumers(model: onnx.ModelProto) -> dict[str, list[tuple[str, int, Any]]]:
    """For each value name, the (op_type, input index, node) pairs that read it."""
    uses: dict[str, list[tuple[str, int, Any]]] = {}
    for node in model.graph.node:
        for index, name in enumerate(node.input):
            uses.setdefault(name, []).append((node.op_type, index, node))
    return uses


def _role_of(name: str, uses: Mapping[str, list[tuple[str, int, Any]]]) -> tuple[str, int]:
    """Follow pass-through nodes (Unsqueeze, Reshape) to the op that really uses a weight."""
    seen = 0
    while seen < 4:
        consumers = uses.get(name, [])
        if not consumers:
            return ("", -1)
        op_type, index, node = consumers[0]
        if op_type in ("Unsqueeze", "Reshape", "Identity") and index == 0:
            name, seen = node.output[0], seen + 1
            continue
        if op_type == "Gemm":
            trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
            return ("Gemm", index if index != 1 else (10 if trans_b else 11))
        return (op_type, index)
    return ("", -1)


def _random_weight(
    shape: tuple[int, ...], role: tuple[str, int], rng: np.random.Generator
) -> np.ndarray:
    op_type, index = role
    if op_type == "Conv" and index == 1:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        return rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)
    if op_type == "Gemm" and index in (10, 11):
        fan_in = shape[1] if index == 10 else shape[0]
        return rng.normal(0.0, np.sqrt(1.0 / fan_in), shape)
    if op_type == "BatchNormalization":
        if index == 1:
            return rng.uniform(0.8, 1.2, shape)
        if index == 4:
            return rng.uniform(0.5, 1.5, shape)
        return rng.normal(0.0, 0.1, shape)
    if op_type == "Mul":
        return rng.uniform(0.8, 1.2, shape)
    return rng.normal(0.0, 0.05, shape)


def randomize_weights(model: onnx.ModelProto, seed: int = 0) -> onnx.ModelProto:
    """A copy of `model` whose float weights (initializers and ConstantOfShape) are random."""
    rng = np.random.default_rng(seed)
    result = onnx.ModelProto()
    result.CopyFrom(model)
    uses = _consumers(result)
    initializers = {init.name: init for init in result.graph.initializer}
    for init in result.graph.initializer:
        array = numpy_helper.to_array(init)
        if array.dtype != np.float32:
            continue
        weight = _random_weight(array.shape, _role_of(init.name, uses), rng).astype(np.float32)
        init.CopyFrom(numpy_helper.from_array(weight, init.name))
    nodes = []
    for node in result.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in initializers:
            value = next((a.t for a in node.attribute if a.name == "value"), None)
            dtype = numpy_helper.to_array(value).dtype if value is not None else np.float32
            if dtype == np.float32:
                shape = tuple(int(d) for d in numpy_helper.to_array(initializers[node.input[0]]))
                weight = _random_weight(shape, _role_of(node.output[0], uses), rng)
                tensor = numpy_helper.from_array(weight.astype(np.float32), node.output[0])
                nodes.append(
                    helper.make_node("Constant", [], [node.output[0]], name=node.name, value=tensor)
                )
                continue
        nodes.append(node)
    del result.graph.node[:]
    result.graph.node.extend(nodes)
    return result


def logits_name(model: onnx.ModelProto) -> str:
    """The value before the final Softmax, or the last graph output when there is none."""
    softmax = [node for node in model.graph.node if node.op_type == "Softmax"]
    if softmax:
        return str(softmax[-1].input[0])
    return str(model.graph.output[-1].name)


def cut_at_logits(
    model: onnx.ModelProto, shapes_from: onnx.ModelProto | None = None
) -> onnx.ModelProto:
    """A copy of `model` that ends at its pre-softmax logits (`logits_name`), keeping only
    the nodes they depend on. The logits' shape is inferred on `shapes_from` (the same graph,
    for example before `randomize_weights`, whose small ConstantOfShape weights infer much
    faster) or on `model`."""
    logits = logits_name(model)
    inferred = onnx.shape_inference.infer_shapes(shapes_from or model).graph
    info = next((v for v in [*inferred.value_info, *inferred.output] if v.name == logits), None)
    if info is None:
        raise AutotuneError(f"cannot infer the shape of the logits {logits!r}")
    shape = [dim.dim_value for dim in info.type.tensor_type.shape.dim]
    nodes = list(model.graph.node)
    producer = {output: index for index, node in enumerate(nodes) for output in node.output}
    needed: set[int] = set()
    pending = [logits]
    while pending:
        index = producer.get(pending.pop())
        if index is not None and index not in needed:
            needed.add(index)
            pending.extend(nodes[index].input)
    result = onnx.ModelProto()
    result.CopyFrom(model)
    del result.graph.node[:]
    result.graph.node.extend(node for index, node in enumerate(nodes) if index in needed)
    del result.graph.output[:]
    result.graph.output.append(helper.make_tensor_value_info(logits, onnx.TensorProto.FLOAT, shape))
    return result
