"""Compiling with records: a tuned record of one task is a hit for that task (and its code
computes the right numbers); failed records and records of other targets are never used;
a target no record covers gives every task as a miss and still the right numbers."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
import pytest

from codegen.aot import ScheduleChoice, build_model_artifact
from codegen.llvm import host_target, parse_cpu_target
from codegen.runtime.loader import load_artifact
from codegen.target import canonical_target, parse_target
from ir.frontend.onnx import from_onnx, import_model
from ir.graph.nodes import Function
from ir.graph.passes.pipeline import optimize
from ir.reference import check_close
from ir.schedule.schedule import LayoutRewrite, Schedule
from ir.te.program import TEProgram, function_to_te
from tests.codegen.aot.conftest import small_conv_model
from tests.support.onnx_models import run_onnxruntime
from tuner.artifact_build import ArtifactBuild, build_artifact
from tuner.records import Record
from tuner.space import SearchSpace
from tuner.tasks import Task, extract_tasks

INPUT = np.random.default_rng(1).normal(0, 1, (1, 4, 6, 6)).astype(np.float32)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "small.onnx"
    onnx.save(small_conv_model(), str(path))
    return path


def _tasks(model_path: Path) -> list[Task]:
    return extract_tasks(optimize(from_onnx(model_path)), parse_target("llvm"))


def _tuned_record(task: Task, cost_s: float, status: str = "ok", target: str = "llvm") -> Record:
    """A record of a random (not the default) schedule of `task`'s search space."""
    space = SearchSpace(
        function_to_te(task.function),
        parse_cpu_target(canonical_target(target)).hardware,
        task.constant_params,
    )
    trace = space.sample(random.Random(7))
    return Record(
        workload_key=task.key,
        target=canonical_target(target),
        trace=trace.to_json(),
        costs_s=[cost_s, cost_s] if status == "ok" else [],
        status=status,
    )


def _check_outputs(build: ArtifactBuild, model_path: Path) -> None:
    model = onnx.load(str(model_path))
    expected = run_onnxruntime(model, {"x": INPUT}, "y")
    with load_artifact(build.path) as artifact:
        actual = artifact.run({"x": INPUT})["y"]
    check_close(actual, expected, 1e-4, 1e-5, what="small model through the artifact")


def test_a_tuned_record_is_a_hit_for_its_task(model_path: Path, tmp_path: Path) -> None:
    tasks = _tasks(model_path)
    assert len(tasks) >= 2
    conv = tasks[0]
    good = _tuned_record(conv, 1e-3)
    failed = _tuned_record(conv, 1e-9, status="build_error")
    build = build_artifact(model_path, "llvm", [failed, good], tmp_path)
    by_key = {task["workload_key"]: task for task in build.coverage}
    assert set(by_key) == {task.key for task in tasks}
    assert by_key[conv.key]["hit"] and by_key[conv.key]["record_id"] == good.candidate_id
    assert build.hits == 1 and build.misses == len(tasks) - 1
    others = [task for key, task in by_key.items() if key != conv.key]
    assert all(
        not t["hit"] and t["record_id"] is None and t["schedule"] == "default" for t in others
    )
    manifest_tasks = {task["workload_key"]: task for task in build.manifest["tasks"]}
    assert manifest_tasks[conv.key]["schedule"] == good.candidate_id
    _check_outputs(build, model_path)


def test_a_target_no_record_covers_is_all_misses(model_path: Path, tmp_path: Path) -> None:
    tasks = _tasks(model_path)
    other_target = "llvm -mcpu=x86-64 -num-cores=1"
    records = [_tuned_record(task, 1e-3, target=other_target) for task in tasks]
    build = build_artifact(model_path, "llvm", records, tmp_path)
    assert build.hits == 0 and build.misses == len(tasks) == len(build.coverage)
    assert build.manifest["coverage"] == {"tasks": len(tasks), "hits": 0, "misses": len(tasks)}
    _check_outputs(build, model_path)
    # The same records compile, as hits, for the target they were measured on.
    covered = build_artifact(model_path, other_target, records, tmp_path / "covered")
    assert covered.hits == len(tasks) and covered.manifest["target"] == canonical_target(
        other_target
    )


def test_a_tuned_schedule_that_does_not_compile_falls_back_to_the_default(
    tmp_path: Path,
) -> None:
    model = small_conv_model()
    imported = import_model(model)
    fn = optimize(imported.function)
    target = host_target()
    broken: list[str] = []

    def choose(
        function: Function,
        program: TEProgram,
        constants: frozenset[str],
        layouts: Mapping[str, LayoutRewrite] | None = None,
    ) -> ScheduleChoice:
        if broken:
            return ScheduleChoice(workload_key=f"key-{len(broken)}")
        # A GPU thread binding: lowers, but the LLVM backend refuses it.
        schedule = Schedule(program)
        stage = next(stage for stage in schedule.stages.values() if stage.is_output)
        extents = {axis.name: axis.extent for axis in stage.op.axes}
        leaf = next(leaf for leaf in stage.leaves if extents[leaf] > 1)
        schedule.bind(stage.name, leaf, "threadIdx.x")
        broken.append(stage.name)
        return ScheduleChoice(workload_key="key-0", schedule=schedule, record_id="r0")

    result = build_model_artifact(
        fn, target, tmp_path, chooser=choose, output_names=imported.output_names
    )
    first = result.coverage[0]
    assert not first.hit and first.record_id is None
    assert "tuned schedule does not compile" in first.note and "thread" in first.note
    assert result.manifest["coverage"]["hits"] == 0
    with load_artifact(result.path) as artifact:
        actual = artifact.run({"x": INPUT})["y"]
    check_close(actual, run_onnxruntime(model, {"x": INPUT}, "y"), 1e-4, 1e-5, what="fallback")
