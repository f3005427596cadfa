"""The nine light models and the bundled model, compiled to artifacts and run through the
standalone loader in a fresh virtual environment that has nothing but numpy, match
onnxruntime (light models: random weights, pre-softmax logits, rtol 1e-3, atol 1e-4)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ir.reference import check_close
from tests.codegen.aot.conftest import BUNDLED, CompiledCase, NumpyVenv
from tests.support.onnx_models import LIGHT_MODELS, logits_name, run_onnxruntime

RTOL, ATOL = 1e-3, 1e-4

DRIVER = """
import importlib.util
import json
import sys

sys.path.insert(0, sys.argv[1])
for module in ("codegen", "ir", "service", "llvmlite", "onnx", "onnxruntime"):
    assert importlib.util.find_spec(module) is None, f"{module} is importable in the venv"

import numpy as np
from runtime.loader import load_artifact

jobs = json.loads(open(sys.argv[2]).read())
for job in jobs:
    with load_artifact(job["artifact"]) as model:
        inputs = {name: np.load(path) for name, path in job["inputs"].items()}
        np.savez(job["output"], **model.run(inputs))
print(f"ran {len(jobs)} artifacts")
"""


def test_artifacts_match_onnxruntime_in_a_numpy_only_venv(
    compiled_models: dict[str, CompiledCase],
    numpy_venv: NumpyVenv,
    standalone_loader: Path,
    tmp_path: Path,
) -> None:
    assert set(compiled_models) == {*LIGHT_MODELS, BUNDLED}
    jobs = []
    for name, case in compiled_models.items():
        inputs = {}
        for index, (input_name, value) in enumerate(case.inputs.items()):
            path = tmp_path / f"{name}_input{index}.npy"
            np.save(path, value)
            inputs[input_name] = str(path)
        output = tmp_path / f"{name}_outputs.npz"
        jobs.append({"artifact": str(case.artifact.path), "inputs": inputs, "output": str(output)})
    (tmp_path / "jobs.json").write_text(json.dumps(jobs))
    (tmp_path / "driver.py").write_text(DRIVER)
    completed = numpy_venv.run(
        "driver.py", str(standalone_loader), str(tmp_path / "jobs.json"), cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert f"ran {len(jobs)} artifacts" in completed.stdout
    for name, case in compiled_models.items():
        output_name = (
            logits_name(case.model) if name != BUNDLED else case.model.graph.output[0].name
        )
        expected = run_onnxruntime(case.model, case.inputs, output_name, threads=2)
        with np.load(tmp_path / f"{name}_outputs.npz") as outputs:
            assert list(outputs.keys()) == [output_name]
            actual = outputs[output_name]
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        check_close(actual, expected, RTOL, ATOL, what=f"{name} through the artifact")
        if name != BUNDLED:
            assert np.std(expected) > 1e-3, "random weights must give distinguishable logits"
