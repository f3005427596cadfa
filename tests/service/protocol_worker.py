"""A minimal worker in a thread of the test process: it speaks the worker protocol with
httpx and measures with codegen.measure.measure_batch (for tests that need measurements
without a worker process)."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import numpy as np

from codegen.measure import MeasureInput, MeasureOptions, measure_batch
from codegen.target import canonical_target, parse_target
from ir.graph.nodes import Constant, Function, Var, call
from ir.graph.passes.pipeline import optimize
from ir.graph.types import TensorType
from tuner.tasks import extract_tasks


def tiny_workload(rows: int = 8) -> dict[str, Any]:
    """The Task JSON of relu(dense(x, W)) on `rows`x32 by 32x16: quick to build and
    measure (another `rows`, another workload)."""
    weight = Constant(np.random.default_rng(0).standard_normal((16, 32)).astype(np.float32))
    x = Var("x", TensorType((rows, 32), "float32"))
    fn = optimize(Function((x,), call("nn.relu", call("nn.dense", x, weight))))
    return extract_tasks(fn, parse_target("llvm"))[0].to_json()


class ProtocolWorker(threading.Thread):
    """Registers, then leases, measures and posts until stopped."""

    def __init__(self, url: str, secret: str, name: str = "thread-worker") -> None:
        super().__init__(daemon=True, name=name)
        self.url = url
        self.secret = secret
        self.worker_name = name
        self.stopping = threading.Event()
        self.measured = 0

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            body = {"name": self.worker_name, "target": canonical_target("llvm")}
            headers = {"Authorization": f"Bearer {self.secret}"}
            registered = client.post("/v1/workers/register", json=body, headers=headers).json()
            client.headers["Authorization"] = f"Bearer {registered['token']}"
            lease = f"/v1/workers/{registered['worker_id']}/lease"
            while not self.stopping.is_set():
                response = client.post(lease, params={"wait_s": 0.5})
                if response.status_code == 204:
                    continue
                batch = response.json()
                options = MeasureOptions.from_json(batch["measure_options"])
                inputs = [
                    MeasureInput(c["task"], c["trace"], c["target"]) for c in batch["candidates"]
                ]
                results = measure_batch(inputs, options)
                posted = [
                    {**result.to_json(), "candidate_id": candidate["candidate_id"]}
                    for candidate, result in zip(batch["candidates"], results, strict=True)
                ]
                client.post(f"/v1/batches/{batch['batch_id']}/results", json={"results": posted})
                self.measured += len(posted)

    def stop(self) -> None:
        """Stop after the current batch and wait for the thread."""
        self.stopping.set()
        self.join(timeout=60)
