"""Single-node ONNX models of RNN, GRU and LSTM against onnxruntime: directions, layouts,
biases, initial states, peepholes, clipping and activations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper

from ir.errors import UnsupportedOpError
from ir.frontend.onnx import from_onnx
from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    make_model,
    op_case,
    run_imported,
    run_onnxruntime,
)

STEPS, BATCH, SIZE, HIDDEN = 5, 3, 4, 6
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
RNG = np.random.default_rng(11)


def _normal(*shape: int, scale: float = 0.5) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _case(
    case_id: str,
    op: str,
    *,
    directions: int = 1,
    bias: bool = True,
    initial: bool = False,
    peepholes: bool = False,
    layout: int = 0,
    **attrs: Any,
) -> Any:
    gates = GATES[op]
    x_shape = (BATCH, STEPS, SIZE) if layout else (STEPS, BATCH, SIZE)
    feeds = {"x": _normal(*x_shape, scale=1.0)}
    consts = {
        "w": _normal(directions, gates * HIDDEN, SIZE),
        "r": _normal(directions, gates * HIDDEN, HIDDEN),
    }
    inputs = ["x", "w", "r", "", "", ""]
    if bias:
        consts["b"] = _normal(directions, 2 * gates * HIDDEN)
        inputs[3] = "b"
    if initial:
        state_shape = (BATCH, directions, HIDDEN) if layout else (directions, BATCH, HIDDEN)
        feeds["h0"] = _normal(*state_shape, scale=1.0)
        inputs[5] = "h0"
        if op == "LSTM":
            feeds["c0"] = _normal(*state_shape, scale=1.0)
            inputs.append("c0")
    if peepholes:
        inputs += [""] * (7 - len(inputs))
        consts["p"] = _normal(directions, 3 * HIDDEN)
        inputs.append("p")
    while inputs and inputs[-1] == "":
        inputs.pop()
    outputs = {"y": np.float32, "y_h": np.float32}
    if op == "LSTM":
        outputs["y_c"] = np.float32
    direction = {1: "forward", 2: "bidirectional"}[directions]
    direction = attrs.pop("direction", direction)
    return op_case(
        case_id,
        op,
        inputs,
        feeds,
        consts=consts,
        opset=14,
        outputs=outputs,
        hidden_size=HIDDEN,
        direction=direction,
        layout=layout,
        **attrs,
    )


CASES = [
    _case("rnn", "RNN"),
    _case("rnn_relu_no_bias", "RNN", bias=False, activations=["Relu"]),
    _case("rnn_bidirectional_initial", "RNN", directions=2, initial=True),
    _case("gru", "GRU"),
    _case("gru_linear_before_reset", "GRU", linear_before_reset=1),
    _case("gru_reverse_initial", "GRU", initial=True, direction="reverse"),
    _case("gru_no_bias_clip", "GRU", bias=False, clip=0.7),
    _case("lstm", "LSTM"),
    _case("lstm_initial_peepholes", "LSTM", initial=True, peepholes=True),
    _case("lstm_bidirectional", "LSTM", directions=2, initial=True),
    _case(
        "lstm_activations",
        "LSTM",
        activations=["HardSigmoid", "ScaledTanh", "Softsign"],
        activation_alpha=[0.3, 0.8],
        activation_beta=[0.4, 1.2],
    ),
    _case("lstm_clip", "LSTM", clip=0.5),
]


@pytest.mark.parametrize("case", CASES)
def test_recurrent_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["GRU", "LSTM"])
def test_batch_first_layout_matches_the_sequence_first_layout(op: str) -> None:
    """onnxruntime has no layout=1 kernels: the same weights on transposed data at
    layout=0 (run by onnxruntime) are the oracle."""
    batch_first = _case("b", op, directions=2, layout=1, initial=True).values[0]
    sequence_first = OpCase(
        batch_first.op_type,
        batch_first.node_inputs,
        {name: value.swapaxes(0, 1) for name, value in batch_first.feeds.items()},
        {**batch_first.attrs, "layout": 0},
        batch_first.consts,
        batch_first.opset,
        batch_first.outputs,
    )
    expected = run_onnxruntime(sequence_first.model(), sequence_first.feeds)
    actual = run_imported(batch_first.model(), batch_first.feeds)
    # Y: (T, D, B, H) -> (B, T, D, H); Y_h, Y_c: (D, B, H) -> (B, D, H).
    np.testing.assert_allclose(actual[0], expected[0].transpose(2, 0, 1, 3), 1e-4, 1e-5)
    for got, want in zip(actual[1:], expected[1:], strict=True):
        np.testing.assert_allclose(got, want.swapaxes(0, 1), 1e-4, 1e-5)


def test_variable_sequence_lengths_are_refused_by_name() -> None:
    node = helper.make_node(
        "GRU", ["x", "w", "r", "", "lens"], ["y"], name="gru0", hidden_size=HIDDEN
    )
    model = make_model(
        [node],
        {"x": _normal(STEPS, BATCH, SIZE)},
        initializers={
            "w": _normal(1, 3 * HIDDEN, SIZE),
            "r": _normal(1, 3 * HIDDEN, HIDDEN),
            "lens": np.array([STEPS, 2, STEPS], np.int32),
        },
        opset=14,
    )
    with pytest.raises(UnsupportedOpError, match=r"gru0.*sequence_lens \[5, 2, 5\]"):
        from_onnx(model)
