"""Models with symbolic input dims compile once and run every shape within the bounds:
the executor binds the size variables from the inputs, sizes each intermediate from them
in the slot planned for the upper bounds, and refuses shapes that break the bounds, by
input and dim, before anything runs."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper

from codegen.backends import default_schedule_for
from codegen.executor import CompiledModel, InputError, compile_model
from codegen.llvm import host_target
from codegen.measure import workload_from_task_json
from ir.frontend.onnx.importer import import_model
from ir.frontend.onnx.symbolic_dims import DimRange
from ir.graph.passes.narrow_sizes import SMALL_SIZE
from ir.graph.passes.pipeline import optimize
from ir.lower import lower
from ir.te.program import function_to_te
from ir.tir.printer import format_func
from tests.ir.frontend.onnx_helpers import make_model, randn, run_onnxruntime
from tests.ir.frontend.test_onnx_transformer import HIDDEN, transformer_block
from tests.support.onnx_models import batched_cnn
from tuner.tasks import extract_tasks

BLOCK_RANGES = {"x": (DimRange(1, 4), DimRange(1, 64), HIDDEN)}


@pytest.fixture(scope="module")
def block_model() -> onnx.ModelProto:
    return transformer_block()


@pytest.fixture(scope="module")
def block(block_model: onnx.ModelProto) -> CompiledModel:
    return compile_model(optimize(import_model(block_model, shape=BLOCK_RANGES).function))


@pytest.mark.parametrize("shape", [(1, 1, HIDDEN), (2, 17, HIDDEN), (4, 64, HIDDEN), (3, 5, 16)])
def test_one_compiled_transformer_block_matches_onnxruntime_at_every_shape(
    block_model: onnx.ModelProto, block: CompiledModel, shape: tuple[int, int, int]
) -> None:
    x = randn(*shape)
    (expected,) = run_onnxruntime(block_model, {"x": x})
    actual = block.run({"x": x})
    assert actual.shape == shape
    np.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-4)


def test_a_smaller_shape_between_two_runs_leaves_no_trace(block: CompiledModel) -> None:
    large, small = randn(4, 64, HIDDEN), randn(1, 3, HIDDEN)
    first = block.run({"x": large})
    alone = block.run({"x": small})
    np.testing.assert_array_equal(block.run({"x": large}), first)
    np.testing.assert_array_equal(block.run({"x": small}), alone)


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((1, 65, HIDDEN), r"input 'x' dim 1 \(seq\) is 65, outside \[1, 64\]"),
        ((5, 2, HIDDEN), r"input 'x' dim 0 \(batch\) is 5, outside \[1, 4\]"),
        ((1, 2, HIDDEN + 1), r"input 'x' dim 2 must be 16 = 16; got 17"),
        ((2, HIDDEN), r"input 'x': expected shape \[batch, seq, 16\] float32 \(batch <= 4, "),
    ],
)
def test_a_shape_outside_the_bounds_is_refused_by_input_and_dim(
    block: CompiledModel, shape: tuple[int, ...], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        block.run({"x": randn(*shape)})


def test_a_size_bound_two_ways_by_the_inputs_is_refused_naming_both() -> None:
    nodes = [helper.make_node("Add", ["a", "b"], ["y"])]
    model = make_model(nodes, {"a": (["n", 4], np.float32), "b": (["n", 4], np.float32)})
    imported = import_model(model.SerializeToString(), shape={"a": (DimRange(1, 8), 4)})
    compiled = compile_model(optimize(imported.function))
    np.testing.assert_allclose(
        compiled.run({"a": np.ones((3, 4), np.float32), "b": np.ones((3, 4), np.float32)}), 2
    )
    with pytest.raises(InputError, match=r"n is 2 by input 'a' dim 0 but 3 by input 'b' dim 0"):
        compiled.run({"a": randn(2, 4), "b": randn(3, 4)})


def _exported_embeddings() -> onnx.ModelProto:
    """Token and position embeddings as torch.onnx exports them for dynamic axes: position
    ids sliced from a buffer to the run-time sequence length and expanded to the batch
    through the exporter's ConstantOfShape / Equal / Where dance, and a Range over the
    sequence scaling the result."""
    node = helper.make_node
    nodes = [
        node("Shape", ["input_ids"], ["shape"]),
        node("Gather", ["shape", "zero"], ["batch"], axis=0),
        node("Gather", ["shape", "one"], ["seq"], axis=0),
        node("Unsqueeze", ["batch", "axis0"], ["batch_1"]),
        node("Unsqueeze", ["seq", "axis0"], ["seq_1"]),
        node("Slice", ["position_buffer", "axis0", "seq_1", "one_1"], ["positions"]),
        node("Concat", ["batch_1", "seq_1"], ["target"], axis=0),
        node("Shape", ["target"], ["target_shape"]),
        node(
            "ConstantOfShape",
            ["target_shape"],
            ["ones"],
            value=helper.make_tensor("v", 7, [1], [1]),
        ),
        node("Mul", ["ones", "minus_one"], ["minus_ones"]),
        node("Equal", ["target", "minus_ones"], ["keep"]),
        node("Where", ["keep", "ones", "target"], ["expand_shape"]),
        node("Expand", ["positions", "expand_shape"], ["position_ids"]),
        node("Gather", ["word_table", "input_ids"], ["words"]),
        node("Gather", ["position_table", "position_ids"], ["placed"]),
        node("Add", ["words", "placed"], ["embedded"]),
        node("Cast", ["seq"], ["seq_float"], to=1),
        node("Range", ["zero_float", "seq_float", "one_float"], ["ramp"]),
        node("Unsqueeze", ["ramp", "ramp_axes"], ["ramp_3d"]),
        node("Mul", ["embedded", "ramp_3d"], ["y"]),
    ]
    initializers = {
        "zero": np.array(0, np.int64),
        "one": np.array(1, np.int64),
        "axis0": np.array([0], np.int64),
        "one_1": np.array([1], np.int64),
        "minus_one": np.array(-1, np.int64),
        "position_buffer": np.arange(32, dtype=np.int64).reshape(1, 32),
        "word_table": randn(50, 8),
        "position_table": randn(32, 8),
        "zero_float": np.array(0.0, np.float32),
        "one_float": np.array(1.0, np.float32),
        "ramp_axes": np.array([0, 2], np.int64),
    }
    inputs = {"input_ids": (["batch", "sequence"], np.int64)}
    return make_model(nodes, inputs, initializers=initializers, opset=17)


def test_exported_shape_computations_compile_once_for_every_shape() -> None:
    model = _exported_embeddings()
    ranges = {"input_ids": (DimRange(1, 3), DimRange(1, 32))}
    compiled = compile_model(optimize(import_model(model, shape=ranges).function))
    rng = np.random.default_rng(5)
    for batch, sequence in ((1, 1), (2, 7), (3, 32)):
        ids = rng.integers(0, 50, (batch, sequence)).astype(np.int64)
        (expected,) = run_onnxruntime(model, {"input_ids": ids})
        np.testing.assert_allclose(compiled.run({"input_ids": ids}), expected, rtol=1e-6)


def test_a_range_of_one_size_and_a_range_up_to_it_compile_alike() -> None:
    """batch in 1..1 pins the batch while it stays a size variable (shape computations
    on it simplify to constants, and must not be folded as ones)."""
    model = _exported_embeddings()
    compiled = compile_model(
        optimize(
            import_model(model, shape={"input_ids": (DimRange(1, 1), DimRange(1, 8))}).function
        )
    )
    ids = np.arange(5, dtype=np.int64).reshape(1, 5)
    (expected,) = run_onnxruntime(model, {"input_ids": ids})
    np.testing.assert_allclose(compiled.run({"input_ids": ids}), expected, rtol=1e-6)
    with pytest.raises(
        InputError, match=r"input 'input_ids' dim 0 \(batch\) is 2, outside \[1, 1\]"
    ):
        compiled.run({"input_ids": np.zeros((2, 5), np.int64)})


CNN_RANGES = {"x": (DimRange(1, 8), 3, 32, 32)}


@pytest.fixture(scope="module")
def cnn() -> CompiledModel:
    return compile_model(optimize(import_model(batched_cnn(), shape=CNN_RANGES).function))


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_one_compiled_cnn_matches_onnxruntime_at_every_batch(
    cnn: CompiledModel, batch: int
) -> None:
    x = randn(batch, 3, 32, 32)
    (expected,) = run_onnxruntime(batched_cnn(), {"x": x})
    np.testing.assert_allclose(cnn.run({"x": x}), expected, rtol=1e-4, atol=1e-5)


def _conv_model(
    channels: int, outputs: int, kernel: int, stride: int, pad: int, depthwise: bool, pool: str
) -> onnx.ModelProto:
    """Conv (+ bias, relu) then a pool, on a symbolic batch of 11 x 13 images."""
    groups = channels if depthwise else 1
    outputs = channels if depthwise else outputs
    nodes = [
        helper.make_node(
            "Conv",
            ["x", "w", "b"],
            ["conv"],
            kernel_shape=[kernel, kernel],
            strides=[stride, stride],
            pads=[pad] * 4,
            group=groups,
        ),
        helper.make_node("Relu", ["conv"], ["relu"]),
    ]
    if pool == "max":
        nodes.append(
            helper.make_node("MaxPool", ["relu"], ["y"], kernel_shape=[2, 2], pads=[1, 1, 0, 0])
        )
    elif pool == "average":
        nodes.append(helper.make_node("AveragePool", ["relu"], ["y"], kernel_shape=[2, 2]))
    else:
        nodes.append(helper.make_node("GlobalMaxPool", ["relu"], ["y"]))
    weights = {
        "w": randn(outputs, channels // groups, kernel, kernel),
        "b": randn(outputs),
    }
    return make_model(nodes, {"x": (["n", channels, 11, 13], np.float32)}, initializers=weights)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    channels=st.sampled_from([3, 8, 16, 20]),
    outputs=st.sampled_from([4, 16, 24, 40]),
    kernel=st.integers(1, 3),
    stride=st.integers(1, 2),
    pad=st.integers(0, 1),
    depthwise=st.booleans(),
    pool=st.sampled_from(["max", "average", "global"]),
    batch=st.integers(1, 5),
)
def test_convs_and_pools_over_a_symbolic_batch_match_onnxruntime_at_any_batch(
    channels: int,
    outputs: int,
    kernel: int,
    stride: int,
    pad: int,
    depthwise: bool,
    pool: str,
    batch: int,
) -> None:
    """Compiled once for batches 1..5 (blocked channels, padded blocks, depthwise convs,
    default schedules with the batch a run-time extent), right at any batch."""
    model = _conv_model(channels, outputs, kernel, stride, pad, depthwise, pool)
    ranges = {"x": (DimRange(1, 5), channels, 11, 13)}
    compiled = compile_model(optimize(import_model(model, shape=ranges).function))
    for size in sorted({batch, 5}):
        x = randn(size, channels, 11, 13)
        (expected,) = run_onnxruntime(model, {"x": x})
        np.testing.assert_allclose(compiled.run({"x": x}), expected, rtol=1e-4, atol=1e-4)


def test_a_conv_over_a_symbolic_batch_lowers_without_batch_guards() -> None:
    """The default conv schedule fuses the batch into its parallel loop, which runs to
    batch x rows exactly; the register tile computed inside it reads one image of that
    loop's, so it needs no guard of its own (one cost 16% of a ResNet-50 conv)."""
    function = optimize(import_model(batched_cnn(), shape=CNN_RANGES).function)
    target = host_target()
    (conv,) = [
        task for task in extract_tasks(function, target) if "conv2d_nchwc_add_nn_relu" in task.name
    ]
    workload, constants = workload_from_task_json(conv.to_json())
    text = format_func(lower(default_schedule_for(function_to_te(workload), target, constants)))
    assert "range((batch * " in text
    assert "< batch)" not in text


def test_a_wide_range_dispatches_small_sizes_to_a_lowering_of_their_own(
    block_model: onnx.ModelProto,
) -> None:
    """seq in 1..128 reaches past 2 x SMALL_SIZE: kernels over it branch on seq <= 32 to
    a lowering narrowed to those sizes; both sides match onnxruntime."""
    ranges = {"x": (DimRange(1, 2), DimRange(1, 128), HIDDEN)}
    compiled = compile_model(optimize(import_model(block_model, shape=ranges).function))
    texts = [format_func(kernel.func) for kernel in compiled.plan.kernels]
    assert any(f"if (seq <= {SMALL_SIZE}):" in text for text in texts)
    assert not any("batch <=" in text for text in texts)  # (batch's range is narrow)
    for shape in ((1, 5, HIDDEN), (2, 32, HIDDEN), (2, 33, HIDDEN), (1, 128, HIDDEN)):
        x = randn(*shape)
        (expected,) = run_onnxruntime(block_model, {"x": x})
        np.testing.assert_allclose(compiled.run({"x": x}), expected, rtol=1e-3, atol=1e-4)
