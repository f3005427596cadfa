"""An artifact build in its own process: `python -m service.orchestration.artifact_builder
--artifact ID --parent-pid PID`, settings in AUTOTUNE_DRIVER_SETTINGS (as for drivers)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Sequence

from sqlalchemy import select

from service.blobs import artifact_files, model_files
from service.db.engine import make_engine, make_session_factory, unit_of_work
from service.db.models import ArtifactRow, RecordRow
from service.orchestration.driver import SETTINGS_ENV
from service.records import record_from_row
from service.settings import Settings
from tuner.artifact_build import build_artifact

logger = logging.getLogger(__name__)


def build(settings: Settings, artifact_id: str) -> int:
    """Build the artifact and store its state, hash, size, coverage and manifest."""
    engine = make_engine(settings.resolved_database_url)
    factory = make_session_factory(engine)
    try:
        with unit_of_work(factory) as session:
            row = session.get(ArtifactRow, artifact_id)
            assert row is not None
            model_id, target, record_ids = row.model_id, row.target, list(row.record_ids)
            records = [
                record_from_row(r)
                for r in session.scalars(select(RecordRow).where(RecordRow.id.in_(record_ids)))
            ]
        artifacts = artifact_files(settings)
        try:
            with unit_of_work(factory) as session:
                model = model_files(settings).get(session, model_id)
            built = build_artifact(model, target, records, artifacts.folder)
            with unit_of_work(factory) as session:
                artifacts.put(session, built.sha256, built.path)  # (for every replica)
        except Exception as err:  # any build failure is the artifact's state, not a crash
            logger.exception("artifact %s failed", artifact_id)
            with unit_of_work(factory) as session:
                row = session.get(ArtifactRow, artifact_id)
                assert row is not None
                row.state, row.error = "failed", f"{type(err).__name__}: {err}"[:10_000]
                row.finished_at = time.time()
            return 1
        with unit_of_work(factory) as session:
            row = session.get(ArtifactRow, artifact_id)
            assert row is not None
            row.state = "ready"
            row.sha256 = built.sha256
            row.size_bytes = built.size_bytes
            row.coverage = list(built.coverage)
            row.manifest = dict(built.manifest)
            row.finished_at = time.time()
        return 0
    finally:
        engine.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of a builder process."""
    parser = argparse.ArgumentParser(prog="autotune-artifact-builder")
    parser.add_argument("--artifact", required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="artifact builder %(process)d: %(message)s")
    del args.parent_pid  # a build is short; a dead service's build is reclaimed by lease
    return build(Settings.model_validate_json(os.environ[SETTINGS_ENV]), args.artifact)


if __name__ == "__main__":
    sys.exit(main())
