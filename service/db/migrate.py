"""Alembic migrations (top-level `migrations/`), applied programmatically on start."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(engine: Engine) -> Config:
    """An Alembic config for the `migrations/` directory that runs on `engine`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine) -> None:
    """Bring the database behind `engine` to the newest schema."""
    command.upgrade(alembic_config(engine), "head")
