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
