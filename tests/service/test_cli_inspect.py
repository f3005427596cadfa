"""`autotune inspect` run as a real subprocess of the console script (the demo: test_demo.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from tests.support.cli import AUTOTUNE
from tests.support.onnx_models import light_model_path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], capture_output=True, text=True, timeout=300, check=False
    )


def _assert_clean_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("autotune inspect: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_inspect_prints_graph_and_fused_functions() -> None:
    result = _run("inspect", str(light_model_path("light_squeezenet")))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "input  data_0: 1x3x224x224 float32" in out
    assert "optimised graph (opt level 3)" in out
    assert "def @fused_nn_conv2d_nchwc_add_nn_relu" in out  # CPU convs in NCHW[b]c
    assert "fused functions:" in out
    assert "GFLOP" in out or "MFLOP" in out


def test_inspect_json_is_machine_readable() -> None:
    result = _run("inspect", str(light_model_path("light_resnet50")), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["imported"]["inputs"][0]["shape"] == [1, 3, 224, 224]
    fused = report["optimized"]["fused_functions"]
    convs = [f for f in fused if "nn.conv2d_nchwc" in f["ops"]]
    assert sum(f["calls"] for f in convs) == 53
    assert all(f["flops"] > 0 for f in convs)
    assert {"name", "ops", "output", "flops", "calls"} <= set(fused[0])
    # ResNet-50 at 224x224 is about 4.1 GMACs, i.e. 8.2 GFLOPs.
    assert 7.5e9 < report["optimized"]["flops"] < 9e9


def test_inspect_binds_symbolic_shapes(tmp_path: Path) -> None:
    node = helper.make_node("Relu", ["x"], ["y"], name="relu0")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
    )
    path = tmp_path / "sym.onnx"
    onnx.save(helper.make_model(graph), str(path))
    unbound = _run("inspect", str(path))
    _assert_clean_error(unbound, "x", "batch")
    bound = _run("inspect", str(path), "--shape", "x=4x8", "--json")
    assert bound.returncode == 0, bound.stderr
    assert json.loads(bound.stdout)["imported"]["inputs"][0]["shape"] == [4, 8]


def test_inspect_reports_bad_input_without_traceback(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x00\x01 this is not a model")
    _assert_clean_error(_run("inspect", str(garbage)), "ONNX")
    _assert_clean_error(_run("inspect", str(tmp_path / "missing.onnx")), "missing.onnx")
    _assert_clean_error(
        _run("inspect", str(light_model_path("light_squeezenet")), "--shape", "data_0=1xAx3"),
        "--shape",
    )
    node = helper.make_node("RandomUniformLike", ["x"], ["y"], name="strange_node")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    unsupported = tmp_path / "unsupported.onnx"
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(unsupported)
    )
    _assert_clean_error(_run("inspect", str(unsupported)), "RandomUniformLike", "strange_node")
