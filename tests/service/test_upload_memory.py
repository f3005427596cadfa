"""Uploads over the size limit cost no memory: the body goes to disk as it arrives, and the
limit is enforced chunk by chunk (four concurrent oversized uploads had held four limits'
worth of the service's memory)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.service.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from service.cli import main; sys.exit(main())"
LIMIT_MB = 48
UPLOAD_MB = 80


def _memory_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def _chunks() -> Iterator[bytes]:
    block = b"\0" * (1 << 20)
    for _ in range(UPLOAD_MB):
        yield block


@pytest.mark.slow
@pytest.mark.parametrize("multipart", [False, True], ids=["raw", "multipart"])
def test_oversized_uploads_are_refused_without_holding_them_in_memory(
    tmp_path: Path, multipart: bool
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "AUTOTUNE_MAX_UPLOAD_BYTES": str(LIMIT_MB << 20),
        "AUTOTUNE_RUN_DRIVERS": "false",
    }
    data_dir = tmp_path / "data"
    service = subprocess.Popen(
        [sys.executable, "-c", CLI, "serve", "--port", str(port), "--data-dir", str(data_dir)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and service.poll() is None, "no service"
            time.sleep(0.2)
        headers = {"Authorization": f"Bearer {(data_dir / 'admin.token').read_text().strip()}"}
        time.sleep(1.0)
        before_kb = _memory_kb(service.pid, "VmHWM")

        def upload(_: int) -> int:
            try:
                if multipart:
                    boundary = "autotune-boundary"
                    head = (
                        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                        'filename="big.onnx"\r\nContent-Type: application/octet-stream\r\n\r\n'
                    ).encode()

                    def body() -> Iterator[bytes]:
                        yield head
                        yield from _chunks()
                        yield f"\r\n--{boundary}--\r\n".encode()

                    response = httpx.post(
                        f"{url}/v1/models",
                        content=body(),
                        timeout=120,
                        headers={**headers,
                                 "Content-Type": f"multipart/form-data; boundary={boundary}"},
                    )  # fmt: skip
                else:
                    response = httpx.post(
                        f"{url}/v1/models", content=_chunks(), headers=headers, timeout=120
                    )
                return response.status_code
            except httpx.HTTPError:  # the service answered 413 and closed mid-upload
                return 413

        with ThreadPoolExecutor(4) as pool:
            codes = list(pool.map(upload, range(4)))
        assert codes == [413] * 4
        grown_mb = (_memory_kb(service.pid, "VmHWM") - before_kb) / 1024
        # Holding each body up to the limit, as before, grows by about 4 x 48 MB.
        assert grown_mb < LIMIT_MB, f"the service's peak memory grew by {grown_mb:.0f} MB"
        assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    finally:
        service.terminate()
        service.wait(timeout=30)
