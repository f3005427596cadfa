"""The nine light models through the frontend, the pass pipeline and the numpy oracle.

Each model is compared with onnxruntime on its pre-softmax logits with seeded random
weights (the shipped constant weights give every class the same score), before and after
the pass pipeline; the shipped `light_*_output_0.pb` is reproduced as well.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import onnx
import pytest

from ir.frontend.onnx import from_onnx
from ir.graph.nodes import Call, Function
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import post_order
from ir.reference import check_close, evaluate
from tests.support.onnx_models import (
    LIGHT_MODELS,
    expected_output,
    load_light_model,
    logits_name,
    randomize_weights,
    run_onnxruntime,
    runtime_inputs,
)

RTOL, ATOL = 1e-3, 1e-4


@cache
def _randomized(name: str) -> onnx.ModelProto:
    return randomize_weights(load_light_model(name), seed=sum(map(ord, name)))


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_randomized_model_matches_onnxruntime_before_and_after_passes(name: str) -> None:
    model = _randomized(name)
    inputs = runtime_inputs(model)
    logits = logits_name(model)
    expected = run_onnxruntime(model, inputs, logits)
    imported = from_onnx(model, outputs=[logits])
    check_close(evaluate(imported, inputs), expected, RTOL, ATOL, what=f"{name} imported")
    optimized = optimize(imported)
    check_close(evaluate(optimized, inputs), expected, RTOL, ATOL, what=f"{name} optimized")
    assert np.std(expected) > 1e-3, "random weights must give distinguishable logits"


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_shipped_output_is_reproduced(name: str) -> None:
    model = load_light_model(name)
    fn = optimize(from_onnx(model))
    result = evaluate(fn, runtime_inputs(model))
    check_close(result, expected_output(name), rtol=1e-3, atol=1e-6, what=name)


def _fused_groups(fn: Function) -> list[list[str]]:
    groups = []
    for node in post_order(fn.body):
        if isinstance(node, Call) and isinstance(node.op, Function):
            groups.append(
                [
                    n.op
                    for n in post_order(node.op.body)
                    if isinstance(n, Call) and isinstance(n.op, str)
                ]
            )
    return groups


def test_resnet50_fuses_each_conv_with_its_batch_norm_relu_and_residual_add() -> None:
    fn = optimize(from_onnx(load_light_model("light_resnet50")))
    groups = _fused_groups(fn)
    conv_groups = [g for g in groups if "nn.conv2d_nchwc" in g]
    assert len(conv_groups) == 53
    assert all(g.count("nn.conv2d_nchwc") == 1 for g in conv_groups)
    # No batch norm survives: each became the multiply + add after its conv.
    assert not any("nn.batch_norm" in g for g in groups)
    assert all(g[:3] == ["nn.conv2d_nchwc", "multiply", "add"] for g in conv_groups)
    # 16 bottleneck blocks: the residual add and the relu after it join a conv's group.
    residual = [g for g in conv_groups if len(g) == 5 and g[3] in ("add", "add_n")]
    assert len(residual) == 16
    assert all(g[4] == "nn.relu" for g in residual)
    # The other 37 convs: 33 followed by relu inside the block, 4 projection shortcuts.
    with_relu = [g for g in conv_groups if g == ["nn.conv2d_nchwc", "multiply", "add", "nn.relu"]]
    projections = [g for g in conv_groups if g == ["nn.conv2d_nchwc", "multiply", "add"]]
    assert (len(with_relu), len(projections)) == (33, 4)
    assert not any(op.startswith("nn.conv2d") for g in groups if g not in conv_groups for op in g)
