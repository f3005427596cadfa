"""Converters for ONNX recurrent layers: RNN, GRU and LSTM, unrolled over the sequence.

Shapes are static, so the recurrence unrolls into one step per element of the sequence.
The input projection of every step is one dense product over the whole sequence; each
step then adds its hidden state's product with the recurrence weight, and the gates are
elementwise ops that fuse. Bidirectional layers run a forward and a reverse pass and
stack them. Variable sequence lengths (`sequence_lens` below the full length) and LSTM's
coupled input/forget gates are refused by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.frontend.onnx.converters_math import hard_sigmoid
from ir.graph.nodes import Constant, Expr, TupleGetItem
from ir.graph.types import TupleType

DIRECTIONS = ("forward", "reverse", "bidirectional")
# ONNX activation name -> how many of activation_alpha / activation_beta it takes.
ACTIVATION_PARAMS = {
    "Sigmoid": (0, 0),
    "Tanh": (0, 0),
    "Relu": (0, 0),
    "Softsign": (0, 0),
    "Softplus": (0, 0),
    "LeakyRelu": (1, 0),
    "ThresholdedRelu": (1, 0),
    "Elu": (1, 0),
    "HardSigmoid": (1, 1),
    "Affine": (1, 1),
    "ScaledTanh": (1, 1),
}
# The ONNX operators' own defaults, for activations given without alpha / beta.
DEFAULT_ALPHA = {
    "LeakyRelu": 0.01,
    "ThresholdedRelu": 1.0,
    "Elu": 1.0,
    "HardSigmoid": 0.2,
    "Affine": 1.0,
    "ScaledTanh": 1.0,
}
DEFAULT_BETA = {"HardSigmoid": 0.5, "Affine": 0.0, "ScaledTanh": 1.0}
Activation = Callable[[Expr], Expr]


@dataclass(frozen=True)
class Layer:
    """What every recurrent op shares: sizes, direction and the sequence (T, B, I)."""

    kind: str
    gates: int
    steps: int
    batch: int
    hidden: int
    directions: int
    direction: str  # forward, reverse or bidirectional
    sequence: Expr  # (T, B, I), whatever the layout


def _activation(ctx: NodeContext, name: str, alpha: float | None, beta: float | None) -> Activation:
    dtype = ctx.dtype(0)

    def scalar(value: float) -> Constant:
        return ctx.scalar(value, dtype)

    simple = {
        "Sigmoid": "sigmoid",
        "Tanh": "tanh",
        "Relu": "nn.relu",
        "Softsign": "nn.softsign",
        "Softplus": "nn.softplus",
    }
    if name in simple:
        return lambda x: ctx.call(simple[name], x)
    if name == "LeakyRelu":
        return lambda x: ctx.call("nn.leaky_relu", x, alpha=alpha)
    if name == "ThresholdedRelu":
        return lambda x: ctx.call("nn.thresholded_relu", x, alpha=alpha)
    if name == "Elu":
        return lambda x: ctx.call("nn.elu", x, alpha=alpha)
    assert alpha is not None and beta is not None
    if name == "HardSigmoid":
        return lambda x: hard_sigmoid(ctx, x, alpha, beta)
    if name == "Affine":
        return lambda x: ctx.call("add", ctx.call("multiply", x, scalar(alpha)), scalar(beta))
    # ScaledTanh: alpha * tanh(beta * x)
    return lambda x: ctx.call(
        "multiply", ctx.call("tanh", ctx.call("multiply", x, scalar(beta))), scalar(alpha)
    )


def _activations(ctx: NodeContext, defaults: tuple[str, ...], directions: int) -> list[Activation]:
    """The layer's activations, `len(defaults)` per direction, with their alpha / beta."""
    names = ctx.attr("activations")
    listed = [n.decode() if isinstance(n, bytes) else str(n) for n in names or []]
    if not listed:
        listed = list(defaults) * directions
    if len(listed) != len(defaults) * directions:
        raise ctx.error(f"attribute activations needs {len(defaults) * directions} names")
    alphas = list(ctx.attr("activation_alpha") or [])
    betas = list(ctx.attr("activation_beta") or [])
    result: list[Activation] = []
    for name in listed:
        if name not in ACTIVATION_PARAMS:
            allowed = tuple(ACTIVATION_PARAMS)
            raise ctx.unsupported_attr("activations", name, allowed)
        takes_alpha, takes_beta = ACTIVATION_PARAMS[name]
        alpha = float(alphas.pop(0)) if takes_alpha and alphas else DEFAULT_ALPHA.get(name)
        beta = float(betas.pop(0)) if takes_beta and betas else DEFAULT_BETA.get(name)
        result.append(_activation(ctx, name, alpha, beta))
    return result


def _layer(ctx: NodeContext, kind: str, gates: int) -> Layer:
    shape = ctx.shape(0)
    if len(shape) != 3:
        raise ctx.error(f"input X must be 3-D, got shape {shape}")
    layout = ctx.int_attr("layout", 0)
    sequence = ctx.input(0)
    if layout == 1:  # (B, T, I)
        sequence = ctx.call("transpose", sequence, axes=(1, 0, 2))
        shape = (shape[1], shape[0], shape[2])
    direction = ctx.choice_attr("direction", "forward", DIRECTIONS)
    directions = 2 if direction == "bidirectional" else 1
    w_shape = ctx.shape(1)
    hidden = ctx.attr("hidden_size")
    hidden = int(hidden) if hidden is not None else w_shape[1] // gates
    if w_shape != (directions, gates * hidden, shape[2]):
        raise ctx.error(
            f"W has shape {w_shape}; expected {(directions, gates * hidden, shape[2])} "
            f"for {directions} direction(s), hidden_size {hidden} and input size {shape[2]}"
        )
    lengths = ctx.optional_input(4)
    if lengths is not None:
        given = ctx.static_value(4, "sequence_lens")
        if np.any(given != shape[0]):
            raise ctx.unsupported(
                f"sequence_lens {given.tolist()} below the sequence length {shape[0]}; "
                "only full-length sequences are supported"
            )
    return Layer(kind, gates, shape[0], shape[1], hidden, directions, direction, sequence)


def _one_direction(ctx: NodeContext, value: Expr, direction: int) -> Expr:
    """`value` (shaped (directions, ...)) at one direction."""
    part = ctx.call("strided_slice", value, begin=(direction,), end=(direction + 1,), axes=(0,))
    return ctx.call("squeeze", part, axis=(0,))


def _direction_input(ctx: NodeContext, index: int, direction: int) -> Expr | None:
    """Input `index` (shaped (directions, ...)) for one direction, or None when absent."""
    value = ctx.optional_input(index)
    return None if value is None else _one_direction(ctx, value, direction)


def _gate(ctx: NodeContext, value: Expr, index: int, hidden: int) -> Expr:
    """Gate `index` of a (..., gates * H) value: its last axis from index * H."""
    begin, end = index * hidden, (index + 1) * hidden
    return ctx.call("strided_slice", value, begin=(begin,), end=(end,), axes=(-1,))


def _clipped(ctx: NodeContext, value: Expr) -> Expr:
    clip = ctx.attr("clip")
    if clip is None:
        return value
    return ctx.call("clip", value, a_min=-float(clip), a_max=float(clip))


def _initial(ctx: NodeContext, index: int, direction: int, layer: Layer) -> Expr:
    """The initial hidden (5) or cell (6) state of one direction, (1, B, H); zeros if
    absent. (States keep a leading unit axis, as the steps' input projections have.)"""
    value = ctx.optional_input(index)
    if value is None:
        return Constant(np.zeros((1, layer.batch, layer.hidden), dtype=ctx.dtype(0)))
    if ctx.int_attr("layout", 0) == 1:  # (B, directions, H)
        value = ctx.call("transpose", value, axes=(1, 0, 2))
    return ctx.call("strided_slice", value, begin=(direction,), end=(direction + 1,), axes=(0,))


def _projections(ctx: NodeContext, layer: Layer, direction: int) -> list[Expr]:
    """X_t W^T + Wb + Rb of every step t, each (1, B, gates * H): one dense product over
    the whole sequence, split into steps by one kernel."""
    weight = _direction_input(ctx, 1, direction)
    assert weight is not None
    steps, batch, size = layer.steps, layer.batch, ctx.shape(0)[2]
    flat = ctx.call("reshape", layer.sequence, newshape=(steps * batch, size))
    projected = ctx.call("nn.dense", flat, weight)
    bias = _direction_input(ctx, 3, direction)
    width = layer.gates * layer.hidden
    if bias is not None and layer.kind != "GRU":
        both = ctx.call("reshape", bias, newshape=(2, width))
        projected = ctx.call("add", projected, ctx.call("sum", both, axis=(0,)))
    elif bias is not None:  # GRU keeps Rb apart for its reset gate
        projected = ctx.call(
            "add", projected, _gate(ctx, ctx.call("expand_dims", bias, axes=(0,)), 0, width)
        )
    projected = ctx.call("reshape", projected, newshape=(steps, batch, width))
    if steps == 1:
        return [projected]
    parts = ctx.call("split", projected, indices_or_sections=steps, axis=0)
    ty = parts.checked_type
    assert isinstance(ty, TupleType)
    return [TupleGetItem(parts, t, ty=ty.fields[t]) for t in range(steps)]


def _recurrence_bias(ctx: NodeContext, layer: Layer, direction: int) -> Expr | None:
    """GRU's Rb, shaped (1, 3 * hidden)."""
    bias = _direction_input(ctx, 3, direction)
    if bias is None:
        return None
    width = layer.gates * layer.hidden
    row = ctx.call("expand_dims", bias, axes=(0,))
    return ctx.call("strided_slice", row, begin=(width,), end=(2 * width,), axes=(1,))


def _run_direction(
    ctx: NodeContext, layer: Layer, direction: int, reverse: bool, acts: list[Activation]
) -> tuple[list[Expr], Expr, Expr | None]:
    """Hidden state of every step (in sequence order), the last hidden and cell state."""
    recurrence = _direction_input(ctx, 2, direction)
    assert recurrence is not None
    inputs = _projections(ctx, layer, direction)
    hidden = _initial(ctx, 5, direction, layer)
    cell = _initial(ctx, 6, direction, layer) if layer.kind == "LSTM" else None
    peepholes = _direction_input(ctx, 7, direction) if layer.kind == "LSTM" else None
    rb = _recurrence_bias(ctx, layer, direction) if layer.kind == "GRU" else None
    size = layer.hidden
    order = range(layer.steps - 1, -1, -1) if reverse else range(layer.steps)
    states: dict[int, Expr] = {}
    for t in order:
        x = inputs[t]
        if layer.kind == "RNN":
            total = ctx.call("add", x, ctx.call("nn.dense", hidden, recurrence))
            hidden = acts[0](_clipped(ctx, total))
        elif layer.kind == "GRU":
            hidden = _gru_step(ctx, x, hidden, recurrence, rb, size, acts)
        else:
            assert cell is not None
            hidden, cell = _lstm_step(ctx, x, hidden, cell, recurrence, peepholes, size, acts)
        states[t] = hidden
    return [states[t] for t in range(layer.steps)], hidden, cell


def _gru_step(
    ctx: NodeContext,
    x: Expr,
    hidden: Expr,
    recurrence: Expr,
    rb: Expr | None,
    size: int,
    acts: list[Activation],
) -> Expr:
    f, g = acts
    before_reset = bool(ctx.int_attr("linear_before_reset", 0))
    # H R^T for gates z and r, and for h too when it is taken before the reset.
    rows = 3 * size if before_reset else 2 * size
    weight = ctx.call("strided_slice", recurrence, begin=(0,), end=(rows,), axes=(0,))
    recurrent = ctx.call("nn.dense", hidden, weight)
    if rb is not None:
        bias = ctx.call("strided_slice", rb, begin=(0,), end=(rows,), axes=(-1,))
        recurrent = ctx.call("add", recurrent, bias)
    z = f(_clipped(ctx, ctx.call("add", _gate(ctx, x, 0, size), _gate(ctx, recurrent, 0, size))))
    r = f(_clipped(ctx, ctx.call("add", _gate(ctx, x, 1, size), _gate(ctx, recurrent, 1, size))))
    if before_reset:
        reset = ctx.call("multiply", r, _gate(ctx, recurrent, 2, size))
    else:
        h_weight = ctx.call(
            "strided_slice", recurrence, begin=(2 * size,), end=(3 * size,), axes=(0,)
        )
        reset = ctx.call("nn.dense", ctx.call("multiply", r, hidden), h_weight)
        if rb is not None:
            reset = ctx.call("add", reset, _gate(ctx, rb, 2, size))
    candidate = g(_clipped(ctx, ctx.call("add", _gate(ctx, x, 2, size), reset)))
    # (1 - z) * candidate + z * hidden = candidate + z * (hidden - candidate)
    return ctx.call(
        "add", candidate, ctx.call("multiply", z, ctx.call("subtract", hidden, candidate))
    )


def _lstm_step(
    ctx: NodeContext,
    x: Expr,
    hidden: Expr,
    cell: Expr,
    recurrence: Expr,
    peepholes: Expr | None,
    size: int,
    acts: list[Activation],
) -> tuple[Expr, Expr]:
    f, g, h = acts
    total = ctx.call("add", x, ctx.call("nn.dense", hidden, recurrence))  # gates i, o, f, c

    def peephole(index: int, state: Expr) -> Expr | None:
        if peepholes is None:
            return None
        return ctx.call("multiply", state, _gate(ctx, peepholes, index, size))

    def gate(index: int, peep: Expr | None) -> Expr:
        value = _gate(ctx, total, index, size)
        return _clipped(ctx, value if peep is None else ctx.call("add", value, peep))

    i = f(gate(0, peephole(0, cell)))
    forget = f(gate(2, peephole(2, cell)))
    candidate = g(gate(3, None))
    cell = ctx.call("add", ctx.call("multiply", forget, cell), ctx.call("multiply", i, candidate))
    o = f(gate(1, peephole(1, cell)))
    return ctx.call("multiply", o, h(cell)), cell


def recurrent(kind: str, gates: int, defaults: tuple[str, ...]) -> Converter:
    """A converter for RNN, GRU or LSTM: outputs Y, Y_h (and Y_c for LSTM)."""

    def convert(ctx: NodeContext) -> ConverterResult:
        if kind == "LSTM" and ctx.int_attr("input_forget", 0):
            raise ctx.unsupported_attr("input_forget", 1, ("0",))
        layer = _layer(ctx, kind, gates)
        acts = _activations(ctx, defaults, layer.directions)
        per_direction = []
        for direction in range(layer.directions):
            reverse = layer.direction == "reverse" or direction == 1
            chosen = acts[direction * len(defaults) : (direction + 1) * len(defaults)]
            per_direction.append(_run_direction(ctx, layer, direction, reverse, chosen))
        # Y: (T, directions, B, H); Y_h and Y_c: (directions, B, H). States are (1, B, H).
        steps = [
            ctx.call(
                "concatenate",
                *[ctx.call("expand_dims", states[t], axes=(1,)) for states, _, _ in per_direction],
                axis=1,
            )
            for t in range(layer.steps)
        ]
        y = ctx.call("concatenate", *steps, axis=0) if len(steps) > 1 else steps[0]
        outputs = [y, ctx.call("concatenate", *[h for _, h, _ in per_direction], axis=0)]
        if kind == "LSTM":
            cells = [c for _, _, c in per_direction if c is not None]
            outputs.append(ctx.call("concatenate", *cells, axis=0))
        if ctx.int_attr("layout", 0) == 1:
            outputs = [ctx.call("transpose", outputs[0], axes=(2, 0, 1, 3))] + [
                ctx.call("transpose", value, axes=(1, 0, 2)) for value in outputs[1:]
            ]
        return outputs

    convert.__doc__ = f"{kind} -> unrolled dense products and gates"
    return convert


CONVERTERS: dict[str, Converter] = {
    "GRU": recurrent("GRU", 3, ("Sigmoid", "Tanh")),
    "LSTM": recurrent("LSTM", 4, ("Sigmoid", "Tanh", "Tanh")),
    "RNN": recurrent("RNN", 1, ("Tanh",)),
}
