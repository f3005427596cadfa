"""The cost model each target's jobs share, so that tuning a model starts from what the
service learnt tuning others for the same target (a second model of a family then needs
fewer trials).

A job's driver checks the target's model out into a scratch folder, the tuner warm-starts
from it (`TuneOptions.cost_model_path`) and saves it retrained on the job's measurements
too, and the driver checks that file in: stored like the other files every replica reads
(`service.blobs`, by sha256, in the database too when shared), with `cost_models` naming
each target's current one. Two jobs of one target that end together: the last to check in
wins, the other's rows are in neither (they stay in its records). A superseded version is
removed from the database and from this replica's folder.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from pathlib import Path

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from service.blobs import FileStore, shares_the_database
from service.db.engine import unit_of_work
from service.db.models import BlobChunkRow, BlobRow, CostModelRow
from service.errors import NotFound
from service.settings import Settings
from tuner.cost_model import saved_rows

logger = logging.getLogger(__name__)

CHECKOUT_NAME = "cost_model.npz"


def cost_model_files(settings: Settings) -> FileStore:
    """The saved cost models (.npz), by sha256."""
    return FileStore(settings.data_dir / "cost_models", ".npz", shares_the_database(settings))


def check_out(
    factory: sessionmaker[Session], settings: Settings, target: str, folder: Path
) -> Path:
    """The path in `folder` where the tuner loads and saves the target's cost model: a
    copy of the current one, or nothing yet when the target has none (or it is lost)."""
    path = folder / CHECKOUT_NAME
    with unit_of_work(factory) as session:
        row = session.get(CostModelRow, target)
        if row is None:
            return path
        try:
            source = cost_model_files(settings).get(session, row.sha256)
        except NotFound as err:
            logger.warning("the cost model of %r is lost (%s): tuning starts afresh", target, err)
            return path
        shutil.copyfile(source, path)
    return path


def check_in(factory: sessionmaker[Session], settings: Settings, target: str, path: Path) -> None:
    """Make the model the tuner saved at `path` the target's own (nothing when it saved
    none, or the same one)."""
    if not path.exists():
        return
    data = path.read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    rows = saved_rows(path)
    files = cost_model_files(settings)
    previous: str | None = None
    for attempt in range(2):  # (a second replica may insert the target's row meanwhile)
        try:
            with unit_of_work(factory) as session:
                row = session.get(CostModelRow, target)
                if row is not None and row.sha256 == sha256:
                    return
                files.put_bytes(session, sha256, data)
                if row is None:
                    session.add(
                        CostModelRow(
                            target=target, sha256=sha256, rows=rows, updated_at=time.time()
                        )
                    )
                else:
                    previous = row.sha256
                    row.sha256, row.rows, row.updated_at = sha256, rows, time.time()
            break
        except IntegrityError:
            if attempt:
                raise
    if previous is not None:
        _forget(factory, files, previous)


def _forget(factory: sessionmaker[Session], files: FileStore, sha256: str) -> None:
    """Remove a superseded model from the database and this replica's folder, unless a
    target still names it."""
    with unit_of_work(factory) as session:
        if session.scalar(select(CostModelRow).where(CostModelRow.sha256 == sha256)) is not None:
            return
        if files.shared:
            session.execute(delete(BlobChunkRow).where(BlobChunkRow.sha256 == sha256))
            session.execute(delete(BlobRow).where(BlobRow.sha256 == sha256))
    files.path(sha256).unlink(missing_ok=True)
