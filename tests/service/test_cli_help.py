"""The command line's own manners: every option explains itself, and a reader that stops
early (`| head`) ends nothing with an error."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from service.cli import build_parser
from tests.support.onnx_models import light_model_path

ROOT = Path(__file__).resolve().parents[2]


def _undocumented(parser: argparse.ArgumentParser, prefix: str) -> list[str]:
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += _undocumented(sub, f"{prefix} {name}".strip())
        elif not isinstance(action, argparse._HelpAction) and not action.help:
            missing.append(f"{prefix} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_argument_of_every_command_has_a_help_text() -> None:
    assert _undocumented(build_parser(), "") == []


def test_serve_help_names_the_database_variable() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from service.cli import main; main(['serve', '--help'])"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert "AUTOTUNE_DATABASE_URL" in done.stdout


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    # Before: "autotune inspect: error: [Errno 32] Broken pipe" on stderr.
    command = (
        f"{sys.executable} -c 'import sys; from service.cli import main; sys.exit(main())' "
        f"inspect {light_model_path('light_densenet121')} | head -1"
    )
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.stdout.strip() and len(done.stdout.splitlines()) == 1
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr, done.stderr
