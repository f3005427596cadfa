"""Tuning: task extraction, search space, features, cost model, search, task scheduler, records."""

from pathlib import Path

from ir.native import warn_of_stale_compiled_modules

warn_of_stale_compiled_modules(Path(__file__).parent)
