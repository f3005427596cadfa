"""examples/run_model.c, built with the system compiler against an artifact's model.h, runs
the model through the C ABI and prints what the Python loader computes."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pytest

from codegen.runtime.loader import load_artifact
from ir.reference import check_close
from tests.codegen.aot.conftest import CompiledCase

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "run_model.c"


def test_c_example_runs_an_artifact(squeezenet: CompiledCase, tmp_path: Path) -> None:
    if shutil.which("cc") is None:
        pytest.fail("the system C compiler `cc` is needed to link artifacts")
    with tarfile.open(squeezenet.artifact.path) as tar:
        for name in ("model.so", "model.h", "weights.bin"):
            member = tar.extractfile(name)
            assert member is not None
            (tmp_path / name).write_bytes(member.read())
    build = subprocess.run(
        [
            "cc",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-I.",
            "-o",
            "run_model",
            str(EXAMPLE),
            "-ldl",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run(
        ["./run_model", "./model.so", "./weights.bin"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    ((input_name, value),) = squeezenet.inputs.items()
    assert lines[0] == f"input {input_name} float32 {value.size} elements"
    header = lines[1].split()
    with load_artifact(squeezenet.artifact.path) as model:
        ((output_name, expected),) = model.run(squeezenet.inputs).items()
    assert header == ["output", output_name, "float32", "x".join(map(str, expected.shape))]
    actual = np.array([float(text) for text in lines[2:]], np.float32).reshape(expected.shape)
    # The C program fills its input with the same i / n values: the same numbers come out.
    check_close(actual, expected, 1e-6, 1e-7, what="C example vs the Python loader")
