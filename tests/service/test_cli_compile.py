"""`autotune compile`, as a real subprocess: coverage per task (text and --json), records
that hit, and clear one-line errors."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import onnx

from codegen.executor import hardware_of
from codegen.llvm import parse_target
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.te.program import function_to_te
from tests.codegen.aot.conftest import small_conv_model
from tuner.records import Record, RecordLog
from tuner.space import SearchSpace
from tuner.tasks import extract_tasks, normalize_target

AUTOTUNE = str(Path(sys.executable).parent / "autotune")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


def _records_for_first_task(model_path: Path, records_path: Path) -> str:
    """Write a record log with one ok record for the model's first task; its key."""
    task = extract_tasks(optimize(from_onnx(model_path)), "llvm")[0]
    target = normalize_target("llvm")
    space = SearchSpace(
        function_to_te(task.function), hardware_of(parse_target(target)), task.constant_params
    )
    trace = space.sample(random.Random(3))
    RecordLog(records_path).append([Record(task.key, target, trace.to_json(), [2e-4, 2e-4], "ok")])
    return task.key


def test_compile_prints_coverage_and_writes_the_artifact(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    onnx.save(small_conv_model(), str(model_path))
    records = tmp_path / "run.jsonl"
    key = _records_for_first_task(model_path, records)
    text = _run(
        "compile", str(model_path), "--target", "llvm", "--records", str(records),
        "-o", "out.tar.gz", cwd=tmp_path,
    )  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert (tmp_path / "out.tar.gz").is_file()
    lines = text.stdout.splitlines()
    assert sum(line.startswith("hit ") for line in lines) == 1
    assert sum(line.startswith("miss ") for line in lines) >= 1
    assert any(line.startswith("coverage: 1/") for line in lines)
    as_json = _run(
        "compile", str(model_path), "--records", str(records), "-o", str(tmp_path), "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["hits"] == 1 and report["misses"] == len(report["coverage"]) - 1
    hit = next(task for task in report["coverage"] if task["hit"])
    assert hit["workload_key"] == key and hit["record_id"]
    # Into a directory: named by its hash; the same inputs give the same bytes.
    assert Path(report["path"]) == tmp_path / f"{report['sha256']}.tar.gz"
    assert Path(report["path"]).read_bytes() == (tmp_path / "out.tar.gz").read_bytes()


def test_compile_without_records_lists_every_task_as_a_miss(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    onnx.save(small_conv_model(), str(model_path))
    completed = _run("compile", str(model_path), "-o", "out.tar.gz", "--json", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["hits"] == 0 and report["misses"] == len(report["coverage"]) > 0
    assert all(task["schedule"] == "default" for task in report["coverage"])


def test_compile_errors_are_one_line(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    onnx.save(small_conv_model(), str(model_path))
    missing = _run(
        "compile", str(model_path), "--records", "nope.jsonl", "-o", "x.tar.gz", cwd=tmp_path
    )
    assert missing.returncode == 1
    assert missing.stderr.strip() == "autotune compile: error: --records: no such file nope.jsonl"
    target = _run("compile", str(model_path), "--target", "cuda9", "-o", "x.tar.gz", cwd=tmp_path)
    assert target.returncode == 1 and "Traceback" not in target.stderr
    assert target.stderr.startswith("autotune compile: error:") and "cuda9" in target.stderr
