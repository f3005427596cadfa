"""`autotune worker`: the worker's own command line (`workers.cli`), registered here."""

from __future__ import annotations

from typing import Any

from workers.cli import DESCRIPTION, add_worker_arguments, run_worker


def register(commands: Any) -> None:
    """Add `autotune worker` to the `autotune` sub-parser collection."""
    worker = commands.add_parser(
        "worker",
        help="measure candidates for a tuning service (register, lease, measure, report)",
        description=DESCRIPTION,
    )
    add_worker_arguments(worker)
    worker.set_defaults(handler=run_worker)
