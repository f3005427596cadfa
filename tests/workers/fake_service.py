"""An in-memory implementation of the worker protocol, for the agent's unit tests.

It serves docs/worker-protocol.md over real HTTP on loopback (tests/workers/loopback.py):
a queue of batches, leases per worker, results recorded per candidate (duplicates
counted), release. Faults are injected by tests through `fail_results` (answer the next
N result posts with 503) and `expire_next_post` (answer 409 once).
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workers.protocol import Batch, CandidateResult, ResultsPost

from .loopback import LoopbackServer

SECRET = "registration-secret"


@dataclass
class _Lease:
    batch: Batch
    worker_id: str
    released: bool = False


@dataclass
class FakeService:
    """The service side of the protocol with an in-memory queue."""

    queue: list[Batch] = field(default_factory=list)
    results: dict[str, CandidateResult] = field(default_factory=dict)
    duplicates: int = 0
    released: list[str] = field(default_factory=list)  # candidate ids given back
    heartbeats: list[dict[str, Any]] = field(default_factory=list)
    workers: dict[str, dict[str, Any]] = field(default_factory=dict)
    fail_results: int = 0
    expire_next_post: bool = False
    _leases: dict[str, _Lease] = field(default_factory=dict)
    _lock: threading.Condition = field(default_factory=threading.Condition)

    def serve(self) -> LoopbackServer:
        """A loopback HTTP server answering with this fake (use as a context manager)."""
        return LoopbackServer(self.handle)

    def enqueue(self, batch: Batch) -> None:
        """Queue a batch for the next lease."""
        with self._lock:
            self.queue.append(batch)
            self._lock.notify_all()

    def handle(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[int, Any]:
        """Answer one request as the service would."""
        url = urllib.parse.urlsplit(path)
        parts = url.path.strip("/").split("/")
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if parts == ["v1", "workers", "register"]:
            if token != SECRET:
                return 401, {"detail": "unknown registration secret"}
            worker_id = f"w{len(self.workers) + 1}"
            self.workers[worker_id] = {**body, "token": f"token-{worker_id}"}
            return 201, {
                "worker_id": worker_id,
                "token": f"token-{worker_id}",
                "heartbeat_interval_s": 0.2,
                "lease_timeout_s": 30.0,
            }
        worker = next((w for w, info in self.workers.items() if info["token"] == token), None)
        if worker is None:
            return 401, {"detail": "unknown worker token"}
        if parts[:2] == ["v1", "workers"] and parts[3] == "heartbeat":
            self.heartbeats.append(body)
            return 200, {"ok": True}
        if parts[:2] == ["v1", "workers"] and parts[3] == "lease":
            wait_s = float(urllib.parse.parse_qs(url.query).get("wait_s", ["20"])[0])
            return self._lease(worker, wait_s)
        lease = self._leases.get(parts[2]) if parts[:2] == ["v1", "batches"] else None
        if lease is None or lease.worker_id != worker:
            return 403, {"detail": f"batch {parts[2]} is not held by {worker}"}
        if parts[3] == "results":
            return self._post(lease, ResultsPost.from_json(body))
        if parts[3] == "release":
            unmeasured = [
                c.candidate_id for c in lease.batch.candidates if c.candidate_id not in self.results
            ]
            self.released.extend(unmeasured)
            lease.released = True
            return 200, {"released": len(unmeasured)}
        return 404, {"detail": f"no route {path}"}

    def _lease(self, worker_id: str, wait_s: float) -> tuple[int, Any]:
        with self._lock:
            self._lock.wait_for(lambda: bool(self.queue), timeout=wait_s)
            if not self.queue:
                return 204, None
            batch = self.queue.pop(0)
        self._leases[batch.batch_id] = _Lease(batch, worker_id)
        return 200, batch.to_json()

    def _post(self, lease: _Lease, post: ResultsPost) -> tuple[int, Any]:
        if self.fail_results > 0:
            self.fail_results -= 1
            return 503, {"detail": "database is restarting"}
        if self.expire_next_post:
            self.expire_next_post = False
            return 409, {"detail": f"lease of batch {lease.batch.batch_id} expired"}
        accepted = 0
        for result in post.results:
            if result.candidate_id in self.results:
                self.duplicates += 1
            else:
                self.results[result.candidate_id] = result
                accepted += 1
        return 200, {"accepted": accepted, "duplicates": len(post.results) - accepted}
