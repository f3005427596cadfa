"""One kernel for a range of shapes against kernels specialised for each shape.

Each workload is built twice from the same TE: once with a symbolic dim (a size variable
with an upper bound) and compiled once, once per size with that size fixed; both under
the default schedule, each checked against numpy, then timed in turn at each size. The
ratio symbolic / specialised is the price of one kernel for the whole range (issue 46's
target for a whole artifact: at most 1.15x). A third kernel per size is the symbolic one
with the smallest upper bound of `BUCKETS` that holds the size: what dispatching between
a few variants, each scheduled for its bucket, would run.

    python bench/symbolic_kernels.py [--output bench/results/symbolic_kernels_<host>.txt]
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import time_in_turn
from codegen.llvm import compile_kernel, host_target
from codegen.llvm.jit import CompiledKernel
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.te.program import TEProgram
from ir.te.tensor import (
    DimLike,
    compute,
    max_reduce,
    placeholder,
    reduce_axis,
    size_var,
    sum_reduce,
)
from ir.tir.expr import intrinsic

UPPER = 512
SIZES = (16, 128, 384)
BUCKETS = (32, 128, 512)  # upper bounds of the variants a bucketed dispatch would pick from


def dense(rows: DimLike) -> TEProgram:
    """[rows, 256] x [256, 256]^T: a transformer's projection, rows = batch x sequence."""
    x = placeholder((rows, 256), name="X")
    w = placeholder((256, 256), name="W")
    k = reduce_axis(256, "k")
    y = compute((rows, 256), lambda i, j: sum_reduce(x[i, k] * w[j, k], axis=k), name="Y")
    return TEProgram("dense", (x, w), (y,))


def softmax(length: DimLike) -> TEProgram:
    """Softmax over the keys of 8 heads' attention rows: [8 * 16, length]."""
    a = placeholder((128, length), name="A")
    r1, r2 = reduce_axis(length, "r1"), reduce_axis(length, "r2")
    top = compute((128,), lambda i: max_reduce(a[i, r1], axis=r1), name="top")
    ex = compute((128, length), lambda i, j: intrinsic("exp", a[i, j] - top[i]), name="ex")
    total = compute((128,), lambda i: sum_reduce(ex[i, r2], axis=r2), name="total")
    out = compute((128, length), lambda i, j: ex[i, j] / total[i], name="out")
    return TEProgram("softmax", (a,), (out,))


def scores(length: DimLike) -> TEProgram:
    """Attention scores of 4 heads: [4, length, 64] x [4, length, 64] -> [4, length, length]."""
    q = placeholder((4, length, 64), name="Q")
    k = placeholder((4, length, 64), name="K")
    d = reduce_axis(64, "d")
    s = compute(
        (4, length, length),
        lambda h, i, j: sum_reduce(q[h, i, d] * k[h, j, d], axis=d),
        name="S",
    )
    return TEProgram("scores", (q, k), (s,))


def gelu(rows: DimLike) -> TEProgram:
    """An elementwise GELU (tanh form) with a bias over [rows, 1024]."""
    x = placeholder((rows, 1024), name="X")
    b = placeholder((1024,), name="B")

    def fn(i: object, j: object) -> object:
        v = x[i, j] + b[j]  # type: ignore[index]
        inner = 0.7978845608 * (v + 0.044715 * v * v * v)
        return 0.5 * v * (1.0 + intrinsic("tanh", inner))

    y = compute((rows, 1024), fn, name="Y")
    return TEProgram("gelu", (x, b), (y,))


WORKLOADS: dict[str, Callable[[DimLike], TEProgram]] = {
    "dense": dense,
    "softmax": softmax,
    "scores": scores,
    "gelu": gelu,
}


def _arrays(program: TEProgram, seed: int) -> list[np.ndarray]:
    """Random inputs, then the output, for a program of static shapes."""
    rng = np.random.default_rng(seed)
    tensors = (*program.inputs, *program.outputs)
    return [rng.standard_normal(tensor.shape, dtype=np.float32) for tensor in tensors]


def _compile(program: TEProgram) -> CompiledKernel:
    return compile_kernel(lower(default_schedule(program)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    target = host_target()
    lines = [
        f"host: {target.mcpu} ({target.num_cores} cores); default schedules; one symbolic kernel "
        f"per workload (upper bound {UPPER}) against one specialised kernel per size; "
        "median of 5 rounds timed in turn",
        "",
        f"{'workload':10} {'size':>6} {'specialised us':>15} {'symbolic us':>12} {'ratio':>6}"
        f" {'bucketed us':>12} {'ratio':>6}",
    ]
    print("\n".join(lines), flush=True)
    ratios, bucket_ratios = [], []
    for name, build in WORKLOADS.items():
        symbolic = _compile(build(size_var("n", UPPER)))
        buckets = {upper: _compile(build(size_var("n", upper))) for upper in BUCKETS}
        for size in SIZES:
            bucketed = buckets[min(upper for upper in BUCKETS if upper >= size)]
            static_program = build(size)
            static = _compile(static_program)
            static_arrays = _arrays(static_program, 0)
            symbolic_arrays = [a.copy() for a in static_arrays]
            bucketed_arrays = [a.copy() for a in static_arrays]
            static(*static_arrays)
            for kernel, arrays in ((symbolic, symbolic_arrays), (bucketed, bucketed_arrays)):
                kernel(*arrays)
                np.testing.assert_allclose(arrays[-1], static_arrays[-1], rtol=1e-4, atol=1e-4)
            costs = time_in_turn(
                {
                    "static": static.bind(*static_arrays),
                    "symbolic": symbolic.bind(*symbolic_arrays),
                    "bucketed": bucketed.bind(*bucketed_arrays),
                }
            )
            ratio = costs["symbolic"] / costs["static"]
            bucket_ratio = costs["bucketed"] / costs["static"]
            ratios.append(ratio)
            bucket_ratios.append(bucket_ratio)
            line = (
                f"{name:10} {size:>6} {costs['static'] * 1e6:>15.1f} "
                f"{costs['symbolic'] * 1e6:>12.1f} {ratio:>6.2f} "
                f"{costs['bucketed'] * 1e6:>12.1f} {bucket_ratio:>6.2f}"
            )
            lines.append(line)
            print(line, flush=True)
    lines.append("")
    for label, values in (("symbolic", ratios), ("bucketed", bucket_ratios)):
        geomean = math.exp(sum(math.log(r) for r in values) / len(values))
        lines.append(f"{label} / specialised: geometric mean {geomean:.2f}, max {max(values):.2f}")
        print(lines[-1])
    if args.output:
        args.output.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
