"""The light ONNX models shipped in the onnx wheel, with helpers to test against onnxruntime.

The shipped weights are ConstantOfShape fills, so every class scores the same; tests
replace every float initializer and weight-making ConstantOfShape with seeded random
values scaled by their role (He-scaled conv/gemm weights, positive BN variances), and
compare the logits before the final softmax.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from service.example_models import logits_name as logits_name
from service.example_models import randomize_weights as randomize_weights
from service.example_models import runtime_inputs as runtime_inputs

LIGHT_MODELS = (
    "light_bvlc_alexnet",
    "light_densenet121",
    "light_inception_v1",
    "light_inception_v2",
    "light_resnet50",
    "light_shufflenet",
    "light_squeezenet",
    "light_vgg19",
    "light_zfnet512",
)

LIGHT_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def light_model_path(name: str) -> Path:
    """Path of a light model in the installed onnx package."""
    return LIGHT_DIR / f"{name}.onnx"


def load_light_model(name: str) -> onnx.ModelProto:
    """Load a light model."""
    return onnx.load(str(light_model_path(name)))


def expected_output(name: str) -> np.ndarray:
    """The shipped reference output `light_*_output_0.pb`."""
    tensor = onnx.TensorProto()
    tensor.ParseFromString((LIGHT_DIR / f"{name}_output_0.pb").read_bytes())
    return numpy_helper.to_array(tensor)


def run_onnxruntime(
    model: onnx.ModelProto, inputs: Mapping[str, np.ndarray], output: str, threads: int = 2
) -> np.ndarray:
    """Run `model` with onnxruntime and return the value named `output`."""
    import onnxruntime

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    if output not in {o.name for o in copy.graph.output}:
        copy.graph.output.append(
            helper.make_tensor_value_info(output, onnx.TensorProto.FLOAT, None)
        )
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(
        copy.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return np.asarray(session.run([output], dict(inputs))[0])
