"""Every op's TE compute, evaluated by the TE interpreter, equals the op's numpy reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ir.graph.nodes import Call, Expr, Function, Var, call, const
from ir.graph.ops import OP_TABLE, get_op
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType, TupleType, Type
from ir.reference import check_close, evaluate
from ir.te.evaluate import evaluate_te
from ir.te.program import TEProgram, function_to_te
from ir.te.tensor import ComputeOp, TEError, Tensor, placeholder

INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
RNG = np.random.default_rng(42)


def randn(*shape: int, dtype: str = "float32", scale: float = 1.0) -> np.ndarray:
    return np.asarray(RNG.standard_normal(shape) * scale).astype(dtype)


def positive(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.uniform(0.5, 2.0, shape).astype(dtype)


def ints(*shape: int, dtype: str = "int32", low: int = -9, high: int = 10) -> np.ndarray:
    return RNG.integers(low, high, shape).astype(dtype)


def nonzero_ints(*shape: int, dtype: str = "int32") -> np.ndarray:
    values = ints(*shape, dtype=dtype, low=1, high=6)
    return values * np.where(RNG.random(shape) < 0.5, -1, 1).astype(dtype)


Case = tuple[str, list[np.ndarray], dict[str, object]]

# --- the cases: every op, with representative shapes, attributes and dtypes ----------------

UNARY_FLOAT_OPS = ["nn.relu", "sigmoid", "tanh", "erf", "exp", "negative", "abs", "floor", "ceil"]
UNARY_POSITIVE_OPS = ["log", "sqrt", "rsqrt", "reciprocal"]

CASES: list[Case] = [
    *[(op, [randn(3, 4, scale=2.0)], {}) for op in [*UNARY_FLOAT_OPS, "copy"]],
    *[(op, [positive(3, 4)], {}) for op in UNARY_POSITIVE_OPS],
    ("nn.leaky_relu", [randn(3, 4)], {"alpha": 0.2}),
    ("nn.leaky_relu", [ints(3, 4)], {"alpha": 0.5}),
    ("clip", [randn(3, 4, scale=4.0)], {"a_min": 0.0, "a_max": 6.0}),
    ("clip", [ints(3, 4)], {"a_min": -2.5, "a_max": 3.5}),
    ("clip", [randn(3, 4)], {}),
    ("nn.gelu", [randn(3, 4, scale=2.0)], {}),
    ("nn.gelu", [randn(3, 4, scale=2.0)], {"approximate": "tanh"}),
    ("sigmoid", [randn(2, 5, dtype="float16")], {}),
    ("erf", [randn(2, 5, dtype="float64")], {}),
    ("exp", [ints(2, 3, low=0, high=4)], {}),
    ("nn.relu", [ints(3, 4)], {}),
    ("negative", [ints(3, 4, dtype="int8")], {}),
    ("abs", [ints(3, 4)], {}),
    ("cast", [randn(3, 4, scale=5.0)], {"dtype": "int32"}),
    ("cast", [ints(3, 4)], {"dtype": "float16"}),
    ("cast", [randn(3, 4)], {"dtype": "bool"}),
    ("reinterpret", [randn(3, 4)], {"dtype": "int32"}),
    ("reinterpret", [ints(3, 4, dtype="uint8", low=0, high=256)], {"dtype": "int8"}),
    ("reinterpret", [ints(3, 4, dtype="int16", low=0, high=30000)], {"dtype": "float16"}),
    ("reinterpret", [ints(3, 4, dtype="int64")], {"dtype": "float64"}),
    # 4- and 2-bit integers (ml_dtypes'): casts to them wrap integers and give 0 for floats
    # out of their range; casts from them sign- or zero-extend
    *[
        ("cast", [source], {"dtype": narrow})
        for narrow in ("int4", "uint4", "int2", "uint2")
        for source in (randn(4, 33, scale=9.0), ints(4, 33, low=-40, high=40))
    ],
    *[
        ("cast", [ints(4, 33, low=-20, high=20).astype(narrow)], {"dtype": wide})
        for narrow in ("int4", "uint4", "int2", "uint2")
        for wide in ("float32", "int8", "int64")
    ],
    ("add", [randn(3, 1, 4), randn(5, 1)], {}),
    ("subtract", [randn(4), randn(3, 4)], {}),
    ("multiply", [randn(2, 3), randn(2, 3)], {}),
    ("multiply", [ints(2, 3, dtype="int8"), ints(1, 3, dtype="int8", high=100)], {}),
    ("divide", [randn(3, 1), positive(1, 4)], {}),
    ("divide", [ints(4, 6, low=-20, high=20), nonzero_ints(6)], {}),
    ("power", [positive(3, 4), randn(4)], {}),
    ("maximum", [randn(3, 4), randn(3, 1)], {}),
    ("minimum", [randn(3, 4), randn()], {}),
    ("equal", [ints(3, 4, low=0, high=3), ints(4, low=0, high=3)], {}),
    ("less", [randn(3, 4), randn(3, 4)], {}),
    ("greater", [ints(2, 1, 3), ints(4, 1)], {}),
    (
        "less_equal",
        [np.array([np.nan, 1, 2, 3], np.float32), np.array([1, np.nan, 2, 1], np.float32)],
        {},
    ),
    ("greater_equal", [ints(2, 1, 3), ints(4, 1)], {}),
    ("greater_equal", [np.array([np.nan, 1, 2, 3], np.float32), np.float32([1, np.nan, 2, 1])], {}),
    ("add_n", [randn(3, 4), randn(4), randn(3, 1)], {}),
    ("add_n", [randn(2, 2)], {}),
    ("where", [randn(3, 4) > 0, randn(4), randn(3, 1)], {}),
    *[
        (op, [randn(3, 4, scale=3.0)], {})
        for op in ["nn.softplus", "nn.softsign", "nn.mish", "sign", "sin", "cos", "tan", "atan"]
    ],
    *[(op, [np.tanh(randn(3, 4))], {}) for op in ["asin", "acos", "atanh"]],
    *[(op, [randn(3, 4, scale=3.0)], {}) for op in ["sinh", "cosh", "asinh"]],
    ("acosh", [1.0 + np.abs(randn(3, 4, scale=3.0))], {}),
    ("nn.softplus", [np.array([-100.0, -20.0, 0.0, 20.0, 100.0], np.float32)], {}),
    ("nn.elu", [randn(3, 4, scale=2.0)], {"alpha": 0.7}),
    ("nn.selu", [randn(3, 4, scale=2.0)], {}),
    ("nn.celu", [randn(3, 4, scale=2.0)], {"alpha": 1.5}),
    ("nn.thresholded_relu", [randn(3, 4, scale=2.0)], {"alpha": 0.5}),
    ("sign", [ints(3, 4)], {}),
    ("floor_mod", [ints(4, 6, low=-20, high=20), nonzero_ints(6)], {}),
    ("floor_mod", [randn(3, 4, scale=5.0), np.array([1.5, -2.0, 0.7, -0.3], np.float32)], {}),
    ("trunc_mod", [ints(4, 6, low=-20, high=20), nonzero_ints(6)], {}),
    (
        "floor_mod",  # infinite divisors: a finite lhs stays or becomes the divisor
        [
            np.array([0.0, -0.0, -3.0, 3.0, -1.0, 1.0, np.inf, 2.5], np.float32),
            np.array([-2.0, 2.0, np.inf, np.inf, -np.inf, -np.inf, 2.0, -np.inf], np.float32),
        ],
        {},
    ),
    ("trunc_mod", [np.array([2**60 + 1, -(2**60) - 1], np.int64), np.array([3, 3], np.int64)], {}),
    ("trunc_mod", [randn(3, 4, scale=5.0), np.array([1.5, -2.0, 0.7, -0.3], np.float32)], {}),
    ("logical_and", [randn(3, 4) > 0, randn(4) > 0], {}),
    ("bitwise_and", [ints(3, 4, low=-200, high=200), ints(4, low=-200, high=200)], {}),
    (
        "bitwise_or",
        [ints(3, 4, dtype="uint8", low=0, high=255), ints(3, 1, dtype="uint8", low=0, high=255)],
        {},
    ),
    ("bitwise_xor", [ints(3, 4, dtype="int64"), ints(4, dtype="int64")], {}),
    ("bitwise_not", [ints(3, 4, dtype="uint16", low=0, high=60000)], {}),
    *[
        (
            op,
            [np.array([-8, 4, -1, 5, 7, -3], np.int32), np.array([1, 33, 31, -1, 0, 2], np.int32)],
            {},
        )
        for op in ("left_shift", "right_shift")
    ],
    ("right_shift", [np.array([250, 7, 128], np.uint8), np.array([1, 8, 7], np.uint8)], {}),
    ("logical_or", [randn(3, 4) > 0, randn(3, 1) > 0], {}),
    ("logical_xor", [randn(3, 4) > 0, randn(3, 4) > 0], {}),
    ("cumsum", [randn(3, 5, 4)], {"axis": 1}),
    ("cumsum", [randn(3, 5, dtype="float16")], {"axis": 1, "exclusive": True}),
    ("cumsum", [ints(4, 6)], {"axis": 0, "reverse": True}),
    ("cumsum", [randn(2, 7)], {"axis": 1, "exclusive": True, "reverse": True}),
    ("cumprod", [randn(3, 5, 4)], {"axis": 1}),
    ("cumprod", [ints(4, 6, low=-3, high=4)], {"axis": 0, "exclusive": True}),
    ("cumprod", [randn(2, 7, dtype="float16")], {"axis": 1, "exclusive": True, "reverse": True}),
]

CONV_CASES = [
    # data shape, weight shape, strides, padding (top, left, bottom, right), dilation, groups
    ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 4, 9, 7), (6, 4, 3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 1),
    ((1, 3, 12, 11), (5, 3, 3, 3), (1, 2), (2, 3, 2, 3), (2, 3), 1),
    ((1, 6, 10, 10), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 2),
    ((2, 8, 9, 9), (8, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 8),  # depthwise
    ((1, 4, 7, 7), (8, 1, 3, 3), (1, 1), (1, 2, 0, 1), (2, 2), 4),  # depthwise, multiplier 2
    ((1, 16, 8, 8), (12, 16, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
]
CASES += [
    (
        "nn.conv2d",
        [randn(*data), randn(*weight, scale=0.3)],
        {"strides": strides, "padding": pads, "dilation": dilation, "groups": groups},
    )
    for data, weight, strides, pads, dilation, groups in CONV_CASES
]
CASES += [
    ("nn.conv2d", [randn(1, 2, 5, 5, dtype="float64"), randn(3, 2, 3, 3, dtype="float64")], {}),
    (
        "nn.conv2d",
        [randn(1, 2, 5, 5, dtype="float16"), randn(2, 1, 3, 3, dtype="float16")],
        {"groups": 2},
    ),
    ("nn.conv2d", [ints(1, 2, 4, 4), ints(2, 2, 2, 2)], {"padding": (1, 1)}),
    ("nn.dense", [randn(8, 16), randn(10, 16)], {}),
    ("nn.dense", [randn(2, 3, 16), randn(10, 16)], {}),
    ("nn.dense", [ints(3, 4), ints(5, 4)], {}),
    ("nn.matmul", [randn(3, 4), randn(4, 5)], {}),
    ("nn.matmul", [randn(4), randn(4, 5)], {}),
    ("nn.matmul", [randn(2, 3, 4), randn(4)], {}),
    ("nn.matmul", [randn(2, 1, 3, 4), randn(5, 4, 6)], {}),
    ("nn.matmul", [randn(4), randn(4)], {}),
    ("nn.batch_matmul", [randn(3, 4, 5), randn(3, 5, 6)], {}),
    ("nn.batch_matmul", [randn(1, 4, 5), randn(3, 6, 5)], {"transpose_b": True}),
    ("nn.batch_matmul", [randn(3, 5, 4), randn(1, 5, 6)], {"transpose_a": True}),
    (
        "nn.batch_matmul",
        [randn(2, 5, 4), randn(2, 6, 5)],
        {"transpose_a": True, "transpose_b": True},
    ),
    (
        "nn.batch_norm",
        [randn(2, 4, 5, 5), randn(4), randn(4), randn(4), positive(4)],
        {"epsilon": 1e-3},
    ),
    ("nn.batch_norm", [randn(3, 5), randn(5), randn(5), randn(5), positive(5)], {"axis": -1}),
    ("nn.dropout", [randn(3, 4)], {"rate": 0.3}),
    *[
        (op, [randn(3, 5, 7, scale=20.0)], {"axis": axis})
        for op in ("nn.softmax", "nn.log_softmax")
        for axis in (-1, 0, 1)
    ],
    ("nn.softmax", [randn(2, 5, dtype="float16")], {}),
    ("nn.log_softmax", [randn(6)], {"axis": 0}),
    *[
        ("nn.lrn", [randn(2, 7, 4, 5)], {"size": size, "alpha": alpha, "beta": beta, "bias": bias})
        for size, alpha, beta, bias in [
            (1, 0.5, 0.75, 1.0),
            (3, 1e-4, 0.75, 1.0),
            (4, 0.1, 0.5, 2.0),
            (9, 0.02, 1.0, 0.5),
        ]
    ],
    ("nn.lrn", [randn(3, 6)], {"size": 3, "axis": -1}),
    *[
        ("nn.layer_norm", [randn(2, 3, 4, 5, scale=3.0), randn(*tail), randn(*tail)], {"axis": ax})
        for ax, tail in [(-1, (5,)), (1, (3, 4, 5)), (2, (4, 5))]
    ],
    ("nn.layer_norm", [randn(2, 3, 4), randn(4), randn(1, 4)], {"axis": 1}),
    (
        "nn.layer_norm",
        [randn(2, 5, dtype="float64"), randn(5, dtype="float64"), randn(5, dtype="float64")],
        {},
    ),
    (
        "nn.layer_norm",
        [randn(2, 5, dtype="float16"), randn(5, dtype="float16"), randn(5, dtype="float16")],
        {},
    ),
]

POOL_CASES = [
    # data shape, kernel, strides, pads, dilation, ceil_mode
    ((1, 2, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False),
    ((2, 3, 7, 9), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    ((1, 2, 6, 6), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),  # last window reads past pads
    ((1, 2, 5, 7), (2, 3), (2, 2), (1, 0, 1, 1), (1, 1), True),  # the ceil drop rule fires
    ((1, 2, 9, 8), (3, 2), (2, 3), (0, 1, 2, 0), (1, 1), True),
    ((1, 2, 9, 9), (2, 2), (2, 2), (1, 1, 1, 1), (2, 2), True),
    ((1, 1, 10, 10), (3, 3), (3, 3), (2, 1, 2, 2), (2, 1), True),
]
for shape, kernel, strides, pads, dilation, ceil_mode in POOL_CASES:
    pool_attrs: dict[str, object] = {
        "pool_size": kernel,
        "strides": strides,
        "padding": pads,
        "dilation": dilation,
        "ceil_mode": ceil_mode,
    }
    CASES.append(("nn.max_pool2d", [randn(*shape)], pool_attrs))
    for include in (False, True):
        CASES.append(
            ("nn.avg_pool2d", [randn(*shape)], {**pool_attrs, "count_include_pad": include})
        )
# Blocked channels (NCHW[b]c data, OIHW[bi]i[bo]o weights), as BlockChannels makes them.
CASES += [
    (
        "nn.conv2d_nchwc",
        [randn(1, 2, 6, 6, 4), randn(3, 2, 3, 3, 4, 8, scale=0.3)],
        {"padding": (1, 1, 1, 1)},
    ),
    (
        "nn.conv2d_nchwc",
        [randn(2, 3, 7, 7), randn(2, 1, 3, 3, 3, 4, scale=0.3)],
        {"strides": (2, 2), "padding": (1, 0, 1, 1)},
    ),
    (
        "nn.conv2d_nchwc",
        [randn(1, 1, 7, 6, 8), randn(1, 1, 3, 2, 8, 8, scale=0.3)],
        {"dilation": (2, 1), "strides": (1, 2)},
    ),
    (  # two groups of 8 input channels (2 blocks of 4) and 8 output channels (2 blocks)
        "nn.conv2d_nchwc",
        [randn(1, 4, 6, 6, 4), randn(4, 2, 3, 3, 4, 4, scale=0.3)],
        {"padding": (1, 1, 1, 1), "groups": 2},
    ),
    (  # NCHW data, three groups of 4 input and 8 output channels
        "nn.conv2d_nchwc",
        [randn(1, 12, 5, 5), randn(3, 1, 3, 3, 4, 8, scale=0.3)],
        {"strides": (2, 2), "groups": 3},
    ),
    (
        "nn.depthwise_conv2d_nchwc",
        [randn(1, 2, 6, 7, 8), randn(2, 3, 3, 8, scale=0.3)],
        {"padding": (1, 1, 1, 1)},
    ),
    (
        "nn.depthwise_conv2d_nchwc",
        [randn(2, 1, 9, 8, 16), randn(1, 5, 3, 16, scale=0.3)],
        {"strides": (2, 1), "padding": (2, 1, 2, 0), "dilation": (1, 2)},
    ),
    (
        "nn.max_pool2d",
        [randn(1, 2, 7, 7, 4)],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1), "layout": "NCHWc"},
    ),
    (
        "nn.avg_pool2d",
        [randn(2, 1, 6, 5, 8)],
        {"pool_size": (2, 3), "padding": (0, 1, 0, 1), "ceil_mode": True, "layout": "NCHWc"},
    ),
    ("nn.global_avg_pool2d", [randn(2, 3, 5, 4, 8)], {"layout": "NCHWc"}),
    ("nn.global_max_pool2d", [randn(1, 2, 3, 6, 4)], {"layout": "NCHWc"}),
]
# 8-bit convolutions (int32 sums; data padded with its zero point), as RealizeQuantized
# and BlockChannels make them: NCHW, and NCHW[b]c with OIHW[bi/4]i[bo*4] weights.
CASES += [
    (
        "qnn.conv2d",
        [ints(1, 8, 6, 7, dtype="uint8", low=0, high=256), ints(5, 8, 3, 3, dtype="int8")],
        {"padding": (1, 1, 1, 0), "pad_value": 131},
    ),
    (
        "qnn.conv2d",
        [ints(2, 4, 5, 5, dtype="int8", low=-128, high=128), ints(6, 2, 3, 1, dtype="uint8")],
        {"groups": 2, "strides": (2, 1), "pad_value": -3, "padding": (1, 0, 1, 0)},
    ),
    (
        "qnn.conv2d_nchwc",
        [
            ints(1, 2, 6, 6, 8, dtype="uint8", low=0, high=256),
            ints(3, 2, 3, 3, 2, 16 * 4, dtype="int8", low=-127, high=128),
        ],
        {"padding": (1, 1, 1, 1), "pad_value": 7},
    ),
    (
        "qnn.conv2d_nchwc",
        [
            ints(2, 12, 7, 5, dtype="uint8", low=0, high=256),
            ints(2, 3, 1, 2, 1, 8 * 4, dtype="int8", low=-127, high=128),
        ],
        {"strides": (2, 1), "dilation": (1, 2), "padding": (0, 1, 0, 1), "pad_value": 255},
    ),
    (  # the pair form: int16 pair sums (7-bit weights)
        "qnn.conv2d_nchwc",
        [
            ints(1, 2, 5, 5, 8, dtype="uint8", low=0, high=256),
            ints(2, 2, 3, 3, 2, 8 * 4, dtype="int8", low=-64, high=65),
        ],
        {"padding": (1, 1, 1, 1), "pad_value": 9, "dot_form": "pair"},
    ),
    (  # the word form: int16 weights, on uint8 data and on data widened to int16
        "qnn.conv2d_nchwc",
        [
            ints(1, 2, 5, 5, 8, dtype="uint8", low=0, high=256),
            ints(2, 2, 3, 3, 2, 8 * 4, dtype="int16", low=-128, high=128),
        ],
        {"padding": (1, 1, 1, 1), "pad_value": 200, "dot_form": "word"},
    ),
    (
        "qnn.conv2d_nchwc",
        [
            ints(1, 1, 6, 4, 16, dtype="int16", low=0, high=256),
            ints(1, 1, 1, 3, 4, 16 * 4, dtype="int16", low=-128, high=128),
        ],
        {"strides": (1, 2), "padding": (0, 1, 0, 1), "pad_value": 17, "dot_form": "word"},
    ),
]
CASES += [
    ("nn.max_pool2d", [ints(1, 2, 5, 5)], {"pool_size": (2, 2), "padding": (1, 1, 1, 1)}),
    (
        "nn.avg_pool2d",
        [randn(1, 2, 5, 5, dtype="float16")],
        {"pool_size": (3, 3), "ceil_mode": True},
    ),
    ("nn.avg_pool2d", [ints(1, 2, 5, 5, dtype="int64")], {"pool_size": (2, 2), "strides": (2, 2)}),
    ("nn.global_avg_pool2d", [randn(2, 3, 7, 5)], {}),
    ("nn.global_avg_pool2d", [randn(1, 2, 5, 5, dtype="float16")], {}),
    ("nn.global_max_pool2d", [randn(2, 3, 7, 5)], {}),
    *[
        ("nn.pad", [randn(2, 4, 6)], {"pad_width": widths, "pad_value": value, "mode": mode})
        for mode, widths, value in [
            ("constant", ((0, 0), (1, 2), (3, 0)), 1.5),
            ("constant", ((1, -1), (-2, 1), (0, -3)), -2.0),  # negative widths crop
            ("edge", ((0, 1), (2, 2), (1, 3)), 0.0),
            ("edge", ((-1, 1), (2, -2), (1, 3)), 0.0),
            ("reflect", ((1, 1), (2, 0), (0, 4)), 0.0),
            ("reflect", ((0, 0), (-1, 2), (2, -1)), 0.0),
        ]
    ],
    ("nn.pad", [ints(3, 4)], {"pad_width": ((1, 0), (2, 2)), "mode": "edge"}),
    (
        "nn.pad",
        [ints(3, 4, dtype="uint8", low=0)],
        {"pad_width": ((1, 0), (0, 2)), "pad_value": 7.0},
    ),
]

REDUCE_DATA = RNG.uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
CASES += [
    (op, [REDUCE_DATA], {"axis": axis, "keepdims": keepdims})
    for op in ("sum", "mean", "max", "min", "prod")
    for axis, keepdims in [(None, False), (None, True), ((1,), False), ((0, -1), True), ((), False)]
]
BOOL_DATA = np.array([[True, True], [True, False], [False, True], [False, False]])
CASES += [(op, [BOOL_DATA], {"axis": (1,)}) for op in ("max", "min")]  # any / all
ARG_DATA = RNG.integers(0, 3, (4, 5, 6)).astype(np.float32)  # many ties
CASES += [
    (op, [ARG_DATA], {"axis": axis, "keepdims": keepdims, "select_last_index": last})
    for op in ("argmax", "argmin")
    for axis, keepdims, last in [(0, False, False), (-1, True, True), (1, False, True)]
]
CASES += [
    ("sum", [ints(3, 4, dtype="int8", low=-100, high=100)], {"axis": (0,)}),
    ("mean", [randn(3, 4, dtype="float16")], {}),
    ("mean", [ints(3, 4, low=-20, high=20)], {"axis": (1,)}),
    ("prod", [ints(3, 4, low=-50, high=50)], {"axis": (-1,), "keepdims": True}),
    ("argmin", [randn(3, 4, dtype="float16")], {"axis": 1}),
    ("argmax", [ints(7)], {}),
]

SLICE_CASES = [
    # begin, end, strides, axes
    ((1,), (3,), None, None),
    ((-3,), (INT64_MAX,), None, (1,)),
    ((-1,), (INT64_MIN,), (-1,), (2,)),  # reverse an axis
    ((-100, 2), (100, 1000), None, None),  # clamped
    ((0, 1), (5, 7), (2, 3), (1, -1)),
    ((10, 5), (-100, 0), (-2, -3), (1, 2)),  # negative steps with clamping
    ((INT64_MIN,), (INT64_MAX,), (-3,), (-1,)),
    ((4, 2), (INT64_MAX, 2**31 - 1), (-1, -2), (0, 2)),
    ((INT64_MAX, 1), (INT64_MIN, 2**31 - 1), (-2, 1), (1, 0)),
]
RESHAPE_DATA = randn(2, 1, 3, 4)
CASES += [
    ("concatenate", [randn(2, n, 3) for n in (1, 4, 2)], {"axis": -2}),
    ("concatenate", [ints(2, 3, dtype="int64"), ints(1, 3, dtype="int64")], {"axis": 0}),
    ("concatenate", [randn(3)], {"axis": 0}),
    *[
        ("split", [randn(2, 6, 3)], {"indices_or_sections": sections, "axis": 1})
        for sections in (3, (2, 5), (1, 3, 4))
    ],
    ("split", [randn(10)], {"indices_or_sections": (-3, 9)}),
    ("reshape", [RESHAPE_DATA], {"newshape": (4, -1, 3)}),
    ("reshape", [RESHAPE_DATA], {"newshape": (24,)}),
    ("reshape", [randn(6)], {"newshape": (1, 2, 1, 3)}),
    *[("flatten", [RESHAPE_DATA], {"axis": axis}) for axis in (0, 2, -1, 4)],
    ("transpose", [RESHAPE_DATA], {}),
    ("transpose", [RESHAPE_DATA], {"axes": (2, 0, 3, 1)}),
    ("squeeze", [RESHAPE_DATA], {}),
    ("squeeze", [RESHAPE_DATA], {"axis": (-3,)}),
    ("expand_dims", [RESHAPE_DATA], {"axes": (0, -1, 3)}),
    ("expand_dims", [randn()], {"axes": (0,)}),
    *[
        ("broadcast_to", [randn(*data_shape)], {"shape": shape})
        for data_shape, shape in [((3, 1), (2, 1, 4)), ((1, 4), (3, 1)), ((2, 3), (3,))]
    ],
    ("broadcast_to", [ints(3, 1, dtype="int16")], {"shape": (2, 3, 4)}),
    *[
        ("strided_slice", [randn(5, 6, 7)], {"begin": b, "end": e, "strides": s, "axes": a})
        for b, e, s, a in SLICE_CASES
    ],
    ("strided_slice", [randn(5, 4) > 0], {"begin": (1,), "end": (4,), "axes": (0,)}),
    ("take", [randn(4, 5, 6), np.array([0, -1, 2, -4], dtype=np.int64)], {"axis": 0}),
    ("take", [randn(4, 5, 6), np.array([[1, -2], [0, 4]], dtype=np.int32)], {"axis": 1}),
    ("take", [randn(4, 5, 6), np.array(-3, dtype=np.int64)], {"axis": -1}),
    (
        "gather_elements",
        [randn(4, 5, 3), RNG.integers(-5, 5, (2, 6, 3)).astype(np.int64)],
        {"axis": 1},
    ),
    ("gather_elements", [ints(3, 4), RNG.integers(0, 3, (2, 4)).astype(np.int32)], {"axis": 0}),
    ("round", [np.array([0.5, 1.5, -2.5, 2.4, -0.6, 3.5], np.float32)], {}),
    ("tile", [randn(2, 3)], {"repeats": (2, 3)}),
    ("tile", [ints(1, 3, dtype="uint8", low=0)], {"repeats": (2, 2)}),
    ("shape_of", [randn(2, 3, 4)], {}),
    ("shape_of", [randn(5)], {"dtype": "int32"}),
    ("full", [], {"shape": (2, 3), "fill_value": 2.5}),
    ("full", [], {"shape": (2,), "fill_value": 3.7, "dtype": "int32"}),
    ("full", [], {"shape": (), "fill_value": 1.0, "dtype": "bool"}),
    ("arange", [], {"start": 0, "stop": 10, "step": 3}),
    ("arange", [], {"start": 5, "stop": -4, "step": -2, "dtype": "int32"}),
    ("arange", [], {"start": 0.5, "stop": 2.0, "step": 0.25, "dtype": "float32"}),
]


def _case_id(case: Case) -> str:
    op, inputs, attrs = case
    shapes = "x".join(str(list(value.shape)) for value in inputs)
    dtype = inputs[0].dtype.name if inputs else ""
    details = ",".join(f"{key}={value}" for key, value in sorted(attrs.items()))
    return f"{op}-{shapes}-{dtype}-{details}"


# --- helpers -------------------------------------------------------------------------------


def _run(op: str, inputs: list[np.ndarray], attrs: dict[str, object]) -> None:
    """Evaluate the op's TE and compare it, and its tensors' types, with the reference."""
    op_def = get_op(op)
    op_attrs = op_def.make_attrs(attrs)
    arg_types = [TensorType(value.shape, value.dtype.name) for value in inputs]
    out_type = op_def.type_relation(arg_types, op_attrs)
    placeholders = [
        placeholder(value.shape, value.dtype.name, f"p{i}") for i, value in enumerate(inputs)
    ]
    assert op_def.te_compute is not None
    result = op_def.te_compute(placeholders, op_attrs, out_type)
    tensors, types = _as_list(result, out_type)
    for tensor, ty in zip(tensors, types, strict=True):
        assert isinstance(tensor, Tensor) and isinstance(ty, TensorType)
        assert (tensor.shape, tensor.dtype) == (ty.shape, ty.dtype), (tensor, ty)
    actual = evaluate_te(tensors, dict(zip(placeholders, inputs, strict=True)))
    expected = op_def.reference(inputs, op_attrs)
    expected_list = list(expected) if isinstance(expected, tuple) else [expected]
    for index, (got, want) in enumerate(zip(actual, expected_list, strict=True)):
        assert got.dtype == want.dtype, (op, got.dtype, want.dtype)
        check_close(got, want, what=f"{op} output {index}")


def _as_list(result: Any, out_type: Type) -> tuple[list[Tensor], list[Type]]:
    if isinstance(out_type, TupleType):
        assert isinstance(result, tuple) and len(result) == len(out_type.fields)
        return list(result), list(out_type.fields)
    return [result], [out_type]


# --- (a) the table is complete -------------------------------------------------------------


def test_every_op_has_a_te_compute() -> None:
    missing = sorted(name for name, op_def in OP_TABLE.items() if op_def.te_compute is None)
    assert not missing, f"ops without a TE compute: {missing}"


def test_the_cases_cover_every_op() -> None:
    assert {op for op, _, _ in CASES} == set(OP_TABLE)


# --- (b) each op's TE equals its reference ------------------------------------------------


@pytest.mark.parametrize(("op", "inputs", "attrs"), CASES, ids=[_case_id(c) for c in CASES])
def test_te_compute_matches_reference(
    op: str, inputs: list[np.ndarray], attrs: dict[str, object]
) -> None:
    _run(op, inputs, attrs)


def test_conv2d_stages_names_tags_and_reduce_axes() -> None:
    conv = get_op("nn.conv2d")
    data, weight = placeholder((1, 4, 6, 6), name="data"), placeholder((8, 2, 3, 3), name="w")
    for padding, has_pad in [((0, 0, 0, 0), False), ((1, 0, 1, 2), True)]:
        attrs = conv.make_attrs({"padding": padding, "groups": 2})
        out_type = conv.type_relation([TensorType(data.shape), TensorType(weight.shape)], attrs)
        out = conv.te_compute([data, weight], attrs, out_type)  # type: ignore[misc]
        assert isinstance(out.op, ComputeOp)
        assert (out.name, out.op.tag, out.op.attr("weight_input")) == ("conv2d", "conv2d", 1)
        assert [axis.name for axis in out.op.reduce_axes] == ["rc", "ry", "rx"]
        read_names = {tensor.name for tensor in out.op.input_tensors}
        assert read_names == ({"pad", "w"} if has_pad else {"data", "w"})


def test_ops_whose_output_is_empty_are_refused_clearly() -> None:
    split = get_op("split")
    attrs = split.make_attrs({"indices_or_sections": (3, 20)})
    out_type = split.type_relation([TensorType((10,))], attrs)
    with pytest.raises(TEError, match="every dimension must be positive"):
        split.te_compute([placeholder((10,))], attrs, out_type)  # type: ignore[misc]


def test_take_with_an_index_out_of_range_is_refused_by_the_reference_and_clipped_in_te() -> None:
    # The reference (and so constant folding) says what is wrong; compiled code cannot
    # raise, so it reads the nearest end of the axis rather than outside the data.
    data, indices = randn(4, 5), np.array([0, 5, -7], dtype=np.int64)
    op_def = get_op("take")
    attrs = op_def.make_attrs({})
    with pytest.raises(IndexError, match=r"take: indices in \[-7, 5\] out of range"):
        op_def.reference([data, indices], attrs)
    out_type = op_def.type_relation(
        [TensorType(data.shape, "float32"), TensorType(indices.shape, "int64")], attrs
    )
    placeholders = [placeholder(data.shape, "float32", "p0"), placeholder((3,), "int64", "p1")]
    assert op_def.te_compute is not None
    taken = op_def.te_compute(placeholders, attrs, out_type)
    assert isinstance(taken, Tensor)
    (got,) = evaluate_te([taken], dict(zip(placeholders, [data, indices], strict=True)))
    np.testing.assert_array_equal(got, data[[0, 3, 0]])


# --- (c) fused primitive functions become TE programs -------------------------------------


def _weight(*shape: int) -> Expr:
    return const(RNG.normal(0, 0.3, shape).astype(np.float32))


def _conv_bn(data: Expr, channels_in: int, channels_out: int) -> Expr:
    conv = call("nn.conv2d", data, _weight(channels_out, channels_in, 3, 3), padding=(1, 1, 1, 1))
    scaled = call("multiply", conv, _weight(channels_out, 1, 1))
    return call("add", scaled, _weight(channels_out, 1, 1))


def _residual_block() -> Function:
    x = Var("x", TensorType((1, 4, 6, 6)))
    branch = call("nn.relu", _conv_bn(x, 4, 4))
    out = call("nn.relu", call("add", _conv_bn(branch, 4, 4), x))
    pooled = call("nn.max_pool2d", out, pool_size=(2, 2), strides=(2, 2))
    flat = call("flatten", call("nn.global_avg_pool2d", pooled))
    return Function((x,), call("nn.softmax", call("nn.dense", flat, _weight(5, 4))))


def _attention_like() -> Function:
    x = Var("x", TensorType((2, 6, 8)))
    gamma, beta = _weight(8), _weight(8)
    normed = call("nn.layer_norm", x, gamma, beta)
    qkv = call("split", call("nn.dense", normed, _weight(24, 8)), indices_or_sections=3, axis=-1)
    from ir.graph.nodes import TupleGetItem

    query, key = TupleGetItem(qkv, 0), TupleGetItem(qkv, 1)
    scores = call("nn.batch_matmul", query, key, transpose_b=True)
    scaled = call("multiply", scores, const(np.float32(0.35)))
    probs = call("nn.softmax", scaled)
    heads = call("transpose", call("reshape", probs, newshape=(2, 6, 3, 2)), axes=(0, 2, 1, 3))
    merged = call("concatenate", heads, call("nn.gelu", heads), axis=1)
    return Function((x,), call("mean", merged, axis=(-1,)))


def _primitive_functions(fn: Function) -> list[Function]:
    return [
        node.op
        for node in post_order(fn.body)
        if isinstance(node, Call) and isinstance(node.op, Function)
    ]


def _random_value(ty: Type) -> np.ndarray:
    assert isinstance(ty, TensorType)
    return RNG.standard_normal(ty.shape).astype(ty.dtype)


@pytest.mark.parametrize("build", [_residual_block, _attention_like])
def test_fused_functions_evaluate_like_the_reference(build: Callable[[], Function]) -> None:
    fused = fuse_ops(infer_type(build()))
    functions = _primitive_functions(fused)
    assert len(functions) >= 3
    for fn in functions:
        program = function_to_te(fn)
        assert isinstance(program, TEProgram)
        assert [t.name for t in program.inputs] == [f"p{i}" for i in range(len(fn.params))]
        names = [op.name for op in program.computes]
        assert len(names) == len(set(names)), names
        assert set(program.tensors_by_name) >= set(names) | {t.name for t in program.inputs}
        values = [_random_value(param.type_annotation) for param in fn.params]
        actual = evaluate_te(program.outputs, dict(zip(program.inputs, values, strict=True)))
        expected = evaluate(fn, {p.name: v for p, v in zip(fn.params, values, strict=True)})
        expected_list = list(expected) if isinstance(expected, tuple) else [expected]
        assert len(actual) == len(expected_list)
        for got, want in zip(actual, expected_list, strict=True):
            check_close(got, want, what=str(fn.attrs.get("name")))


def test_stage_names_are_deduplicated_and_scalar_constants_inlined() -> None:
    fused = fuse_ops(infer_type(_residual_block()))
    block = next(fn for fn in _primitive_functions(fused) if "add_add" in str(fn.attrs["name"]))
    names = [op.name for op in function_to_te(block).computes]
    assert names == ["pad", "conv2d", "multiply", "add", "add_1", "relu"]
    x = Var("x", TensorType((2, 3)))
    scaled = Function((x,), call("multiply", call("nn.relu", x), const(np.float32(2.0))))
    program = function_to_te(infer_type(scaled))
    assert [op.name for op in program.computes] == ["relu", "const", "multiply"]
    value = randn(2, 3)
    check_close(evaluate_te(program.outputs, {"p0": value})[0], np.maximum(value, 0) * 2)


def test_non_scalar_constants_inside_a_primitive_function_are_refused() -> None:
    x = Var("x", TensorType((2, 3)))
    fn = infer_type(Function((x,), call("add", x, const(np.ones((2, 3), np.float32)))))
    with pytest.raises(TEError, match=r"constant of shape \(2, 3\)"):
        function_to_te(fn)


@pytest.mark.parametrize("exponent", [2.0, 3.0, 4.0, 0.5, 5.0])
def test_power_by_a_small_constant_integer_is_products(exponent: float) -> None:
    # pow has no vector form on CPUs (LLVM calls libm lane by lane); x * x * x has one.
    x = Var("x", TensorType((2, 3)))
    fn = infer_type(Function((x,), call("power", x, const(np.float32(exponent)))))
    program = function_to_te(fn)
    body = str(program.outputs[0].op.body)
    assert ("pow" in body) == (exponent not in (2.0, 3.0, 4.0)), body
    value = randn(2, 3) if exponent != 0.5 else positive(2, 3)
    got = evaluate_te(program.outputs, {"p0": value})[0]
    check_close(got, np.power(value, np.float32(exponent)))
