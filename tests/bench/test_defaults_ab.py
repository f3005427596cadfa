"""bench/defaults_ab.py's model mode: the tasks of a real ONNX model whose default differs
from the base's trace are compiled both ways, checked against each other and timed; the
tasks whose default did not change are left out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from bench.defaults_ab import _model_traces, compare_model
from codegen.llvm import host_target


def _matmul_relu_model(path: Path) -> None:
    weight = np.random.default_rng(0).standard_normal((256, 192)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["product"]),
            helper.make_node("Relu", ["product"], ["y"]),
        ],
        "matmul_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [96, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [96, 192])],
        [numpy_helper.from_array(weight, "w")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_a_task_whose_default_changed_is_timed_against_the_base_trace(tmp_path: Path) -> None:
    path = tmp_path / "matmul_relu.onnx"
    _matmul_relu_model(path)
    target = str(host_target()).split(" -num-cores=")[0]
    two_cores, one_core = f"{target} -num-cores=2", f"{target} -num-cores=1"
    # One core's default runs no loop in parallel: another trace of the same task.
    base = _model_traces(str(path), one_core)
    assert base and base != _model_traces(str(path), two_cores)
    (row,) = compare_model(str(path), two_cores, base, rounds=1)
    task, base_ms, new_ms = row
    assert task.key in base and task.weight == 1
    assert base_ms > 0 and new_ms > 0
    assert compare_model(str(path), two_cores, _model_traces(str(path), two_cores), 1) == []
