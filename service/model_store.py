"""Uploaded ONNX models: validated, stored content-addressed (by sha256) in the data dir
(and in the database where replicas share it: `service.blobs`).

A model is imported and optimised before anything is stored, so a bad upload changes
nothing; its row keeps what the API returns about it (inputs, outputs, fused functions
and tuning tasks).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from codegen.llvm import host_target
from codegen.prepare import prepare_for_target
from codegen.target import Target
from ir.errors import AutotuneError, ShapeBindingError
from ir.frontend.onnx.bindings import bind_input_shapes
from ir.frontend.onnx.symbolic_dims import DimBinding
from ir.graph.nodes import Function
from ir.graph.summary import fused_functions, graph_summary
from service.blobs import FileStore
from service.db.models import ModelRow
from service.errors import InvalidInput, NotFound, TooLarge
from tuner.size_histogram import SizeHistogram
from tuner.tasks import Task, extract_tasks


def describe_model(data: bytes) -> dict[str, Any]:
    """Import and optimise ONNX bytes; returns inputs, outputs, fused functions and tasks.

    Raises InvalidInput naming the problem (not ONNX, an unsupported op, a bad shape).
    """
    if not data:
        raise InvalidInput("the uploaded model is empty")
    try:
        prepared = prepare_for_target(data, host_target())
        imported, optimized = prepared.imported.function, prepared.function
        tasks = extract_tasks(optimized, host_target())
    except ShapeBindingError as err:
        hint = "upload with the query parameter shape=NAME=DxDx... (repeatable) to bind it"
        raise InvalidInput(f"not a usable ONNX model: {err}; {hint}") from None
    except AutotuneError as err:
        raise InvalidInput(f"not a usable ONNX model: {err}") from None
    except Exception as err:  # the protobuf parser raises its own types on garbage
        raise InvalidInput(f"not a usable ONNX model: {type(err).__name__}: {err}") from None
    summary = graph_summary(imported)
    return {
        "inputs": summary["inputs"],
        "outputs": summary["outputs"],
        "flops": summary["flops"],
        "fused_functions": [fused.to_json() for fused in fused_functions(optimized)],
        "tasks": [
            {
                "workload_key": t.key,
                "name": t.name,
                "flops": t.flops,
                "weight": t.weight,
                "covers": t.covers,
            }
            for t in tasks
        ],
    }


def store_model(
    session: Session,
    files: FileStore,
    name: str,
    data: bytes,
    max_bytes: int,
    shapes: Mapping[str, Sequence[DimBinding]] | None = None,
) -> ModelRow:
    """Validate and store an uploaded model; the same bytes again return the same row.

    `shapes` binds input dims (a dynamic batch, say) to sizes or ranges: the stored model
    is the one with those bindings written in (`bind_input_shapes`), and its id is the
    sha256 of that model.
    """
    if len(data) > max_bytes:
        raise TooLarge(f"the model is {len(data)} bytes; the limit is {max_bytes} bytes")
    if shapes:
        try:
            data = bind_input_shapes(data, shapes)
        except AutotuneError as err:
            raise InvalidInput(f"cannot bind input shapes: {err}") from None
    model_id = hashlib.sha256(data).hexdigest()
    existing = session.get(ModelRow, model_id)
    if existing is not None:
        return existing
    info = describe_model(data)
    files.put_bytes(session, model_id, data)  # (and in the database, where replicas share it)
    row = ModelRow(
        id=model_id,
        name=(name or "model.onnx")[:500],
        size_bytes=len(data),
        created_at=time.time(),
        info=info,
    )
    try:
        with session.begin_nested():  # the same bytes uploaded twice at once: one row
            session.add(row)
    except IntegrityError:
        return get_model(session, model_id)
    return row


def get_model(session: Session, model_id: str) -> ModelRow:
    """The model with this id; NotFound otherwise."""
    row = session.get(ModelRow, model_id)
    if row is None:
        raise NotFound(f"no model {model_id!r}")
    return row


def list_models(session: Session, limit: int, offset: int) -> tuple[list[ModelRow], int]:
    """A page of models, newest first, and the total count."""
    total = session.scalar(select(func.count()).select_from(ModelRow)) or 0
    rows = session.scalars(
        select(ModelRow).order_by(ModelRow.created_at.desc()).limit(limit).offset(offset)
    )
    return list(rows), total


def load_model_function(path: Path, target: Target) -> Function:
    """The stored model at `path` imported and optimised for `target` (the function the
    tuner tunes)."""
    return prepare_for_target(path.read_bytes(), target).function


def model_tasks(path: Path, target: Target, histogram: SizeHistogram | None = None) -> list[Task]:
    """The tuning tasks of the stored model at `path` for `target`, a symbolic model's
    size buckets shared by `histogram`."""
    return extract_tasks(load_model_function(path, target), target, histogram)
