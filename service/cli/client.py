"""The CLI's HTTP client for the service (httpx): server and token resolution, errors as
one clear message, and server-sent events."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ir.errors import AutotuneError

DEFAULT_SERVER = "http://127.0.0.1:8000"
DEFAULT_DATA_DIR = "autotune-data"
DOWNLOAD_CHUNK_BYTES = 1 << 20


class ClientError(AutotuneError):
    """The service could not be reached, or answered with an error."""


class ResponseError(ClientError):
    """The service answered with an error status (4xx/5xx); `status_code` says which."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


def resolve_server(server: str | None) -> str:
    """--server, else $AUTOTUNE_SERVER, else the default local service."""
    return (server or os.environ.get("AUTOTUNE_SERVER") or DEFAULT_SERVER).rstrip("/")


def resolve_token(token: str | None, data_dir: str | None) -> str:
    """--token, else $AUTOTUNE_TOKEN, else the admin token in the data directory."""
    if token:
        return token
    if os.environ.get("AUTOTUNE_TOKEN"):
        return os.environ["AUTOTUNE_TOKEN"]
    directory = Path(data_dir or os.environ.get("AUTOTUNE_DATA_DIR") or DEFAULT_DATA_DIR)
    path = directory / "admin.token"
    if path.is_file():
        return path.read_text().strip()
    raise ClientError(
        f"no token: pass --token, set AUTOTUNE_TOKEN, or run where {path} exists "
        "(`autotune serve` writes it on first start)"
    )


def _detail(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    if isinstance(detail, list):  # a validation error: name each bad field
        detail = "; ".join(
            f"{'.'.join(str(p) for p in item.get('loc', []))}: {item.get('msg')}"
            for item in detail
            if isinstance(item, dict)
        )
    return str(detail or response.text[:500] or response.reason_phrase)


@dataclass
class ServiceClient:
    """Calls the service's API with a bearer token."""

    server: str
    token: str
    timeout_s: float = 60.0

    def _client(self, timeout_s: float | None = None) -> httpx.Client:
        return httpx.Client(
            base_url=self.server,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=timeout_s or self.timeout_s,
        )

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One call; ClientError naming the problem on a network error or a 4xx/5xx."""
        try:
            with self._client() as client:
                response = client.request(method, path, **kwargs)
        except httpx.HTTPError as err:
            raise ClientError(f"cannot reach the service at {self.server}: {err}") from None
        if response.status_code >= 400:
            raise ResponseError(
                f"{response.status_code} from {path}: {_detail(response)}", response.status_code
            )
        return response

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        """One call's JSON answer."""
        return self.request(method, path, **kwargs).json()

    def events(self, path: str) -> Iterator[tuple[str, Any]]:
        """(event, data) pairs of a server-sent event stream until it ends."""
        try:
            with (
                self._client(timeout_s=None) as client,
                client.stream("GET", path, timeout=httpx.Timeout(30.0, read=None)) as response,
            ):
                if response.status_code >= 400:
                    response.read()
                    raise ClientError(f"{response.status_code} from {path}: {_detail(response)}")
                event, data = "message", []
                for line in response.iter_lines():
                    if line.startswith("event:"):
                        event = line.removeprefix("event:").strip()
                    elif line.startswith("data:"):
                        data.append(line.removeprefix("data:").strip())
                    elif not line and data:
                        yield event, json.loads("\n".join(data))
                        event, data = "message", []
        except httpx.HTTPError as err:
            raise ClientError(f"lost the event stream from {self.server}: {err}") from None

    def download(self, path: str, destination: Path) -> tuple[str, int]:
        """Stream a GET's body into the file `destination` (created or replaced); returns
        the sha256 and size of the bytes written. ResponseError on a 4xx/5xx (nothing is
        written), ClientError when the service cannot be reached or the transfer breaks."""
        digest = hashlib.sha256()
        size_bytes = 0
        try:
            with (
                self._client() as client,
                client.stream("GET", path) as response,
            ):
                if response.status_code >= 400:
                    response.read()
                    raise ResponseError(
                        f"{response.status_code} from {path}: {_detail(response)}",
                        response.status_code,
                    )
                with destination.open("wb") as handle:
                    for chunk in response.iter_bytes(DOWNLOAD_CHUNK_BYTES):
                        digest.update(chunk)
                        handle.write(chunk)
                        size_bytes += len(chunk)
        except httpx.HTTPError as err:
            raise ClientError(f"download from {self.server}{path} failed: {err}") from None
        return digest.hexdigest(), size_bytes
