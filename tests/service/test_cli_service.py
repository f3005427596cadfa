"""The service's CLI commands against a live service: submit --wait with its progress,
status, logs, records export/import, tokens, and one-line errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.cli import main
from tests.service.conftest import LiveService, run_service, service_settings
from tests.service.protocol_worker import ProtocolWorker
from tests.support.onnx_models import light_model_path
from tuner.records import Record

pytestmark = pytest.mark.slow


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveService]:
    settings = service_settings(tmp_path / "data", f"sqlite:///{tmp_path / 'cli.db'}")
    settings = settings.model_copy(update={"run_drivers": True})
    for live in run_service(settings):
        monkeypatch.setenv("AUTOTUNE_SERVER", live.url)
        monkeypatch.setenv("AUTOTUNE_DATA_DIR", str(live.settings.data_dir))
        monkeypatch.delenv("AUTOTUNE_TOKEN", raising=False)
        yield live


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_submit_wait_status_and_logs(
    service: LiveService, capsys: pytest.CaptureFixture[str]
) -> None:
    worker = ProtocolWorker(service.url, service.registration_secret)
    worker.start()
    try:
        options = json.dumps(
            {"search": "random", "remeasure_top": 0, "measure": {"repeat": 1, "min_repeat_ms": 1}}
        )
        model = str(light_model_path("light_squeezenet"))
        status, out, err = run(
            capsys,
            "submit",
            model,
            "--trials",
            "2",
            "--batch-size",
            "2",
            "--options",
            options,
            "--wait",
        )
    finally:
        worker.stop()
    assert status == 0, err
    assert "2/2 trials" in err and "completed" in out
    job_id = out.split()[1]
    status, out, _ = run(capsys, "status", job_id, "--json")
    assert status == 0 and json.loads(out)["state"] == "completed"
    status, out, _ = run(capsys, "logs", job_id)
    assert status == 0 and len(out.strip().splitlines()) == 3  # a header and two records
    status, out, _ = run(capsys, "logs", job_id, "--best", "--format", "jsonl")
    assert status == 0 and Record.from_json(json.loads(out.splitlines()[0])).status == "ok"


def test_records_and_tokens(
    service: LiveService, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = [
        Record("b" * 64, "llvm -mcpu=x", {"version": 1, "steps": [{"kind": "split", "n": i}]},
               [1e-3 * (i + 1)], "ok")
        for i in range(2)
    ]  # fmt: skip
    source = tmp_path / "in.jsonl"
    source.write_text("".join(record.dumps() + "\n" for record in records))
    status, out, err = run(capsys, "records", "import", str(source))
    assert status == 0 and "imported 2" in out, err
    exported = tmp_path / "out.jsonl"
    assert run(capsys, "records", "export", "--best", "-o", str(exported))[0] == 0
    assert [json.loads(line)["costs_s"] for line in exported.read_text().splitlines()] == [[1e-3]]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"version": 1}\n')
    status, _, err = run(capsys, "records", "import", str(bad))
    assert status == 1 and "line 1" in err and "Traceback" not in err

    status, out, _ = run(capsys, "token", "create", "ci")
    token = out.strip()
    assert status == 0 and token.startswith("at_")
    status, out, _ = run(capsys, "token", "list")
    token_id = next(line.split()[0] for line in out.splitlines() if line.endswith("ci"))
    assert run(capsys, "status", "nope", "--token", token)[2].count("404") == 1
    assert run(capsys, "token", "revoke", token_id)[0] == 0
    status, _, err = run(capsys, "status", "nope", "--token", token)
    assert status == 1 and "401" in err


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(
        capsys, "status", "x", "--server", "http://127.0.0.1:9", "--data-dir", str(tmp_path)
    )
    assert status == 1 and "no token" in err and len(err.strip().splitlines()) == 1
    status, _, err = run(capsys, "status", "x", "--server", "http://127.0.0.1:9", "--token", "t")
    assert status == 1 and "cannot reach" in err and len(err.strip().splitlines()) == 1


def test_submit_binds_a_dynamic_batch_with_shape(
    service: LiveService, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import onnx

    from tests.codegen.aot.conftest import small_conv_model

    path = tmp_path / "dyn.onnx"
    onnx.save(small_conv_model(batch="batch"), str(path))
    status, _, err = run(capsys, "submit", str(path), "--trials", "2")
    assert status == 1 and "shape=NAME=DxDx" in err and "Traceback" not in err
    status, out, err = run(capsys, "submit", str(path), "--trials", "2", "--shape", "x=4x4x6x6")
    assert status == 0, err
    with service.client() as client:
        job = client.get(f"/v1/jobs/{out.strip()}").json()
        model = client.get(f"/v1/models/{job['model_id']}").json()
    assert model["inputs"][0]["shape"] == [4, 4, 6, 6]
