"""Shared pytest configuration for the whole test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from ir.native import stale_compiled_modules

_ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test compiled modules older than their sources (the old code would run)."""
    stale = [
        path for package in ("ir", "tuner") for path in stale_compiled_modules(_ROOT / package)
    ]
    if stale:
        names = ", ".join(str(path.relative_to(_ROOT)) for path in stale)
        raise pytest.UsageError(
            f"{names} changed after it was compiled: run `make native` (which `make test` "
            "does) or `make clean-native`"
        )
