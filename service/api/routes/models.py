"""/v1/models: upload an ONNX model, list and get models."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ir.errors import AutotuneError
from ir.frontend.onnx.bindings import parse_shape_bindings
from service.api.body import upload_bytes
from service.api.convert import model_public
from service.api.deps import (
    MAX_OFFSET,
    State,
    User,
)
from service.blobs import model_files
from service.errors import InvalidInput
from service.model_store import get_model, list_models, store_model
from service.schemas import ModelPublic, ModelsPublic

router = APIRouter(prefix="/v1/models", tags=["models"])

UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}},
                    "required": ["file"],
                }
            },
        },
    }
}


@router.post(
    "",
    status_code=201,
    response_model=ModelPublic,
    openapi_extra=UPLOAD_BODY,
    summary="Upload an ONNX model (raw body or multipart field 'file')",
    responses={413: {"description": "over the size limit"}, 422: {"description": "not usable"}},
)
async def upload_model(
    request: Request,
    state: State,
    _user: User,
    shape: Annotated[
        list[str] | None,
        Query(
            max_length=64,
            description="bind an input's dims, NAME=1x3x224x224 (repeatable): a model "
            "exported with dynamic axes is stored with these input shapes; a dim LOW..HIGH "
            "(NAME=1..8x1..512) stays symbolic over that range",
        ),
    ] = None,
) -> ModelPublic:
    """Validate and store a model; the same bytes (and shapes) give the same model."""
    try:
        shapes = parse_shape_bindings(shape or [], what="shape")
    except AutotuneError as err:
        raise InvalidInput(str(err)) from None
    name, data = await upload_bytes(request, state.settings.max_upload_bytes)

    def store() -> ModelPublic:
        with state.session() as session:
            row = store_model(
                session,
                model_files(state.settings),
                name,
                data,
                state.settings.max_upload_bytes,
                shapes,
            )
            return model_public(row)

    return await run_in_threadpool(store)


@router.get("", response_model=ModelsPublic, summary="List models, newest first")
def list_all(
    state: State,
    _user: User,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> ModelsPublic:
    """A page of models."""
    with state.session() as session:
        rows, total = list_models(session, limit, offset)
        return ModelsPublic(items=[model_public(row) for row in rows], total=total)


@router.get("/{model_id}", response_model=ModelPublic, summary="Get a model")
def get_one(model_id: str, state: State, _user: User) -> ModelPublic:
    """One model with its inputs, outputs, fused functions and tasks."""
    with state.session() as session:
        return model_public(get_model(session, model_id))
