"""`autotune quantize`: post-training static quantization of an ONNX model into a QDQ model
that onnxruntime and autotune both run (`tuner.quantize`).

    autotune quantize MODEL.onnx (--calibration DIR | --random N) -o MODEL.int8.onnx
        [--method minmax|percentile] [--percentile 99.99] [--skip OP_OR_NODE ...]
        [--shape NAME=DxD ...] [--seed S] [--json]

`--calibration DIR` reads every `.npz` file of DIR as one set of the model's inputs (an
array per input name); `--random N` draws N sets (floats uniform in [-1, 1], seeded).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from ir.frontend.onnx import import_model
from ir.frontend.onnx.bindings import parse_shape_bindings, static_shape_bindings
from ir.reference import random_inputs
from service.cli.errors import CliError
from tuner.quantize import QuantizeOptions, QuantizeResult, quantize_model

Batches = Callable[[], Iterator[Mapping[str, np.ndarray]]]


def register(commands: Any) -> None:
    """Add `quantize` to the `autotune` sub-parser collection."""
    parser = commands.add_parser(
        "quantize",
        help="quantize a model to int8 (QDQ: int8 weights per channel, uint8 activations)",
    )
    parser.add_argument("model", help="path to a float ONNX model")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--calibration", metavar="DIR", help="a folder of .npz files, each one set of inputs"
    )
    source.add_argument("--random", type=int, metavar="N", help="calibrate on N random input sets")
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT.onnx", help="where to write the QDQ model"
    )
    parser.add_argument(
        "--method",
        choices=("minmax", "percentile"),
        default="minmax",
        help="how activation ranges are calibrated (default minmax)",
    )
    parser.add_argument(
        "--percentile",
        type=float,
        default=99.99,
        help="with --method percentile: the share of values kept inside the range (default 99.99)",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="OP_OR_NODE",
        help="an op type (Gemm) or node name to leave in float (repeatable)",
    )
    parser.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=DxDxD",
        help="bind an input's symbolic shape, for --random (repeatable)",
    )
    parser.add_argument(
        "--reduce-range",
        action="store_true",
        help="7-bit weights ([-64, 64]): exact and fast on CPUs without 8-bit dot products "
        "(AVX2), at some cost in accuracy",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of --random (default 0)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(handler=_cmd_quantize)


def _input_names(model: onnx.ModelProto) -> list[str]:
    initializers = {init.name for init in model.graph.initializer}
    return [info.name for info in model.graph.input if info.name not in initializers]


def _folder_batches(folder: Path, names: Sequence[str]) -> Batches:
    """Each .npz file of `folder` as one set of inputs, checked to hold exactly `names`."""
    if not folder.is_dir():
        raise CliError(f"--calibration {folder}: not a folder")
    files = sorted(folder.glob("*.npz"))
    if not files:
        raise CliError(f"--calibration {folder}: no .npz files in it")
    for file in files:
        with np.load(file, allow_pickle=False) as arrays:
            found = set(arrays.files)
        if found != set(names):
            missing, unknown = sorted(set(names) - found), sorted(found - set(names))
            raise CliError(
                f"--calibration {file}: the model's inputs are {list(names)}"
                + (f"; missing {missing}" if missing else "")
                + (f"; not inputs: {unknown}" if unknown else "")
            )

    def batches() -> Iterator[Mapping[str, np.ndarray]]:
        for file in files:
            with np.load(file, allow_pickle=False) as arrays:
                yield {name: arrays[name] for name in names}

    return batches


def _random_batches(model: onnx.ModelProto, count: int, seed: int, shape: list[str]) -> Batches:
    if count < 1:
        raise CliError(f"--random must be at least 1, got {count}")
    shapes = static_shape_bindings(parse_shape_bindings(shape), "autotune quantize")
    function = import_model(model, shape=shapes or None).function

    def batches() -> Iterator[Mapping[str, np.ndarray]]:
        for index in range(count):
            yield random_inputs(function, seed + index)

    return batches


def _summary(result: QuantizeResult, output: Path, sets: str) -> dict[str, Any]:
    return {
        "output": str(output),
        "calibration": sets,
        "quantized": [
            {
                "node": node.name,
                "op_type": node.op_type,
                "weight": node.weight,
                "activation": node.activation,
                "per_channel": node.per_channel,
            }
            for node in result.nodes
        ],
        "skipped": list(result.skipped),
        "ranges": {name: [r.low, r.high] for name, r in result.ranges.items()},
    }


def _cmd_quantize(args: argparse.Namespace) -> int:
    path = Path(args.model)
    try:
        model = onnx.load(str(path))  # (with any external tensors beside it)
    except (OSError, DecodeError, ValueError, RuntimeError) as err:
        raise CliError(f"cannot read ONNX model {path}: {err}") from None
    if not model.HasField("graph"):
        raise CliError(f"cannot read ONNX model {path}: it has no graph")
    if args.calibration:
        batches = _folder_batches(Path(args.calibration), _input_names(model))
        sets = f"the .npz files of {args.calibration}"
    else:
        batches = _random_batches(model, args.random, args.seed, args.shape)
        sets = f"{args.random} random input sets (seed {args.seed})"
    options = QuantizeOptions(args.method, args.percentile, frozenset(args.skip), args.reduce_range)
    result = quantize_model(model, batches, options)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(result.model, str(output))
    summary = _summary(result, output, sets)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    channels = "per channel" if all(n.per_channel for n in result.nodes) else "per tensor"
    bits = "7-bit " if args.reduce_range else ""
    print(
        f"quantized {len(result.nodes)} node(s) ({bits}int8 weights {channels}, uint8 activations "
        f"calibrated by {args.method} on {sets}): "
        + ", ".join(f"{n.name} ({n.op_type})" for n in result.nodes)
    )
    if result.skipped:
        print(f"left in float: {', '.join(result.skipped)}")
    print(f"wrote {output}")
    return 0
