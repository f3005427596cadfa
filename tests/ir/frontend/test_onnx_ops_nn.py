"""Single-node ONNX models of convolution, dense, pooling and normalisation ops vs onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import helper

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    make_model,
    op_case,
    positive,
    randn,
    run_onnxruntime,
)

RNG = np.random.default_rng(37)

IMAGE = randn(2, 4, 9, 9)
WEIGHT = randn(6, 4, 3, 3)

CONV = [
    op_case("conv_pads", "Conv", ["x", "w"], {"x": IMAGE}, consts={"w": WEIGHT}, pads=[1, 1, 1, 1]),
    op_case(
        "conv_bias_strides",
        "Conv",
        ["x", "w", "b"],
        {"x": IMAGE},
        consts={"w": WEIGHT, "b": randn(6)},
        strides=[2, 2],
        pads=[0, 1, 2, 1],
    ),
    op_case(
        "conv_dilations",
        "Conv",
        ["x", "w"],
        {"x": IMAGE},
        consts={"w": WEIGHT},
        dilations=[2, 2],
        kernel_shape=[3, 3],
    ),
    op_case(
        "conv_groups",
        "Conv",
        ["x", "w"],
        {"x": IMAGE},
        consts={"w": randn(8, 2, 3, 3)},
        group=2,
    ),
    op_case(
        "conv_depthwise",
        "Conv",
        ["x", "w"],
        {"x": IMAGE},
        consts={"w": randn(4, 1, 3, 3)},
        group=4,
        pads=[1, 1, 1, 1],
    ),
    op_case(
        "conv_runtime_weight",
        "Conv",
        ["x", "w"],
        {"x": IMAGE, "w": WEIGHT},
    ),
    op_case(
        "conv_1d",
        "Conv",
        ["x", "w", "b"],
        {"x": randn(2, 4, 11)},
        consts={"w": randn(5, 4, 3), "b": randn(5)},
        pads=[2, 1],
        strides=[2],
    ),
] + [
    op_case(
        f"conv_{auto_pad.lower()}",
        "Conv",
        ["x", "w"],
        {"x": randn(1, 4, 8, 7)},
        consts={"w": randn(3, 4, 4, 3)},
        strides=[2, 2],
        auto_pad=auto_pad,
    )
    for auto_pad in ("SAME_UPPER", "SAME_LOWER", "VALID")
]

DENSE = [
    op_case(
        "gemm",
        "Gemm",
        ["a", "b", "c"],
        {"a": randn(3, 5)},
        consts={"b": randn(5, 4), "c": randn(4)},
    ),
    op_case(
        "gemm_trans_alpha_beta",
        "Gemm",
        ["a", "b", "c"],
        {"a": randn(5, 3)},
        consts={"b": randn(4, 5), "c": randn(3, 4)},
        transA=1,
        transB=1,
        alpha=0.5,
        beta=2.0,
    ),
    op_case("gemm_no_c_11", "Gemm", ["a", "b"], {"a": randn(3, 5), "b": randn(5, 4)}, opset=11),
    op_case(
        "gemm_opset_9",
        "Gemm",
        ["a", "b", "c"],
        {"a": randn(3, 5)},
        consts={"b": randn(4, 5), "c": randn(1, 4)},
        transB=1,
        opset=9,
    ),
    op_case(
        "gemm_beta_zero",
        "Gemm",
        ["a", "b", "c"],
        {"a": randn(3, 5)},
        consts={"b": randn(5, 4), "c": randn(3, 1)},
        beta=0.0,
    ),
    op_case("matmul_2d", "MatMul", ["a", "b"], {"a": randn(3, 5), "b": randn(5, 4)}),
    op_case(
        "matmul_batched_weight",
        "MatMul",
        ["a", "b"],
        {"a": randn(2, 3, 5)},
        consts={"b": randn(5, 4)},
    ),
    op_case("matmul_4d", "MatMul", ["a", "b"], {"a": randn(2, 3, 4, 5), "b": randn(2, 3, 5, 6)}),
    op_case(
        "matmul_broadcast", "MatMul", ["a", "b"], {"a": randn(2, 1, 4, 5), "b": randn(3, 5, 6)}
    ),
    op_case("matmul_vector_rhs", "MatMul", ["a", "b"], {"a": randn(2, 3, 5), "b": randn(5)}),
    op_case("matmul_vector", "MatMul", ["a", "b"], {"a": randn(5), "b": randn(2, 5, 3)}),
]

NORM = [
    op_case(
        f"batch_norm_{opset}",
        "BatchNormalization",
        ["x", "s", "b", "m", "v"],
        {"x": IMAGE},
        consts={"s": randn(4), "b": randn(4), "m": randn(4), "v": positive(4)},
        epsilon=1e-3,
        opset=opset,
    )
    for opset in (9, 15)
] + [
    op_case("lrn", "LRN", ["x"], {"x": IMAGE}, size=3, alpha=1e-3, beta=0.7, bias=2.0),
    op_case("lrn_defaults", "LRN", ["x"], {"x": IMAGE}, size=5),
    op_case(
        "layer_norm_last_axis",
        "LayerNormalization",
        ["x", "s", "b"],
        {"x": randn(2, 3, 8)},
        consts={"s": randn(8), "b": randn(8)},
        opset=17,
        epsilon=1e-3,
    ),
    op_case(
        "layer_norm_two_axes_no_bias",
        "LayerNormalization",
        ["x", "s"],
        {"x": randn(2, 3, 8)},
        consts={"s": randn(3, 8)},
        opset=17,
        axis=-2,
    ),
    op_case(
        "layer_norm_axis0_broadcast_bias",
        "LayerNormalization",
        ["x", "s", "b"],
        {"x": randn(2, 3, 4)},
        consts={"s": randn(2, 3, 4), "b": randn(4)},
        opset=17,
        axis=0,
    ),
    op_case("dropout_9", "Dropout", ["x"], {"x": randn(3, 4)}, opset=9, ratio=0.3),
    op_case(
        "dropout_13_ratio_input",
        "Dropout",
        ["x", "r"],
        {"x": randn(3, 4)},
        consts={"r": np.array(0.2, np.float32)},
    ),
    op_case(
        "dropout_mask_and_runtime_ratio",
        "Dropout",
        ["x", "r"],
        {"x": randn(3, 4), "r": np.array(0.4, np.float32)},
        outputs={"y": np.float32, "mask": np.bool_},
    ),
]

POOL = [
    op_case("lp_pool_2", "LpPool", ["x"], {"x": IMAGE}, kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    op_case(
        "lp_pool_3_strided",
        "LpPool",
        ["x"],
        {"x": IMAGE},
        opset=18,
        kernel_shape=[2, 2],
        strides=[2, 2],
        p=3,
    ),
    op_case("lp_pool_1d_p1", "LpPool", ["x"], {"x": randn(1, 3, 10)}, kernel_shape=[3], p=1),
    op_case("max_pool", "MaxPool", ["x"], {"x": IMAGE}, kernel_shape=[2, 2], strides=[2, 2]),
    op_case(
        "max_pool_pads_9",
        "MaxPool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        strides=[2, 2],
        opset=9,
    ),
    op_case(
        "max_pool_ceil",
        "MaxPool",
        ["x"],
        {"x": randn(1, 2, 8, 8)},
        kernel_shape=[3, 3],
        strides=[2, 2],
        ceil_mode=1,
    ),
    op_case(
        "max_pool_dilations", "MaxPool", ["x"], {"x": IMAGE}, kernel_shape=[2, 2], dilations=[2, 2]
    ),
    op_case(
        "max_pool_same_upper",
        "MaxPool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[2, 2],
        strides=[2, 2],
        auto_pad="SAME_UPPER",
    ),
    op_case("max_pool_1d", "MaxPool", ["x"], {"x": randn(2, 3, 10)}, kernel_shape=[3], strides=[2]),
    op_case("avg_pool", "AveragePool", ["x"], {"x": IMAGE}, kernel_shape=[3, 3], strides=[2, 2]),
    op_case(
        "avg_pool_pads_exclude",
        "AveragePool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        strides=[2, 2],
    ),
    op_case(
        "avg_pool_pads_include",
        "AveragePool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        count_include_pad=1,
    ),
    op_case(
        "avg_pool_ceil",
        "AveragePool",
        ["x"],
        {"x": randn(1, 2, 8, 8)},
        kernel_shape=[3, 3],
        strides=[2, 2],
        ceil_mode=1,
    ),
    op_case(
        "avg_pool_same_lower",
        "AveragePool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[2, 2],
        strides=[2, 2],
        auto_pad="SAME_LOWER",
    ),
    op_case(
        "avg_pool_ceil_pads_include",
        "AveragePool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
        ceil_mode=1,
        count_include_pad=1,
    ),
    op_case(
        "max_pool_ceil_pads",
        "MaxPool",
        ["x"],
        {"x": IMAGE},
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
        ceil_mode=1,
    ),
    op_case(
        "avg_pool_19_dilations",
        "AveragePool",
        ["x"],
        {"x": randn(1, 2, 10, 10)},
        kernel_shape=[3, 3],
        strides=[2, 2],
        dilations=[2, 2],
        pads=[1, 0, 2, 1],
        opset=19,
    ),
    op_case("global_avg_pool", "GlobalAveragePool", ["x"], {"x": IMAGE}),
    op_case("global_max_pool", "GlobalMaxPool", ["x"], {"x": IMAGE}),
    op_case("global_avg_pool_1d", "GlobalAveragePool", ["x"], {"x": randn(2, 3, 7)}),
]

SOFTMAX = [
    op_case(
        f"{op.lower()}_{opset}_axis{axis}", op, ["x"], {"x": randn(2, 3, 4)}, opset=opset, axis=axis
    )
    for op in ("Softmax", "LogSoftmax")
    for opset in (11, 13)
    for axis in (0, 1, -1)
] + [
    op_case("softmax_9_rank4_axis2", "Softmax", ["x"], {"x": randn(2, 3, 4, 5)}, opset=9, axis=2),
    op_case("softmax_11_default", "Softmax", ["x"], {"x": randn(2, 3, 4)}, opset=11),
    op_case("softmax_13_default", "Softmax", ["x"], {"x": randn(2, 3, 4)}, opset=13),
]


SMALL = randn(2, 4, 5, 6)

CONV_TRANSPOSE = [
    op_case(
        "conv_transpose_plain",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 3, 3, 3)},
    ),
    op_case(
        "conv_transpose_stride2_pads_bias",
        "ConvTranspose",
        ["x", "w", "b"],
        {"x": SMALL},
        consts={"w": randn(4, 6, 4, 4), "b": randn(6)},
        strides=[2, 2],
        pads=[1, 1, 1, 1],
    ),
    op_case(
        "conv_transpose_stride_output_padding",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 2, 3, 3)},
        strides=[2, 3],
        pads=[1, 0, 1, 2],
        output_padding=[1, 2],
    ),
    op_case(
        "conv_transpose_groups_dilation",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 3, 3, 2)},
        group=2,
        dilations=[2, 1],
        strides=[1, 2],
    ),
    op_case(
        "conv_transpose_depthwise",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 1, 2, 2)},
        group=4,
        strides=[2, 2],
    ),
    op_case(
        "conv_transpose_pads_crop_more_than_kernel",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 2, 3, 3)},
        strides=[3, 3],
        pads=[3, 2, 3, 4],
    ),
    op_case(
        "conv_transpose_stride_exceeds_kernel",
        "ConvTranspose",
        ["x", "w", "b"],
        {"x": SMALL},
        consts={"w": randn(4, 3, 2, 5), "b": randn(3)},
        strides=[3, 2],
        pads=[0, 2, 1, 1],
        output_padding=[2, 1],
    ),
    op_case(
        "conv_transpose_output_shape",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 2, 3, 3)},
        strides=[2, 2],
        output_shape=[10, 12],
    ),
    op_case(
        "conv_transpose_same_upper",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL},
        consts={"w": randn(4, 2, 3, 3)},
        strides=[2, 2],
        auto_pad="SAME_UPPER",
    ),
    op_case(
        "conv_transpose_runtime_weight",
        "ConvTranspose",
        ["x", "w"],
        {"x": SMALL, "w": randn(4, 2, 3, 3)},
        strides=[2, 1],
    ),
    op_case(
        "conv_transpose_1d",
        "ConvTranspose",
        ["x", "w", "b"],
        {"x": randn(2, 3, 7)},
        consts={"w": randn(3, 5, 4), "b": randn(5)},
        strides=[2],
        pads=[1, 0],
    ),
]

NORM_GROUPS = [
    op_case(
        "instance_norm",
        "InstanceNormalization",
        ["x", "s", "b"],
        {"x": randn(2, 3, 5, 4) * 3 + 1},
        consts={"s": randn(3), "b": randn(3)},
        epsilon=1e-3,
    ),
    op_case(
        "instance_norm_1d",
        "InstanceNormalization",
        ["x", "s", "b"],
        {"x": randn(2, 3, 7)},
        consts={"s": randn(3), "b": randn(3)},
    ),
    op_case(
        "group_norm_21_per_channel",
        "GroupNormalization",
        ["x", "s", "b"],
        {"x": randn(2, 6, 4, 3) * 2},
        consts={"s": randn(6), "b": randn(6)},
        opset=21,
        outputs={"y": (np.float32, [2, 6, 4, 3])},
        num_groups=2,
        epsilon=1e-2,
    ),
]


@pytest.mark.parametrize(
    "case", CONV + CONV_TRANSPOSE + DENSE + NORM + NORM_GROUPS + POOL + SOFTMAX
)
def test_nn_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds)


VOLUME = randn(2, 3, 6, 7, 5)

VOLUME_OPS = [
    op_case(
        "conv3d",
        "Conv",
        ["x", "w", "b"],
        {"x": VOLUME},
        consts={"w": randn(4, 3, 3, 3, 3), "b": randn(4)},
        pads=[1, 1, 1, 1, 1, 1],
    ),
    op_case(
        "conv3d_strides_dilation_groups",
        "Conv",
        ["x", "w"],
        {"x": randn(1, 4, 9, 8, 7)},
        consts={"w": randn(6, 2, 2, 3, 2)},
        strides=[2, 1, 2],
        dilations=[2, 1, 1],
        pads=[1, 0, 1, 0, 2, 1],
        group=2,
    ),
    op_case(
        "conv3d_same_upper",
        "Conv",
        ["x", "w"],
        {"x": VOLUME},
        consts={"w": randn(2, 3, 2, 3, 3)},
        strides=[2, 2, 1],
        auto_pad="SAME_UPPER",
    ),
    op_case(
        "max_pool3d", "MaxPool", ["x"], {"x": VOLUME}, kernel_shape=[2, 2, 2], strides=[2, 2, 2]
    ),
    op_case(
        "max_pool3d_pads_ceil",
        "MaxPool",
        ["x"],
        {"x": VOLUME},
        kernel_shape=[3, 3, 2],
        strides=[2, 2, 2],
        pads=[1, 1, 0, 1, 0, 1],
        ceil_mode=1,
    ),
    op_case(
        "avg_pool3d",
        "AveragePool",
        ["x"],
        {"x": VOLUME},
        kernel_shape=[2, 3, 2],
        strides=[1, 2, 2],
    ),
    op_case(
        "avg_pool3d_pads_exclude",
        "AveragePool",
        ["x"],
        {"x": VOLUME},
        kernel_shape=[3, 3, 3],
        strides=[2, 2, 2],
        pads=[1, 1, 1, 1, 1, 1],
    ),
    op_case(
        "avg_pool3d_pads_include_ceil",
        "AveragePool",
        ["x"],
        {"x": VOLUME},
        kernel_shape=[3, 2, 3],
        strides=[2, 2, 2],
        pads=[1, 0, 1, 1, 1, 0],
        count_include_pad=1,
        ceil_mode=1,
    ),
    op_case("global_avg_pool3d", "GlobalAveragePool", ["x"], {"x": VOLUME}),
    op_case(
        "conv_transpose3d_stride_pads_bias",
        "ConvTranspose",
        ["x", "w", "b"],
        {"x": VOLUME},
        consts={"w": randn(3, 2, 3, 2, 3), "b": randn(2)},
        strides=[2, 1, 2],
        pads=[1, 0, 0, 1, 1, 2],
        output_padding=[1, 0, 1],
    ),
    op_case(
        "conv_transpose3d_groups_dilation",
        "ConvTranspose",
        ["x", "w"],
        {"x": randn(1, 4, 3, 4, 5)},
        consts={"w": randn(4, 3, 2, 3, 2)},
        group=2,
        dilations=[2, 1, 2],
        strides=[3, 2, 1],
    ),
    op_case(
        "conv_transpose3d_runtime_weight_same_upper",
        "ConvTranspose",
        ["x", "w"],
        {"x": randn(1, 2, 4, 3, 3), "w": randn(2, 2, 2, 2, 2)},
        strides=[2, 2, 2],
        auto_pad="SAME_UPPER",
    ),
]


@pytest.mark.parametrize("case", VOLUME_OPS)
def test_volume_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds)


@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (6, 2)])
def test_batch_norm_in_training_mode_uses_the_batch_statistics_compiled(
    shape: tuple[int, ...],
) -> None:
    """Training mode: Y from the batch's mean and population variance, and the running
    statistics moved towards them, all three against ONNX's reference, compiled."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target
    from tests.ir.frontend.onnx_helpers import make_model

    rng = np.random.default_rng(12)
    channels = shape[1]
    feeds = {
        "x": (rng.standard_normal(shape) * 2 + 0.5).astype(np.float32),
        "scale": rng.uniform(0.5, 1.5, channels).astype(np.float32),
        "bias": rng.standard_normal(channels).astype(np.float32),
        "mean": rng.standard_normal(channels).astype(np.float32),
        "var": rng.uniform(0.5, 2.0, channels).astype(np.float32),
    }
    node = helper.make_node(
        "BatchNormalization",
        list(feeds),
        ["y", "running_mean", "running_var"],
        training_mode=1,
        momentum=0.8,
        epsilon=1e-3,
    )
    model = make_model([node], feeds, outputs=("y", "running_mean", "running_var"), opset=15)
    expected = ReferenceEvaluator(model).run(None, feeds)
    target = host_target()
    got = compile_model(prepare_for_target(model, target).function, target).run(feeds)
    for index, (value, want) in enumerate(zip(got, expected, strict=True)):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=f"output {index}")


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_conv_transpose3d_compiled_matches_onnxruntime(data: st.DataObject) -> None:
    groups = data.draw(st.integers(1, 2))
    channels, per_group_out = groups * data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    spatial = [data.draw(st.integers(1, 4)) for _ in range(3)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(3)]
    strides = [data.draw(st.integers(1, 3)) for _ in range(3)]
    dilations = [data.draw(st.integers(1, 2)) for _ in range(3)]
    pads = [data.draw(st.integers(0, 1)) for _ in range(6)]
    extra = [data.draw(st.integers(0, stride - 1)) for stride in strides]  # as onnxruntime
    sizes = [
        stride * (size - 1) + more + (k - 1) * dil + 1 - pads[axis] - pads[axis + 3]
        for axis, (size, k, stride, dil, more) in enumerate(
            zip(spatial, kernel, strides, dilations, extra, strict=True)
        )
    ]
    assume(min(sizes) >= 1)
    feeds = {"x": RNG.standard_normal((2, channels, *spatial)).astype(np.float32)}
    weight = RNG.standard_normal((channels, per_group_out, *kernel)).astype(np.float32)
    node = helper.make_node(
        "ConvTranspose",
        ["x", "w"],
        ["y"],
        group=groups,
        strides=strides,
        dilations=dilations,
        pads=pads,
        output_padding=extra,
    )
    model = make_model([node], {"x": feeds["x"]}, ["y"], {"w": weight}, 13)
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    expected = run_onnxruntime(model, feeds)[0]
    np.testing.assert_allclose(np.asarray(compiled.run(feeds)), expected, rtol=1e-4, atol=1e-4)
