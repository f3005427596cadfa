"""One table from service-layer errors to HTTP statuses, installed on the app."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    ServiceError,
    TooLarge,
    Unauthorized,
)

STATUS_OF: dict[type[ServiceError], int] = {
    InvalidInput: 422,
    TooLarge: 413,
    NotFound: 404,
    Unauthorized: 401,
    Forbidden: 403,
    Conflict: 409,
}


def install_error_handlers(app: FastAPI) -> None:
    """Answer every ServiceError with its status and `{"detail": message}`."""

    async def handle(_request: Request, err: Exception) -> JSONResponse:
        status = next((code for kind, code in STATUS_OF.items() if isinstance(err, kind)), 400)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse({"detail": str(err)}, status_code=status, headers=headers)

    app.add_exception_handler(ServiceError, handle)
