"""`autotune demo`: the whole loop on the embedded default, on the bundled model.

Step 1. Start `autotune serve` (SQLite in a fresh data directory, one local worker) on a
        free loopback port, and wait until it answers.
Step 2. Upload the bundled model, light_squeezenet, with seeded random weights (its
        shipped weights are constant fills, which would hide a wrong kernel).
Step 3. Tune it with a small budget through a job, drawing the progress bar from the job's
        server-sent events.
Step 4. Ask the service for an artifact built with the best records, and download it.
Step 5. Run it through the runtime loader and check its logits against the numpy
        reference (and ONNX Runtime, when installed).
Step 6. Time it in turn with an untuned artifact (default schedules), then ONNX Runtime.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from codegen.llvm import host_target
from codegen.runtime.loader import load_artifact
from ir.errors import AutotuneError
from ir.frontend.onnx import from_onnx
from ir.graph.passes.pipeline import optimize
from ir.reference import check_close, evaluate
from service.cli.client import ServiceClient
from service.cli.errors import CliError
from service.cli.progress import ProgressBar
from service.example_models import (
    bundled_model_path,
    logits_name,
    randomize_weights,
    runtime_inputs,
)
from tuner.artifact_build import build_artifact

SERVE_START_TIMEOUT_S = 120.0
ARTIFACT_TIMEOUT_S = 300.0
# Quick timing while tuning: the top candidate of each task is re-measured with more repeats.
DEMO_MEASURE = {"repeat": 2, "min_repeat_ms": 20.0}
TRIALS_PER_TASK = 4  # the default budget, and the batch size: every task gets a turn
TIMING_ROUNDS = 5


class DemoError(AutotuneError):
    """A step of the demo failed."""


def run_demo(trials: int | None, data_dir: Path | None, runs: int) -> int:
    """Run the demo (see the module docstring); 0 when the artifact's output checks out."""
    with contextlib.ExitStack() as stack:
        if data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="autotune-")))
        data_dir.mkdir(parents=True, exist_ok=True)
        model_path = data_dir / "squeezenet_random_weights.onnx"
        model = randomize_weights(onnx.load(str(bundled_model_path())), seed=0)
        logits = logits_name(model)
        with_logits = _with_output(model, logits)
        onnx.save(with_logits, str(model_path))
        started = time.perf_counter()

        print(f"[1/6] starting the service (SQLite in {data_dir}, 1 local worker)")
        url = stack.enter_context(_service(data_dir))
        client = ServiceClient(url, (data_dir / "admin.token").read_text().strip())

        uploaded = client.json(
            "POST", "/v1/models", content=model_path.read_bytes(),
            params={"name": "light_squeezenet (random weights)"},
            headers={"Content-Type": "application/octet-stream"},
        )  # fmt: skip
        tasks = uploaded["tasks"]
        print(
            f"[2/6] uploaded the bundled model light_squeezenet: "
            f"{len(uploaded['fused_functions'])} fused functions, {len(tasks)} tasks"
        )

        trials = trials or TRIALS_PER_TASK * len(tasks)
        job = client.json(
            "POST", "/v1/jobs",
            json={"model_id": uploaded["id"], "target": "llvm", "trials": trials,
                  "options": {"measure": DEMO_MEASURE, "remeasure_top": 1,
                              "batch_size": TRIALS_PER_TASK}},
        )  # fmt: skip
        print(f"[3/6] tuning job {job['id']}: {trials} trials for {job['target']}")
        bar = ProgressBar(sys.stdout)
        for event, data in client.events(f"/v1/jobs/{job['id']}/events"):
            if event == "progress":
                bar.show(data)
        bar.close()
        job = client.json("GET", f"/v1/jobs/{job['id']}")
        if job["state"] != "completed":
            raise DemoError(f"job {job['id']} ended {job['state']}: {job.get('error')}")
        costs = [(t["weight"], t["best_cost_s"]) for t in job["tasks"]]
        latency = sum(w * c for w, c in costs if c is not None)
        estimate = f"; sum of the tasks' best kernel times {latency * 1e3:.2f} ms"
        print(f"      done in {time.perf_counter() - started:.0f} s{estimate}")

        artifact = client.json(
            "POST", "/v1/artifacts", json={"model_id": uploaded["id"], "target": job["target"]}
        )
        artifact = _wait_for_artifact(client, artifact["id"])
        tuned_path = data_dir / f"{artifact['sha256']}.tar.gz"
        tuned_path.write_bytes(
            client.request("GET", f"/v1/artifacts/{artifact['id']}/download").content
        )
        coverage = artifact.get("coverage") or []
        hits = sum(1 for task in coverage if task.get("hit"))
        print(
            f"[4/6] artifact {artifact['id']} built with the best records "
            f"({hits}/{len(coverage)} tasks tuned) and downloaded: {tuned_path.name}, "
            f"{tuned_path.stat().st_size / 2**20:.1f} MiB"
        )

        inputs = runtime_inputs(with_logits)
        reference = evaluate(optimize(from_onnx(with_logits)), inputs)
        expected = reference[-1] if isinstance(reference, list | tuple) else reference
        with load_artifact(tuned_path) as tuned:
            ours = tuned.run(inputs)[logits]
            check_close(ours, np.asarray(expected), rtol=1e-3, atol=1e-4, what="artifact logits")
            worst = float(np.max(np.abs(ours - np.asarray(expected))))
            print(
                f"[5/6] ran it through the runtime loader: logits match the numpy reference "
                f"(max abs difference {worst:.1e})"
            )
            untuned_build = build_artifact(model_path, str(host_target()), [], data_dir / "untuned")
            with load_artifact(untuned_build.path) as untuned:
                medians = _alternating_medians_ms(
                    {
                        "tuned artifact": lambda: tuned.run(inputs),
                        "untuned artifact": lambda: untuned.run(inputs),
                    },
                    runs,
                )
        # Alone: our runtime's threads spin for a while after a run, which would slow it.
        session = _onnxruntime_session(with_logits)
        if session is not None:
            medians |= _alternating_medians_ms(
                {"ONNX Runtime": lambda: session.run(None, inputs)}, runs
            )
        print(f"[6/6] latency, median of {runs} runs (the artifacts in turn):")
        for name, ms in medians.items():
            print(f"      {name:<18}{ms:8.2f} ms")
        if session is None:
            print("      (ONNX Runtime is not installed: no comparison)")
        print(f"autotune demo: done in {time.perf_counter() - started:.0f} s")
    return 0


def _with_output(model: onnx.ModelProto, name: str) -> onnx.ModelProto:
    """`model` with `name` as its only output (the pre-softmax logits)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    inferred = onnx.shape_inference.infer_shapes(model).graph
    known = {value.name: value for value in [*inferred.value_info, *inferred.output]}
    if name not in known:
        raise DemoError(f"cannot infer the shape of {name!r} in the bundled model")
    output = known[name]
    del copy.graph.output[:]
    copy.graph.output.append(output)
    return copy


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _service(data_dir: Path) -> Iterator[str]:
    """A running `autotune serve` with one local worker; yields its URL, stops it after."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = (data_dir / "serve.log").open("wb")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOTUNE_")}
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
    command += ["--data-dir", str(data_dir), "--local-workers", "1"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_until_up(url, data_dir, process)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _wait_until_up(url: str, data_dir: Path, process: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + SERVE_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = (data_dir / "serve.log").read_text(errors="replace")[-2000:]
            raise DemoError(f"the service exited with status {process.returncode}:\n{tail}")
        with contextlib.suppress(httpx.HTTPError):
            if (
                httpx.get(f"{url}/healthz", timeout=2).status_code == 200
                and (data_dir / "admin.token").is_file()
            ):
                return
        time.sleep(0.2)
    raise DemoError(f"the service did not answer on {url} within {SERVE_START_TIMEOUT_S:.0f} s")


def _wait_for_artifact(client: ServiceClient, artifact_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + ARTIFACT_TIMEOUT_S
    while time.monotonic() < deadline:
        artifact: dict[str, Any] = client.json("GET", f"/v1/artifacts/{artifact_id}")
        if artifact["state"] == "ready":
            return artifact
        if artifact["state"] == "failed":
            raise DemoError(f"artifact {artifact_id} failed: {artifact.get('error')}")
        time.sleep(0.5)
    raise DemoError(f"artifact {artifact_id} not built within {ARTIFACT_TIMEOUT_S:.0f} s")


def _alternating_medians_ms(
    contenders: dict[str, Callable[[], object]], runs: int
) -> dict[str, float]:
    """Median latency of each contender over `runs` runs, taken in turn in TIMING_ROUNDS
    blocks each, so a slow spell of the machine falls on all of them alike. A block
    starts with one untimed run: the previous runtime's threads may still be spinning."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    block = max(1, math.ceil(runs / TIMING_ROUNDS))
    while any(len(values) < runs for values in times.values()):
        for name, fn in contenders.items():
            fn()
            for _ in range(min(block, runs - len(times[name]))):
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1e3 for name, values in times.items()}


def _onnxruntime_session(model: onnx.ModelProto) -> Any:
    try:
        import onnxruntime
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = os.cpu_count() or 1
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    copy.ir_version = min(copy.ir_version, 8)
    return onnxruntime.InferenceSession(
        copy.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def register(commands: Any) -> None:
    """Add `autotune demo` to the `autotune` sub-parser collection."""
    demo = commands.add_parser(
        "demo",
        help="serve, tune, compile and run the bundled model end to end (SQLite, a local worker)",
    )
    demo.add_argument("--trials", type=int, help="tuning budget (default: 4 per task)")
    demo.add_argument("--data-dir", help="keep the service's data here (default: a temp dir)")
    demo.add_argument("--runs", type=int, default=50, help="timed runs per latency figure")
    demo.set_defaults(handler=_cmd_demo)


def _cmd_demo(args: argparse.Namespace) -> int:
    if args.trials is not None and args.trials <= 0:
        raise CliError("--trials must be a positive number")
    data_dir = Path(args.data_dir) if args.data_dir else None
    return run_demo(args.trials, data_dir, args.runs)
