"""`autotune demo` end to end with a tiny budget: service, worker, job, artifact, loader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_demo_runs_the_whole_loop(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "service.cli", "demo", "--trials", "6", "--runs", "2"]
    command += ["--data-dir", str(tmp_path / "data")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "[4/6] artifact" in out and "downloaded" in out
    assert "logits match the numpy reference" in out
    for row in ("tuned artifact", "untuned artifact"):
        assert row in out
    assert list((tmp_path / "data").glob("*.tar.gz")), "the downloaded artifact is kept"


def test_demo_refuses_a_non_positive_budget() -> None:
    command = [sys.executable, "-m", "service.cli", "demo", "--trials", "0"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "--trials must be a positive number" in done.stderr
    assert "Traceback" not in done.stderr
