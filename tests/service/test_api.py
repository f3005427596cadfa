"""The HTTP API over real loopback HTTP: auth, bad input (4xx, no row changes), models,
jobs, records, the worker protocol, tokens, health and metrics."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from codegen.target import canonical_target
from tests.service.conftest import LiveService
from tests.support.onnx_models import light_model_path
from tuner.records import Record

SQUEEZENET = light_model_path("light_squeezenet")


def unsupported_model() -> bytes:
    from onnx import TensorProto, helper

    node = helper.make_node("RandomUniformLike", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def upload(client: httpx.Client) -> dict[str, Any]:
    response = client.post("/v1/models", content=SQUEEZENET.read_bytes(), params={"name": "sq"})
    assert response.status_code == 201, response.text
    return dict(response.json())


def register(live: LiveService, name: str = "w", target: str | None = None) -> dict[str, Any]:
    with live.client(live.registration_secret) as client:
        body = {"name": name, "target": target or host_target(), "device": {}, "version": "t"}
        response = client.post("/v1/workers/register", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def host_target() -> str:

    return canonical_target("llvm")


def test_health_needs_no_token_and_everything_else_does(live: LiveService) -> None:
    with live.client(token="") as anonymous, live.client(token="at_wrong") as wrong:
        assert anonymous.get("/healthz").json() == {"ok": True}
        for client in (anonymous, wrong):
            for method, path in [
                ("GET", "/v1/models"), ("POST", "/v1/models"), ("GET", "/v1/jobs"),
                ("GET", "/v1/records"), ("GET", "/v1/workers"), ("GET", "/metrics"),
                ("POST", "/v1/records/import"), ("GET", "/v1/tokens"),
                ("POST", "/v1/workers/x/lease"), ("POST", "/v1/batches/x/results"),
            ]:  # fmt: skip
                response = client.request(method, path)
                assert response.status_code == 401, (method, path, response.text)
                assert response.json()["detail"]


def test_bad_input_is_4xx_naming_the_problem_and_changes_no_rows(live: LiveService) -> None:
    with live.client() as client:
        model = upload(client)
        before = live.counts()
        cases: list[tuple[httpx.Response, int, str]] = [
            (client.post("/v1/models", content=b"\x00garbage\xff" * 10), 422, "ONNX"),
            (client.post("/v1/models", files={"file": ("m.onnx", b"junk")}), 422, "ONNX"),
            (client.post("/v1/models", content=b"x" * 2_000_001), 413, "limit"),
            (client.post("/v1/models", content=unsupported_model()), 422, "RandomUniformLike"),
            (client.post("/v1/models", content=b""), 422, "empty"),
            (
                client.post(
                    "/v1/jobs", json={"model_id": model["id"], "trials": 4, "target": "cuda"}
                ),
                422,
                "target",
            ),
            (client.post("/v1/jobs", json={"model_id": model["id"], "trials": 0}), 422, "trials"),
            (client.post("/v1/jobs", json={"model_id": model["id"], "trials": -3}), 422, "trials"),
            (client.post("/v1/jobs", json={"model_id": "nope", "trials": 4}), 404, "model"),
            (
                client.post(
                    "/v1/jobs",
                    json={"model_id": model["id"], "trials": 4, "options": {"feature_workers": -1}},
                ),
                422,
                "feature_workers",
            ),
            (client.post("/v1/jobs", json={"workload": {"x": 1}, "trials": 4}), 422, "workload"),
            (
                client.post("/v1/records/import", content=b'{"version": 1}\n'),
                422,
                "line 1",
            ),
            (client.post("/v1/records/import", content=b"not json\n"), 422, "JSON"),
            # (PostgreSQL can neither store nor compare a NUL: refused on every database)
            (
                client.get("/v1/records", params={"target": "llvm\x00"}),
                422,
                "'target' contains a NUL",
            ),
            (client.get("/v1/jobs/a%00b"), 422, "path contains a NUL"),
        ]
        for response, status, words in cases:
            assert response.status_code == status, response.text
            assert words.lower() in response.text.lower(), response.text
        assert live.counts() == before


def test_a_value_the_database_cannot_store_is_422_and_stores_nothing(live: LiveService) -> None:
    before = live.counts()
    with live.client(live.registration_secret) as client:
        body = {"name": "w\x00", "target": host_target(), "device": {}, "version": "t"}
        response = client.post("/v1/workers/register", json=body)
    if live.settings.resolved_database_url.startswith("postgresql"):
        assert response.status_code == 422, response.text
        assert "cannot store" in response.text and "NUL" in response.text
        assert live.counts() == before
    else:  # (SQLite stores a NUL like any other character)
        assert response.status_code == 201, response.text


def test_models_jobs_and_cancel(live: LiveService) -> None:
    with live.client() as client:
        model = upload(client)
        assert len(model["tasks"]) == 29 and model["inputs"][0]["name"] == "data_0"
        assert upload(client)["id"] == model["id"]  # content-addressed: same bytes, same model
        multipart = client.post("/v1/models", files={"file": ("sq.onnx", SQUEEZENET.read_bytes())})
        assert multipart.status_code == 201 and multipart.json()["id"] == model["id"]
        assert (
            live.settings.models_dir / f"{model['id']}.onnx"
        ).read_bytes() == SQUEEZENET.read_bytes()
        assert client.get(f"/v1/models/{model['id']}").json()["name"] == "sq"
        job = client.post("/v1/jobs", json={"model_id": model["id"], "trials": 8}).json()
        assert job["state"] == "queued" and len(job["tasks"]) == 29
        assert job["target"] == host_target()
        listed = client.get("/v1/jobs", params={"state": "queued", "limit": 1}).json()
        assert listed["total"] == 1 and listed["items"][0]["id"] == job["id"]
        assert client.get("/v1/jobs", params={"state": "bogus"}).status_code == 422
        cancelled = client.post(f"/v1/jobs/{job['id']}/cancel")
        assert cancelled.json()["state"] == "cancelled"
        assert client.post(f"/v1/jobs/{job['id']}/cancel").status_code == 409
        assert client.get("/v1/jobs/nope").status_code == 404
        events = client.get(f"/v1/jobs/{job['id']}/events")
        assert "event: progress" in events.text and "event: end" in events.text


def _trace(index: int) -> dict[str, Any]:
    return {"version": 1, "steps": [{"kind": "split", "stage": "s", "axis": "i", "factor": index}]}


def test_records_import_query_export(live: LiveService) -> None:
    records = [
        Record("a" * 64, "llvm -mcpu=x", _trace(i + 2), [1e-3 * (i + 1)], "ok") for i in range(3)
    ]
    text = "".join(record.dumps() + "\n" for record in records)
    with live.client() as client:
        assert client.post("/v1/records/import", content=text).json() == {
            "imported": 3,
            "duplicates": 0,
        }
        assert client.post("/v1/records/import", content=text).json()["duplicates"] == 3
        items = client.get("/v1/records", params={"workload_key": "a" * 64}).json()["items"]
        assert len(items) == 3
        best = client.get("/v1/records", params={"best": True}).json()["items"]
        assert [item["median_cost_s"] for item in best] == [1e-3]
        exported = client.get("/v1/records/export").text.splitlines()
        assert [json.loads(line)["candidate_id"] for line in exported] == [
            r.candidate_id for r in records
        ]
        assert client.get("/v1/records", params={"status": "timeout"}).json()["items"] == []


def test_an_import_is_all_or_nothing_and_refuses_what_a_replay_or_a_best_cannot_use(
    live: LiveService,
) -> None:
    good = [Record("b" * 64, "llvm -mcpu=x", _trace(i + 2), [1e-3], "ok").dumps() for i in range(4)]
    nonsense = json.loads(good[1])
    nonsense["trace"] = {"version": 1, "steps": [{"kind": "teleport", "stage": "s"}]}
    empty_ok = {**json.loads(good[1]), "costs_s": []}
    cases = [
        # The second line cut in half (before: 200, {"imported": 0, "duplicates": 3}).
        ([good[0], good[1][: len(good[1]) // 2], good[2], good[3]], "line 2: a record cut short"),
        ([good[0], json.dumps(nonsense), good[2]], "unknown primitive 'teleport'"),
        ([good[0], json.dumps(empty_ok)], "ok result must hold its measured costs"),
    ]
    with live.client() as client:
        for lines, message in cases:
            before = live.counts()
            response = client.post("/v1/records/import", content="\n".join(lines) + "\n")
            assert response.status_code == 422, response.text
            assert message in response.json()["detail"]
            assert live.counts() == before
        assert client.get("/v1/records", params={"workload_key": "b" * 64}).json()["items"] == []


def test_worker_protocol(live: LiveService) -> None:
    from service.db.engine import make_engine, make_session_factory, unit_of_work
    from service.db.models import JobRow
    from service.queue import queue_batch

    first, second = register(live, "first"), register(live, "second")
    with live.client(token="at_bad") as client:
        body = {"name": "x", "target": host_target()}
        assert client.post("/v1/workers/register", json=body).status_code == 401
    with live.client(first["token"]) as client:
        # A worker token is not a user token.
        assert client.get("/v1/jobs").status_code == 403
        started = time.monotonic()
        empty = client.post(f"/v1/workers/{first['worker_id']}/lease", params={"wait_s": 0.3})
        assert empty.status_code == 204 and time.monotonic() - started >= 0.3
        assert client.post(f"/v1/workers/{second['worker_id']}/lease").status_code == 403
    engine = make_engine(live.settings.resolved_database_url)
    with unit_of_work(make_session_factory(engine)) as session:
        session.add(
            JobRow(
                id="j" * 32, model_id=None, workload=None, target=host_target(), trials=1,
                time_limit_s=None, options={}, state="running", error="", trials_done=0,
                created_at=time.time(),
            )
        )  # fmt: skip
        session.flush()
        batch_id = queue_batch(
            session, "j" * 32, {"key": "k" * 64}, host_target(), {"repeat": 1}, [{"steps": []}]
        ).id
    engine.dispose()
    with live.client(first["token"]) as client, live.client(second["token"]) as other:
        beat = client.post(f"/v1/workers/{first['worker_id']}/heartbeat", json={"state": "idle"})
        assert beat.json() == {"ok": True}
        batch = client.post(f"/v1/workers/{first['worker_id']}/lease", params={"wait_s": 5})
        assert batch.status_code == 200 and batch.json()["batch_id"] == batch_id
        candidate = batch.json()["candidates"][0]["candidate_id"]
        result = {"candidate_id": candidate, "status": "ok", "costs_s": [0.001]}
        stolen = other.post(f"/v1/batches/{batch_id}/results", json={"results": [result]})
        assert stolen.status_code == 403
        posted = client.post(f"/v1/batches/{batch_id}/results", json={"results": [result]})
        assert posted.json() == {"accepted": 1, "duplicates": 0}
        again = client.post(f"/v1/batches/{batch_id}/results", json={"results": [result]})
        assert again.json() == {"accepted": 0, "duplicates": 1}
        assert client.post(f"/v1/batches/{batch_id}/release").json() == {"released": 0}
    with live.client() as admin:
        fleet = admin.get("/v1/workers").json()["items"]
        assert {w["name"]: w["measured"] for w in fleet} == {"first": 1, "second": 0}
        metrics = admin.get("/metrics").text
        assert 'autotune_jobs{state="running"} 1' in metrics
        assert "autotune_measurements_total 1" in metrics
        assert "autotune_leases_live 0" in metrics


def test_tokens(live: LiveService) -> None:
    with live.client() as admin:
        created = admin.post("/v1/tokens", json={"name": "ci"}).json()
        assert created["kind"] == "user" and created["token"].startswith("at_")
        with live.client(created["token"]) as user:
            assert user.get("/v1/jobs").status_code == 200
            assert user.get("/v1/tokens").status_code == 403  # only admins manage tokens
            assert admin.delete(f"/v1/tokens/{created['id']}").json()["revoked_at"]
            assert user.get("/v1/jobs").status_code == 401
        assert admin.delete("/v1/tokens/nope").status_code == 404
    mode = (live.settings.data_dir / "admin.token").stat().st_mode & 0o777
    assert mode == 0o600


@pytest.mark.parametrize("wait_s", [-1, 61])
def test_lease_wait_is_bounded(live: LiveService, wait_s: float) -> None:
    worker = register(live)
    with live.client(worker["token"]) as client:
        response = client.post(
            f"/v1/workers/{worker['worker_id']}/lease", params={"wait_s": wait_s}
        )
        assert response.status_code == 422


def test_the_same_model_uploaded_at_once_is_one_model(live: LiveService) -> None:
    data = SQUEEZENET.read_bytes()
    answers: list[httpx.Response] = []

    def send() -> None:
        with live.client() as client:
            answers.append(client.post("/v1/models", content=data))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [answer.status_code for answer in answers] == [201] * 4
    assert len({answer.json()["id"] for answer in answers}) == 1
    assert live.counts()["models"] == 1


def test_a_dynamic_batch_model_is_stored_with_the_shapes_the_upload_binds(
    live: LiveService,
) -> None:
    from tests.codegen.aot.conftest import small_conv_model

    data = small_conv_model(batch="batch").SerializeToString()
    with live.client() as client:
        unbound = client.post("/v1/models", content=data)
        assert unbound.status_code == 422
        detail = unbound.json()["detail"]
        assert "'x'" in detail and "batch" in detail and "shape=NAME=DxDx" in detail
        bad = client.post("/v1/models", content=data, params={"shape": "x=2x5x6x6"})
        assert bad.status_code == 422 and "at dim 1 (5 vs 4)" in bad.json()["detail"]
        garbled = client.post("/v1/models", content=data, params={"shape": "x=2xfour"})
        assert garbled.status_code == 422 and "must be integers" in garbled.json()["detail"]
        assert live.counts()["models"] == 0
        first = client.post("/v1/models", content=data, params={"shape": "x=3x4x6x6"})
        assert first.status_code == 201, first.text
        model = first.json()
        assert model["inputs"][0]["shape"] == [3, 4, 6, 6]
        assert model["outputs"][0]["shape"] == [3, 10]
        again = client.post("/v1/models", content=data, params={"shape": "x=3x4x6x6"})
        assert again.json()["id"] == model["id"]
        other = client.post("/v1/models", content=data, params={"shape": "x=1x4x6x6"})
        assert other.status_code == 201 and other.json()["id"] != model["id"]
    assert live.counts()["models"] == 2


def test_an_upload_binding_one_input_binds_the_named_dims_it_shares(live: LiveService) -> None:
    import onnx

    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("MatMul", ["a", "b"], ["y"])],
        "shared",
        [
            onnx.helper.make_tensor_value_info("a", onnx.TensorProto.FLOAT, ["batch", "k"]),
            onnx.helper.make_tensor_value_info("b", onnx.TensorProto.FLOAT, ["k", 3]),
        ],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 3])],
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)])
    model.ir_version = 8
    data = model.SerializeToString()
    with live.client() as client:
        stored = client.post("/v1/models", content=data, params={"shape": "a=2x5"})
        assert stored.status_code == 201, stored.text
        assert [item["shape"] for item in stored.json()["inputs"]] == [[2, 5], [5, 3]]
        clash = client.post("/v1/models", content=data, params={"shape": ["a=2x5", "b=4x3"]})
        assert clash.status_code == 422
        assert "dim 'k' is 5 in input 'a' (dim 1) but 4 in input 'b' (dim 0)" in clash.text
    assert live.counts()["models"] == 1


def test_an_upload_naming_external_tensor_files_is_refused(
    live: LiveService, tmp_path: Path
) -> None:
    import onnx

    from tests.codegen.aot.conftest import small_conv_model

    path = tmp_path / "ext.onnx"
    onnx.save(small_conv_model(), str(path), save_as_external_data=True, size_threshold=0)
    with live.client() as client:
        answer = client.post("/v1/models", content=path.read_bytes())
    assert answer.status_code == 422
    assert "stored in an external file" in answer.json()["detail"]
    assert live.counts()["models"] == 0
