"""The `autotune` command line. Errors print one clear message and exit non-zero.

Each command module registers its commands: `compiler_commands` (inspect, run, tune: the
compiler on this machine), `quantize_command`, `demo`, `service_commands` (serve, submit,
status, logs, records, token), `worker_commands` and `artifact_commands` (compile, fetch)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ir.errors import AutotuneError

EXIT_USAGE = 2
EXIT_FAILURE = 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand: each command module registers its own."""
    parser = argparse.ArgumentParser(
        prog="autotune", description="An auto-tuning compiler service for tensor programs."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from service.cli import (
        artifact_commands,
        compiler_commands,
        demo,
        quantize_command,
        service_commands,
        worker_commands,
    )

    modules = (
        compiler_commands,
        quantize_command,
        demo,
        service_commands,
        worker_commands,
        artifact_commands,
    )
    for module in modules:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `autotune` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except AutotuneError as err:
        print(f"autotune {args.command}: error: {err}", file=sys.stderr)
        return EXIT_FAILURE
    except BrokenPipeError:
        # The reader of stdout left (`autotune status J | head -1`): not an error of ours.
        # Point stdout at /dev/null so that flushing it at exit raises nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE
    except OSError as err:
        print(f"autotune {args.command}: error: {err}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"autotune {args.command}: interrupted", file=sys.stderr)
        return 130
