"""Reading request bodies with a size limit, as raw bytes or one multipart file.

A body is never gathered in memory on its way in: it goes to a spooled temporary file
(on disk past SPOOL_MEMORY_BYTES) and the limit is enforced chunk by chunk, so a body
over the limit costs a 413 and no memory, however many arrive at once (four concurrent
300 MB uploads had held about 1 GB of the service's memory, and kept it). Only a body
within the limit is read back, for the model's validation.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from typing import IO

from fastapi import Request
from starlette.datastructures import UploadFile
from starlette.types import Message

from service.errors import InvalidInput, TooLarge

SPOOL_MEMORY_BYTES = 1 << 20  # a body past this waits on disk


def _check_declared(request: Request, max_bytes: int) -> None:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(f"the body is {declared} bytes; the limit is {max_bytes} bytes")


async def _limited(chunks: AsyncIterator[bytes], max_bytes: int) -> AsyncIterator[bytes]:
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"the body is over the limit of {max_bytes} bytes")
        yield chunk


async def spool_limited(request: Request, max_bytes: int) -> IO[bytes]:
    """The request body in a spooled temporary file, positioned at its start; TooLarge as
    soon as it passes `max_bytes` (or says it will). The caller closes the file."""
    _check_declared(request, max_bytes)
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115 (returned)
    try:
        async for chunk in _limited(request.stream(), max_bytes):
            spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


async def read_limited(request: Request, max_bytes: int) -> bytes:
    """The request body; TooLarge as soon as it passes `max_bytes` (or says it will)."""
    with await spool_limited(request, max_bytes) as spool:
        return spool.read()


async def upload_bytes(request: Request, max_bytes: int) -> tuple[str, bytes]:
    """The uploaded file's name and bytes: a multipart form's `file` field, or the raw
    body (its name from the `name` query parameter)."""
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith("multipart/form-data"):
        return request.query_params.get("name", "model.onnx"), await read_limited(
            request, max_bytes
        )
    _check_declared(request, max_bytes)
    size = 0

    async def receive() -> Message:
        # The multipart parser reads through this: it spools the file part to disk.
        nonlocal size
        message = await request.receive()
        if message["type"] == "http.request":
            size += len(message.get("body", b""))
            if size > max_bytes:
                raise TooLarge(f"the body is over the limit of {max_bytes} bytes")
        return message

    try:
        form = await Request(request.scope, receive).form()
    except TooLarge:
        raise
    except Exception as err:  # the multipart parser's own error types
        raise InvalidInput(f"malformed multipart body: {err}") from None
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInput("a multipart upload needs the model in a file field named 'file'")
        return upload.filename or "model.onnx", await upload.read()
    finally:
        await form.close()
