"""`autotune compile`, as a real subprocess: coverage per task (text and --json), records
that hit, and clear one-line errors; with `--server`, against a live service that builds
and caches the artifact."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import time
from pathlib import Path

import onnx
import pytest
from sqlalchemy import select

from codegen.llvm import parse_cpu_target
from codegen.target import canonical_target, parse_target
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.te.program import function_to_te
from service.db.engine import make_engine, make_session_factory
from service.db.models import ArtifactRow
from tests.codegen.aot.conftest import small_conv_model
from tests.service.conftest import LiveService
from tests.support.cli import AUTOTUNE
from tuner.records import Record, RecordLog
from tuner.space import SearchSpace
from tuner.tasks import extract_tasks


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


def _records_for_first_task(model_path: Path, records_path: Path) -> str:
    """Write a record log with one ok record for the model's first task; its key."""
    task = extract_tasks(optimize(from_onnx(model_path)), parse_target("llvm"))[0]
    target = canonical_target("llvm")
    space = SearchSpace(
        function_to_te(task.function), parse_cpu_target(target).hardware, task.constant_params
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


# -- compile --server ----------------------------------------------------------------------


@pytest.mark.slow
def test_compile_on_the_server_is_cached_and_reports_coverage(
    live_drivers: LiveService, tmp_path: Path
) -> None:
    model_path = tmp_path / "small.onnx"
    onnx.save(small_conv_model(), str(model_path))
    records = tmp_path / "run.jsonl"
    key = _records_for_first_task(model_path, records)
    with live_drivers.client() as client:
        imported = client.post("/v1/records/import", content=records.read_bytes())
        assert imported.status_code == 200, imported.text
    server = ("--server", live_drivers.url, "--token", live_drivers.admin_token)
    text = _run("compile", str(model_path), *server, "-o", "out.tar.gz", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert sum(line.startswith("hit ") for line in lines) == 1
    assert sum(line.startswith("miss ") for line in lines) >= 1
    assert any(line.startswith("coverage: 1/") for line in lines)
    first = (tmp_path / "out.tar.gz").read_bytes()
    # Again, into a directory: the cached artifact, the same bytes, named by its hash.
    (tmp_path / "again").mkdir()
    as_json = _run("compile", str(model_path), *server, "-o", "again", "--json", cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["sha256"] == hashlib.sha256(first).hexdigest()
    assert tmp_path / report["path"] == tmp_path / "again" / f"{report['sha256']}.tar.gz"
    assert (tmp_path / report["path"]).read_bytes() == first
    assert report["hits"] == 1 and report["misses"] == len(report["coverage"]) - 1
    assert next(task for task in report["coverage"] if task["hit"])["workload_key"] == key
    assert report["target"] == canonical_target("llvm") and report["memory"]
    with live_drivers.client() as client:
        assert client.get("/v1/models").json()["total"] == 1
        assert (
            client.get(f"/v1/artifacts/{report['artifact_id']}").json()["sha256"]
            == (report["sha256"])
        )
    assert live_drivers.counts()["artifacts"] == 1


def test_compile_refuses_records_with_server(tmp_path: Path) -> None:
    completed = _run(
        "compile", "m.onnx", "--records", "r.jsonl", "--server", "http://127.0.0.1:9",
        "-o", "x.tar.gz", cwd=tmp_path,
    )  # fmt: skip
    assert completed.returncode == 2
    assert "--server: not allowed with argument --records" in completed.stderr


def _mark_failed_when_queued(url: str, reason: str) -> str:
    """Wait for an artifact row to appear, mark its build failed; its id."""
    engine = make_engine(url)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with make_session_factory(engine)() as session:
                row = session.scalars(select(ArtifactRow)).first()
                if row is not None:
                    row.state, row.error, row.finished_at = "failed", reason, time.time()
                    session.commit()
                    return str(row.id)
            time.sleep(0.05)
        raise AssertionError("compile --server created no artifact")
    finally:
        engine.dispose()


def test_compile_on_the_server_names_a_failed_build_a_timeout_and_a_bad_token(
    live: LiveService, tmp_path: Path
) -> None:
    # `live` runs no artifact builders: the artifact stays queued until the test acts.
    model_path = tmp_path / "small.onnx"
    onnx.save(small_conv_model(), str(model_path))
    server = ("--server", live.url, "--token", live.admin_token)
    process = subprocess.Popen(
        [AUTOTUNE, "compile", str(model_path), *server, "-o", "x.tar.gz"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        artifact_id = _mark_failed_when_queued(live.settings.resolved_database_url, "boom")
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 1
    assert f"artifact {artifact_id} failed to build on {live.url}: boom" in stderr
    assert "Traceback" not in stderr and not (tmp_path / "x.tar.gz").exists()
    # Asked again, the failed build is queued anew; nothing builds it here.
    waiting = _run(
        "compile", str(model_path), *server, "--wait-timeout", "0.5", "-o", "x.tar.gz",
        cwd=tmp_path,
    )  # fmt: skip
    assert waiting.returncode == 1, waiting.stderr
    assert "was still queued" in waiting.stderr and "autotune fetch" in waiting.stderr
    wrong = _run("compile", str(model_path), "--server", live.url, "--token", "wrong",
                 "-o", "x.tar.gz", cwd=tmp_path)  # fmt: skip
    assert wrong.returncode == 1
    assert wrong.stderr.strip() == (
        f"autotune compile: error: {live.url} refused the token (401 unauthorised): pass "
        "--token, set AUTOTUNE_TOKEN, or point --data-dir at the service's data directory"
    )


def test_a_dynamic_batch_model_compiles_once_its_batch_is_bound(tmp_path: Path) -> None:
    import numpy as np

    onnx.save(small_conv_model(batch="batch"), str(tmp_path / "dyn.onnx"))
    unbound = _run("compile", "dyn.onnx", "-o", "out.tar.gz", cwd=tmp_path)
    assert unbound.returncode == 1 and "Traceback" not in unbound.stderr
    assert "'x'" in unbound.stderr and "--shape x=" in unbound.stderr
    bound = _run("compile", "dyn.onnx", "--shape", "x=3x4x6x6", "-o", "out.tar.gz", cwd=tmp_path)
    assert bound.returncode == 0, bound.stderr
    np.save(tmp_path / "x.npy", np.random.default_rng(1).standard_normal((3, 4, 6, 6)).astype("f4"))
    # `run` on the ONNX model binds the batch from the input array itself.
    outputs = []
    for model in ("dyn.onnx", "out.tar.gz"):
        out = tmp_path / f"{model}.npz"
        ran = _run("run", model, "--input", "x=x.npy", "--output", str(out), cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        with np.load(out) as saved:
            outputs.append(saved["output_0"])
    assert outputs[0].shape == (3, 10)
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_compile_on_the_server_binds_shapes_as_the_upload_does(
    live_drivers: LiveService, tmp_path: Path
) -> None:
    from ir.frontend.onnx.bindings import bind_input_shapes

    model = small_conv_model(batch="batch")
    onnx.save(model, str(tmp_path / "dyn.onnx"))
    server = ("--server", live_drivers.url, "--token", live_drivers.admin_token)
    refused = _run("compile", "dyn.onnx", *server, "-o", "out.tar.gz", cwd=tmp_path)
    assert refused.returncode == 1 and "shape=NAME=DxDx" in refused.stderr
    shape = ("--shape", "x=2x4x6x6")
    text = _run("compile", "dyn.onnx", *server, *shape, "-o", "out.tar.gz", "--json", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    report = json.loads(text.stdout)
    bound = bind_input_shapes(model.SerializeToString(), {"x": (2, 4, 6, 6)})
    with live_drivers.client() as client:
        (stored,) = client.get("/v1/models").json()["items"]
    assert stored["id"] == hashlib.sha256(bound).hexdigest()
    assert stored["inputs"][0]["shape"] == [2, 4, 6, 6]
    again = _run(
        "compile", "dyn.onnx", *server, *shape, "-o", "again.tar.gz", "--json", cwd=tmp_path
    )
    assert json.loads(again.stdout)["sha256"] == report["sha256"]
    assert live_drivers.counts()["models"] == 1


def test_a_model_with_external_weights_compiles_from_any_directory(tmp_path: Path) -> None:
    import numpy as np

    (tmp_path / "models").mkdir()
    (tmp_path / "elsewhere").mkdir()
    path = tmp_path / "models" / "ext.onnx"
    onnx.save(
        small_conv_model(),
        str(path),
        save_as_external_data=True,
        location="ext.onnx.data",
        size_threshold=0,
    )
    out = tmp_path / "ext.tar.gz"
    built = _run("compile", str(path), "-o", str(out), cwd=tmp_path / "elsewhere")
    assert built.returncode == 0, built.stderr
    np.save(tmp_path / "x.npy", np.ones((1, 4, 6, 6), np.float32))
    outputs = []
    for model in (path, out):
        saved = tmp_path / f"{model.name}.npz"
        ran = _run(
            "run", str(model), "--input", f"x={tmp_path / 'x.npy'}", "--output", str(saved),
            cwd=tmp_path / "elsewhere",
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        with np.load(saved) as result:
            outputs.append(result["output_0"])
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-5, atol=1e-6)
