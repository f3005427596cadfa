"""The measurement agent: register → heartbeat → loop(lease → measure → post) → stop.

A leased batch is measured with a `codegen.measure.MeasureSession`, in a child process
kept between batches (a crash or hang, or a GPU kernel that faults, costs that candidate,
reported as runtime_error, never the agent). A batch whose options ask for `in_turn` (the
tuner's CPU batches) is built, checked and timed together, in turns, and its results are
posted together; any other batch, or one whose timing in turns failed, is measured one
candidate at a time, each result posted as soon as it is measured. A result that cannot
be posted (the service is down) stays in the agent's outbox and goes with the next post;
it is never dropped while the agent holds the batch. On stop (SIGTERM/SIGINT) the agent
finishes the candidate in progress (a batch being timed in turns is abandoned at once:
none of it is timed yet, and only its failed builds and checks are posted), posts what it
measured, releases the rest of the batch and exits 0. With `burst` it exits 0 as soon as a
lease poll finds no work.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType

from codegen.measure import (
    MeasureError,
    MeasureInput,
    MeasureOptions,
    MeasureResult,
    MeasureSession,
    MeasureStopped,
)
from workers.client import (
    Forbidden,
    LeaseLost,
    NotFound,
    RetryUntil,
    ServiceClient,
    ServiceRejected,
    ServiceUnreachable,
    Stopped,
    Unauthorized,
    WorkerError,
)
from workers.device import DeviceInfo
from workers.protocol import (
    Batch,
    Candidate,
    CandidateResult,
    Heartbeat,
    RegisterRequest,
    Registration,
)

log = logging.getLogger("autotune.worker")

MeasureFn = Callable[[Candidate, MeasureOptions], MeasureResult]


def session_measurer(session: MeasureSession) -> MeasureFn:
    """A MeasureFn that builds, checks and times candidates in `session`'s child process."""

    def measure(candidate: Candidate, options: MeasureOptions) -> MeasureResult:
        return session.measure(
            MeasureInput(candidate.task, candidate.trace, candidate.target), options
        )

    return measure


def package_version() -> str:
    """The installed autotune version the worker reports."""
    try:
        return importlib.metadata.version("autotune")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@dataclass(frozen=True)
class AgentConfig:
    """How the agent runs: its name, burst mode, long-poll wait and stop grace period."""

    name: str
    burst: bool = False
    lease_wait_s: float = 20.0
    stop_grace_s: float = 30.0  # how long a stopping agent keeps trying to post and release


class _StopPolling(BaseException):
    """Raised by the signal handler to end an idle long poll at once."""


class Agent:
    """One worker: registers with the service and measures the batches it leases."""

    def __init__(
        self,
        client: ServiceClient,
        device: DeviceInfo,
        config: AgentConfig,
        measure: MeasureFn | None = None,
    ) -> None:
        self.client = client  # holds the registration secret until registered
        self.device = device
        self.config = config
        # Its child process lives across candidates; GPU candidates run on the device's GPU.
        self._session = MeasureSession(device.device_index)
        self.measure = measure or session_measurer(self._session)
        self._prebuild = measure is None  # a GPU batch's cubins, compiled side by side first
        self.worker_id = ""
        self.measured = 0  # candidates measured and posted
        self._stop = threading.Event()
        self._heartbeat_stop = threading.Event()
        self._polling = False
        self._state: tuple[str, str | None] = ("idle", None)

    # -- control -------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Ask the agent to stop after the candidate in progress (thread-safe)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        """Whether a stop was requested."""
        return self._stop.is_set()

    def install_signal_handlers(self) -> None:
        """Stop gracefully on SIGTERM and SIGINT (call from the main thread)."""
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        del frame
        if not self._stop.is_set():
            log.info("%s: stopping after the current candidate", signal.Signals(signum).name)
        self._stop.set()
        if self._polling:  # idle in a long poll: nothing to finish, end it now
            raise _StopPolling

    # -- the loop ------------------------------------------------------------------------

    def run(self) -> int:
        """Register, then lease and measure until stopped (or, in burst mode, out of work).

        Returns 0; raises WorkerError when the service refuses the worker's tokens or
        measured results could not be posted before the agent had to stop.
        """
        registration = self._register()
        if registration is None:
            return 0
        heartbeat = threading.Thread(
            target=self._heartbeat_loop,
            args=(registration.heartbeat_interval_s,),
            name="heartbeat",
            daemon=True,
        )
        heartbeat.start()
        try:
            while not self._stop.is_set():
                batch = self._lease()
                if batch is None:
                    if self.config.burst and not self._stop.is_set():
                        log.info("no work left (burst mode): exiting")
                    if self.config.burst:
                        break
                    continue
                self._run_batch(batch)
        finally:
            self._heartbeat_stop.set()
            heartbeat.join(timeout=5)
            self._session.close()
        log.info("stopped after measuring %d candidates", self.measured)
        return 0

    def _register(self) -> Registration | None:
        request = RegisterRequest(
            name=self.config.name,
            target=self.device.target,
            device=self.device.to_json(),
            version=package_version(),
        )
        try:
            registration = self.client.register(request, retry=RetryUntil(stop=self._stop))
        except Stopped:
            return None
        except (Unauthorized, Forbidden) as err:
            raise WorkerError(
                f"the service refused the registration secret ({err.status}: {err.detail}); "
                "pass the secret from <data dir>/registration.token with --token"
            ) from None
        self.worker_id = registration.worker_id
        self.client = self.client.with_token(registration.token)
        log.info(
            "registered as %s (%s) for target %r",
            registration.worker_id,
            self.config.name,
            self.device.target,
        )
        return registration

    def _lease(self) -> Batch | None:
        """One long poll; None when no batch came or the agent is stopping."""
        self._state = ("idle", None)
        try:
            self._polling = True
            if self._stop.is_set():
                return None
            return self.client.lease(
                self.worker_id, self.config.lease_wait_s, retry=RetryUntil(stop=self._stop)
            )
        except (_StopPolling, Stopped):
            return None
        except Unauthorized as err:
            raise WorkerError(
                f"the service no longer accepts this worker's token ({err.detail}); "
                "was the worker revoked?"
            ) from None
        except NotFound as err:
            raise WorkerError(
                f"the service does not know worker {self.worker_id} ({err.detail}); restart "
                "the worker to register again"
            ) from None
        finally:
            self._polling = False

    def _run_batch(self, batch: Batch) -> None:
        """Measure a batch and post its results: a batch whose options ask for `in_turn`
        timing together, its results posted together; otherwise (or when that fails) its
        candidates one at a time, each result posted as it comes."""
        self._state = ("busy", batch.batch_id)
        log.info("leased batch %s: %d candidates", batch.batch_id, len(batch.candidates))
        outbox: list[CandidateResult] = []  # measured, not yet accepted by the service
        options = batch.measure_options
        measured: list[MeasureResult] | None = None
        if self._prebuild:
            inputs = [MeasureInput(c.task, c.trace, c.target) for c in batch.candidates]
            if options.in_turn and len(inputs) > 1:
                try:
                    measured = self._session.measure_in_turn(inputs, options, self._stop)
                except MeasureError:
                    measured = None  # (measured one by one below, which reports it)
                except MeasureStopped as stopped:
                    log.info("stopped while batch %s was timed in turns", batch.batch_id)
                    for position, result in sorted(stopped.settled.items()):
                        _add_result(outbox, batch.candidates[position], result)
                    self._give_up(batch, outbox)  # (the failures found, then the rest back)
                    return
            if measured is None:
                self._session.prebuild(inputs, options)
        try:
            if measured is not None:  # (posted even when stopping: it is all measured)
                for candidate, result in zip(batch.candidates, measured, strict=True):
                    _add_result(outbox, candidate, result)
                done = len(measured)
                self._post_once(batch, outbox)
            else:
                done = self._measure_one_by_one(batch, outbox)
        except _BatchGone:
            return
        # Step 2. Post what is left: while running, until it is accepted; when stopping,
        # for at most the stop grace period.
        try:
            if outbox and not self._stop.is_set():
                with contextlib.suppress(Stopped):
                    self._post(batch, outbox, RetryUntil(stop=self._stop))
            if outbox:
                self._post(batch, outbox, RetryUntil.for_s(self.config.stop_grace_s))
        except _BatchGone:
            return
        except ServiceUnreachable as err:
            lost = "\n".join(json.dumps(result.to_json()) for result in outbox)
            print(lost, file=sys.stderr)
            raise WorkerError(
                f"{len(outbox)} measured result(s) of batch {batch.batch_id} could not be "
                f"posted before stopping ({err}); they are printed above as JSON lines"
            ) from None
        # Step 3. A stopping agent gives back what it did not measure.
        if done < len(batch.candidates):
            self._release(batch)

    def _measure_one_by_one(self, batch: Batch, outbox: list[CandidateResult]) -> int:
        """Measure the batch's candidates in order until done or stopping, posting each
        result as it comes (kept in `outbox` while the service is unreachable); how many
        were measured. Raises _BatchGone when the batch is no longer this worker's."""
        done = 0
        for candidate in batch.candidates:
            if self._stop.is_set():
                break
            try:
                result = self.measure(candidate, batch.measure_options)
            except MeasureError as err:  # no child starts: this machine, not the candidate
                self._give_up(batch, outbox)
                raise WorkerError(f"cannot measure on this machine: {err}") from None
            if self._stop.is_set() and _killed_by_stop_signal(result):
                break  # Ctrl-C reached the child too: not the candidate's fault
            done += 1
            _add_result(outbox, candidate, result)
            self._post_once(batch, outbox)
        return done

    def _post_once(self, batch: Batch, outbox: list[CandidateResult]) -> None:
        """Try to post the outbox once, keeping it when the service is unreachable; raises
        _BatchGone when the batch is no longer this worker's."""
        try:
            self._post(batch, outbox, RetryUntil.once())
        except ServiceUnreachable as err:
            log.warning("%s; keeping %d result(s) to post later", err, len(outbox))

    def _post(self, batch: Batch, outbox: list[CandidateResult], retry: RetryUntil) -> None:
        """Post the outbox; empties it when accepted; raises _BatchGone when the batch is
        no longer this worker's (its results are then the next holder's to measure)."""
        try:
            ack = self.client.post_results(batch.batch_id, outbox, retry=retry)
        except (LeaseLost, Forbidden, NotFound) as err:
            log.warning(
                "batch %s is no longer ours (%s): dropping it and leasing again",
                batch.batch_id,
                err.detail,
            )
            outbox.clear()
            raise _BatchGone from None
        except Unauthorized as err:
            raise WorkerError(
                f"the service no longer accepts this worker's token ({err.detail})"
            ) from None
        self.measured += ack.accepted
        outbox.clear()

    def _give_up(self, batch: Batch, outbox: list[CandidateResult]) -> None:
        """Post what is measured and release the rest, for at most the stop grace period."""
        try:
            if outbox:
                self._post(batch, outbox, RetryUntil.for_s(self.config.stop_grace_s))
        except (_BatchGone, ServiceUnreachable):
            return
        self._release(batch)

    def _release(self, batch: Batch) -> None:
        try:
            released = self.client.release(
                batch.batch_id, retry=RetryUntil.for_s(self.config.stop_grace_s)
            )
        except (ServiceUnreachable, ServiceRejected) as err:
            log.warning(
                "could not release batch %s (%s); its lease will expire", batch.batch_id, err
            )
            return
        log.info("released %d unmeasured candidate(s) of batch %s", released, batch.batch_id)

    # -- heartbeat -----------------------------------------------------------------------

    def _heartbeat_loop(self, interval_s: float) -> None:
        """Beat every `interval_s` until told to stop; failures are logged, never fatal
        here (the main loop meets the same service and decides)."""
        failing = False
        while not self._heartbeat_stop.wait(interval_s):
            state, batch_id = self._state
            try:
                self.client.heartbeat(
                    self.worker_id, Heartbeat(state, batch_id), retry=RetryUntil.once()
                )
            except WorkerError as err:
                if not failing:
                    log.warning("heartbeat failed: %s", err)
                failing = True
                continue
            if failing:
                log.info("heartbeat ok again")
            failing = False


class _BatchGone(Exception):
    """The batch's lease is no longer this worker's."""


def _add_result(outbox: list[CandidateResult], candidate: Candidate, result: MeasureResult) -> None:
    outbox.append(CandidateResult.of(candidate.candidate_id, result))
    log.info("%s: %s %s", candidate.candidate_id, result.status, _summary(result))


def _killed_by_stop_signal(result: MeasureResult) -> bool:
    return result.status in ("build_error", "runtime_error") and (
        "signal SIGINT" in result.error or "signal SIGTERM" in result.error
    )


def _summary(result: MeasureResult) -> str:
    if result.costs_s:
        return f"{min(result.costs_s) * 1e6:.1f} us (build {result.build_s:.2f} s)"
    first_line = result.error.splitlines()[0] if result.error else ""
    return first_line[:160]
