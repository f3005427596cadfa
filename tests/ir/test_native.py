"""Compiled modules: built in CI, computing what their sources compute, and never run
once older than their sources."""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ir.native import (
    StaleCompiledModuleWarning,
    compiled_modules,
    native_sources,
    stale_compiled_modules,
    warn_of_stale_compiled_modules,
)

ROOT = Path(__file__).resolve().parents[2]
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def native_modules() -> list[str]:
    """The modules `make native` compiles."""
    return [path.removesuffix(".py").replace("/", ".") for path in native_sources(ROOT)]


def is_compiled(name: str) -> bool:
    return str(importlib.import_module(name).__file__).endswith(SUFFIX)


def test_an_extension_older_than_its_source_is_stale(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    source = package / "mod.py"
    source.write_text("x = 1\n")
    extension = package / f"mod{SUFFIX}"
    extension.write_bytes(b"")
    (package / f"group__mypyc{SUFFIX}").write_bytes(b"")  # (no source: not a module's)
    os.utime(source, (1_000, 1_000))
    os.utime(extension, (2_000, 2_000))
    assert compiled_modules(package) == {source: extension}
    assert stale_compiled_modules(package) == []

    os.utime(source, (3_000, 3_000))  # the source edited after the build
    assert stale_compiled_modules(package) == [source]
    with pytest.warns(StaleCompiledModuleWarning, match=r"pkg/mod\.py changed after it was"):
        warn_of_stale_compiled_modules(package)


def test_the_native_modules_are_compiled_in_ci() -> None:
    names = native_modules()
    assert "ir.lower.lower" in names and "tuner.features" in names
    compiled = [name for name in names if is_compiled(name)]
    if not compiled and not os.environ.get("CI"):
        pytest.skip("the native modules are not compiled here (`make native` compiles them)")
    assert compiled == names, "mypyc failed for some modules: see build/native.log"


# Lowers sampled candidates of several workloads and prints their loop IR and features:
# run here (compiled modules) and on copies of the sources alone, the output must match.
_PROBE = """
import json, random, sys
from tests.tuner.space.workloads import workloads
from ir.lower import lower
from ir.schedule.hardware import HardwareParams
from tuner.features import extract_features
from tuner.space import SearchSpace

import ir.lower.lower
out = [sys.modules["ir.lower.lower"].__file__]
for name, workload in workloads().items():  # (every search-space test's workload)
    program = workload.program()
    space = SearchSpace(program, HardwareParams(vector_bytes=32, num_cores=2), workload.constants)
    rng = random.Random(7)
    for _ in range(int(sys.argv[1])):
        trace = space.sample(rng)
        func = lower(trace.replay(program))
        out.append([name, str(trace), str(func), extract_features(func).tolist()])
print(json.dumps(out))
"""


def run_probe(cwd: Path, python_path: Path, samples: int) -> tuple[str, list[list[object]]]:
    """Where the lowering module came from, and the probe's rows."""
    env = dict(os.environ, PYTHONPATH=str(python_path))
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(samples)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, f"the probe failed in {cwd}: {result.stderr[-3000:]}"
    module_file, *rows = json.loads(result.stdout)
    return module_file, rows


def test_compiled_modules_lower_and_featurize_as_their_sources(tmp_path: Path) -> None:
    if not any(is_compiled(name) for name in native_modules()):
        pytest.skip("the native modules are not compiled here (`make native` compiles them)")
    sources = tmp_path / "sources"
    for package in ("ir", "tuner", "tests"):  # (codegen is imported from the checkout)
        shutil.copytree(
            ROOT / package,
            sources / package,
            ignore=shutil.ignore_patterns(f"*{SUFFIX}", "__pycache__"),
        )
    samples = 8
    compiled_file, compiled = run_probe(ROOT, ROOT, samples)
    source_file, interpreted = run_probe(sources, sources, samples)
    assert compiled_file.endswith(SUFFIX)
    assert Path(source_file) == sources / "ir" / "lower" / "lower.py"
    assert len(compiled) == len(interpreted) >= samples * 20
    for ours, reference in zip(compiled, interpreted, strict=True):
        assert ours == reference, f"{ours[0]}: compiled output differs for trace {ours[1]}"


def test_lowering_and_features_leave_no_cyclic_garbage() -> None:
    # The tuner pauses the cyclic collector while it lowers a batch (tuner/gc_pause.py):
    # nodes kept alive by a reference cycle (compiled closures make them easily) would
    # pile up until it runs again, and then cost a collection of them all.
    import gc

    from ir.lower import lower
    from ir.schedule.hardware import HardwareParams
    from tests.tuner.space.workloads import workloads
    from tuner.features import extract_features
    from tuner.space import SearchSpace

    rng = random.Random(5)
    for name in ("conv2d", "depthwise_conv2d", "matmul", "softmax", "layer_norm"):
        workload = workloads()[name]
        program = workload.program()
        space = SearchSpace(program, HardwareParams(32, 2), workload.constants)
        traces = [space.sample(rng) for _ in range(4)]
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            for trace in traces:
                extract_features(lower(trace.replay(program)))
            assert gc.collect() == 0, f"{name}: lowering left objects in reference cycles"
        finally:
            if enabled:
                gc.enable()
