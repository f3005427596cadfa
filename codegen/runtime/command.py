"""The runtime loaders' command line (`python -m runtime.loader ART.tar.gz --input
NAME=FILE.npy ... [--output OUT.npz]`, and the same for `cuda_loader`): run an artifact on
.npy inputs, print each output's shape and dtype, save them in an .npz."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np


class RunnableArtifact(Protocol):
    """A loaded artifact: runs named numpy inputs into named numpy outputs."""

    def run(self, inputs: Mapping[str, Any]) -> Mapping[str, np.ndarray]: ...


def parse_inputs(values: Sequence[str], input_error: type[Exception]) -> dict[str, np.ndarray]:
    """The arrays of `--input NAME=FILE.npy` options; `input_error` names a malformed option
    or an unreadable file."""
    arrays = {}
    for text in values:
        name, sep, file = text.partition("=")
        if not sep or not name or not file:
            raise input_error(f"--input {text!r}: expected NAME=FILE.npy")
        try:
            arrays[name] = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as err:
            raise input_error(f"--input {name}: cannot read {file}: {err}") from None
    return arrays


def run_command(
    argv: Sequence[str] | None,
    description: str,
    load: Callable[[str], AbstractContextManager[RunnableArtifact]],
    error: type[Exception],
    input_error: type[Exception],
) -> int:
    """Parse `argv`, load the artifact with `load` and run it; 1 (the message on stderr)
    when loading or running raises `error` (of which `input_error` is a kind)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("artifact")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    parser.add_argument("--output", metavar="OUT.npz")
    args = parser.parse_args(argv)
    try:
        with load(args.artifact) as model:
            outputs = model.run(parse_inputs(args.input, input_error))
    except error as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for name, array in outputs.items():
        print(f"{name}: {list(array.shape)} {array.dtype.name}")
    if args.output:
        saved: dict[str, Any] = dict(outputs)
        np.savez(args.output, **saved)
    return 0
