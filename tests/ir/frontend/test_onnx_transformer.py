"""A transformer block built the way PyTorch exports it, with symbolic batch and sequence dims.

The heads are split and merged through Shape -> Gather -> Unsqueeze -> Concat -> Reshape
chains; once the input shape is bound they must fold away completely.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
import pytest
from onnx import helper

from ir.frontend.onnx import from_onnx
from ir.graph.nodes import Call
from ir.graph.passes.fold_constant import fold_expr
from ir.graph.traversal import post_order
from ir.reference import evaluate
from tests.ir.frontend.onnx_helpers import ints, make_model, randn, run_onnxruntime

HIDDEN = 16
HEADS = 4
HEAD_DIM = HIDDEN // HEADS
MLP = 32


def _linear(
    nodes: list[onnx.NodeProto],
    weights: dict[str, np.ndarray],
    name: str,
    source: str,
    fan_in: int,
    fan_out: int,
) -> str:
    """MatMul with a weight initializer, then Add of the bias (as torch.nn.Linear exports)."""
    weights[f"{name}.weight"] = randn(fan_in, fan_out) / np.float32(math.sqrt(fan_in))
    weights[f"{name}.bias"] = randn(fan_out) * np.float32(0.1)
    nodes.append(
        helper.make_node(
            "MatMul", [source, f"{name}.weight"], [f"{name}_mm"], name=f"/{name}/MatMul"
        )
    )
    nodes.append(
        helper.make_node(
            "Add", [f"{name}_mm", f"{name}.bias"], [f"{name}_out"], name=f"/{name}/Add"
        )
    )
    return f"{name}_out"


def _layer_norm(
    nodes: list[onnx.NodeProto], weights: dict[str, np.ndarray], name: str, source: str
) -> str:
    weights[f"{name}.weight"] = 1.0 + randn(HIDDEN) * np.float32(0.1)
    weights[f"{name}.bias"] = randn(HIDDEN) * np.float32(0.1)
    nodes.append(
        helper.make_node(
            "LayerNormalization",
            [source, f"{name}.weight", f"{name}.bias"],
            [f"{name}_out"],
            name=f"/{name}/LayerNormalization",
            axis=-1,
            epsilon=1e-5,
        )
    )
    return f"{name}_out"


def _batch_and_seq(nodes: list[onnx.NodeProto], source: str) -> tuple[str, str]:
    """Unsqueezed batch and sequence sizes read from `source`'s shape at run time."""
    nodes.append(helper.make_node("Shape", [source], ["shape"], name="/attn/Shape"))
    dims = []
    for index, label in enumerate(("batch", "seq")):
        nodes.append(
            helper.make_node(
                "Gather",
                ["shape", f"idx{index}"],
                [f"{label}_dim"],
                name=f"/attn/Gather_{index}",
                axis=0,
            )
        )
        nodes.append(
            helper.make_node(
                "Unsqueeze",
                [f"{label}_dim", "axes0"],
                [f"{label}_1d"],
                name=f"/attn/Unsqueeze_{index}",
            )
        )
        dims.append(f"{label}_1d")
    return dims[0], dims[1]


def _to_heads(
    nodes: list[onnx.NodeProto], source: str, dims: tuple[str, str], perm: list[int], name: str
) -> str:
    nodes.append(
        helper.make_node(
            "Concat",
            [*dims, "heads", "head_dim"],
            [f"{name}_shape"],
            name=f"/attn/{name}/Concat",
            axis=0,
        )
    )
    nodes.append(
        helper.make_node(
            "Reshape", [source, f"{name}_shape"], [f"{name}_split"], name=f"/attn/{name}/Reshape"
        )
    )
    nodes.append(
        helper.make_node(
            "Transpose",
            [f"{name}_split"],
            [f"{name}_heads"],
            name=f"/attn/{name}/Transpose",
            perm=perm,
        )
    )
    return f"{name}_heads"


def _gelu(nodes: list[onnx.NodeProto], source: str) -> str:
    """x * 0.5 * (1 + erf(x / sqrt(2))), the way torch exports GELU before opset 20."""
    steps = [
        ("Div", [source, "sqrt2"], "gelu_div"),
        ("Erf", ["gelu_div"], "gelu_erf"),
        ("Add", ["gelu_erf", "one"], "gelu_add"),
        ("Mul", [source, "gelu_add"], "gelu_mul"),
        ("Mul", ["gelu_mul", "half"], "gelu_out"),
    ]
    for index, (op, inputs, output) in enumerate(steps):
        nodes.append(helper.make_node(op, inputs, [output], name=f"/mlp/act/{op}_{index}"))
    return "gelu_out"


def transformer_block() -> onnx.ModelProto:
    """Pre-norm attention + MLP block on an input of shape [batch, seq, HIDDEN]."""
    nodes: list[onnx.NodeProto] = []
    weights: dict[str, np.ndarray] = {
        "idx0": np.array(0, np.int64),
        "idx1": np.array(1, np.int64),
        "axes0": ints(0),
        "heads": ints(HEADS),
        "head_dim": ints(HEAD_DIM),
        "hidden": ints(HIDDEN),
        "scale": np.array(math.sqrt(HEAD_DIM), np.float32),
        "sqrt2": np.array(math.sqrt(2.0), np.float32),
        "one": np.array(1.0, np.float32),
        "half": np.array(0.5, np.float32),
    }
    normed = _layer_norm(nodes, weights, "ln1", "x")
    dims = _batch_and_seq(nodes, normed)
    query = _linear(nodes, weights, "q", normed, HIDDEN, HIDDEN)
    key = _linear(nodes, weights, "k", normed, HIDDEN, HIDDEN)
    value = _linear(nodes, weights, "v", normed, HIDDEN, HIDDEN)
    query = _to_heads(nodes, query, dims, [0, 2, 1, 3], "q")
    key = _to_heads(nodes, key, dims, [0, 2, 3, 1], "k")
    value = _to_heads(nodes, value, dims, [0, 2, 1, 3], "v")
    nodes += [
        helper.make_node("MatMul", [query, key], ["scores"], name="/attn/MatMul"),
        helper.make_node("Div", ["scores", "scale"], ["scaled"], name="/attn/Div"),
        helper.make_node("Softmax", ["scaled"], ["probs"], name="/attn/Softmax", axis=-1),
        helper.make_node("MatMul", ["probs", value], ["context"], name="/attn/MatMul_1"),
        helper.make_node(
            "Transpose", ["context"], ["context_t"], name="/attn/Transpose_3", perm=[0, 2, 1, 3]
        ),
        helper.make_node(
            "Concat", [*dims, "hidden"], ["merged_shape"], name="/attn/Concat_3", axis=0
        ),
        helper.make_node(
            "Reshape", ["context_t", "merged_shape"], ["merged"], name="/attn/Reshape_3"
        ),
    ]
    attended = _linear(nodes, weights, "o", "merged", HIDDEN, HIDDEN)
    nodes.append(helper.make_node("Add", ["x", attended], ["residual1"], name="/Add"))
    normed2 = _layer_norm(nodes, weights, "ln2", "residual1")
    hidden = _linear(nodes, weights, "fc1", normed2, HIDDEN, MLP)
    activated = _gelu(nodes, hidden)
    projected = _linear(nodes, weights, "fc2", activated, MLP, HIDDEN)
    nodes.append(helper.make_node("Add", ["residual1", projected], ["y"], name="/Add_1"))
    return make_model(
        nodes, {"x": (["batch", "seq", HIDDEN], np.float32)}, initializers=weights, opset=17
    )


@pytest.mark.parametrize("shape", [(2, 5, HIDDEN), (1, 3, HIDDEN)])
def test_transformer_block_matches_onnxruntime(shape: tuple[int, int, int]) -> None:
    model = transformer_block()
    function = from_onnx(model, shape={"x": shape})

    folded = fold_expr(function.body)
    op_names = {node.op_name for node in post_order(folded) if isinstance(node, Call)}
    assert not op_names & {"shape_of", "full", "take", "concatenate"}, op_names
    assert {"nn.layer_norm", "nn.matmul", "nn.softmax", "erf", "reshape"} <= op_names
    assert function.ret_type.shape == shape  # type: ignore[union-attr]

    x = randn(*shape)
    actual = evaluate(function, {"x": x})
    (expected,) = run_onnxruntime(model, {"x": x})
    np.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-4)
