"""Default schedules of softmax and layer_norm computed per row against each stage over the
whole tensor, timed in turn in one process (`bench.common.time_in_turn`).

    .venv/bin/python bench/per_row.py [--softmax 12x197x197 ...] [--layer-norm 197x768 ...]
        [--shared-exp 64x197 ...]

"per row" is today's default (`ir.schedule.default`, Step 3: the statistics and
intermediates computed inside the output's row loop, for rows of ROW_VECTORS vectors or
more, each row's partials, one or two vectors of them, reduced horizontally); "before"
is per row as it was before that (one vector of partials, reduced one after another);
"per stage" is the default with no row producers found (each stage over the whole
tensor, the statistics' rows reduced a vector of rows at a time). `--shared-exp` shapes
time an elementwise function whose exp(x) two stages read (`exp(x) * x + 2 exp(x)`, the
exp computed once): per row, a row of it at a time. The kernels run on the same inputs
and must agree; prints microseconds per call and the ratios.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ir.schedule.default as default
import ir.schedule.rules.rows as rows
from bench.common import time_in_turn
from codegen.llvm import compile_kernel, host_target
from ir.graph.nodes import Call, Function, Var, call
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.lower import lower
from ir.te.program import TEProgram, function_to_te
from ir.te.tensor import compute, placeholder
from ir.tir.expr import intrinsic

SOFTMAX = ("12x197x197", "12x128x128", "3x48x100", "8x4096", "1x4096", "64x64", "64x40", "1x1000")
LAYER_NORM = ("197x768", "128x768", "3136x96")
SHARED_EXP = ("64x197", "1000x3", "8x64x56x56", "256x1024")


def _program(op: str, shapes: list[tuple[int, ...]]) -> TEProgram:
    params = [Var(f"x{i}", TensorType(shape, "float32")) for i, shape in enumerate(shapes)]
    fn = infer_type(Function(tuple(params), call(op, *params)))
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    return function_to_te(prim)


def _shared_exp(shape: tuple[int, ...]) -> TEProgram:
    x = placeholder(shape, name="x")
    shared = compute(shape, lambda *i: intrinsic("exp", x[i]), name="shared")
    doubled = compute(shape, lambda *i: shared[i] * 2.0, name="doubled")
    out = compute(shape, lambda *i: shared[i] * x[i] + doubled[i], name="out")
    return TEProgram("shared_exp", (x,), (out,))


def compare(op: str, shapes: list[tuple[int, ...]], rounds: int = 9) -> dict[str, float]:
    """Seconds per call of the per-row default of `op` (or "shared_exp") on `shapes`, of
    per row as before (one vector of serial partials), and of the per-stage default."""
    target = host_target()
    program = _shared_exp(shapes[0]) if op == "shared_exp" else _program(op, shapes)
    hardware = target.hardware
    per_row = compile_kernel(lower(default.default_schedule(program, hardware)), target)
    with mock.patch.object(rows, "row_producers", lambda schedule, output: []):
        per_stage = compile_kernel(lower(default.default_schedule(program, hardware)), target)
    serial = functools.partial(rows.compute_per_row, horizontal=False)
    with (
        mock.patch.object(rows, "compute_per_row", serial),
        mock.patch.object(rows, "TWO_PARTIALS_VECTORS", math.inf),
    ):
        before = compile_kernel(lower(default.default_schedule(program, hardware)), target)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    kernels = {"per_row": per_row, "per_stage": per_stage, "before": before}
    outputs = {name: [np.empty(t.shape, np.float32) for t in program.outputs] for name in kernels}
    for name, kernel in kernels.items():
        kernel(*inputs, *outputs[name])
        for a, b in zip(outputs["per_row"], outputs[name], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
    return time_in_turn(
        {
            name: functools.partial(kernel, *inputs, *outputs[name])
            for name, kernel in kernels.items()
        },
        rounds,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--softmax", nargs="*", default=list(SOFTMAX), metavar="SHAPE")
    parser.add_argument("--layer-norm", nargs="*", default=list(LAYER_NORM), metavar="SHAPE")
    parser.add_argument("--shared-exp", nargs="*", default=list(SHARED_EXP), metavar="SHAPE")
    args = parser.parse_args()
    print(f"target: {host_target()}", file=sys.stderr)
    print(
        f"{'op':14} {'shape':>12} {'per stage us':>13} {'before us':>10} {'per row us':>11} "
        f"{'row/stage':>10} {'row/before':>11}"
    )
    cases = [("nn.softmax", [text]) for text in args.softmax]
    for text in args.layer_norm:  # (the normalised axis' gamma and beta beside the input)
        width = text.split("x")[-1]
        cases.append(("nn.layer_norm", [text, width, width]))
    cases += [("shared_exp", [text]) for text in args.shared_exp]
    for op, texts in cases:
        shapes = [tuple(int(n) for n in text.split("x")) for text in texts]
        costs = compare(op, shapes)
        print(
            f"{op:14} {texts[0]:>12} {costs['per_stage'] * 1e6:13.1f} "
            f"{costs['before'] * 1e6:10.1f} {costs['per_row'] * 1e6:11.1f} "
            f"{costs['per_row'] / costs['per_stage']:10.2f} "
            f"{costs['per_row'] / costs['before']:11.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
