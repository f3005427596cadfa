"""`autotune fetch`, as a real subprocess against a live service: the artifact's bytes,
checked against its sha256, and a clear one-line error for every way it can fail."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.db.engine import make_engine, make_session_factory
from service.db.models import ArtifactRow
from tests.codegen.aot.conftest import small_conv_model
from tests.service.conftest import LiveService, free_port
from tests.support.cli import AUTOTUNE

# Without the caller's $AUTOTUNE_* settings: the server and token come from the flags.
CLIENT_ENV = {name: value for name, value in os.environ.items() if not name.startswith("AUTOTUNE_")}


def _fetch(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, "fetch", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
        check=False, env=CLIENT_ENV,
    )  # fmt: skip


def _request_artifact(client: httpx.Client) -> dict[str, Any]:
    """Upload the small model and ask for its artifact."""
    model = client.post("/v1/models", content=small_conv_model().SerializeToString())
    assert model.status_code == 201, model.text
    created = client.post("/v1/artifacts", json={"model_id": model.json()["id"]})
    assert created.status_code == 202, created.text
    return dict(created.json())


def _wait_ready(client: httpx.Client, artifact_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        artifact = client.get(f"/v1/artifacts/{artifact_id}").json()
        if artifact["state"] in ("ready", "failed"):
            return dict(artifact)
        time.sleep(0.1)
    raise AssertionError("the artifact was not built in time")


@pytest.mark.slow
def test_fetch_downloads_the_artifact_by_id(live_drivers: LiveService, tmp_path: Path) -> None:
    with live_drivers.client() as client:
        artifact = _wait_ready(client, _request_artifact(client)["id"])
        assert artifact["state"] == "ready", artifact["error"]
        served = client.get(f"/v1/artifacts/{artifact['id']}/download").content
    server = ("--server", live_drivers.url, "--token", live_drivers.admin_token)
    fetched = _fetch(artifact["id"], *server, "-o", "out.tar.gz", cwd=tmp_path)
    assert fetched.returncode == 0, fetched.stderr
    assert (tmp_path / "out.tar.gz").read_bytes() == served
    assert f"sha256:   {artifact['sha256']} (checked)" in fetched.stdout
    assert f"size:     {artifact['size_bytes']} bytes" in fetched.stdout
    # Into a directory, as JSON; the token from the data directory.
    token_from_dir = (
        "--server",
        live_drivers.url,
        "--data-dir",
        str(live_drivers.settings.data_dir),
    )
    as_json = _fetch(artifact["id"], *token_from_dir, "-o", ".", "--json", cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["sha256"] == hashlib.sha256(served).hexdigest() == artifact["sha256"]
    assert (tmp_path / f"{artifact['sha256']}.tar.gz").read_bytes() == served
    assert report["coverage"] == artifact["coverage"] and report["artifact_id"] == artifact["id"]
    # Errors: an unknown id, a wrong token; nothing is written.
    unknown = _fetch("0" * 32, *server, "-o", "nope.tar.gz", cwd=tmp_path)
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == (
        f"autotune fetch: error: no artifact {'0' * 32} on {live_drivers.url}"
    )
    wrong = _fetch(artifact["id"], "--server", live_drivers.url, "--token", "wrong", "-o",
                   "nope.tar.gz", cwd=tmp_path)  # fmt: skip
    assert wrong.returncode == 1
    assert "refused the token (401 unauthorised)" in wrong.stderr
    assert "Traceback" not in unknown.stderr + wrong.stderr
    assert not (tmp_path / "nope.tar.gz").exists()
    # Bytes that do not hash to the metadata's sha256 are refused, and not kept.
    stored = live_drivers.settings.data_dir / "artifacts" / f"{artifact['sha256']}.tar.gz"
    stored.write_bytes(served[:-1] + bytes([served[-1] ^ 1]))
    corrupt = _fetch(artifact["id"], *server, "-o", "nope.tar.gz", cwd=tmp_path)
    assert corrupt.returncode == 1
    assert "does not match the service's metadata" in corrupt.stderr
    assert not (tmp_path / "nope.tar.gz").exists() and not list(tmp_path.glob(".*partial"))


def _set_state(url: str, artifact_id: str, state: str, error: str) -> None:
    engine = make_engine(url)
    try:
        with make_session_factory(engine)() as session:
            row = session.get(ArtifactRow, artifact_id)
            assert row is not None
            row.state, row.error = state, error
            session.commit()
    finally:
        engine.dispose()


def test_fetch_refuses_an_artifact_not_built(live: LiveService, tmp_path: Path) -> None:
    # `live` runs no artifact builders: the artifact stays queued.
    with live.client() as client:
        artifact = _request_artifact(client)
    server = ("--server", live.url, "--token", live.admin_token)
    queued = _fetch(artifact["id"], *server, "-o", "x.tar.gz", cwd=tmp_path)
    assert queued.returncode == 1
    assert f"artifact {artifact['id']} is not built yet on {live.url} (state queued)" in (
        queued.stderr
    )
    _set_state(live.settings.resolved_database_url, artifact["id"], "failed", "boom")
    failed = _fetch(artifact["id"], *server, "-o", "x.tar.gz", cwd=tmp_path)
    assert failed.returncode == 1
    assert failed.stderr.strip() == (
        f"autotune fetch: error: artifact {artifact['id']} failed to build on {live.url}: boom"
    )
    assert not (tmp_path / "x.tar.gz").exists()


def test_fetch_says_when_the_service_is_down(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    down = _fetch("abc", "--server", url, "--token", "t", "-o", "x.tar.gz", cwd=tmp_path)
    assert down.returncode == 1
    assert down.stderr.startswith(f"autotune fetch: error: cannot reach the service at {url}")
