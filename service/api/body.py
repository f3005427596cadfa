"""Reading request bodies with a size limit, as raw bytes or one multipart file."""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import UploadFile
from starlette.types import Message

from service.errors import InvalidInput, TooLarge


async def read_limited(request: Request, max_bytes: int) -> bytes:
    """The request body; TooLarge as soon as it passes `max_bytes` (or says it will)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(f"the body is {declared} bytes; the limit is {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"the body is over the limit of {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def upload_bytes(request: Request, max_bytes: int) -> tuple[str, bytes]:
    """The uploaded file's name and bytes: a multipart form's `file` field, or the raw
    body (its name from the `name` query parameter)."""
    body = await read_limited(request, max_bytes)
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith("multipart/form-data"):
        return request.query_params.get("name", "model.onnx"), body

    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        form = await Request(request.scope, replay).form()
    except Exception as err:  # the multipart parser's own error types
        raise InvalidInput(f"malformed multipart body: {err}") from None
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInput("a multipart upload needs the model in a file field named 'file'")
        return upload.filename or "model.onnx", await upload.read()
    finally:
        await form.close()
