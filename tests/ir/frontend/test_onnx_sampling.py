"""ONNX RoiAlign and DeformConv, compiled and run, against ONNX's reference evaluator on
random shapes, regions, offsets and attributes, against onnxruntime where it has the op,
and refused with errors that name the node where the operands do not fit."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import helper
from onnx.reference import ReferenceEvaluator

from codegen.llvm.target import host_target
from ir.errors import ModelImportError, UnsupportedOpError, ValueDependentError
from tests.ir.frontend.onnx_helpers import make_model, run_compiled, run_onnxruntime

RNG = np.random.default_rng(31)


def _reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    return np.asarray(expected)


# -- RoiAlign --------------------------------------------------------------------------------


def _roi_model(
    image: tuple[int, ...],
    regions: int,
    opset: int = 16,
    rois: np.ndarray | None = None,
    **attrs: Any,
) -> onnx.ModelProto:
    node = helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], name="roi", **attrs)
    inputs: dict[str, tuple[tuple[int, ...], Any]] = {
        "x": (image, np.float32),
        "batch": ((regions,), np.int64),
    }
    constants = {}
    if rois is None:
        inputs["rois"] = ((regions, 4), np.float32)
    else:
        constants["rois"] = rois
    return make_model([node], inputs, ["y"], constants, opset)


def _regions(count: int, height: int, width: int, scale: float) -> np.ndarray:
    """Random boxes (x1, y1, x2, y2) in the image's coordinates before `scale`, some
    reaching past its borders, some degenerate."""
    corners = RNG.uniform(-2.0, 1.2, (count, 2, 2)) * np.array([width, height]) / scale
    boxes = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
    boxes[0, 2:] = boxes[0, :2]  # a region of size zero
    return boxes.astype(np.float32)


@settings(max_examples=20, deadline=None)
@given(
    data=st.data(),
    mode=st.sampled_from(["avg", "max"]),
    transform=st.sampled_from(["half_pixel", "output_half_pixel"]),
)
def test_roi_align_matches_the_reference(data: st.DataObject, mode: str, transform: str) -> None:
    batch, channels = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    height, width = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))
    regions = data.draw(st.integers(2, 5))
    scale = data.draw(st.sampled_from([1.0, 0.5, 0.25]))
    attrs: dict[str, Any] = {
        "mode": mode,
        "coordinate_transformation_mode": transform,
        "output_height": data.draw(st.integers(1, 4)),
        "output_width": data.draw(st.integers(1, 4)),
        "sampling_ratio": data.draw(st.integers(1, 3)),
        "spatial_scale": scale,
    }
    feeds: dict[str, np.ndarray] = {
        "x": RNG.standard_normal((batch, channels, height, width)).astype(np.float32),
        "rois": _regions(regions, height, width, scale),
        "batch": RNG.integers(0, batch, regions).astype(np.int64),
    }
    model = _roi_model((batch, channels, height, width), regions, **attrs)
    np.testing.assert_allclose(
        run_compiled(model, feeds), _reference(model, feeds), rtol=1e-4, atol=1e-5
    )


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_with_an_adaptive_grid_samples_each_region_by_its_size(mode: str) -> None:
    # sampling_ratio 0: each region's bins take ceil(size / bins) samples a side, so the
    # regions here sample 1 to 4 a side, and the last, of size zero, none (its bins are 0).
    rois = np.array(
        [[0, 0, 2, 2], [1, 0.5, 9, 7], [0.5, 1, 12, 12], [3, 3, 3.5, 3.2], [4, 4, 4, 4]],
        np.float32,
    )
    attrs: dict[str, Any] = {
        "mode": mode,
        "output_height": 3,
        "output_width": 3,
        "sampling_ratio": 0,
    }
    model = _roi_model((2, 3, 12, 12), 5, rois=rois, **attrs)
    feeds: dict[str, np.ndarray] = {
        "x": RNG.standard_normal((2, 3, 12, 12)).astype(np.float32),
        "batch": np.array([1, 0, 1, 0, 1], np.int64),
    }
    expected = _reference(model, feeds)
    np.testing.assert_allclose(run_compiled(model, feeds), expected, rtol=1e-4, atol=1e-5)
    if mode == "avg":  # onnxruntime's max mode differs from the reference's
        np.testing.assert_allclose(
            run_compiled(model, feeds), run_onnxruntime(model, feeds)[0], rtol=1e-4, atol=1e-5
        )


def test_roi_align_with_an_adaptive_grid_specialises_to_run_time_regions() -> None:
    model = _roi_model((1, 2, 8, 8), 2, output_height=2, output_width=2, sampling_ratio=0)
    feeds: dict[str, np.ndarray] = {
        "x": RNG.standard_normal((1, 2, 8, 8)).astype(np.float32),
        "rois": np.array([[0, 0, 7, 7], [1, 2, 4, 3]], np.float32),
        "batch": np.zeros(2, np.int64),
    }
    np.testing.assert_allclose(
        run_compiled(model, feeds), _reference(model, feeds), rtol=1e-4, atol=1e-5
    )
    from codegen.prepare import prepare_for_target

    with pytest.raises(ValueDependentError, match=r"'roi'.*sampling_ratio 0.*\['rois'\]"):
        prepare_for_target(model, host_target())


def test_roi_align_matches_onnxruntime() -> None:
    model = _roi_model((2, 4, 10, 7), 6, output_height=4, output_width=3, sampling_ratio=2)
    feeds: dict[str, np.ndarray] = {
        "x": RNG.standard_normal((2, 4, 10, 7)).astype(np.float32),
        "rois": _regions(6, 10, 7, 1.0),
        "batch": np.array([0, 1, 1, 0, 1, 0], np.int64),
    }
    np.testing.assert_allclose(
        run_compiled(model, feeds), run_onnxruntime(model, feeds)[0], rtol=1e-4, atol=1e-5
    )


def test_roi_align_at_opset_10_keeps_the_output_half_pixel_coordinates() -> None:
    model = _roi_model((1, 1, 6, 6), 2, opset=10, output_height=2, output_width=2, sampling_ratio=2)
    feeds: dict[str, np.ndarray] = {
        "x": RNG.standard_normal((1, 1, 6, 6)).astype(np.float32),
        "rois": np.array([[0.3, 0.7, 4.1, 3.9], [1, 1, 5, 5]], np.float32),
        "batch": np.zeros(2, np.int64),
    }
    # (ONNX's reference evaluator applies opset 16's half_pixel default at opset 10 too.)
    np.testing.assert_allclose(
        run_compiled(model, feeds), run_onnxruntime(model, feeds)[0], rtol=1e-4, atol=1e-5
    )


def test_roi_align_with_mismatched_operands_names_the_node() -> None:
    graph = helper.make_graph(
        [helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], name="roi")],
        "bad",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 2, 5, 5]),
            helper.make_tensor_value_info("rois", onnx.TensorProto.FLOAT, [3, 4]),
            helper.make_tensor_value_info("batch", onnx.TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3, 2, 1, 1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    feeds: dict[str, np.ndarray] = {
        "x": np.zeros((1, 2, 5, 5), np.float32),
        "rois": np.zeros((3, 4), np.float32),
        "batch": np.zeros(2, np.int64),
    }
    with pytest.raises(ModelImportError, match=r"'roi'.*batch_indices must be \[R\] with R = 3"):
        run_compiled(model, feeds)


# -- DeformConv ------------------------------------------------------------------------------


def _deform_model(
    shapes: dict[str, tuple[int, ...]], opset: int = 19, **attrs: Any
) -> onnx.ModelProto:
    names = ["x", "w", "offset", "b", "mask"]
    used = [name if name in shapes else "" for name in names]
    while used[-1] == "":
        used.pop()
    node = helper.make_node("DeformConv", used, ["y"], name="deform", **attrs)
    inputs = {name: (shape, np.float32) for name, shape in shapes.items()}
    return make_model([node], inputs, ["y"], None, opset)


@settings(max_examples=15, deadline=None)
@given(data=st.data(), with_mask=st.booleans(), with_bias=st.booleans())
def test_deform_conv_matches_the_reference(
    data: st.DataObject, with_mask: bool, with_bias: bool
) -> None:
    groups, offset_groups = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    channels = groups * offset_groups * data.draw(st.integers(1, 2))
    outputs = groups * data.draw(st.integers(1, 2))
    height, width = data.draw(st.integers(2, 6)), data.draw(st.integers(2, 6))
    kernel = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    strides = [data.draw(st.integers(1, 2)) for _ in range(2)]
    dilations = [data.draw(st.integers(1, 2)) for _ in range(2)]
    pads = [data.draw(st.integers(0, 1)) for _ in range(4)]
    out_h = (height + pads[0] + pads[2] - (kernel[0] - 1) * dilations[0] - 1) // strides[0] + 1
    out_w = (width + pads[1] + pads[3] - (kernel[1] - 1) * dilations[1] - 1) // strides[1] + 1
    assume(out_h >= 1 and out_w >= 1)
    taps = kernel[0] * kernel[1]
    shapes: dict[str, tuple[int, ...]] = {
        "x": (1, channels, height, width),
        "w": (outputs, channels // groups, *kernel),
        "offset": (1, offset_groups * 2 * taps, out_h, out_w),
    }
    if with_bias or with_mask:
        shapes["b"] = (outputs,)
    if with_mask:
        shapes["mask"] = (1, offset_groups * taps, out_h, out_w)
    feeds = {name: RNG.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    feeds["offset"] *= 1.5  # some taps move past the borders
    model = _deform_model(
        shapes,
        group=groups,
        offset_group=offset_groups,
        kernel_shape=list(kernel),
        strides=strides,
        dilations=dilations,
        pads=pads,
    )
    np.testing.assert_allclose(
        run_compiled(model, feeds), _reference(model, feeds), rtol=1e-4, atol=1e-4
    )


def test_deform_conv_with_zero_offsets_is_a_conv() -> None:
    shapes: dict[str, tuple[int, ...]] = {
        "x": (2, 4, 7, 6),
        "w": (6, 2, 3, 3),
        "offset": (2, 18, 4, 2),
        "b": (6,),
    }
    feeds = {name: RNG.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    feeds["offset"][:] = 0.0
    attrs: dict[str, Any] = {"group": 2, "strides": [2, 2], "pads": [1, 0, 1, 0]}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)
    plain = make_model(
        [conv], {name: (shapes[name], np.float32) for name in ("x", "w", "b")}, ["y"], None, 19
    )
    expected = run_onnxruntime(plain, {name: feeds[name] for name in ("x", "w", "b")})[0]
    actual = run_compiled(_deform_model(shapes, **attrs), feeds)
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)


def test_deform_conv_with_an_offset_of_the_wrong_shape_names_the_node() -> None:
    graph = helper.make_graph(
        [helper.make_node("DeformConv", ["x", "w", "offset"], ["y"], name="deform")],
        "bad",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 2, 5, 5]),
            helper.make_tensor_value_info("w", onnx.TensorProto.FLOAT, [3, 2, 3, 3]),
            helper.make_tensor_value_info("offset", onnx.TensorProto.FLOAT, [1, 9, 3, 3]),
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 3, 3, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 8
    feeds = {
        "x": np.zeros((1, 2, 5, 5), np.float32),
        "w": np.zeros((3, 2, 3, 3), np.float32),
        "offset": np.zeros((1, 9, 3, 3), np.float32),
    }
    with pytest.raises(ModelImportError, match=r"'deform'.*offset must be \(1, 18, 3, 3\)"):
        run_compiled(model, feeds)


def test_deform_conv_in_three_dimensions_is_refused_by_name() -> None:
    shapes = {"x": (1, 1, 3, 3, 3), "w": (1, 1, 2, 2, 2), "offset": (1, 24, 2, 2, 2)}
    graph = helper.make_graph(
        [helper.make_node("DeformConv", ["x", "w", "offset"], ["y"], name="deform3d")],
        "three",
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, s) for n, s in shapes.items()],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 1, 2, 2, 2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 8
    feeds = {name: np.zeros(shape, np.float32) for name, shape in shapes.items()}
    with pytest.raises(UnsupportedOpError, match=r"'deform3d'.*only 2-D DeformConv"):
        run_compiled(model, feeds)
