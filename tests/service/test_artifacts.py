"""The artifact API: built in the background with the best records, cached by its inputs,
downloadable once ready."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from onnxruntime.quantization import QuantFormat, QuantType
from sqlalchemy.orm import Session

from codegen.llvm.target import host_target
from service import artifacts
from service.artifacts import request_artifact
from service.blobs import FileStore
from service.model_store import store_model
from tests.service.conftest import LiveService
from tests.support.onnx_models import light_model_path
from tests.support.quantized_models import quantized_by_onnxruntime, residual_block

pytestmark = pytest.mark.slow


def wait_ready(client: httpx.Client, artifact_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        artifact = client.get(f"/v1/artifacts/{artifact_id}").json()
        if artifact["state"] in ("ready", "failed"):
            return dict(artifact)
        time.sleep(0.2)
    raise AssertionError("the artifact was not built in time")


def test_artifact_is_built_once_and_downloads(live_drivers: LiveService) -> None:
    data = light_model_path("light_squeezenet").read_bytes()
    with live_drivers.client() as client:
        model = client.post("/v1/models", content=data).json()
        assert client.post("/v1/artifacts", json={"model_id": "nope"}).status_code == 404
        bad = client.post("/v1/artifacts", json={"model_id": model["id"], "target": "cuda"})
        assert bad.status_code == 422 and "target" in bad.text
        created = client.post("/v1/artifacts", json={"model_id": model["id"]})
        assert created.status_code == 202 and created.json()["state"] in ("queued", "building")
        early = client.get(f"/v1/artifacts/{created.json()['id']}/download")
        assert early.status_code in (200, 409)
        artifact = wait_ready(client, created.json()["id"])
        assert artifact["state"] == "ready", artifact["error"]
        assert len(artifact["coverage"]) == len(model["tasks"])
        assert not any(task["hit"] for task in artifact["coverage"])  # no records yet
        download = client.get(f"/v1/artifacts/{artifact['id']}/download")
        assert download.status_code == 200
        assert hashlib.sha256(download.content).hexdigest() == artifact["sha256"]
        assert len(download.content) == artifact["size_bytes"]
        again = client.post("/v1/artifacts", json={"model_id": model["id"]}).json()
        assert again["id"] == artifact["id"]  # same model, target and records: same artifact


def test_newer_compiler_code_gets_its_own_artifact(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same model, target and records, but another compiler: a new build, not the cached
    one (which newer default schedules or code generation would not have made)."""
    data = light_model_path("light_squeezenet").read_bytes()
    files = FileStore(tmp_path, ".onnx", shared=False)
    model = store_model(session, files, "squeezenet.onnx", data, max_bytes=len(data))
    first = request_artifact(session, model.id, "llvm")
    assert request_artifact(session, model.id, "llvm").id == first.id
    monkeypatch.setattr(artifacts, "compiler_fingerprint", lambda: "0" * 64)
    upgraded = request_artifact(session, model.id, "llvm")
    assert upgraded.id != first.id and upgraded.state == "queued"
    assert request_artifact(session, model.id, "llvm").id == upgraded.id


@pytest.mark.parametrize("quant_format", [QuantFormat.QDQ, QuantFormat.QOperator])
def test_a_quantized_model_builds_an_artifact_with_integer_kernels(
    live_drivers: LiveService, tmp_path: Path, quant_format: QuantFormat
) -> None:
    """A model quantized by onnxruntime's quantize_static (QDQ, or QOperator with its
    com.microsoft ops; 7-bit weights: integer kernels on AVX2 hosts too) uploads, lists
    its integer tasks and builds an artifact whose manifest lists the integer kernels,
    like a float model."""
    model = quantized_by_onnxruntime(
        tmp_path,
        residual_block(8),
        QuantType.QUInt8,
        QuantType.QInt8,
        reduce_range=True,
        quant_format=quant_format,
    )
    expected = 0 if host_target().integer_products == "none" else 4
    with live_drivers.client() as client:
        uploaded = client.post("/v1/models", content=model.SerializeToString()).json()
        names = [task["name"] for task in uploaded["tasks"]]
        assert sum(name.startswith("fused_qnn_conv2d_nchwc") for name in names) == expected
        content = _built_artifact(client, uploaded["id"])
    with tarfile.open(fileobj=io.BytesIO(content)) as archive:
        member = archive.extractfile("manifest.json")
        assert member is not None
        manifest = json.loads(member.read())
    assert len(manifest["integer_kernels"]) == expected


def _built_artifact(client: Any, model_id: str) -> bytes:
    """The artifact the service builds of model `model_id`, downloaded, once ready."""
    created = client.post("/v1/artifacts", json={"model_id": model_id}).json()
    artifact = wait_ready(client, created["id"])
    assert artifact["state"] == "ready", artifact["error"]
    download = client.get(f"/v1/artifacts/{artifact['id']}/download")
    assert download.status_code == 200, download.text
    return bytes(download.content)


def _built_with_loop_tasks(live_drivers: LiveService, model: Any, path: Path) -> Path:
    """Upload `model`, check that its tasks include a loop body's matmul + tanh cell, build
    its artifact and download it to `path`."""
    with live_drivers.client() as client:
        uploaded = client.post("/v1/models", content=model.SerializeToString()).json()
        names = [task["name"] for task in uploaded["tasks"]]
        assert any("matmul" in name and "tanh" in name for name in names), names
        content = _built_artifact(client, uploaded["id"])
    path.write_bytes(content)
    return path


def test_a_model_with_a_run_time_loop_uploads_and_builds_one_artifact(
    live_drivers: LiveService, tmp_path: Path
) -> None:
    """A decoder loop (run-time trip count, early exit, an If in its body) uploads with its
    loop-body tasks listed and builds an artifact that matches onnxruntime at several trip
    counts, over HTTP like any other model."""
    import numpy as np
    import onnxruntime

    from codegen.runtime.loader import load_artifact
    from tests.support.control_flow_models import decoder_loop_model

    model = decoder_loop_model()
    path = _built_with_loop_tasks(live_drivers, model, tmp_path / "decoder.tar.gz")
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    rng = np.random.default_rng(2)
    with load_artifact(path) as loaded:
        assert loaded.manifest["control_flow"] is True
        for trips in (0, 3, 12):
            feeds = {
                "x": rng.standard_normal((1, 8)).astype(np.float32),
                "h0": np.zeros((1, 8), np.float32),
                "n": np.array(trips, np.int64),
                "limit": np.array(9.0, np.float32),
            }
            expected = session.run(None, feeds)[0]
            np.testing.assert_allclose(loaded.run(feeds)["h"], expected, rtol=1e-5, atol=1e-6)


def test_a_model_with_a_scan_uploads_and_builds_an_artifact(
    live_drivers: LiveService, tmp_path: Path
) -> None:
    """An RNN written as an ONNX Scan: its cell's kernels (inside the loop the Scan
    becomes) are tasks, and the artifact's scanned-out states match onnxruntime's."""
    import numpy as np
    import onnxruntime

    from bench.control_flow import scan_rnn
    from codegen.runtime.loader import load_artifact

    model = scan_rnn(hidden=16, batch=2, length=12)
    path = _built_with_loop_tasks(live_drivers, model, tmp_path / "scan.tar.gz")
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    rng = np.random.default_rng(3)
    feeds = {
        "h0": rng.standard_normal((2, 16)).astype(np.float32),
        "x": rng.standard_normal((12, 2, 16)).astype(np.float32),
    }
    with load_artifact(path) as loaded:
        assert loaded.manifest["control_flow"] is True
        got = loaded.run(feeds)
    for name, expected in zip(("h", "hs"), session.run(None, feeds), strict=True):
        np.testing.assert_allclose(got[name], expected, rtol=1e-5, atol=1e-6)


def test_a_model_bound_to_shape_ranges_uploads_and_builds_one_artifact_for_them(
    live_drivers: LiveService, tmp_path: Path
) -> None:
    """A transformer block with symbolic batch and sequence dims, uploaded with ranges
    for them: the stored model keeps them symbolic (and carries the ranges), its tasks
    are the symbolic kernels, and the artifact built over HTTP runs every shape in range
    like onnxruntime, refusing one outside by input and dim."""
    import numpy as np

    from codegen.runtime.loader import ArtifactInputError, load_artifact
    from tests.ir.frontend.onnx_helpers import randn, run_onnxruntime
    from tests.ir.frontend.test_onnx_transformer import HIDDEN, transformer_block

    model = transformer_block()
    ranges = {"shape": f"x=1..3x1..40x{HIDDEN}"}
    with live_drivers.client() as client:
        garbled = client.post(
            "/v1/models", content=model.SerializeToString(), params={"shape": "x=3..1x1..40x16"}
        )
        assert garbled.status_code == 422 and "1 <= low <= high" in garbled.json()["detail"]
        stored = client.post("/v1/models", content=model.SerializeToString(), params=ranges)
        assert stored.status_code == 201, stored.text
        info = stored.json()
        assert info["inputs"][0]["dims"] == ["batch", "seq", str(HIDDEN)]
        assert info["inputs"][0]["shape"] == [3, 40, HIDDEN]
        assert info["tasks"] and info["outputs"][0]["dims"] == ["batch", "seq", str(HIDDEN)]
        content = _built_artifact(client, info["id"])
    path = tmp_path / "block.tar.gz"
    path.write_bytes(content)
    with load_artifact(path) as loaded:
        assert loaded.manifest["sizes"] == [
            {"name": "batch", "upper": 3},
            {"name": "seq", "upper": 40},
        ]
        for batch, seq in ((1, 1), (3, 40), (2, 9)):
            x = randn(batch, seq, HIDDEN)
            (expected,) = run_onnxruntime(model, {"x": x})
            (actual,) = loaded.run({"x": x}).values()
            np.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-4)
        with pytest.raises(ArtifactInputError, match=r"input 'x' dim 1 \(seq\) is 41"):
            loaded.run({"x": randn(1, 41, HIDDEN)})


def test_an_image_model_with_a_batch_range_builds_one_artifact_over_http(
    live_drivers: LiveService, tmp_path: Path
) -> None:
    """A CNN uploaded with a batch range keeps its batch symbolic through convs and
    pooling; the artifact built over HTTP runs any batch in range like onnxruntime."""
    import numpy as np

    from codegen.runtime.loader import load_artifact
    from tests.ir.frontend.onnx_helpers import randn, run_onnxruntime
    from tests.support.onnx_models import batched_cnn

    model = batched_cnn()
    with live_drivers.client() as client:
        stored = client.post(
            "/v1/models", content=model.SerializeToString(), params={"shape": "x=1..4x3x32x32"}
        )
        assert stored.status_code == 201, stored.text
        info = stored.json()
        assert info["inputs"][0]["dims"] == ["batch", "3", "32", "32"]
        content = _built_artifact(client, info["id"])
    path = tmp_path / "cnn.tar.gz"
    path.write_bytes(content)
    with load_artifact(path) as loaded:
        assert loaded.manifest["sizes"] == [{"name": "batch", "upper": 4}]
        for batch in (1, 4):
            x = randn(batch, 3, 32, 32)
            (expected,) = run_onnxruntime(model, {"x": x})
            (actual,) = loaded.run({"x": x}).values()
            np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)
