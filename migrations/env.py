"""Alembic environment: runs migrations on the engine the service hands over.

The service applies migrations itself (`service.db.migrate.upgrade`), passing its engine
or connection in `config.attributes["bind"]`; the `alembic` command line may instead set
`sqlalchemy.url` (or AUTOTUNE_DATABASE_URL).
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import Connection, Engine

from service.db.engine import make_engine
from service.db.models import Base

config = context.config
target_metadata = Base.metadata


def _bind() -> Engine | Connection:
    bind = config.attributes.get("bind")
    if isinstance(bind, Engine | Connection):
        return bind
    url = config.get_main_option("sqlalchemy.url") or os.environ["AUTOTUNE_DATABASE_URL"]
    return make_engine(url)


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()


def run_migrations_online() -> None:
    """Run every pending migration in one transaction."""
    bind = _bind()
    if isinstance(bind, Connection):
        _run(bind)
        return
    with bind.connect() as connection:
        _run(connection)


run_migrations_online()
