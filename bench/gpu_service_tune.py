"""Tune on a GPU through the real service: `autotune serve` (SQLite, no local worker), one
`autotune worker --device cuda:0`, and a job per workload submitted with `autotune submit`.

For each workload (default: matmul_1024 and conv_64x56, as one-node ONNX models) it
submits a job for the GPU's exact target with `--trials` and `--time-limit-s`, waits for
it, exports the job's records, and then, in this process, re-times the best record's
kernel and the default GPU schedule (checked against the reference first) next to the
same operator in PyTorch (cuBLAS / cuDNN, TF32 off) in a separate process of the same run.

    python bench/gpu_service_tune.py [--only matmul_1024 ...] [--trials 256]
        [--time-limit-s 75] [--json OUT]

The job's records are appended to `records.jsonl` beside `--json`. Needs pycuda, nvcc and a
GPU, and PyTorch for the baseline column.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import load_workloads, workload_arrays, workload_flops, workload_onnx
from bench.gpu_check import TUNE_DEFAULT, _torch_in_child, check_schedule
from bench.gpu_cli_models import autotune_command
from codegen.cuda.device import GpuRuntimeError, gpu_device
from ir.schedule import Trace


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Service:
    """`autotune serve` and one worker measuring on `device` (`cuda:0`, or `cpu`), started
    and stopped together."""

    def __init__(self, folder: Path, device: str = "cuda:0") -> None:
        self.folder = folder
        self.device = device
        self.data_dir = folder / "data"
        self.url = f"http://127.0.0.1:{_free_port()}"
        self.env = {
            **os.environ,
            "AUTOTUNE_SERVER": self.url,
            "AUTOTUNE_DATA_DIR": str(self.data_dir),
        }
        self.processes: list[subprocess.Popen[bytes]] = []

    def _start(self, name: str, arguments: list[str]) -> subprocess.Popen[bytes]:
        log = (self.folder / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [*autotune_command(), *arguments], env=self.env, stdout=log, stderr=log
        )
        log.close()
        self.processes.append(process)
        return process

    def start(self) -> None:
        """Start the service, wait for /healthz, then start the worker."""
        port = self.url.rsplit(":", 1)[1]
        server = self._start("serve", ["serve", "--port", port, "--data-dir", str(self.data_dir)])
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                raise RuntimeError(
                    f"autotune serve exited {server.returncode}: {self.log('serve')}"
                )
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the service did not answer /healthz within 90 s")
            time.sleep(0.3)
        secret = (self.data_dir / "registration.token").read_text().strip()
        self._start(
            "worker",
            [
                "worker",
                "--server",
                self.url,
                "--token",
                secret,
                "--device",
                self.device,
                "--name",
                self.device.replace(":", ""),
                "--lease-wait-s",
                "5",
            ],
        )

    def log(self, name: str, tail_chars: int = 1500) -> str:
        """The end of a process's log."""
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace")[-tail_chars:] if path.is_file() else ""

    def cli(self, *arguments: str, timeout_s: float = 120) -> str:
        """Run an `autotune` command against the service; its standard output."""
        done = subprocess.run(
            [*autotune_command(), *arguments],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"autotune {' '.join(arguments[:2])} exited {done.returncode}: "
                f"{done.stderr.strip()[-800:]}"
            )
        return done.stdout

    def stop(self) -> None:
        """SIGTERM the worker and the service (the worker first), then wait."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def tune_workload(
    service: Service, workload: dict[str, Any], target: str, args: argparse.Namespace
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Submit one workload as a job, wait for it; (figures, the job's records)."""
    model, _ = workload_onnx(workload, workload_arrays(workload))
    path = service.folder / f"{workload['name']}.onnx"
    path.write_bytes(model)
    started = time.perf_counter()
    job = json.loads(
        service.cli(
            "submit",
            str(path),
            "--target",
            target,
            "--trials",
            str(args.trials),
            "--time-limit",
            str(args.time_limit_s),
            "--wait",
            "--json",
            timeout_s=args.time_limit_s + 240,
        )
    )
    row: dict[str, Any] = {
        "job": job["id"],
        "state": job["state"],
        "error": job["error"],
        "trials_done": job["trials_done"],
        "tune_s": time.perf_counter() - started,
    }
    lines = service.cli("records", "export", "--job", job["id"]).splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    row["statuses"] = dict(Counter(record["status"] for record in records))
    ok = [record for record in records if record["status"] == "ok" and record["costs_s"]]
    if ok:
        best = min(ok, key=lambda record: min(record["costs_s"]))
        row["best_record_gflops"] = workload_flops(workload) / min(best["costs_s"]) / 1e9
        row["best_trace"] = best["trace"]
    return row, records


def retime(workload: dict[str, Any], target: str, row: dict[str, Any]) -> None:
    """Re-time the default GPU schedule and the best record's kernel, each checked first."""
    default = check_schedule(workload, target, None)
    row["default_gflops"], row["default_correct"] = default["gflops"], default["correct"]
    if "best_trace" in row:
        trace = Trace.from_json(row.pop("best_trace"))
        best = check_schedule(workload, target, trace)
        row["best_retimed_gflops"], row["best_correct"] = best["gflops"], best["correct"]
        if not best["correct"]:
            row["best_error"] = best.get("error", "")


def main() -> int:
    """Command line (module docstring); exit 1 when a job failed or a kernel was wrong."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=list(TUNE_DEFAULT), help="workloads")
    parser.add_argument("--trials", type=int, default=256)
    parser.add_argument("--time-limit-s", type=float, default=120.0, help="per job")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    workloads = [w for w in load_workloads() if w["name"] in args.only]
    try:
        device = gpu_device(0)
    except GpuRuntimeError as err:
        print(f"gpu_service_tune: {err}", file=sys.stderr)
        return 1
    target = device.target
    figures: dict[str, Any] = {"device": device.to_json(), "target": target, "rows": []}
    records_out = args.json.with_name("records.jsonl") if args.json else None
    failures = 0
    with tempfile.TemporaryDirectory(prefix="gpu-service-tune-") as scratch:
        service = Service(Path(scratch))
        try:
            service.start()
            for workload in workloads:
                row: dict[str, Any] = {"name": workload["name"]}
                try:
                    tuned, records = tune_workload(service, workload, target, args)
                    row.update(tuned)
                    if records_out is not None:
                        with records_out.open("a") as out:
                            out.writelines(json.dumps(record) + "\n" for record in records)
                except (RuntimeError, subprocess.TimeoutExpired, ValueError) as err:
                    row["error"] = str(err)[-1000:]
                    row["worker_log"] = service.log("worker")
                figures["rows"].append(row)
                if args.json:
                    args.json.write_text(json.dumps(figures, indent=1) + "\n")
        finally:
            service.stop()
    torch = _torch_in_child([w["name"] for w in workloads])
    for workload, row in zip(workloads, figures["rows"], strict=True):
        try:
            retime(workload, target, row)
        except Exception as err:  # a kernel that fails here is a finding, not the end
            row["retime_error"] = f"{type(err).__name__}: {str(err)[-600:]}"
        row["torch_gflops"] = torch.get(workload["name"])
        if row.get("best_retimed_gflops") and row["torch_gflops"]:
            row["best_to_torch"] = row["best_retimed_gflops"] / row["torch_gflops"]
        failures += (
            bool(row.get("error"))
            or row.get("state") != "completed"
            or not row.get("default_correct")
            or not row.get("best_correct", False)
        )
        print(json.dumps(row), file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"\n{device.name}, {target}; GFLOPS, float32 (PyTorch with TF32 off)")
    print(
        f"{'workload':<14} {'state':<10} {'trials':>6} {'default':>8} {'best':>8} "
        f"{'retimed':>8} {'torch':>8} {'ratio':>6}"
    )
    for row in figures["rows"]:
        cells = [
            row.get(k)
            for k in ("default_gflops", "best_record_gflops", "best_retimed_gflops", "torch_gflops")
        ]
        text = " ".join("-".rjust(8) if v is None else f"{v:8.0f}" for v in cells)
        ratio = row.get("best_to_torch")
        print(
            f"{row['name']:<14} {row.get('state', 'error'):<10} {row.get('trials_done', 0):>6} "
            f"{text} {'-' if ratio is None else f'{ratio:.2f}':>6}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
