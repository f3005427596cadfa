"""The parent's side of one measurement child process (`codegen.measure_child`): starting
it in its environment, sending requests as JSON lines, reading its replies and stderr on
threads, the build and run timeouts, and the death note of a child a candidate killed.
The protocol itself is described in `codegen.measure`."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from codegen.measure_protocol import (
    MeasureError,
    MeasureInput,
    MeasureOptions,
    MeasureResult,
    MeasureStopped,
)

CHILD_START_TIMEOUT_S = 120.0  # imports only, but the machine may be busy
STOP_POLL_S = 0.2  # how often a measurement that can be stopped looks at its stop event


class ChildTimeout(Exception):
    pass


# A multi-threaded BLAS keeps its threads spinning for up to ~0.1 s after a call. The child
# computes a workload's reference with numpy just before timing its first candidate, and
# those spinning threads took a core from the candidate's parallel loops: 8 ms per run
# instead of 20 us, so the first candidate of every workload (the default schedule, which
# tuning measures first) lost to worse ones. The reference is never timed: one thread.
QUIET_BLAS_ENVIRONMENT = {
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
}


def child_environment(parent: Mapping[str, str]) -> dict[str, str]:
    """The environment a measurement child runs in: the parent's, with this project on
    PYTHONPATH, Python tracebacks on crashes, and the BLAS library held to one thread."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    env["PYTHONFAULTHANDLER"] = "1"  # a crash leaves a Python traceback on stderr
    env.update(QUIET_BLAS_ENVIRONMENT)
    return env


class ChildGone(Exception):
    pass


class MeasureChild:
    """One measurement child process and the threads reading its pipes."""

    def __init__(self) -> None:
        env = child_environment(os.environ)
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    "from codegen.measure_child import child_main; child_main()",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as err:
            raise MeasureError(f"cannot start a measurement child: {err}") from None
        self.used = 0
        self._alive = True
        self._events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_events, args=(self.process.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        try:
            ready = self._next_event(CHILD_START_TIMEOUT_S)
        except ChildTimeout:
            self.kill()
            raise MeasureError(
                f"measurement child did not start within {CHILD_START_TIMEOUT_S} s"
            ) from None
        if ready is None or ready.get("event") != "ready":
            note = self._death_note()
            self.kill()
            raise MeasureError(f"measurement child failed to start: {note}")

    @property
    def alive(self) -> bool:
        """Whether the child can take another candidate."""
        return self._alive and self.process.poll() is None

    # -- pipes ---------------------------------------------------------------------------

    def _read_events(self, stream: IO[bytes]) -> None:
        for line in stream:
            try:
                self._events.put(json.loads(line))
            except json.JSONDecodeError:
                self._stderr.append(f"(bad protocol line) {line[:200]!r}")
        self._events.put(None)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line.decode(errors="replace").rstrip())

    def _next_event(
        self, timeout_s: float, stop: threading.Event | None = None
    ) -> dict[str, Any] | None:
        """The child's next reply; None when it exited; raises ChildTimeout, or MeasureStopped
        (having killed the child) as soon as `stop` is set."""
        if stop is None:
            try:
                return self._events.get(timeout=timeout_s)
            except queue.Empty:
                raise ChildTimeout from None
        deadline = time.monotonic() + timeout_s
        while not stop.is_set():
            try:
                return self._events.get(timeout=min(STOP_POLL_S, timeout_s))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise ChildTimeout from None
        self.kill()
        raise MeasureStopped("the measurement was stopped; its child is killed")

    # -- one candidate -------------------------------------------------------------------

    def measure(
        self,
        index: int,
        candidate: MeasureInput,
        options: MeasureOptions,
        device_index: int = 0,
        cubin_cache: str | None = None,
    ) -> MeasureResult:
        """Measure one candidate in this child (which may die doing so)."""
        self.used += 1
        request = {
            "index": index,
            "device": device_index,
            "task": candidate.task_json,
            "trace": candidate.trace_json,
            "target": candidate.target,
            "options": options.to_json(),
            "cubin_cache": cubin_cache,
        }
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:  # it died while idle (e.g. killed for memory): not this candidate's fault
            self.kill()
            raise ChildGone from None
        # Step 1. The build phase ends with "built" (or a result, when the build failed).
        started = time.perf_counter()
        try:
            event = self._next_event(options.build_timeout_s)
        except ChildTimeout:
            self.kill()
            return MeasureResult(
                "timeout",
                error=f"build did not finish within build_timeout_s={options.build_timeout_s}",
                build_s=time.perf_counter() - started,
            )
        if event is None:
            return MeasureResult("build_error", error=f"while building: {self._death_note()}")
        if event.get("event") == "result":
            return MeasureResult.from_json(event)
        build_s = float(event.get("build_s", 0.0))
        # Step 2. The run phase: check and time.
        started = time.perf_counter()
        try:
            event = self._next_event(options.run_timeout_s)
        except ChildTimeout:
            self.kill()
            return MeasureResult(
                "timeout",
                error=f"run did not finish within run_timeout_s={options.run_timeout_s}",
                build_s=build_s,
                measure_s=time.perf_counter() - started,
            )
        if event is None:
            return MeasureResult(
                "runtime_error",
                error=f"while running: {self._death_note()}",
                build_s=build_s,
                measure_s=time.perf_counter() - started,
            )
        if event.get("retire"):  # a GPU fault left its context unusable: it exits
            self._alive = False
        return MeasureResult.from_json({**event, "build_s": build_s})

    def measure_in_turn(
        self,
        first_index: int,
        candidates: Sequence[MeasureInput],
        options: MeasureOptions,
        device_index: int = 0,
        stop: threading.Event | None = None,
    ) -> list[MeasureResult] | None:
        """Build, check and time `candidates` together in this child (timed in turns);
        a failed build or check is that candidate's result. None when the child dies, a
        candidate's build and check run past build_timeout_s + run_timeout_s, a group's
        timing past run_timeout_s per candidate (the child is then killed), or timing
        fails: the caller then measures them one by one, which tells whose fault it was.
        Raises MeasureStopped, having killed the child, when `stop` is set meanwhile (with
        the failed builds and checks found until then)."""
        self.used += len(candidates)
        request = {
            "device": device_index,
            "options": options.to_json(),
            "in_turn": [
                {
                    "index": first_index + position,
                    "task": candidate.task_json,
                    "trace": candidate.trace_json,
                    "target": candidate.target,
                    "cubin_cache": None,
                }
                for position, candidate in enumerate(candidates)
            ],
        }
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            self.kill()
            return None
        limit_s = options.build_timeout_s + options.run_timeout_s  # the first build and check
        settled: dict[int, MeasureResult] = {}  # failed builds and checks, by position
        while True:
            try:
                event = self._next_event(limit_s, stop)
            except ChildTimeout:
                self.kill()
                return None
            except MeasureStopped as err:
                raise MeasureStopped(str(err), settled) from None
            kind = None if event is None else event.get("event")
            if kind == "checked":
                assert event is not None
                if "outcome" in event:
                    settled[int(event["position"])] = MeasureResult.from_json(event["outcome"])
                limit_s = options.build_timeout_s + options.run_timeout_s
            elif kind == "timing":
                assert event is not None
                limit_s = int(event["candidates"]) * options.run_timeout_s
            elif kind == "results":
                assert event is not None
                outcomes = event["results"]
                if len(outcomes) != len(candidates):
                    return None
                return [MeasureResult.from_json(outcome) for outcome in outcomes]
            else:
                if event is None:  # it died (and may not be reaped yet: never reuse it)
                    self.kill()
                return None  # (or timing failed)

    # -- ending --------------------------------------------------------------------------

    def _death_note(self) -> str:
        """How the child ended (the signal or exit code) and the tail of its stderr."""
        self._alive = False
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.returncode
        for reader in self._readers:
            reader.join(timeout=2)
        if code is not None and code < 0:
            try:
                how = f"child killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"child killed by signal {-code}"
        else:
            how = f"child exited with code {code}"
        tail = "\n".join(self._stderr)[-1500:]
        return f"{how}\n{tail}".rstrip()

    def kill(self) -> None:
        """Kill the child (a hang or a start failure) and reap it."""
        self._alive = False
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._close_pipes()

    def close(self) -> None:
        """Let an idle child exit (it stops at the end of its input), or kill it."""
        if self.process.poll() is None and self.process.stdin is not None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _close_pipes(self) -> None:
        for reader in self._readers:
            reader.join(timeout=2)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(OSError):
                    stream.close()
