"""The model zoo's measuring path (bench/zoo.py) on a small model, without torch: our
artifact and profile, ONNX Runtime's run, the outputs compared, and the summary table."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx

from bench.zoo import measure_model, report_lines
from tests.codegen.aot.conftest import small_conv_model


def test_a_model_is_compiled_profiled_run_and_checked(tmp_path: Path) -> None:
    # A model already in the work folder is not exported again (no torch needed here).
    onnx.save(small_conv_model(), str(tmp_path / "lstm_2x128.onnx"))
    x = np.random.default_rng(0).standard_normal((1, 4, 6, 6)).astype(np.float32)
    np.savez(tmp_path / "lstm_2x128.inputs.npz", x=x)
    args = argparse.Namespace(time_limit=0.0, trials=8, threads=1, runs=2, rounds=1)
    row = measure_model("lstm_2x128", args, tmp_path)
    assert row["untuned_ms"] > 0 and row["onnxruntime_ms"] > 0
    assert row["tuned_ms"] is None  # no tuning asked for
    assert row["untuned_max_error"] <= 1e-4 * max(row["output_scale"], 1.0)
    kernels = row["profile"]["kernels"]
    assert kernels and abs(sum(kernel["share"] for kernel in kernels) - 1.0) < 1e-6
    assert any("kernel" in line for line in row["profile_table"])
    lines = report_lines([row], args, "testhost")
    assert lines[0].startswith("host: testhost")
    table_row = next(line for line in lines if line.startswith("lstm_2x128 "))
    assert f"{row['untuned_ms']:.2f}" in table_row


def test_the_summary_takes_geometric_means_and_keeps_failures() -> None:
    args = argparse.Namespace(time_limit=60.0, threads=2, runs=20, rounds=3)
    rows = [
        {"model": "a", "untuned_ms": 2.0, "tuned_ms": 1.0, "onnxruntime_ms": 1.0,
         "openvino_ms": 0.5, "untuned_max_error": 0.0, "output_scale": 1.0},
        {"model": "b", "untuned_ms": 8.0, "tuned_ms": 4.0, "onnxruntime_ms": 1.0,
         "openvino_ms": None, "untuned_max_error": 0.0, "output_scale": 1.0},
        {"model": "c", "error": "RuntimeError: export failed"},
    ]  # fmt: skip
    lines = report_lines(rows, args, "testhost")
    means = next(line for line in lines if line.startswith("geometric mean"))
    assert "untuned 4.00" in means and "tuned 2.00" in means and "openvino 0.50" in means
    assert any(line.startswith("c ") and "failed: RuntimeError" in line for line in lines)
