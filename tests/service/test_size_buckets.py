"""A model over a wide shape range, over real HTTP with a real worker process: its kernels
are tasks per size bucket, each saying which sizes it covers; a job shares its budget
between them by a size histogram (refused by name where it does not fit the model); the
artifact built from the job's records picks a record per bucket and runs every size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import numpy_helper

from codegen.runtime.loader import load_artifact
from ir.graph.passes.narrow_sizes import SMALL_SIZE
from tests.codegen.aot.test_symbolic_artifact import _dense_relu
from tests.ir.frontend.onnx_helpers import randn
from tests.service.processes import FAST_OPTIONS, Fleet, wait_for
from tests.service.test_artifacts import wait_ready

pytestmark = pytest.mark.slow


def _finished(fleet: Fleet, job_id: str) -> dict[str, Any] | None:
    with fleet.client() as client:
        detail = dict(client.get(f"/v1/jobs/{job_id}").json())
    return detail if detail["state"] in ("completed", "failed", "cancelled") else None


def test_a_job_tunes_each_size_bucket_by_the_histogram_and_the_artifact_picks_per_bucket(
    fleet: Fleet, tmp_path: Path
) -> None:
    model, _ = _dense_relu()  # x: [batch <= 2, seq <= 3 x SMALL_SIZE, 96]
    fleet.start_service()
    fleet.start_worker("w1")
    with fleet.client() as client:
        stored = client.post(
            "/v1/models",
            content=model.SerializeToString(),
            params={"shape": f"x=1..2x1..{3 * SMALL_SIZE}x96"},
        )
        assert stored.status_code == 201, stored.text
        tasks = stored.json()["tasks"]
        covers = [task["covers"] for task in tasks]
        assert covers == [{"batch": 2, "seq": 3 * SMALL_SIZE}, {"batch": 2, "seq": SMALL_SIZE}]
        assert tasks[1]["name"].endswith(f"[seq<={SMALL_SIZE}]")
        model_id = stored.json()["id"]
        for histogram, fragment in (
            ({"sequence": {"4": 1}}, "no size variable 'sequence' (it has: batch, seq)"),
            ({"seq": {"500": 1}}, f"sizes [500] are outside [1, {3 * SMALL_SIZE}]"),
            ({"seq": {"0": 1}}, "size '0' is not a whole number >= 1"),
        ):
            body = {
                "model_id": model_id,
                "trials": 8,
                "options": {**FAST_OPTIONS, "size_histogram": histogram},
            }
            refused = client.post("/v1/jobs", json=body)
            assert refused.status_code == 422, refused.text
            assert fragment in str(refused.json()["detail"])
        body = {
            "model_id": model_id,
            "trials": 12,
            "options": {**FAST_OPTIONS, "size_histogram": {"seq": {"16": 3, "90": 1}}},
        }
        created = client.post("/v1/jobs", json=body)
        assert created.status_code == 201, created.text
        job_id = created.json()["id"]
    detail = wait_for(lambda: _finished(fleet, job_id), 300, "the job to end", fleet)
    assert detail["state"] == "completed", fleet.logs()
    assert all(task["trials"] > 0 for task in detail["tasks"]), detail["tasks"]
    with fleet.client() as client:
        created = client.post("/v1/artifacts", json={"model_id": model_id}).json()
        artifact = wait_ready(client, created["id"])
        assert artifact["state"] == "ready", artifact["error"]
        content = client.get(f"/v1/artifacts/{artifact['id']}/download").content
    path = tmp_path / "dense.tar.gz"
    path.write_bytes(content)
    (w, b) = (numpy_helper.to_array(tensor) for tensor in model.graph.initializer)
    with load_artifact(path) as loaded:
        coverage = loaded.manifest["tasks"]
        assert [task["workload_key"] for task in coverage] == [t["workload_key"] for t in tasks]
        assert coverage[0]["hit"], coverage
        for batch, seq in ((1, 1), (2, SMALL_SIZE), (1, SMALL_SIZE + 1), (2, 3 * SMALL_SIZE)):
            x = randn(batch, seq, 96)
            (actual,) = loaded.run({"x": x}).values()
            np.testing.assert_allclose(actual, np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4)
