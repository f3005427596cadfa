"""Load benchmark of the service: simulated workers and polling clients on loopback.

Starts a real `autotune serve` (SQLite in a temporary data directory, then PostgreSQL),
uploads the bundled model, creates tuning jobs with a large budget, and for `--duration`
seconds runs, in one asyncio loop of this process:

- `--workers` simulated workers (8): protocol-level clients that register, heartbeat,
  lease batches for this host's target and post a synthetic result for each candidate,
  one post per candidate as the real worker does, with no real measurement;
- `--pollers` polling clients (50): each alternates GET /v1/jobs/{id} and
  GET /v1/records?job_id=... every `--poll-interval-s`.

It reports p50/p99 latency per endpoint, results ingested per second (accepted by the
service), and errors (any answer other than 2xx, and 204 for lease polls; target: zero).
Lease latency includes the long poll's wait for a batch, so it is reported but not a
service-speed figure.

PostgreSQL: `--postgres-url` names the server (default
postgresql+psycopg://postgres@127.0.0.1:5432/test); the benchmark creates a fresh database
`autotune_bench_<pid>` on that server and drops it afterwards, so the named database is
never touched. `--databases sqlite` skips PostgreSQL.

    .venv/bin/python bench/service_load.py --duration 60
    make bench-service
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
AUTOTUNE = str(Path(sys.executable).parent / "autotune")
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
START_TIMEOUT_S = 120.0


@dataclass
class Stats:
    """Latencies and errors per endpoint, and results accepted, for one run."""

    latencies_s: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    error_samples: list[str] = field(default_factory=list)
    accepted: int = 0
    duplicates: int = 0
    batches: int = 0
    empty_leases: int = 0  # lease polls that found no batch (the drivers were behind)

    def note(self, endpoint: str, started: float, ok: bool, why: str = "") -> None:
        """Record one call's latency, and an error when it was not ok."""
        self.latencies_s[endpoint].append(time.perf_counter() - started)
        if not ok:
            self.errors[endpoint] += 1
            if len(self.error_samples) < 10:
                self.error_samples.append(f"{endpoint}: {why}")


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


# -- the service under test ----------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    """A fresh database on the server of `server_url`, dropped afterwards; yields its URL."""
    import psycopg

    base, _, _ = server_url.rpartition("/")
    name = f"autotune_bench_{os.getpid()}"
    admin_url = base.replace("postgresql+psycopg://", "postgresql://") + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def running_service(data_dir: Path, database_url: str) -> Iterator[str]:
    """`autotune serve` on a free loopback port until the block ends; yields its URL."""
    port = _free_port()
    env = {**os.environ, "AUTOTUNE_DATA_DIR": str(data_dir)}
    env.pop("AUTOTUNE_DATABASE_URL", None)
    if database_url:
        env["AUTOTUNE_DATABASE_URL"] = database_url
    log = (data_dir / "service.log").open("wb")
    process = subprocess.Popen(
        [
            AUTOTUNE,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                tail = (data_dir / "service.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"autotune serve exited with {process.returncode}:\n{tail}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"autotune serve did not answer /healthz in {START_TIMEOUT_S} s")
            time.sleep(0.2)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _bundled_model() -> bytes:
    import onnx

    path = Path(onnx.__file__).parent / "backend/test/data/light/light_squeezenet.onnx"
    return path.read_bytes()


def _host_target() -> str:
    from codegen.llvm import host_target

    return str(host_target())


# -- the load --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What the load needs: the service URL, tokens, jobs and this host's target."""

    url: str
    admin_token: str
    registration_secret: str
    job_ids: list[str]
    target: str


def prepare(url: str, data_dir: Path, jobs: int, batch_size: int) -> Setup:
    """Upload the bundled model and create `jobs` tuning jobs with a budget that outlasts
    the run; returns the tokens and job ids."""
    admin = (data_dir / "admin.token").read_text().strip()
    secret = (data_dir / "registration.token").read_text().strip()
    headers = {"Authorization": f"Bearer {admin}"}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        answer = client.post(
            "/v1/models",
            content=_bundled_model(),
            params={"name": "light_squeezenet.onnx"},
            headers={"Content-Type": "application/octet-stream"},
        )
        answer.raise_for_status()
        model_id = answer.json()["id"]
        job_ids = []
        for seed in range(jobs):
            body = {
                "model_id": model_id,
                "target": "llvm",
                "trials": 1_000_000,
                "options": {"batch_size": batch_size, "search": "random", "seed": seed},
            }
            answer = client.post("/v1/jobs", json=body)
            answer.raise_for_status()
            job_ids.append(answer.json()["id"])
    return Setup(url, admin, secret, job_ids, _host_target())


async def _call(
    client: httpx.AsyncClient,
    stats: Stats,
    endpoint: str,
    method: str,
    path: str,
    ok_statuses: tuple[int, ...] = (200, 201),
    **kwargs: Any,
) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        response = await client.request(method, path, **kwargs)
    except httpx.HTTPError as err:
        stats.note(endpoint, started, False, f"{type(err).__name__}: {err}")
        return None
    ok = response.status_code in ok_statuses
    stats.note(endpoint, started, ok, f"HTTP {response.status_code}: {response.text[:200]}")
    return response if ok else None


async def register_worker(
    client: httpx.AsyncClient, setup: Setup, index: int, stats: Stats
) -> dict[str, Any] | None:
    """Register simulated worker `index`; its registration (worker id, token), or None."""
    body = {
        "name": f"sim-{index}",
        "target": setup.target,
        "device": {"kind": "simulated"},
        "version": "bench",
    }
    secret = {"Authorization": f"Bearer {setup.registration_secret}"}
    answer = await _call(
        client, stats, "POST register", "POST", "/v1/workers/register", json=body, headers=secret
    )
    if answer is None:
        return None
    registration: dict[str, Any] = answer.json()
    client.headers["Authorization"] = f"Bearer {registration['token']}"
    return registration


async def simulated_worker(
    client: httpx.AsyncClient,
    registration: dict[str, Any],
    index: int,
    stop: asyncio.Event,
    stats: Stats,
    lease_wait_s: float,
) -> None:
    """Lease batches and post a synthetic result per candidate until `stop`."""
    rng = random.Random(index)
    worker_id = registration["worker_id"]
    heartbeat_s = float(registration["heartbeat_interval_s"])
    last_beat = time.monotonic()
    while not stop.is_set():
        if time.monotonic() - last_beat >= heartbeat_s:
            last_beat = time.monotonic()
            await _call(
                client,
                stats,
                "POST heartbeat",
                "POST",
                f"/v1/workers/{worker_id}/heartbeat",
                json={"state": "idle", "batch_id": None},
            )
        answer = await _call(
            client,
            stats,
            "POST lease (long poll)",
            "POST",
            f"/v1/workers/{worker_id}/lease",
            ok_statuses=(200, 204),
            params={"wait_s": lease_wait_s},
        )
        if answer is None or answer.status_code == 204:
            stats.empty_leases += answer is not None
            continue
        batch = answer.json()
        stats.batches += 1
        for candidate in batch["candidates"]:
            if stop.is_set():
                break
            cost_s = rng.uniform(1e-5, 1e-3)
            result = {
                "candidate_id": candidate["candidate_id"],
                "status": "ok",
                "costs_s": [cost_s * rng.uniform(0.98, 1.02) for _ in range(3)],
                "error": "",
                "build_s": 0.01,
                "measure_s": 0.01,
            }
            answer = await _call(
                client,
                stats,
                "POST results",
                "POST",
                f"/v1/batches/{batch['batch_id']}/results",
                json={"results": [result]},
            )
            if answer is not None:
                counts = answer.json()
                stats.accepted += int(counts["accepted"])
                stats.duplicates += int(counts["duplicates"])
        if stop.is_set():
            await _call(
                client, stats, "POST release", "POST", f"/v1/batches/{batch['batch_id']}/release"
            )


async def polling_client(
    setup: Setup, index: int, stop: asyncio.Event, stats: Stats, interval_s: float
) -> None:
    """GET a job, then its newest records, alternately, every `interval_s`, until `stop`."""
    job_id = setup.job_ids[index % len(setup.job_ids)]
    headers = {"Authorization": f"Bearer {setup.admin_token}"}
    async with httpx.AsyncClient(base_url=setup.url, headers=headers, timeout=60) as client:
        await asyncio.sleep(interval_s * index / 50)  # spread the first requests
        turn = 0
        while not stop.is_set():
            if turn % 2 == 0:
                await _call(client, stats, "GET job", "GET", f"/v1/jobs/{job_id}")
            else:
                await _call(
                    client,
                    stats,
                    "GET records",
                    "GET",
                    "/v1/records",
                    params={"job_id": job_id, "limit": 100},
                )
            turn += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=interval_s)


async def run_load(setup: Setup, args: argparse.Namespace) -> tuple[Stats, float]:
    """Register the workers, then run them and the pollers for `args.duration` seconds;
    (stats, seconds measured)."""
    stats = Stats()
    stop = asyncio.Event()
    clients = [httpx.AsyncClient(base_url=setup.url, timeout=90) for _ in range(args.workers)]
    try:
        registrations = await asyncio.gather(
            *(register_worker(client, setup, i, stats) for i, client in enumerate(clients))
        )
        tasks = [
            asyncio.create_task(
                simulated_worker(client, registration, i, stop, stats, args.lease_wait_s)
            )
            for i, (client, registration) in enumerate(zip(clients, registrations, strict=True))
            if registration is not None
        ]
        tasks += [
            asyncio.create_task(polling_client(setup, i, stop, stats, args.poll_interval_s))
            for i in range(args.pollers)
        ]
        started = time.perf_counter()
        await asyncio.sleep(args.duration)
        elapsed = time.perf_counter() - started
        stop.set()
        await asyncio.gather(*tasks)
    finally:
        for client in clients:
            await client.aclose()
    return stats, elapsed


def wait_for_queued_work(setup: Setup, timeout_s: float = START_TIMEOUT_S) -> None:
    """Wait until the job drivers have queued a first batch (so the clock does not time
    their start-up)."""
    headers = {"Authorization": f"Bearer {setup.admin_token}"}
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = httpx.get(f"{setup.url}/metrics", headers=headers, timeout=30).text
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "autotune_queue_batches" and float(value) > 0:
                return
        time.sleep(0.5)
    raise RuntimeError(f"no batch was queued within {timeout_s} s")


# -- report ----------------------------------------------------------------------------------


def report(database: str, stats: Stats, elapsed_s: float) -> dict[str, Any]:
    """Print the run's table and return it as JSON data."""
    endpoints = {}
    print(f"\n== {database}: {elapsed_s:.0f} s ==")
    print(f"{'endpoint':<24} {'calls':>7} {'p50 ms':>9} {'p99 ms':>9} {'errors':>7}")
    for endpoint in sorted(stats.latencies_s):
        values = stats.latencies_s[endpoint]
        p50_ms = _percentile(values, 0.50) * 1e3
        p99_ms = _percentile(values, 0.99) * 1e3
        errors = stats.errors.get(endpoint, 0)
        print(f"{endpoint:<24} {len(values):>7} {p50_ms:>9.1f} {p99_ms:>9.1f} {errors:>7}")
        endpoints[endpoint] = {
            "calls": len(values),
            "p50_ms": p50_ms,
            "p99_ms": p99_ms,
            "mean_ms": statistics.fmean(values) * 1e3,
            "errors": errors,
        }
    total_errors = sum(stats.errors.values())
    rate = stats.accepted / elapsed_s if elapsed_s > 0 else 0.0
    print(
        f"results ingested: {stats.accepted} ({rate:.1f}/s), duplicates {stats.duplicates}, "
        f"batches leased {stats.batches}, lease polls without work {stats.empty_leases}, "
        f"errors {total_errors}"
    )
    for sample in stats.error_samples:
        print(f"  error: {sample}")
    return {
        "database": database,
        "duration_s": elapsed_s,
        "endpoints": endpoints,
        "results_ingested": stats.accepted,
        "results_per_s": rate,
        "duplicates": stats.duplicates,
        "batches": stats.batches,
        "empty_leases": stats.empty_leases,
        "errors": total_errors,
        "error_samples": stats.error_samples,
    }


def bench_one(database: str, database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """One full run against a fresh service on `database_url` ("" = SQLite)."""
    with tempfile.TemporaryDirectory(prefix="autotune-bench-") as tmp:
        data_dir = Path(tmp)
        with running_service(data_dir, database_url) as url:
            setup = prepare(url, data_dir, args.jobs, args.batch_size)
            print(
                f"{database}: service at {url}, {len(setup.job_ids)} jobs, "
                f"{args.workers} workers, {args.pollers} pollers, target {setup.target!r}"
            )
            wait_for_queued_work(setup)
            stats, elapsed = asyncio.run(run_load(setup, args))
            return report(database, stats, elapsed)


def main() -> int:
    """Parse arguments, run the benchmark on each database, print (and save) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (60)")
    parser.add_argument("--workers", type=int, default=8, help="simulated workers (8)")
    parser.add_argument("--pollers", type=int, default=50, help="polling clients (50)")
    parser.add_argument(
        "--poll-interval-s", type=float, default=1.0, help="each poller's pause between GETs (1)"
    )
    parser.add_argument(
        "--lease-wait-s", type=float, default=5.0, help="the workers' long-poll wait (5)"
    )
    parser.add_argument("--jobs", type=int, default=4, help="tuning jobs to feed the queue (4)")
    parser.add_argument("--batch-size", type=int, default=32, help="candidates per batch (32)")
    parser.add_argument(
        "--databases",
        default="sqlite,postgres",
        help="comma-separated: sqlite, postgres (default both)",
    )
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("AUTOTUNE_BENCH_POSTGRES_URL", DEFAULT_POSTGRES),
        help="a PostgreSQL server; a fresh database is created on it and dropped after",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    runs = []
    for database in filter(None, (name.strip() for name in args.databases.split(","))):
        if database == "sqlite":
            runs.append(bench_one("sqlite", "", args))
        elif database == "postgres":
            with postgres_database(args.postgres_url) as url:
                runs.append(bench_one("postgres", url, args))
        else:
            parser.error(f"unknown database {database!r}; use sqlite and/or postgres")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2) + "\n")
    return 1 if any(run["errors"] for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
