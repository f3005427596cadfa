"""`python -m workers`: the worker's command line without the service package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Run `python -m workers` with the service package and the service's dependencies made
# unimportable: a worker install has none of them.
_WITHOUT_THE_SERVICE = (
    "import runpy, sys\n"
    "for name in ('service', 'tuner', 'fastapi', 'sqlalchemy', 'xgboost', 'uvicorn'):\n"
    "    sys.modules[name] = None\n"
    "sys.argv = ['python -m workers', *sys.argv[1:]]\n"
    "runpy.run_module('workers', run_name='__main__', alter_sys=True)\n"
)


def _worker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_THE_SERVICE, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def test_the_worker_runs_without_the_service_package() -> None:
    shown = _worker("--help")
    assert shown.returncode == 0, shown.stderr
    assert "--lease-wait-s" in shown.stdout and "registration secret" in shown.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "--token is required"),
        (("--token", "s", "--device", "tpu"), "--device 'tpu' is not supported"),
        (("--token", "s", "--lease-wait-s", "61"), "--lease-wait-s must be in (0, 60]"),
    ],
)
def test_bad_arguments_are_one_clear_error(args: tuple[str, ...], message: str) -> None:
    result = _worker(*args)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == f"autotune worker: error: {message}" or (
        message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    ), result.stderr
    assert "Traceback" not in result.stderr
