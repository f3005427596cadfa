"""`autotune worker` argument errors: one clear line on stderr and exit status 1."""

from __future__ import annotations

import importlib.util
import os
import subprocess

import pytest

from tests.workers.service_process import AUTOTUNE


def _worker(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AUTOTUNE_REGISTRATION_SECRET"}
    return subprocess.run(
        [AUTOTUNE, "worker", *args], capture_output=True, text=True, timeout=60, env=env
    )


def test_a_gpu_worker_without_pycuda_exits_with_one_clear_error() -> None:
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed: the worker would look for a GPU")
    result = _worker("--token", "s", "--device", "cuda:0")
    assert result.returncode == 1
    assert "--device cuda:0: pycuda is not installed: pip install autotune[gpu]" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "--token is required"),
        (("--token", "s", "--device", "tpu"), "--device 'tpu' is not supported"),
        (("--token", "s", "--server", "localhost:8000"), "expected an http:// or https:// URL"),
        (("--token", "s", "--lease-wait-s", "0"), "--lease-wait-s must be in (0, 60]"),
    ],
)
def test_bad_arguments_are_one_clear_error(args: tuple[str, ...], message: str) -> None:
    result = _worker(*args)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
