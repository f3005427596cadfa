"""Subcommands of `autotune` (registered by service.cli.build_parser)."""

from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any) -> None:
    """Add this module's subcommands to the `autotune` sub-parser collection."""
    del commands


def _unused(args: argparse.Namespace) -> int:
    return 0
