"""The worker's HTTP client: the protocol's calls with a bearer token, JSON and retries.

Standard library only (urllib), so a worker install needs no HTTP package. While the
service is unreachable (connection refused or reset, a timeout, a 5xx while it restarts)
a call is retried with capped exponential backoff; 4xx answers are never retried and
raise a typed error carrying the service's `detail` message.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ir.errors import AutotuneError
from workers.protocol import (
    MAX_LEASE_WAIT_S,
    REGISTER_PATH,
    Batch,
    CandidateResult,
    Heartbeat,
    ProtocolError,
    RegisterRequest,
    Registration,
    ResultsAck,
    ResultsPost,
    heartbeat_path,
    lease_path,
    release_path,
    results_path,
)

log = logging.getLogger("autotune.worker")

LONG_POLL_MARGIN_S = 15.0  # added to a lease's wait_s for the socket timeout


class WorkerError(AutotuneError):
    """Base class of the worker's errors."""


class ServiceUnreachable(WorkerError):
    """The service did not answer (or answered 5xx) and the retries ran out."""


class Stopped(WorkerError):
    """A retry wait was cut short because the worker is stopping."""


class ServiceRejected(WorkerError):
    """The service answered with a 4xx status; `status` and `detail` say which and why."""

    def __init__(self, status: int, detail: str, method: str, path: str) -> None:
        super().__init__(f"{method} {path}: HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class Unauthorized(ServiceRejected):
    """401: the token is missing, unknown or revoked."""


class Forbidden(ServiceRejected):
    """403: the token is valid but may not do this (e.g. another worker's batch)."""


class NotFound(ServiceRejected):
    """404: unknown worker or batch id."""


class LeaseLost(ServiceRejected):
    """409: the batch's lease expired and it went back to the queue."""


_REJECTIONS: dict[int, type[ServiceRejected]] = {
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: LeaseLost,
}


@dataclass(frozen=True)
class Backoff:
    """Capped exponential backoff: attempt n waits initial_s * factor**n (at most max_s),
    scaled by a random factor in [1 - jitter, 1] so a fleet does not retry in step."""

    initial_s: float = 0.5
    factor: float = 2.0
    max_s: float = 30.0
    jitter: float = 0.25

    def delay_s(self, attempt: int) -> float:
        """Seconds to wait before retry number `attempt` (0-based)."""
        base = min(self.max_s, self.initial_s * self.factor ** min(attempt, 64))
        return base * (1.0 - self.jitter * random.random())


@dataclass(frozen=True)
class RetryUntil:
    """How long a call keeps retrying while the service is unreachable: until `deadline`
    (a time.monotonic() value; None = forever) or until `stop` is set."""

    deadline: float | None = None
    stop: threading.Event | None = None

    @staticmethod
    def once() -> RetryUntil:
        """Do not retry: the first failure raises ServiceUnreachable."""
        return RetryUntil(deadline=0.0)

    @staticmethod
    def for_s(seconds: float, stop: threading.Event | None = None) -> RetryUntil:
        """Retry for `seconds` from now."""
        return RetryUntil(deadline=time.monotonic() + seconds, stop=stop)


class ServiceClient:
    """The protocol's calls against a service, with one bearer token.

    `server_url` may name several replicas of one service (on one database), separated by
    commas: a call that finds one unreachable goes to the next at once, and waits (backoff)
    only once it has tried them all. Any replica accepts any call: leases, batches and
    tokens live in the shared database, so a batch leased through one replica is posted
    through another when the first dies, and is never measured twice for it."""

    def __init__(
        self,
        server_url: str | Sequence[str],
        token: str,
        *,
        timeout_s: float = 30.0,
        backoff: Backoff | None = None,
    ) -> None:
        urls = server_url.split(",") if isinstance(server_url, str) else list(server_url)
        for url in urls:
            parsed = urllib.parse.urlsplit(url.strip())
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                raise WorkerError(
                    f"--server {url!r}: expected an http:// or https:// URL, "
                    "e.g. http://127.0.0.1:8000 (several: separated by commas)"
                )
        self.server_urls = tuple(url.strip().rstrip("/") for url in urls)
        self._current = 0
        self.token = token
        self.timeout_s = timeout_s
        self.backoff = backoff or Backoff()

    @property
    def server_url(self) -> str:
        """The replica calls go to now."""
        return self.server_urls[self._current]

    def with_token(self, token: str) -> ServiceClient:
        """The same service (every replica), with another bearer token."""
        client = ServiceClient(
            self.server_urls, token, timeout_s=self.timeout_s, backoff=self.backoff
        )
        client._current = self._current
        return client

    # -- the protocol's calls ------------------------------------------------------------

    def register(self, request: RegisterRequest, retry: RetryUntil | None = None) -> Registration:
        """Register the worker with the registration secret; returns its id and token."""
        answer = self.call("POST", REGISTER_PATH, request.to_json(), retry=retry)
        return Registration.from_json(_object(answer, "register"))

    def heartbeat(self, worker_id: str, beat: Heartbeat, retry: RetryUntil | None = None) -> None:
        """Tell the service the worker is alive and what it is doing."""
        self.call("POST", heartbeat_path(worker_id), beat.to_json(), retry=retry)

    def lease(self, worker_id: str, wait_s: float, retry: RetryUntil | None = None) -> Batch | None:
        """Long-poll for a batch for the worker's target; None when none came in wait_s."""
        wait_s = max(0.0, min(wait_s, MAX_LEASE_WAIT_S))
        path = f"{lease_path(worker_id)}?{urllib.parse.urlencode({'wait_s': f'{wait_s:g}'})}"
        answer = self.call("POST", path, None, retry=retry, timeout_s=wait_s + LONG_POLL_MARGIN_S)
        return None if answer is None else Batch.from_json(_object(answer, "lease"))

    def post_results(
        self, batch_id: str, results: Sequence[CandidateResult], retry: RetryUntil | None = None
    ) -> ResultsAck:
        """Post results of a held batch (idempotent per candidate; renews the lease)."""
        body = ResultsPost(tuple(results)).to_json()
        answer = self.call("POST", results_path(batch_id), body, retry=retry)
        return ResultsAck.from_json(_object(answer, "results"))

    def release(self, batch_id: str, retry: RetryUntil | None = None) -> int:
        """Give back a held batch's unmeasured candidates; returns how many went back."""
        answer = _object(self.call("POST", release_path(batch_id), {}, retry=retry), "release")
        released = answer.get("released")
        if not isinstance(released, int) or isinstance(released, bool):
            raise ProtocolError("release answer: field 'released' must be an integer")
        return released

    # -- one HTTP call with retries ------------------------------------------------------

    def call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        *,
        retry: RetryUntil | None = None,
        timeout_s: float | None = None,
    ) -> Any:
        """Send one JSON request and return the decoded answer (None for 204 or no body).

        While the service is unreachable the request is retried with backoff as `retry`
        allows (default: forever); then raises ServiceUnreachable, or Stopped when its
        stop event was set. A 4xx raises the ServiceRejected subclass for its status.
        """
        retry = retry or RetryUntil()
        attempt = 0
        failed_here = 0  # replicas found unreachable since the last wait
        while True:
            try:
                return self._send(method, path, body, timeout_s or self.timeout_s)
            except ServiceUnreachable as err:
                failed_here += 1
                if failed_here < len(self.server_urls):  # the next replica, at once
                    self._current = (self._current + 1) % len(self.server_urls)
                    log.warning("%s; trying %s", err, self.server_url)
                    continue
                failed_here = 0
                self._current = (self._current + 1) % len(self.server_urls)
                delay_s = self.backoff.delay_s(attempt)
                if retry.deadline is not None and time.monotonic() + delay_s > retry.deadline:
                    raise
                if attempt == 0 or attempt % 10 == 0:
                    log.warning("%s; retrying (attempt %d) in %.1f s", err, attempt + 1, delay_s)
                if retry.stop is not None:
                    if retry.stop.wait(delay_s):
                        raise Stopped(f"{method} {path}: stopped while retrying: {err}") from None
                else:
                    time.sleep(delay_s)
                attempt += 1

    def _send(
        self, method: str, path: str, body: Mapping[str, Any] | None, timeout_s: float
    ) -> Any:
        """One attempt; raises ServiceUnreachable or ServiceRejected."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server_url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        where = f"{method} {self.server_url}{path}"
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                status = response.status
                payload = response.read()
        except urllib.error.HTTPError as err:
            with err:
                payload = err.read()
            detail = _detail(payload) or err.reason
            if err.code >= 500:
                raise ServiceUnreachable(f"{where}: HTTP {err.code}: {detail}") from None
            rejection = _REJECTIONS.get(err.code, ServiceRejected)
            raise rejection(err.code, str(detail), method, path) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            reason = err.reason if isinstance(err, urllib.error.URLError) else err
            if isinstance(reason, socket.timeout | TimeoutError):
                reason = f"no answer within {timeout_s:g} s"
            raise ServiceUnreachable(f"{where}: service unreachable ({reason})") from None
        if status == 204 or not payload:
            return None
        try:
            return json.loads(payload)
        except json.JSONDecodeError:
            raise ProtocolError(f"{where}: answer is not JSON: {payload[:200]!r}") from None


def _object(answer: Any, call: str) -> Mapping[str, Any]:
    if not isinstance(answer, Mapping):
        raise ProtocolError(f"{call} answer: expected a JSON object, got {answer!r:.200}")
    return answer


def _detail(payload: bytes) -> str:
    """The `detail` message of a FastAPI error body (or the body's text)."""
    try:
        data = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return payload.decode(errors="replace")[:500]
    if isinstance(data, Mapping) and "detail" in data:
        detail = data["detail"]
        return detail if isinstance(detail, str) else json.dumps(detail)[:500]
    return json.dumps(data)[:500]
