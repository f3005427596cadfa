"""Single-node ONNX models of elementwise ops, imported and run against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    op_case,
    positive,
    randn,
    small_ints,
)

BOOL = {"y": np.bool_}

UNARY = [
    op_case(op.lower(), op, ["x"], {"x": data})
    for op, data in [
        ("Relu", randn(2, 3, 4)),
        ("Sigmoid", randn(2, 3, 4)),
        ("Tanh", randn(2, 3, 4)),
        ("Erf", randn(2, 3, 4)),
        ("Exp", randn(2, 3, 4)),
        ("Log", positive(2, 3, 4)),
        ("Sqrt", positive(2, 3, 4)),
        ("Reciprocal", positive(2, 3, 4)),
        ("Neg", randn(2, 3, 4)),
        ("Abs", randn(2, 3, 4)),
        ("Floor", randn(2, 3, 4) * 3),
        ("Ceil", randn(2, 3, 4) * 3),
        ("Identity", randn(2, 3)),
    ]
]

ACTIVATIONS = [
    op_case("leaky_relu", "LeakyRelu", ["x"], {"x": randn(2, 5)}, alpha=0.2),
    op_case("leaky_relu_default", "LeakyRelu", ["x"], {"x": randn(2, 5)}),
    op_case("hard_sigmoid", "HardSigmoid", ["x"], {"x": randn(2, 5) * 4}, alpha=0.3, beta=0.4),
    op_case("hard_swish", "HardSwish", ["x"], {"x": randn(2, 5) * 4}, opset=14),
    op_case("gelu_20", "Gelu", ["x"], {"x": randn(2, 5)}, opset=20),
    op_case("gelu_tanh_20", "Gelu", ["x"], {"x": randn(2, 5)}, opset=20, approximate="tanh"),
    op_case(
        "prelu_channel",
        "PRelu",
        ["x", "slope"],
        {"x": randn(2, 3, 4, 4)},
        consts={"slope": randn(3, 1, 1)},
    ),
    op_case("prelu_runtime_slope", "PRelu", ["x", "s"], {"x": randn(2, 4), "s": randn(4)}),
    op_case("not", "Not", ["x"], {"x": randn(3, 4) > 0}, outputs=BOOL),
    op_case("elu", "Elu", ["x"], {"x": randn(2, 5) * 3}, alpha=0.5),
    op_case("elu_default", "Elu", ["x"], {"x": randn(2, 5) * 3}),
    op_case("selu", "Selu", ["x"], {"x": randn(2, 5) * 3}),
    op_case("selu_attrs", "Selu", ["x"], {"x": randn(2, 5) * 3}, alpha=1.5, gamma=1.1),
    op_case("celu", "Celu", ["x"], {"x": randn(2, 5) * 3}, opset=12, alpha=2.0),
    op_case("softplus", "Softplus", ["x"], {"x": randn(2, 5) * 30}),
    op_case("softsign", "Softsign", ["x"], {"x": randn(2, 5) * 3}),
    op_case("mish", "Mish", ["x"], {"x": randn(2, 5) * 5}, opset=18),
    op_case("thresholded_relu", "ThresholdedRelu", ["x"], {"x": randn(2, 5) * 3}, alpha=0.4),
    op_case("sign", "Sign", ["x"], {"x": small_ints(3, 4)}),
    op_case("sin", "Sin", ["x"], {"x": randn(3, 4) * 4}),
    op_case("cos", "Cos", ["x"], {"x": randn(3, 4) * 4}),
    op_case("tan", "Tan", ["x"], {"x": randn(3, 4)}),
    op_case("asin", "Asin", ["x"], {"x": np.tanh(randn(3, 4))}),
    op_case("acos", "Acos", ["x"], {"x": np.tanh(randn(3, 4))}),
    op_case("atan", "Atan", ["x"], {"x": randn(3, 4) * 4}),
    op_case("sinh", "Sinh", ["x"], {"x": randn(3, 4) * 3}),
    op_case("cosh", "Cosh", ["x"], {"x": randn(3, 4) * 3}),
    op_case("asinh", "Asinh", ["x"], {"x": randn(3, 4) * 4}),
    op_case("acosh", "Acosh", ["x"], {"x": 1 + positive(3, 4) * 3}),
    op_case("atanh", "Atanh", ["x"], {"x": np.tanh(randn(3, 4))}),
]

MOD_INTS = {"a": np.array([7, -7, 7, -7, 9], np.int64), "b": np.array([3, 3, -3, -3, 4], np.int64)}
MOD_FLOATS = {"a": randn(3, 4) * 5, "b": np.array([1.5, -2.0, 0.7, -0.3], np.float32)}

LOGICAL_AND_MOD = [
    op_case("mod_int", "Mod", ["a", "b"], MOD_INTS, outputs={"y": np.int64}),
    op_case("mod_int_fmod", "Mod", ["a", "b"], MOD_INTS, outputs={"y": np.int64}, fmod=1),
    op_case("mod_float_fmod", "Mod", ["a", "b"], MOD_FLOATS, fmod=1),
    *[
        op_case(op.lower(), op, ["a", "b"], {"a": randn(3, 4) > 0, "b": randn(4) > 0}, outputs=BOOL)
        for op in ("And", "Or", "Xor")
    ],
    *[
        op_case(
            op.lower(),
            op,
            ["a", "b"],
            {"a": small_ints(3, 4).astype(np.int32), "b": small_ints(4).astype(np.int32)},
            opset=18,
            outputs={"y": np.int32},
        )
        for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor")
    ],
    op_case(
        "bitwise_not",
        "BitwiseNot",
        ["a"],
        {"a": np.array([0, 1, 200, 255], np.uint8)},
        opset=18,
        outputs={"y": np.uint8},
    ),
    *[
        op_case(
            f"bit_shift_{direction.lower()}",
            "BitShift",
            ["a", "b"],
            {
                "a": np.array([16, 4, 1, 2**31 + 5], np.uint32),
                "b": np.array([1, 2, 31, 3], np.uint32),
            },
            opset=11,
            outputs={"y": np.uint32},
            direction=direction,
        )
        for direction in ("LEFT", "RIGHT")
    ],
]

BINARY = (
    [
        op_case(f"{op.lower()}_broadcast", op, ["a", "b"], {"a": randn(2, 3, 4), "b": randn(3, 4)})
        for op in ("Add", "Sub", "Mul", "Div")
    ]
    + [
        op_case("add_scalar_const", "Add", ["a", "b"], {"a": randn(2, 3)}, consts={"b": randn()}),
        op_case(
            "div_int_truncates",
            "Div",
            ["a", "b"],
            {"a": np.array([7, -7, 9, -9], np.int64), "b": np.array([2, 2, -4, -4], np.int64)},
            outputs={"y": np.int64},
        ),
        op_case("pow", "Pow", ["a", "b"], {"a": positive(2, 3), "b": randn(2, 3)}),
        op_case(
            "pow_int_exponent",
            "Pow",
            ["a", "b"],
            {"a": randn(2, 3)},
            consts={"b": np.array(3, np.int64)},
        ),
        op_case(
            "pow_int_base",
            "Pow",
            ["a", "b"],
            {"a": np.array([2, -3, 5, 0, 1], np.int64), "b": np.array([3, 3, 2, 4, 9], np.int64)},
            opset=15,
            outputs={"y": np.int64},
        ),
        op_case(
            "pow_int_base_float_exponent",
            "Pow",
            ["a", "b"],
            {"a": np.array([2, 3, 4], np.int32), "b": np.array([2.0, 3.0, 0.5], np.float32)},
            opset=15,
            outputs={"y": np.int32},
        ),
    ]
    + [
        op_case(
            f"{op.lower()}",
            op,
            ["a", "b"],
            {"a": small_ints(3, 4), "b": small_ints(4)},
            outputs=BOOL,
            opset=opset,
        )
        for op, opset in [
            ("Equal", 13),
            ("Less", 13),
            ("Greater", 13),
            ("LessOrEqual", 16),
            ("GreaterOrEqual", 16),
        ]
    ]
    + [  # every comparison with a NaN operand is false (Equal included), as onnxruntime has it
        op_case(
            f"{op.lower()}_nan",
            op,
            ["a", "b"],
            {
                "a": np.array([np.nan, 1.0, 2.0, np.nan, -1.0], np.float32),
                "b": np.array([1.0, np.nan, 2.0, np.nan, 3.0], np.float32),
            },
            outputs=BOOL,
            opset=16,
        )
        for op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual")
    ]
)

VARIADIC = [
    op_case("max3", "Max", ["a", "b", "c"], {"a": randn(2, 3), "b": randn(3), "c": randn(2, 1)}),
    op_case("min3", "Min", ["a", "b", "c"], {"a": randn(2, 3), "b": randn(3), "c": randn(2, 1)}),
    op_case("max1", "Max", ["a"], {"a": randn(2, 3)}),
    op_case("sum3", "Sum", ["a", "b", "c"], {"a": randn(2, 3), "b": randn(3), "c": randn(2, 3)}),
    op_case("sum1", "Sum", ["a"], {"a": randn(2, 3)}),
    op_case("mean3", "Mean", ["a", "b", "c"], {"a": randn(2, 3), "b": randn(3), "c": randn(2, 3)}),
]

CLIP = [
    op_case("clip_attrs_10", "Clip", ["x"], {"x": randn(3, 4)}, opset=10, min=-0.5, max=0.3),
    op_case("clip_attr_max_10", "Clip", ["x"], {"x": randn(3, 4)}, opset=10, max=0.3),
    op_case(
        "clip_inputs_13",
        "Clip",
        ["x", "lo", "hi"],
        {"x": randn(3, 4)},
        consts={"lo": np.array(-0.5, np.float32), "hi": np.array(0.3, np.float32)},
    ),
    op_case(
        "clip_max_only_13",
        "Clip",
        ["x", "", "hi"],
        {"x": randn(3, 4)},
        consts={"hi": np.array(0.1, np.float32)},
    ),
    op_case("clip_no_bounds_13", "Clip", ["x"], {"x": randn(3, 4)}),
    op_case(
        "clip_runtime_bound_13",
        "Clip",
        ["x", "lo"],
        {"x": randn(3, 4), "lo": np.array(0.2, np.float32)},
    ),
]

CAST_WHERE = [
    op_case("cast_to_int32", "Cast", ["x"], {"x": randn(3, 4) * 5}, to=6, outputs={"y": np.int32}),
    op_case(
        "cast_int64_to_float",
        "Cast",
        ["x"],
        {"x": np.arange(6, dtype=np.int64)},
        to=1,
    ),
    op_case("cast_to_bool", "Cast", ["x"], {"x": small_ints(3, 4)}, to=9, outputs=BOOL),
    op_case(
        "bitcast_float_to_int",
        "BitCast",
        ["x"],
        {"x": randn(3, 4)},
        to=6,
        opset=26,
        outputs={"y": np.int32},
    ),
    op_case(
        "where",
        "Where",
        ["c", "a", "b"],
        {"c": randn(3, 4) > 0, "a": randn(3, 4), "b": randn(4)},
    ),
]


@pytest.mark.parametrize(
    "case", UNARY + ACTIVATIONS + LOGICAL_AND_MOD + BINARY + VARIADIC + CLIP + CAST_WHERE
)
def test_elementwise_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds)
