"""Ops that PyTorch exports bring (ConvTranspose, Resize, Instance/GroupNormalization,
DepthToSpace, Einsum, CumSum, Trilu, RNN/GRU/LSTM, GatherElements, ScatterND, OneHot, Mish,
Softplus, Mod, ...), compiled and run against onnxruntime.

The single-node cases of the frontend tests go through the pass pipeline, fusion and the
LLVM backend here (the frontend tests check the import with the numpy oracle only). A
small decoder network that chains them is compiled both by JIT and into an artifact run
through the loader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.executor import compile_model
from codegen.runtime.loader import load_artifact
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.reference import check_close
from tests.codegen.aot.conftest import compile_onnx
from tests.ir.frontend.onnx_helpers import OpCase, run_onnxruntime
from tests.ir.frontend.test_onnx_ops_einsum import CUMSUM, EINSUM, TRILU
from tests.ir.frontend.test_onnx_ops_image import DEPTH_SPACE, RESIZE
from tests.ir.frontend.test_onnx_ops_indexing import INDEXING
from tests.ir.frontend.test_onnx_ops_math import ACTIVATIONS, LOGICAL_AND_MOD
from tests.ir.frontend.test_onnx_ops_nn import CONV_TRANSPOSE, NORM_GROUPS
from tests.ir.frontend.test_onnx_ops_rnn import CASES as RECURRENT
from tests.support.onnx_models import decoder_model

RTOL, ATOL = 1e-4, 1e-5

# One Resize case per mode and coordinate rule, and the special ones.
RESIZE_SAMPLE = {
    "nearest_asymmetric_up",
    "nearest_half_pixel_down",
    "linear_half_pixel_mixed",
    "linear_align_corners_up",
    "cubic_pytorch_half_pixel_mixed",
    "cubic_exclude_outside_down",
    "nearest_round_prefer_ceil_half_pixel",
    "nearest_int32",
    "axes_18",
    "upsample_9_linear",
}
NEW_ACTIVATIONS = {
    "elu",
    "selu",
    "celu",
    "softplus",
    "softsign",
    "mish",
    "thresholded_relu",
    "sign",
    "sin",
    "cos",
}


def _selected(params: list[Any], names: set[str] | None = None) -> list[Any]:
    return [param for param in params if names is None or param.id in names]


CASES = (
    _selected(CONV_TRANSPOSE)
    + _selected(NORM_GROUPS)
    + _selected(RESIZE, RESIZE_SAMPLE)
    + _selected(DEPTH_SPACE)
    + _selected(ACTIVATIONS, NEW_ACTIVATIONS)
    + _selected(LOGICAL_AND_MOD)
    + _selected(EINSUM + CUMSUM + TRILU)
    + _selected(RECURRENT)
    + _selected(INDEXING)
)


def test_the_samples_exist() -> None:
    ids = {param.id for param in [*RESIZE, *ACTIVATIONS]}
    assert ids >= RESIZE_SAMPLE | NEW_ACTIVATIONS


@pytest.mark.parametrize("case", CASES)
def test_compiled_op_matches_onnxruntime(case: OpCase) -> None:
    model = case.model()
    expected = run_onnxruntime(model, case.feeds)
    compiled = compile_model(optimize(from_onnx(model)))
    actual = compiled.run(dict(case.feeds))
    actual = list(actual) if isinstance(actual, tuple) else [actual]
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        got = np.asarray(got)
        assert got.dtype == want.dtype, f"output {index}: {got.dtype} != {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {index}")


def test_decoder_network_compiles_to_onnxruntime_results(tmp_path: Path) -> None:
    model = decoder_model()
    x = np.random.default_rng(4).standard_normal((2, 4, 8, 8)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {"x": x})
    assert np.std(expected) > 1e-2
    jit = compile_model(optimize(from_onnx(model))).run({"x": x})
    check_close(np.asarray(jit), expected, 1e-3, 1e-4, what="decoder (JIT)")
    artifact = compile_onnx(model, tmp_path)
    with load_artifact(artifact.path) as loaded:
        outputs = loaded.run({"x": x})
    check_close(outputs["y"], expected, 1e-3, 1e-4, what="decoder (artifact)")
