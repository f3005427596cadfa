"""Content-addressed files every replica can read: uploaded models and built artifacts.

A `FileStore` keeps one kind of file by its sha256 in a folder of this replica's data
directory. On the embedded default (SQLite, one service's file) that folder is all there
is. On PostgreSQL, where several replicas share the database and nothing else, a file is
also stored in the database (`blobs`, `blob_chunks`: CHUNK_BYTES a row, streamed in and
out, never whole in memory), and a replica that lacks it in its folder fetches it from
there on first use. Replicas with one shared data directory work the same way.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from service.db.models import BlobChunkRow, BlobRow
from service.errors import NotFound
from service.settings import Settings

CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class FileStore:
    """Files of one kind (`suffix`), named by sha256, in `folder` and, when `shared`, in
    the database too (module docstring)."""

    folder: Path
    suffix: str
    shared: bool

    def path(self, sha256: str) -> Path:
        """Where the file lives on this replica (present or not)."""
        return self.folder / f"{sha256}{self.suffix}"

    def put(self, session: Session, sha256: str, source: Path) -> Path:
        """Keep the file at `source` (whose sha256 the caller computed) as `sha256`:
        moved into the folder unless it is there already, and stored in the database when
        shared (in the caller's transaction). Returns its path here."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(sha256)
        if source != path:
            if path.exists():
                source.unlink(missing_ok=True)
            else:
                source.replace(path)  # atomic: a reader sees the whole file or none
        if self.shared:
            store_blob(session, sha256, path)
        return path

    def put_bytes(self, session: Session, sha256: str, data: bytes) -> Path:
        """`put` for bytes in memory (an upload, already read to be validated)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self.path(sha256).with_suffix(_partial_suffix())
        partial.write_bytes(data)
        return self.put(session, sha256, partial)

    def get(self, session: Session, sha256: str) -> Path:
        """The file's path here, fetched from the database first when shared and missing;
        NotFound when it is in neither."""
        path = self.path(sha256)
        if path.exists():
            return path
        if self.shared and fetch_blob(session, sha256, path):
            return path
        where = "this replica's data directory or the database" if self.shared else str(path)
        raise NotFound(f"the file {sha256}{self.suffix} is not in {where}")


def shares_the_database(settings: Settings) -> bool:
    """Whether replicas may share this service's database (PostgreSQL), so files must be
    kept there too."""
    return settings.resolved_database_url.startswith(("postgresql", "postgres"))


def model_files(settings: Settings) -> FileStore:
    """The uploaded models (.onnx)."""
    return FileStore(settings.models_dir, ".onnx", shares_the_database(settings))


def artifact_files(settings: Settings) -> FileStore:
    """The built artifacts (.tar.gz)."""
    return FileStore(settings.data_dir / "artifacts", ".tar.gz", shares_the_database(settings))


def store_blob(session: Session, sha256: str, path: Path) -> None:
    """Store the file at `path` in the database as `sha256`, chunk by chunk (nothing when
    it is there already, or when another replica stores it at the same moment)."""
    if session.get(BlobRow, sha256) is not None:
        return
    try:
        with session.begin_nested():
            size = 0
            with path.open("rb") as file:
                for position, chunk in enumerate(iter(lambda: file.read(CHUNK_BYTES), b"")):
                    row = BlobChunkRow(sha256=sha256, position=position, data=chunk)
                    session.add(row)
                    size += len(chunk)
                    session.flush()
                    session.expunge(row)  # one chunk in memory at a time
            session.add(BlobRow(sha256=sha256, size_bytes=size, created_at=time.time()))
            session.flush()
    except IntegrityError:  # another replica stored it first: the same bytes
        pass


def fetch_blob(session: Session, sha256: str, path: Path) -> bool:
    """Write blob `sha256` from the database to `path` (atomically, checking its hash);
    False when the database does not hold it."""
    header = session.get(BlobRow, sha256)
    if header is None:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(_partial_suffix())
    digest = hashlib.sha256()
    chunks = session.scalars(
        select(BlobChunkRow.data)
        .where(BlobChunkRow.sha256 == sha256)
        .order_by(BlobChunkRow.position)
        .execution_options(yield_per=4)
    )
    with partial.open("wb") as file:
        for chunk in chunks:
            digest.update(chunk)
            file.write(chunk)
    if digest.hexdigest() != sha256:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"blob {sha256} in the database does not hash to its name")
    partial.replace(path)
    return True


def _partial_suffix() -> str:
    """A suffix no other writer of this process or another uses at the same moment."""
    return f".{os.getpid()}.{threading.get_ident()}.partial"
