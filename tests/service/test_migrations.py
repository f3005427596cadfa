"""Migrations produce exactly the models' schema: autogenerate finds no difference."""

from __future__ import annotations

import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

from service.db.migrate import upgrade
from service.db.models import Base


def test_migrated_schema_matches_the_models(engine: Engine) -> None:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []


def test_upgrade_is_idempotent(engine: Engine) -> None:
    upgrade(engine)  # already at head: nothing to do, nothing breaks
    tables = set(inspect(engine).get_table_names())
    assert {table.name for table in Base.metadata.sorted_tables} <= tables
    assert "alembic_version" in tables


def test_replicas_starting_together_migrate_once(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite is one service's file; replicas share PostgreSQL")
    script = (
        "import sys; from service.db.engine import make_engine; "
        "from service.db.migrate import upgrade; upgrade(make_engine(sys.argv[1]))"
    )
    replicas = [
        subprocess.Popen([sys.executable, "-c", script, database_url], stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    for replica in replicas:
        _, err = replica.communicate(timeout=120)
        assert replica.returncode == 0, err.decode()
