"""A QDQ model's artifact: its manifest lists the integer kernels (and whether they use
8-bit dot-product instructions), and the numpy-only loader runs it within one output
step of onnxruntime's int8 run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from onnxruntime.quantization import QuantType

from codegen.llvm import host_target
from codegen.runtime.loader import load_artifact
from tests.codegen.aot.conftest import compile_onnx
from tests.support.onnx_models import run_onnxruntime
from tests.support.quantized_models import (
    output_step,
    quantized_by_onnxruntime,
    residual_block,
    seeded_inputs,
)


def test_the_manifest_lists_the_integer_kernels_and_the_artifact_matches_onnxruntime(
    tmp_path: Path,
) -> None:
    model = quantized_by_onnxruntime(tmp_path, residual_block(8), QuantType.QUInt8, QuantType.QInt8)
    artifact = compile_onnx(model, tmp_path / "out")
    integer = artifact.manifest["integer_kernels"]
    assert len(integer) == 4  # three convs and the Gemm
    assert all(kernel["function"].startswith("fused_qnn_conv2d_nchwc") for kernel in integer)
    target = host_target()
    vnni = (target.vector_bits == 512 and target.has_feature("avx512vnni")) or (
        target.vector_bits >= 256 and target.has_feature("avxvnni")
    )
    assert all(kernel["dot_product_instructions"] == vnni for kernel in integer)
    loaded = load_artifact(artifact.path)
    for inputs in seeded_inputs(3, 11, 8):
        ours = loaded.run(inputs)["y"]
        theirs = run_onnxruntime(model, inputs, "y")
        assert np.abs(ours - theirs).max() <= output_step(model) * 1.001
