"""Single-node ONNX models of image ops (Resize, Upsample, GridSample, DepthToSpace,
SpaceToDepth) imported and run against onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from ir.errors import ModelImportError
from ir.frontend.onnx import from_onnx
from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    make_model,
    op_case,
    randn,
)
from tests.ir.frontend.test_onnx_errors import raw_model, tensor

IMAGE = randn(2, 3, 5, 7)
F32 = np.float32

COORDINATES = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"]
SCALES = {
    "up": np.array([1, 1, 2, 1.5], F32),
    "down": np.array([1, 1, 0.6, 0.5], F32),
    "mixed": np.array([1, 1, 1.7, 0.8], F32),
}


def _resize(
    case_id: str, scales: np.ndarray | None = None, sizes: list[int] | None = None, **attrs: object
) -> object:
    inputs = ["x", "", "scales"] if sizes is None else ["x", "", "", "sizes"]
    consts = {"scales": scales} if sizes is None else {"sizes": np.array(sizes, np.int64)}
    opset = int(attrs.pop("opset", 13))  # type: ignore[call-overload]
    data = attrs.pop("data", IMAGE)
    return op_case(case_id, "Resize", inputs, {"x": data}, consts=consts, opset=opset, **attrs)


RESIZE = [
    *[
        _resize(
            f"{mode}_{coordinates}_{name}",
            scales if coordinates != "align_corners" else None,
            # align_corners with a scale: ONNX stretches the grid to the unfloored length
            # in * scale (its backend tests check that), onnxruntime to the output size;
            # with sizes given the two agree.
            sizes=[int(d * f) for d, f in zip(IMAGE.shape, scales, strict=True)]
            if coordinates == "align_corners"
            else None,
            mode=mode,
            coordinate_transformation_mode=coordinates,
        )
        for mode in ("nearest", "linear", "cubic")
        for coordinates in COORDINATES
        for name, scales in SCALES.items()
    ],
    *[
        _resize(
            f"nearest_{rounding}_{coordinates}",
            SCALES["mixed"],
            mode="nearest",
            nearest_mode=rounding,
            coordinate_transformation_mode=coordinates,
        )
        for rounding in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
        for coordinates in ("half_pixel", "asymmetric")
    ],
    _resize("nearest_sizes", sizes=[2, 3, 11, 4], mode="nearest"),
    _resize(
        "linear_sizes_align_corners",
        sizes=[2, 3, 9, 13],
        mode="linear",
        coordinate_transformation_mode="align_corners",
    ),
    _resize(
        "linear_sizes_one_row",
        sizes=[2, 3, 1, 13],
        mode="linear",
        coordinate_transformation_mode="pytorch_half_pixel",
    ),
    _resize(
        "cubic_a_half_exclude_outside",
        SCALES["mixed"],
        mode="cubic",
        cubic_coeff_a=-0.5,
        exclude_outside=1,
    ),
    _resize("cubic_exclude_outside_down", SCALES["down"], mode="cubic", exclude_outside=1),
    _resize(
        "nearest_int32",
        SCALES["up"],
        mode="nearest",
        data=np.arange(2 * 3 * 5 * 7, dtype=np.int32).reshape(2, 3, 5, 7),
        outputs={"y": np.int32},
    ),
    _resize(
        "half_pixel_symmetric_19",
        SCALES["mixed"],
        mode="linear",
        opset=19,
        coordinate_transformation_mode="half_pixel_symmetric",
    ),
    op_case(
        "axes_18",
        "Resize",
        ["x", "", "scales"],
        {"x": IMAGE},
        consts={"scales": np.array([0.7, 2.5], F32)},
        opset=18,
        axes=[3, 2],
        mode="linear",
    ),
    *[
        op_case(
            f"keep_aspect_{policy}",
            "Resize",
            ["x", "", "", "sizes"],
            {"x": IMAGE},
            consts={"sizes": np.array([8, 8], np.int64)},
            opset=18,
            axes=[2, 3],
            keep_aspect_ratio_policy=policy,
            mode="linear",
        )
        for policy in ("not_larger", "not_smaller")
    ],
    op_case(
        "resize_10_nearest",
        "Resize",
        ["x", "scales"],
        {"x": IMAGE},
        consts={"scales": SCALES["up"]},
        opset=10,
    ),
    op_case(
        "resize_10_linear",
        "Resize",
        ["x", "scales"],
        {"x": IMAGE},
        consts={"scales": SCALES["mixed"]},
        opset=10,
        mode="linear",
    ),
    op_case(
        "upsample_9_nearest",
        "Upsample",
        ["x", "scales"],
        {"x": IMAGE},
        consts={"scales": np.array([1, 1, 2, 3], F32)},
        opset=9,
    ),
    op_case(
        "upsample_9_linear",
        "Upsample",
        ["x", "scales"],
        {"x": IMAGE},
        consts={"scales": np.array([1, 1, 2, 2], F32)},
        opset=9,
        mode="linear",
    ),
]

DEPTH_SPACE = [
    op_case("depth_to_space_dcr", "DepthToSpace", ["x"], {"x": randn(2, 8, 3, 4)}, blocksize=2),
    op_case(
        "depth_to_space_crd",
        "DepthToSpace",
        ["x"],
        {"x": randn(2, 18, 3, 2)},
        blocksize=3,
        mode="CRD",
    ),
    op_case("space_to_depth", "SpaceToDepth", ["x"], {"x": randn(2, 3, 6, 4)}, blocksize=2),
]


GRID_IMAGE = randn(2, 3, 5, 6)
GRID = (np.random.default_rng(9).uniform(-1.3, 1.3, (2, 4, 7, 2))).astype(F32)
VOLUME = randn(2, 2, 3, 4, 5)
VOLUME_GRID = (np.random.default_rng(10).uniform(-1.3, 1.3, (2, 2, 3, 4, 3))).astype(F32)
# Exact pixel centres and edges too: rounding ties and taps on the last row / column.
GRID[0, 0, :, 0] = np.linspace(-1, 1, 7, dtype=F32)
GRID[0, 0, :, 1] = 1.0

GRID_SAMPLE = (
    [
        op_case(
            f"grid_sample_{volume}{mode}_{padding}_corners{corners}",
            "GridSample",
            ["x", "g"],
            {"x": image, "g": grid},
            opset=opset,
            mode=mode,
            padding_mode=padding,
            align_corners=corners,
        )
        for volume, image, grid, opset, modes in (
            ("", GRID_IMAGE, GRID, 16, ("bilinear", "nearest")),
            ("3d_", VOLUME, VOLUME_GRID, 20, ("linear", "nearest")),
        )
        for mode in modes
        for padding in ("zeros", "border", "reflection")
        for corners in (0, 1)
    ]
    + [
        op_case(
            "grid_sample_20_linear",
            "GridSample",
            ["x", "g"],
            {"x": GRID_IMAGE, "g": GRID},
            opset=20,
        )
    ]
    + [
        op_case(
            f"affine_grid_corners{corners}",
            "AffineGrid",
            ["theta", "size"],
            {"theta": randn(2, 2, 3)},
            consts={"size": np.array([2, 3, 4, 5], np.int64)},
            opset=20,
            align_corners=corners,
        )
        for corners in (0, 1)
    ]
    + [
        op_case(
            f"affine_grid_3d_corners{corners}",
            "AffineGrid",
            ["theta", "size"],
            {"theta": randn(2, 3, 4)},
            consts={"size": np.array([2, 3, 4, 5, 6], np.int64)},
            opset=20,
            align_corners=corners,
        )
        for corners in (0, 1)
    ]
)


@pytest.mark.parametrize("case", RESIZE + DEPTH_SPACE + GRID_SAMPLE)
def test_image_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize(
    ("scales", "exclude_outside"),
    [([1, 1, 0.6, 0.5], 0), ([1, 1, 0.25, 0.3], 0), ([1, 1, 1.7, 0.4], 1)],
)
def test_antialiased_resize_matches_the_onnx_reference_compiled(
    mode: str, scales: list[float], exclude_outside: int
) -> None:
    """Antialias widens a shrinking axis' filter by 1/scale (a growing axis keeps its
    own): the compiled model against ONNX's reference, which defines it."""
    from onnx.reference import ReferenceEvaluator

    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    image = np.random.default_rng(9).standard_normal((1, 2, 24, 30)).astype(F32)
    model = make_model(
        [
            helper.make_node(
                "Resize",
                ["x", "", "scales"],
                ["y"],
                mode=mode,
                antialias=1,
                exclude_outside=exclude_outside,
            )
        ],
        {"x": image},
        initializers={"scales": np.array(scales, F32)},
        opset=18,
    )
    (expected,) = ReferenceEvaluator(model).run(None, {"x": image})
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    np.testing.assert_allclose(compiled.run({"x": image}), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("corners", [0, 1])
def test_cubic_grid_sample_matches_the_onnx_reference_compiled(padding: str, corners: int) -> None:
    """Cubic GridSample, compiled, against ONNX's reference: a coordinate is reflected
    (or, past the borders, clamped) first, then each of the 16 taps outside the input
    reads zero, the edge or its mirror image (onnxruntime clamps border coordinates
    differently: its cubic border results differ from the reference's)."""
    from onnx.reference import ReferenceEvaluator

    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    node = helper.make_node(
        "GridSample", ["x", "g"], ["y"], mode="cubic", padding_mode=padding, align_corners=corners
    )
    model = make_model([node], {"x": GRID_IMAGE, "g": GRID}, opset=20)
    feeds = {"x": GRID_IMAGE, "g": GRID}
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    np.testing.assert_allclose(compiled.run(feeds), expected, rtol=1e-4, atol=1e-5)


def test_resize_needs_exactly_one_of_scales_and_sizes() -> None:
    node = helper.make_node("Resize", ["x", "", "scales", "sizes"], ["y"], name="r2")
    graph = helper.make_graph(
        [node],
        "both",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(IMAGE.shape))],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3, 10, 14])],
        initializer=[
            numpy_helper.from_array(SCALES["up"], "scales"),
            numpy_helper.from_array(np.array([2, 3, 10, 14], np.int64), "sizes"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with pytest.raises(ModelImportError, match=r"r2.*exactly one of scales and sizes"):
        from_onnx(model)


def test_resize_axes_out_of_range_are_refused_by_name() -> None:
    model = raw_model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="r3", axes=[5])],
        [tensor("x", list(IMAGE.shape))],
        [tensor("y", [2, 3, 5, 7])],
        opset=18,
        initializers=[numpy_helper.from_array(np.array([2.0], F32), "scales")],
    )
    with pytest.raises(ModelImportError, match=r"r3.*axis 5 is out of range for rank 4"):
        from_onnx(model)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_tf_crop_and_resize_matches_the_onnx_reference(mode: str) -> None:
    """A crop reaching past the input (roi outside [0, 1]) takes the extrapolation value
    there, as ONNX's reference computes it (onnxruntime differs at such rois); compiled."""
    from onnx.reference import ReferenceEvaluator

    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    case = op_case(
        f"tf_crop_and_resize_{mode}",
        "Resize",
        ["x", "roi", "", "sizes"],
        {"x": IMAGE},
        consts={
            "roi": np.array([0, 0, 0.2, -0.3, 1, 1, 0.9, 1.2], F32),
            "sizes": np.array([IMAGE.shape[0], IMAGE.shape[1], 5, 8], np.int64),
        },
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=-2.5,
        mode=mode,
    ).values[0]
    model = case.model()
    (expected,) = ReferenceEvaluator(model).run(None, dict(case.feeds))
    target = host_target()
    actual = compile_model(prepare_for_target(model, target).function, target).run(case.feeds)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    assert (actual == -2.5).any()
