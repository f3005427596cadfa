"""Fixtures for the artifact tests: every model compiled once per session, and one fresh
virtual environment with nothing but numpy to run them in."""

from __future__ import annotations

import os
import subprocess
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest

from codegen.aot import ArtifactResult, build_model_artifact
from codegen.llvm import host_target
from ir.frontend.onnx import import_model
from ir.graph.passes.pipeline import optimize
from service.cli import bundled_model_path
from tests.codegen.test_compiled_models import truncated_model
from tests.support.onnx_models import LIGHT_MODELS, runtime_inputs

BUNDLED = "bundled_squeezenet"
VENV_TIMEOUT_S = 300
LOADER = Path(__file__).resolve().parents[3] / "codegen" / "runtime" / "loader.py"


@dataclass(frozen=True)
class CompiledCase:
    """One model: its ONNX proto, its artifact and the inputs to run it on."""

    name: str
    model: onnx.ModelProto
    artifact: ArtifactResult
    inputs: dict[str, np.ndarray]


def compile_onnx(model: onnx.ModelProto, out_dir: Path) -> ArtifactResult:
    """Compile `model` for this host with default schedules (every task a miss)."""
    imported = import_model(model)
    return build_model_artifact(
        optimize(imported.function),
        host_target(),
        out_dir,
        output_names=imported.output_names,
    )


@pytest.fixture(scope="session")
def compiled_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CompiledCase]:
    """The nine light models (random weights, cut at their logits) and the bundled model
    (as shipped), each compiled to an artifact once per session."""
    out_dir = tmp_path_factory.mktemp("artifacts")
    cases: dict[str, CompiledCase] = {}
    for name in LIGHT_MODELS:
        model = truncated_model(name)
        cases[name] = CompiledCase(name, model, compile_onnx(model, out_dir), runtime_inputs(model))
    bundled = onnx.load(str(bundled_model_path()))
    cases[BUNDLED] = CompiledCase(
        BUNDLED, bundled, compile_onnx(bundled, out_dir), runtime_inputs(bundled)
    )
    return cases


@pytest.fixture(scope="session")
def squeezenet(compiled_models: dict[str, CompiledCase]) -> CompiledCase:
    """The light squeezenet case (small and quick: for the tests of one artifact)."""
    return compiled_models["light_squeezenet"]


@dataclass(frozen=True)
class NumpyVenv:
    """A virtual environment with only numpy installed (and pip, which installed it)."""

    python: Path

    def run(
        self, *args: str, cwd: Path, timeout_s: float = 600
    ) -> subprocess.CompletedProcess[str]:
        """Run its python in `cwd` with a clean environment (no PYTHONPATH)."""
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        return subprocess.run(
            [str(self.python), *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )


@pytest.fixture(scope="session")
def numpy_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NumpyVenv]:
    """A fresh venv (`python -m venv` + pip install numpy, this numpy's version, from the
    configured package index), made once per session: about 10 s."""
    directory = tmp_path_factory.mktemp("numpy-venv")
    venv.EnvBuilder(with_pip=True, clear=True).create(directory)
    python = directory / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    completed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", f"numpy=={np.__version__}"],
        capture_output=True,
        text=True,
        timeout=VENV_TIMEOUT_S,
        env=env,
        check=False,
    )
    assert completed.returncode == 0, f"pip install numpy failed: {completed.stderr[-2000:]}"
    yield NumpyVenv(python)


@pytest.fixture(scope="session")
def standalone_loader(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding a copy of the loader module alone."""
    directory = tmp_path_factory.mktemp("loader")
    (directory / "loader.py").write_text(LOADER.read_text())
    return directory


def small_conv_model() -> onnx.ModelProto:
    """A four-node model (conv, relu, flatten, dense) with seeded random weights: three
    tasks, compiled in a second or two."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.normal(0, 0.2, (8, 4, 3, 3)).astype(np.float32), "w")
    dense = numpy_helper.from_array(rng.normal(0, 0.2, (10, 8 * 6 * 6)).astype(np.float32), "d")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "d"], ["y"], transB=1, name="fc"),
    ]
    graph = helper.make_graph(
        nodes,
        "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [weight, dense],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
