"""One table from service-layer errors to HTTP statuses, installed on the app, and the
input checks that no route should have to repeat."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DataError

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
    """Answer every ServiceError with its status and `{"detail": message}`, a value the
    database cannot store with 422, and a NUL character in the path or a query parameter
    (which PostgreSQL cannot compare or store) with 422 before any route runs."""

    async def handle(_request: Request, err: Exception) -> JSONResponse:
        status = next((code for kind, code in STATUS_OF.items() if isinstance(err, kind)), 400)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse({"detail": str(err)}, status_code=status, headers=headers)

    async def handle_data_error(_request: Request, err: Exception) -> JSONResponse:
        # (the statement's transaction is rolled back: nothing was stored)
        cause = getattr(err, "orig", None) or err
        reason = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        return JSONResponse(
            {"detail": f"a value the database cannot store: {reason}"}, status_code=422
        )

    async def refuse_nul(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if "\x00" in request.url.path:
            return JSONResponse({"detail": "the path contains a NUL character"}, status_code=422)
        for name, value in request.query_params.multi_items():
            if "\x00" in name or "\x00" in value:
                return JSONResponse(
                    {"detail": f"query parameter {name!r} contains a NUL character"},
                    status_code=422,
                )
        return await call_next(request)

    app.add_exception_handler(ServiceError, handle)
    app.add_exception_handler(DataError, handle_data_error)
    app.middleware("http")(refuse_nul)
