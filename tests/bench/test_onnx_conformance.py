"""ONNX's backend node tests (bench/onnx_conformance.py): autotune passes at least as many
as the floor committed in the repo, and the runner survives a child that dies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.onnx_conformance import (
    TARGET_VARIABLE,
    CaseResult,
    collect_cases,
    floor_cases,
    mismatch,
    read_floor,
    run_cases,
    totals,
    write_floor,
)


def test_outputs_compare_as_onnx_backend_runner_does() -> None:
    want = np.array([1.0, np.nan, 3.0], np.float32)
    assert mismatch([want], [want.copy()], rtol=1e-3, atol=1e-7) == ""
    assert "dtype float64" in mismatch([want], [want.astype(np.float64)], 1e-3, 1e-7)
    assert "shape (1, 3)" in mismatch([want], [want.reshape(1, 3)], 1e-3, 1e-7)
    assert "1 of 3 values differ" in mismatch([want], [want + np.float32([0, 0, 0.1])], 1e-3, 1e-7)
    assert "2 outputs" in mismatch([want], [want, want], 1e-3, 1e-7)


@pytest.mark.slow
def test_a_child_that_dies_is_a_crash_and_the_run_goes_on() -> None:
    # An unknown case name makes the child fail as a crash would: it dies mid-case.
    results = run_cases("autotune", ["test_abs", "test_no_such_case", "test_relu"], jobs=1)
    assert [result.outcome for result in results] == ["pass", "crash", "pass"]
    assert "died" in results[1].detail


def test_the_floor_only_goes_up(tmp_path: Path) -> None:
    path = tmp_path / "floor.json"
    passed = [CaseResult("a", "autotune", "pass"), CaseResult("b", "autotune", "wrong")]
    assert write_floor(passed, path) and read_floor(path) == 1
    assert not write_floor([CaseResult("a", "autotune", "error")], path)
    assert read_floor(path) == 1 and floor_cases(path) == ["a"]


@pytest.mark.slow
def test_autotune_passes_at_least_the_committed_floor() -> None:
    names = list(collect_cases())
    results = run_cases("autotune", names, jobs=2)
    counts = totals(results)
    floor = read_floor()
    lost = sorted(
        set(floor_cases()) - {result.name for result in results if result.outcome == "pass"}
    )
    assert counts["pass"] >= floor, f"{counts} below the floor of {floor}; no longer pass: {lost}"
    assert counts["crash"] == 0, [result.name for result in results if result.outcome == "crash"]


@pytest.mark.slow
def test_cases_compile_for_another_cpu_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """--target reaches the children: AVX2 code (which this x86 host runs) passes too, and a
    target the backend cannot parse is an error per case, not a pass."""
    monkeypatch.setenv(TARGET_VARIABLE, "llvm -mcpu=haswell -num-cores=1")
    assert [r.outcome for r in run_cases("autotune", ["test_matmul_2d"])] == ["pass"]
    monkeypatch.setenv(TARGET_VARIABLE, "llvm -no-such-option=1")
    (result,) = run_cases("autotune", ["test_matmul_2d"])
    assert result.outcome == "error" and "no-such-option" in result.detail
