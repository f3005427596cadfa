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
from onnx import TensorProto, helper, numpy_helper

from service.example_models import cut_at_logits as cut_at_logits
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


def decoder_model() -> onnx.ModelProto:
    """An image decoder in the shape of a PyTorch export (opset 21): Conv,
    InstanceNormalization, Mish, a strided ConvTranspose, nearest and linear Resize,
    GroupNormalization, Softplus, DepthToSpace and Elu, on a (2, 4, 8, 8) input."""
    rng = np.random.default_rng(3)

    def weight(name: str, *shape: int, scale: float = 0.3) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name
        )

    initializers = [
        weight("w_in", 16, 4, 3, 3),
        weight("in_scale", 16, scale=1.0),
        weight("in_bias", 16, scale=1.0),
        weight("w_up", 16, 8, 4, 4),
        weight("b_up", 8, scale=1.0),
        weight("gn_scale", 16, scale=1.0),
        weight("gn_bias", 16, scale=1.0),
        weight("w_out", 12, 16, 3, 3),
        numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up2"),
        numpy_helper.from_array(np.array([2, 4, 16, 16], np.int64), "skip_size"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w_in"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("InstanceNormalization", ["c1", "in_scale", "in_bias"], ["n1"]),
        helper.make_node("Mish", ["n1"], ["a1"]),
        helper.make_node(
            "ConvTranspose", ["a1", "w_up", "b_up"], ["up"], strides=[2, 2], pads=[1, 1, 1, 1]
        ),
        helper.make_node(
            "Resize",
            ["x", "", "", "skip_size"],
            ["skip0"],
            mode="nearest",
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
        ),
        helper.make_node("Concat", ["up", "skip0", "skip0"], ["cat"], axis=1),
        helper.make_node(
            "GroupNormalization", ["cat", "gn_scale", "gn_bias"], ["gn"], num_groups=4
        ),
        helper.make_node("Softplus", ["gn"], ["a2"]),
        helper.make_node("Conv", ["a2", "w_out"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("DepthToSpace", ["c2"], ["d2s"], blocksize=2, mode="CRD"),
        helper.make_node("Resize", ["d2s", "", "up2"], ["big"], mode="linear"),
        helper.make_node("Elu", ["big"], ["y"], alpha=0.5),
    ]
    graph = helper.make_graph(
        nodes,
        "decoder",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 64, 64])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def batched_cnn(batch: str = "batch") -> onnx.ModelProto:
    """A small image classifier with a symbolic batch dim named `batch` on its input and
    output: a strided stem conv with bias and relu, max pooling, a depthwise conv, batch
    norm, a residual block whose 1 x 1 conv has 20 output channels (a part-filled channel
    block), explicit spatial padding, average and global pooling, flatten and a dense head."""
    rng = np.random.default_rng(7)

    def weight(name: str, *shape: int, scale: float = 0.3) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name
        )

    node = helper.make_node
    nodes = [
        node("Conv", ["x", "w_stem", "b_stem"], ["stem"], pads=[1, 1, 1, 1], strides=[2, 2]),
        node("Relu", ["stem"], ["stem_relu"]),
        node(
            "MaxPool",
            ["stem_relu"],
            ["pooled"],
            kernel_shape=[3, 3],
            strides=[2, 2],
            pads=[1, 1, 1, 1],
        ),
        node("Conv", ["pooled", "w_depthwise"], ["depthwise"], group=16, pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["depthwise", "gamma", "beta", "mean", "variance"], ["normed"]),
        node("Conv", ["normed", "w_expand"], ["expanded"]),
        node("Conv", ["pooled", "w_skip"], ["skip"]),
        node("Add", ["expanded", "skip"], ["block"]),
        node("Relu", ["block"], ["block_relu"]),
        node("Pad", ["block_relu", "pads"], ["padded"]),
        node("AveragePool", ["padded"], ["averaged"], kernel_shape=[2, 2], strides=[2, 2]),
        node("GlobalAveragePool", ["averaged"], ["global"]),
        node("Flatten", ["global"], ["flat"]),
        node("Gemm", ["flat", "w_head", "b_head"], ["y"], transB=1),
    ]
    initializers = [
        weight("w_stem", 16, 3, 3, 3),
        weight("b_stem", 16),
        weight("w_depthwise", 16, 1, 3, 3),
        weight("gamma", 16),
        weight("beta", 16),
        weight("mean", 16),
        numpy_helper.from_array((rng.random(16) + 0.5).astype(np.float32), "variance"),
        weight("w_expand", 20, 16, 1, 1),
        weight("w_skip", 20, 16, 1, 1),
        numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
        weight("w_head", 10, 20),
        weight("b_head", 10),
    ]
    graph = helper.make_graph(
        nodes,
        "batched_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model
