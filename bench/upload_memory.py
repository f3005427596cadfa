"""The service's memory under concurrent oversized uploads (issue: four 300 MB uploads
held about 1 GB of it). Starts `autotune serve` from this tree, sends `--uploads`
concurrent chunked uploads of `--size-mb` each (raw bodies, generated as they are sent),
and prints the service's resident memory when idle and its peak (VmHWM) after.

    python bench/upload_memory.py [--uploads 4] [--size-mb 300] [--limit-mb 256]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.gpu_service_tune import _free_port

ROOT = Path(__file__).resolve().parent.parent
CLI = "import sys; from service.cli import main; sys.exit(main())"


def memory_mb(pid: int, field: str) -> float:
    """A /proc/PID/status memory field (VmRSS, VmHWM) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


def main() -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--size-mb", type=int, default=300)
    parser.add_argument("--limit-mb", type=int, default=256)
    args = parser.parse_args()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as scratch:
        data_dir = Path(scratch) / "data"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOTUNE_RUN_DRIVERS": "false",
               "AUTOTUNE_MAX_UPLOAD_BYTES": str(args.limit_mb << 20)}  # fmt: skip
        service = subprocess.Popen(
            [sys.executable, "-c", CLI, "serve", "--port", str(port), "--data-dir", str(data_dir)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            time.sleep(2.0)
            token = (data_dir / "admin.token").read_text().strip()
            idle = memory_mb(service.pid, "VmRSS")
            idle_peak = memory_mb(service.pid, "VmHWM")

            def chunks() -> Iterator[bytes]:
                block = b"\0" * (1 << 20)
                for _ in range(args.size_mb):
                    yield block

            def upload(_: int) -> str:
                try:
                    response = httpx.post(
                        f"{url}/v1/models", content=chunks(), timeout=600,
                        headers={"Authorization": f"Bearer {token}"},
                    )  # fmt: skip
                    return str(response.status_code)
                except httpx.HTTPError as err:
                    return type(err).__name__

            started = time.perf_counter()
            with ThreadPoolExecutor(args.uploads) as pool:
                outcomes = list(pool.map(upload, range(args.uploads)))
            seconds = time.perf_counter() - started
            time.sleep(1.0)
            print(f"{args.uploads} concurrent uploads of {args.size_mb} MB, limit "
                  f"{args.limit_mb} MB: {outcomes} in {seconds:.1f} s")  # fmt: skip
            print(f"service resident memory: idle {idle:.0f} MB (peak so far {idle_peak:.0f} MB); "
                  f"peak during the uploads {memory_mb(service.pid, 'VmHWM'):.0f} MB; "
                  f"after {memory_mb(service.pid, 'VmRSS'):.0f} MB")  # fmt: skip
        finally:
            service.terminate()
            service.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
