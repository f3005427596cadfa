"""The text printer and the canonical JSON form."""

from __future__ import annotations

import json

import numpy as np

from ir.graph.canonical import canonical_json
from ir.graph.nodes import Function, Var, call, const
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.printer import print_expr
from ir.graph.types import TensorType


def _conv_relu(name: str = "data") -> Function:
    data = Var(name, TensorType((1, 3, 8, 8)))
    weight = const(np.full((4, 3, 3, 3), 0.5, np.float32))
    conv = call("nn.conv2d", data, weight, strides=(2, 2), padding=(1, 1, 1, 1))
    return infer_type(Function((data,), call("nn.relu", call("add", conv, const(np.float32(1))))))


def test_printer_uses_relay_style_lines() -> None:
    text = print_expr(_conv_relu(), show_types=False)
    assert text.splitlines() == [
        "fn (%data: Tensor[(1, 3, 8, 8), float32]) -> Tensor[(1, 4, 4, 4), float32] {",
        "  %0 = nn.conv2d(%data, meta[Constant][0], dilation=[1, 1], groups=1, "
        "padding=[1, 1, 1, 1], strides=[2, 2]);",
        "  %1 = add(%0, 1.0f);",
        "  %2 = nn.relu(%1);",
        "  %2",
        "}",
    ]


def test_printer_shows_types_and_fused_functions() -> None:
    fused = fuse_ops(_conv_relu())
    text = print_expr(fused)
    assert "def @fused_nn_conv2d_add_nn_relu(%p0: Tensor[(1, 3, 8, 8), float32]" in text
    assert "def @main(%data" in text
    assert "%0 = @fused_nn_conv2d_add_nn_relu(%data, meta[Constant][0])" in text
    assert "/* ty=Tensor[(1, 4, 4, 4), float32] */" in text


def test_canonical_json_is_stable_and_structural() -> None:
    first = canonical_json(_conv_relu())
    assert first == canonical_json(_conv_relu())
    assert json.loads(first)["format"] == "autotune.graph/1"
    # Parameter names matter unless positional names are asked for.
    assert first != canonical_json(_conv_relu("image"))
    assert canonical_json(_conv_relu(), positional_params=True) == canonical_json(
        _conv_relu("image"), positional_params=True
    )


def test_canonical_json_distinguishes_constant_contents() -> None:
    fn = _conv_relu()
    data = fn.params[0]
    other_weight = const(np.full((4, 3, 3, 3), 0.25, np.float32))
    other = infer_type(
        Function(
            (data,), call("nn.conv2d", data, other_weight, strides=(2, 2), padding=(1, 1, 1, 1))
        )
    )
    same_shape = infer_type(
        Function(
            (data,),
            call(
                "nn.conv2d",
                data,
                const(np.full((4, 3, 3, 3), 0.5, np.float32)),
                strides=(2, 2),
                padding=(1, 1, 1, 1),
            ),
        )
    )
    assert canonical_json(other) != canonical_json(same_shape)


def test_canonical_json_handles_infinite_attributes() -> None:
    x = Var("x", TensorType((3,)))
    fn = infer_type(Function((x,), call("clip", x, a_min=0.0)))
    assert '"a_max":"inf"' in canonical_json(fn)
