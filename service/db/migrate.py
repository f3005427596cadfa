"""Alembic migrations (top-level `migrations/`), applied programmatically on start.

On PostgreSQL the upgrade holds an advisory lock, so replicas starting together migrate
one after another (the later ones find nothing to do).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, text

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
ADVISORY_LOCK_ID = 0x6175746F  # "auto"


def alembic_config(bind: Engine | Connection) -> Config:
    """An Alembic config for the `migrations/` directory that runs on `bind`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["bind"] = bind
    return config


def upgrade(engine: Engine) -> None:
    """Bring the database behind `engine` to the newest schema."""
    if engine.dialect.name != "postgresql":
        command.upgrade(alembic_config(engine), "head")
        return
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:id)"), {"id": ADVISORY_LOCK_ID})
        connection.commit()
        try:
            command.upgrade(alembic_config(connection), "head")
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": ADVISORY_LOCK_ID})
            connection.commit()
