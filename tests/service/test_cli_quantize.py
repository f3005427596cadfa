"""`autotune quantize` from the command line: random or folder calibration, the summary
(plain and JSON), and errors that name the argument."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from codegen.llvm.target import parse_cpu_target
from codegen.prepare import prepare_for_target
from ir.graph.ops.quantized import PAIR
from service.cli import main
from tests.support.quantized_models import kernel_calls
from tests.tuner.test_quantize import small_cnn


@pytest.fixture
def model_path(tmp_path: Path) -> Path:
    path = tmp_path / "cnn.onnx"
    onnx.save(small_cnn(), str(path))
    return path


def test_quantize_with_random_inputs_writes_a_qdq_model(
    model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "cnn.int8.onnx"
    argv = ["quantize", str(model_path), "--random", "8", "-o", str(out), "--skip", "fc"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "quantized 2 node(s) (int8 weights per channel, uint8 activations" in text
    assert "conv1 (Conv), conv2 (Conv)" in text and "left in float: fc" in text
    model = onnx.load(str(out))
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node].count("QuantizeLinear") == 2


def test_reduce_range_writes_7_bit_weights_that_run_as_pair_sums_on_avx2(
    model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--reduce-range: every weight in [-64, 64], so both convs and the Gemm run as AVX2
    pair-sum kernels (vpmaddubsw) when compiled for a CPU without VNNI."""
    out = tmp_path / "cnn.int8.onnx"
    argv = ["quantize", str(model_path), "--random", "8", "--reduce-range", "-o", str(out)]
    assert main(argv) == 0
    assert "(7-bit int8 weights per channel" in capsys.readouterr().out
    model = onnx.load(str(out))
    weights = [
        numpy_helper.to_array(init)
        for init in model.graph.initializer
        if init.data_type == onnx.TensorProto.INT8 and len(init.dims) >= 2
    ]
    assert len(weights) == 3 and all(np.abs(w.astype(int)).max() <= 64 for w in weights)
    avx2 = parse_cpu_target("llvm -mcpu=znver3")
    prepared = prepare_for_target(model, avx2).function
    convs = [node for node in kernel_calls(prepared) if node.op == "qnn.conv2d_nchwc"]
    assert len(convs) == 3 and all(conv.attrs["dot_form"] == PAIR for conv in convs)


def test_quantize_with_a_calibration_folder_and_json(
    model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "calibration"
    folder.mkdir()
    rng = np.random.default_rng(3)
    for index in range(3):
        np.savez(folder / f"{index}.npz", x=rng.uniform(0, 1, (1, 3, 16, 16)).astype(np.float32))
    out = tmp_path / "cnn.int8.onnx"
    argv = ["quantize", str(model_path), "--calibration", str(folder), "-o", str(out)]
    assert main([*argv, "--method", "percentile", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [node["node"] for node in summary["quantized"]] == ["conv1", "conv2", "fc"]
    low, high = summary["ranges"]["x"]
    assert 0.0 <= low < 0.01 and 0.99 < high <= 1.0  # the folder's inputs, not random ones
    np.savez(folder / "wrong.npz", image=np.zeros((1, 3, 16, 16), np.float32))
    assert main(argv) == 1
    error = capsys.readouterr().err
    assert "wrong.npz: the model's inputs are ['x']; missing ['x']; not inputs: ['image']" in error


def test_quantize_refuses_bad_arguments_by_name(
    model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "o.onnx")
    assert main(["quantize", str(model_path), "--random", "0", "-o", out]) == 1
    assert "--random must be at least 1" in capsys.readouterr().err
    assert main(["quantize", str(model_path), "--calibration", str(tmp_path), "-o", out]) == 1
    assert "no .npz files in it" in capsys.readouterr().err
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"not a model")
    assert main(["quantize", str(garbage), "--random", "2", "-o", out]) == 1
    assert "cannot read ONNX model" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["quantize", str(model_path), "-o", out])  # no calibration source
