"""bench/int8.py's parts: the two networks it builds are valid ONNX with the layers of
their architectures, and its report reads off a row."""

from __future__ import annotations

from collections import Counter

from bench.int8 import mobilenet_v2, report, resnet50


def test_the_networks_have_their_architectures_layers() -> None:
    resnet = Counter(node.op_type for node in resnet50().graph.node)
    assert resnet["Conv"] == 53 and resnet["Add"] == 16 and resnet["Gemm"] == 1
    mobilenet = mobilenet_v2().graph.node
    depthwise = [
        node
        for node in mobilenet
        if node.op_type == "Conv" and any(a.name == "group" and a.i > 1 for a in node.attribute)
    ]
    assert len(depthwise) == 17 and Counter(n.op_type for n in mobilenet)["Add"] == 10


def test_the_report_gives_the_ratios() -> None:
    row = {
        "model": "resnet50",
        "integer_kernels": 53,
        "error_steps": 1.0,
        "ours_float": 40.0,
        "ours_int8": 10.0,
        "ort_float": 38.0,
        "ort_int8": 20.0,
    }
    lines = report([row], "znver4", "llvm -mcpu=znver4", reduce_range=False)
    assert "8-bit int8 weights" in lines[0] and "znver4" in lines[0]
    (line,) = [line for line in lines if line.startswith("resnet50")]
    assert line.split()[-2:] == ["0.50", "4.00"]


def test_the_report_gives_the_tuned_ratio_of_a_qoperator_model() -> None:
    row = {
        "model": "mobilenet_v2",
        "integer_kernels": 36,
        "error_steps": 0.0,
        "ours_float": 4.0,
        "ours_int8": 2.5,
        "ort_float": 4.2,
        "ort_int8": 2.0,
        "ours_int8_tuned": 1.8,
        "tune_s": 301.0,
    }
    lines = report([row], "znver4", "llvm", reduce_range=True, qoperator=True, tune_s=300)
    assert "QOperator models, 7-bit" in lines[0] and "tuned for 300 s" in lines[0]
    (line,) = [line for line in lines if line.startswith("mobilenet_v2")]
    assert line.split()[-5:] == ["1.25", "1.60", "1.80", "0.90", "301"]
