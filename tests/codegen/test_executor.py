"""The JIT executor (codegen.executor.CompiledModel) across runs: kernels that touch only
weights and intermediates are bound once, those that read an input or write an output are
bound to each run's arrays, and every run returns fresh outputs."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from codegen.executor import CompiledModel, InputError, compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target

RNG = np.random.default_rng(11)
W1, W2, W3 = (RNG.normal(0, 0.5, (16, 16)).astype(np.float32) for _ in range(3))


def three_matmuls() -> onnx.ModelProto:
    """y = tanh(relu(x @ W1) @ W2) @ W3: the middle kernel reads and writes neither an
    input nor an output."""
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["a"]),
            helper.make_node("Relu", ["a"], ["b"]),
            helper.make_node("MatMul", ["b", "w2"], ["c"]),
            helper.make_node("Tanh", ["c"], ["d"]),
            helper.make_node("MatMul", ["d", "w3"], ["y"]),
        ],
        "three_matmuls",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])],
        [
            numpy_helper.from_array(W1, "w1"),
            numpy_helper.from_array(W2, "w2"),
            numpy_helper.from_array(W3, "w3"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def reference(x: np.ndarray) -> np.ndarray:
    """The model in numpy."""
    return np.asarray(np.tanh(np.maximum(x @ W1, 0) @ W2) @ W3)


def compiled() -> CompiledModel:
    """The model, optimised and compiled for this host with default schedules."""
    target = host_target()
    return compile_model(prepare_for_target(three_matmuls(), target).function, target)


def test_each_run_reads_its_own_inputs_and_returns_fresh_outputs() -> None:
    model = compiled()
    assert model.num_kernels >= 3
    first_input = RNG.normal(0, 1, (4, 16)).astype(np.float32)
    second_input = RNG.normal(0, 1, (4, 16)).astype(np.float32)

    first = np.asarray(model.run({"x": first_input}))
    second = np.asarray(model.run({"x": second_input}))
    np.testing.assert_allclose(first, reference(first_input), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(second, reference(second_input), rtol=1e-4, atol=1e-4)
    # the first result is not overwritten by the second run
    np.testing.assert_allclose(first, reference(first_input), rtol=1e-4, atol=1e-4)

    # the same array changed in place between runs is read again
    first_input *= -2.0
    third = np.asarray(model.run({"x": first_input}))
    np.testing.assert_allclose(third, reference(first_input), rtol=1e-4, atol=1e-4)


def test_kernels_on_weights_and_intermediates_alone_are_bound_once() -> None:
    model = compiled()
    feeds = {"x": RNG.normal(0, 1, (4, 16)).astype(np.float32)}
    first = model.bind(feeds).calls
    second = model.bind({"x": feeds["x"].copy()}).calls
    shared = [a for a, b in zip(first, second, strict=True) if a is b]
    rebound = [a for a, b in zip(first, second, strict=True) if a is not b]
    # the middle matmul (with its tanh) is shared; the first reads x, the last writes y
    assert len(shared) >= 1
    assert len(rebound) >= 2


def test_an_input_of_another_shape_or_rank_is_refused_naming_the_dim() -> None:
    model = compiled()
    with pytest.raises(
        InputError,
        match=r"input 'x': expected shape \[4, 16\] float32, got shape \[5, 16\] float32 "
        r"\(dim 0 is 5, not 4\)",
    ):
        model.run({"x": np.zeros((5, 16), np.float32)})
    with pytest.raises(InputError, match=r"\(rank 3, not 2\)"):
        model.run({"x": np.zeros((1, 4, 16), np.float32)})
