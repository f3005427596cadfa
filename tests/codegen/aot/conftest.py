"""Fixtures for the artifact tests: every model compiled once per session, and one fresh
virtual environment with nothing but numpy to run them in."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import tarfile
import venv
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from codegen.aot import ArtifactResult, build_model_artifact
from codegen.llvm import host_target
from ir.frontend.onnx import import_model
from ir.graph.passes.pipeline import optimize
from service.example_models import bundled_model_path
from tests.support.onnx_models import (
    LIGHT_MODELS,
    cut_at_logits,
    load_light_model,
    randomize_weights,
    runtime_inputs,
)

BUNDLED = "bundled_squeezenet"
VENV_TIMEOUT_S = 300
RUNTIME = Path(__file__).resolve().parents[3] / "codegen" / "runtime"
C_EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "run_model.c"


@dataclass(frozen=True)
class CompiledCase:
    """One model: its ONNX proto, its artifact and the inputs to run it on."""

    name: str
    model: onnx.ModelProto
    artifact: ArtifactResult
    inputs: dict[str, np.ndarray]


def logits_model(name: str) -> onnx.ModelProto:
    """The light model `name` with random weights (seeded by its name), ending at its
    pre-softmax logits."""
    shipped = load_light_model(name)
    return cut_at_logits(randomize_weights(shipped, seed=sum(map(ord, name))), shapes_from=shipped)


def compile_onnx(model: onnx.ModelProto, out_dir: Path) -> ArtifactResult:
    """Compile `model` for this host with default schedules (every task a miss)."""
    imported = import_model(model)
    return build_model_artifact(
        optimize(imported.function),
        host_target(),
        out_dir,
        output_names=imported.output_names,
    )


def _compile_file(path: Path, out_dir: Path) -> ArtifactResult:
    """Compile the ONNX file at `path` (in a worker process of `compile_all`)."""
    return compile_onnx(onnx.load(str(path)), out_dir)


class ArtifactCache:
    """Models compiled on first use and kept for the session."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.cases: dict[str, CompiledCase] = {}

    @staticmethod
    def model(name: str) -> onnx.ModelProto:
        """The light model `name` (random weights, cut at its logits) or BUNDLED (the
        bundled model as shipped)."""
        return onnx.load(str(bundled_model_path())) if name == BUNDLED else logits_model(name)

    def get(self, name: str) -> CompiledCase:
        """The model `name`, compiled."""
        if name not in self.cases:
            model = self.model(name)
            artifact = compile_onnx(model, self.out_dir)
            self.cases[name] = CompiledCase(name, model, artifact, runtime_inputs(model))
        return self.cases[name]

    def compile_all(self, names: list[str]) -> dict[str, CompiledCase]:
        """Every model of `names`, compiled by two worker processes (one per core) while
        this process makes the next model."""
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
            pending = {}
            for name in names:
                if name in self.cases:
                    continue
                model = self.model(name)
                path = self.out_dir / f"{name}.onnx"
                onnx.save(model, str(path))
                pending[name] = (model, pool.submit(_compile_file, path, self.out_dir))
            for name, (model, future) in pending.items():
                artifact = future.result()
                self.cases[name] = CompiledCase(name, model, artifact, runtime_inputs(model))
        return {name: self.cases[name] for name in names}


@pytest.fixture(scope="session")
def artifact_cache(tmp_path_factory: pytest.TempPathFactory) -> ArtifactCache:
    """Compiled models, shared by every test of the session."""
    return ArtifactCache(tmp_path_factory.mktemp("artifacts"))


@pytest.fixture(scope="session")
def compiled_models(artifact_cache: ArtifactCache) -> dict[str, CompiledCase]:
    """The nine light models and the bundled model, compiled."""
    return artifact_cache.compile_all([*LIGHT_MODELS, BUNDLED])


@pytest.fixture(scope="session")
def squeezenet(artifact_cache: ArtifactCache) -> CompiledCase:
    """The light squeezenet case (small and quick: for the tests of one artifact)."""
    return artifact_cache.get("light_squeezenet")


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
    """A directory holding a copy of the runtime folder alone, as the package `runtime`."""
    directory = tmp_path_factory.mktemp("loader")
    (directory / "runtime").mkdir()
    for source in RUNTIME.glob("*.py"):
        (directory / "runtime" / source.name).write_text(source.read_text())
    return directory


def small_conv_model(batch: int | str = 1, seed: int = 0) -> onnx.ModelProto:
    """A four-node model (conv, relu, flatten, dense) with random weights drawn from
    `seed`: three tasks, compiled in a second or two. A string `batch` names a symbolic
    batch dim, as an export with dynamic axes has."""
    rng = np.random.default_rng(seed)
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
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])],
        [weight, dense],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build_c_example(artifact: Path, directory: Path) -> None:
    """Extract the artifact's library, header and weights into `directory` and build
    examples/run_model.c against them there (the system compiler, warnings as errors)."""
    if shutil.which("cc") is None:
        pytest.fail("the system C compiler `cc` is needed to link artifacts")
    with tarfile.open(artifact) as tar:
        for name in ("model.so", "model.h", "weights.bin"):
            member = tar.extractfile(name)
            assert member is not None
            (directory / name).write_bytes(member.read())
    flags = ["-O2", "-Wall", "-Wextra", "-Werror", "-I.", "-o", "run_model", str(C_EXAMPLE)]
    build = subprocess.run(
        ["cc", *flags, "-ldl"], cwd=directory, capture_output=True, text=True, check=False
    )
    assert build.returncode == 0, build.stderr


def run_c_example(directory: Path, *sizes: int) -> subprocess.CompletedProcess[str]:
    """Run the example `build_c_example` built in `directory`, at these size values."""
    return subprocess.run(
        ["./run_model", "./model.so", "./weights.bin", *map(str, sizes)],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
