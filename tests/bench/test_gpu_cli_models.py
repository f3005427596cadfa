"""The GPU models stage's command-line runs (bench/gpu_cli_models.py), on the CPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from bench.common import workload_arrays, workload_onnx
from bench.gpu_cli_models import judged, run_cli, tune


def _conv_model(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray], np.ndarray]:
    workload = {"name": "conv", "op": "conv2d", "N": 1, "C": 4, "H": 10, "W": 10, "K": 8,
                "R": 3, "S": 3, "stride": 1, "pad": 1}  # fmt: skip
    model, feeds = workload_onnx(workload, workload_arrays(workload))
    path = tmp_path / "conv.onnx"
    path.write_bytes(model)
    import onnxruntime

    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, feeds)
    return path, feeds, expected


def test_a_model_runs_through_the_command_line_and_is_checked(tmp_path: Path) -> None:
    path, feeds, expected = _conv_model(tmp_path)
    report = run_cli(path, feeds, tmp_path, runs=3, records=None, target="llvm")
    row = judged(report, expected, "conv")
    assert row["correct"] and row["max_abs_err"] < 1e-4
    assert row["latency_ms"] > 0 and row["kernels"] >= 1
    # A wrong answer is caught, not averaged away.
    wrong = run_cli(path, feeds, tmp_path, runs=1, records=None, target="llvm")
    wrong["outputs_arrays"][0] = wrong["outputs_arrays"][0] + 1.0
    assert judged(wrong, expected, "conv")["correct"] is False


@pytest.mark.slow
def test_a_model_tuned_through_the_command_line_runs_with_its_records(tmp_path: Path) -> None:
    path, feeds, expected = _conv_model(tmp_path)
    records, summary = tune(path, tmp_path, time_limit_s=20, target="llvm")
    assert records.is_file() and summary["measured"] >= 1
    row = judged(run_cli(path, feeds, tmp_path, 3, records, target="llvm"), expected, "conv")
    assert row["correct"] and row["tuned_kernels"] == row["kernels"]
    assert onnx.load(str(path)).graph.node  # the model file is left as it was
