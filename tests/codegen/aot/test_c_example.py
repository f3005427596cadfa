"""examples/run_model.c, built with the system compiler against an artifact's model.h, runs
the model through the C ABI and prints what the Python loader computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from codegen.runtime.loader import load_artifact
from ir.reference import check_close
from tests.codegen.aot.conftest import CompiledCase, build_c_example, run_c_example


def test_c_example_runs_an_artifact(squeezenet: CompiledCase, tmp_path: Path) -> None:
    build_c_example(squeezenet.artifact.path, tmp_path)
    run = run_c_example(tmp_path)
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
