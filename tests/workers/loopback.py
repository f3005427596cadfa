"""A real HTTP server on loopback for the worker's tests, answering from a handler function.

`LoopbackServer(handle)` serves in a thread; `handle(method, path, headers, body)` returns
(status, JSON body or None). Every request is recorded, so a test can assert what the
worker sent and how many times.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Handler = Callable[[str, str, Mapping[str, str], Any], tuple[int, Any]]


@dataclass(frozen=True)
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LoopbackServer:
    """An HTTP server on 127.0.0.1 in a background thread; a context manager."""

    def __init__(self, handle: Handler, port: int = 0) -> None:
        self.handle = handle
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        outer = self

        class _RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                headers = {key.lower(): value for key, value in self.headers.items()}
                with outer._lock:
                    outer.seen.append(Seen(self.command, self.path, headers, body))
                status, answer = outer.handle(self.command, self.path, headers, body)
                payload = b"" if answer is None else json.dumps(answer).encode()
                self.send_response(status)
                if payload:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                del format, args  # keep test output clean

        self._server = ThreadingHTTPServer(("127.0.0.1", port), _RequestHandler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def requests_to(self, suffix: str) -> list[Seen]:
        """The requests whose path (without query) ends with `suffix`."""
        with self._lock:
            return [seen for seen in self.seen if seen.path.split("?")[0].endswith(suffix)]
