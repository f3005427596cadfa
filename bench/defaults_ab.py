"""Default schedules of the working tree against those of another commit, timed in turn.

    .venv/bin/python bench/defaults_ab.py --base REV [--workloads FILE] [--only NAME ...]
        [--shape dense:MxNxK conv2d:NxCxHxWxKxRxSxSTRIDExPAD ...] [--cores 1 2] [--rounds 15]

For each workload (those of `--workloads`, by default the standard ones, narrowed by
`--only`, plus `--shape` products) and each core count, the base commit's
`default_schedule` is run in a temporary `git worktree` of REV (a subprocess importing
that tree) and hands back its trace; this tree replays the trace and builds its own
default. Both kernels are compiled by this tree's code generator, checked against the
reference, and timed in turn with a second copy of this tree's kernel: `new/base` is the
change, `again/new` the noise between two copies of one kernel in the same run (their
arguments sit at other addresses). Figures are GFLOPS.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def shape_workload(spec: str) -> dict[str, Any]:
    """A workload from `dense:MxNxK`, `matmul:MxNxK`, `batch_matmul:BxMxNxK` or
    `conv2d:NxCxHxWxKxRxSxSTRIDExPAD` (NCHW, K output channels, an R x S window)."""
    op, _, dims = spec.partition(":")
    sizes = [int(size) for size in dims.split("x")]
    if op in ("dense", "matmul") and len(sizes) == 3:
        return {"name": spec, "op": op, "M": sizes[0], "N": sizes[1], "K": sizes[2]}
    if op == "batch_matmul" and len(sizes) == 4:
        return dict(zip(("B", "M", "N", "K"), sizes, strict=True)) | {"name": spec, "op": op}
    if op == "conv2d" and len(sizes) == 9:
        keys = ("N", "C", "H", "W", "K", "R", "S", "stride", "pad")
        return dict(zip(keys, sizes, strict=True)) | {"name": spec, "op": op}
    raise SystemExit(
        f"--shape {spec!r}: expected dense:MxNxK, matmul:MxNxK, batch_matmul:BxMxNxK or"
        " conv2d:NxCxHxWxKxRxSxSTRIDExPAD"
    )


def _prim_call(workload: dict[str, Any]) -> tuple[Any, Any, dict[str, Any], frozenset[str]]:
    """The workload's graph function, its one fused call, the arrays and the call's
    constant arguments (imports the tree that is first on sys.path)."""
    from bench.common import workload_arrays, workload_function
    from ir.graph.nodes import Call, Constant
    from ir.graph.traversal import post_order

    arrays = workload_arrays(workload)
    fn = workload_function(workload, arrays)
    (call,) = [node for node in post_order(fn.body) if isinstance(node, Call)]
    constants = frozenset(f"p{i}" for i, a in enumerate(call.args) if isinstance(a, Constant))
    return fn, call, arrays, constants


def _default_trace(workload: dict[str, Any], target_text: str) -> dict[str, Any]:
    from codegen.llvm import parse_cpu_target
    from ir.schedule.default import default_schedule
    from ir.te.program import function_to_te

    _, call, _, constants = _prim_call(workload)
    schedule = default_schedule(
        function_to_te(call.op), parse_cpu_target(target_text).hardware, constants
    )
    trace: dict[str, Any] = schedule.trace.to_json()
    return trace


def emit_traces() -> int:
    """In the base tree's subprocess (`_EMITTER`): read [(workload, target)] as JSON on
    stdin, print their default traces as a JSON list."""
    jobs = json.load(sys.stdin)
    print(json.dumps([_default_trace(workload, target) for workload, target in jobs]))
    return 0


def base_traces(rev: str, jobs: list[tuple[dict[str, Any], str]]) -> list[dict[str, Any]]:
    """The default traces of `jobs` as commit `rev` builds them."""
    with tempfile.TemporaryDirectory(prefix="defaults_ab_") as scratch:
        tree = Path(scratch) / "base"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree), rev],
            check=True,
        )
        try:
            done = subprocess.run(
                [sys.executable, "-c", _EMITTER, str(Path(__file__).resolve())],
                cwd=tree,
                input=json.dumps(jobs),
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=True
            )
    if done.returncode != 0:
        raise SystemExit(f"the base commit's default schedules failed:\n{done.stderr[-3000:]}")
    traces: list[dict[str, Any]] = json.loads(done.stdout)
    return traces


# Run in the base tree: its packages first on sys.path, then this file's functions.
_EMITTER = """
import runpy, sys
sys.path.insert(0, ".")
module = runpy.run_path(sys.argv[1], run_name="defaults_ab_emitter")
sys.exit(module["emit_traces"]())
"""


def compare(
    workload: dict[str, Any], target_text: str, base_trace: dict[str, Any], rounds: int
) -> dict[str, float]:
    """GFLOPS of the base commit's default, this tree's, and this tree's again, in turn."""
    from bench.common import time_in_turn, workload_flops
    from bench.kernels import kernel_and_arguments
    from codegen.llvm import parse_cpu_target
    from ir.reference import check_close, evaluate
    from ir.schedule import Trace
    from ir.schedule.default import default_schedule
    from ir.te.program import function_to_te

    fn, call, arrays, constants = _prim_call(workload)
    target = parse_cpu_target(target_text)
    schedules = {
        "base": Trace.from_json(base_trace).replay(function_to_te(call.op)),
        "new": default_schedule(function_to_te(call.op), target.hardware, constants),
    }
    schedules["again"] = schedules["new"]
    expected = evaluate(fn, {p.name: arrays[p.name] for p in fn.params})
    runners = {}
    for label, schedule in schedules.items():
        kernel, args = kernel_and_arguments(arrays, schedule, call, target)
        kernel(*args)
        check_close(args[-1], expected, rtol=1e-3, atol=1e-3, what=f"{workload['name']} {label}")
        runners[label] = lambda kernel=kernel, args=args: kernel(*args)
    costs = time_in_turn(runners, rounds)
    return {label: workload_flops(workload) / cost / 1e9 for label, cost in costs.items()}


def main() -> int:
    sys.path.insert(0, str(REPO))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--workloads", metavar="FILE", help="a workloads file (default: standard)")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--shape", nargs="*", default=[], help="dense:MxNxK, matmul:MxNxK, ...")
    parser.add_argument("--cores", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    from bench.common import load_workloads
    from codegen.llvm import host_target

    workloads = [
        w for w in load_workloads(args.workloads) if not args.only or w["name"] in args.only
    ]
    workloads += [shape_workload(spec) for spec in args.shape]
    host = str(host_target())
    base = host.split(" -num-cores=")[0]
    jobs = [(w, f"{base} -num-cores={cores}") for w in workloads for cores in args.cores]
    traces = base_traces(args.base, jobs)
    print(f"# base {args.base}, target {base}, rounds {args.rounds}; GFLOPS", file=sys.stderr)
    print(
        f"{'workload':<26}{'cores':>6}{'base':>8}{'new':>8}{'again':>8}{'new/base':>9}{'again/new':>10}"
    )
    for (workload, target), trace in zip(jobs, traces, strict=True):
        gflops = compare(workload, target, trace, args.rounds)
        cores = target.rsplit("=", 1)[1]
        print(
            f"{workload['name']:<26}{cores:>6}{gflops['base']:8.1f}{gflops['new']:8.1f}"
            f"{gflops['again']:8.1f}{gflops['new'] / gflops['base']:9.2f}"
            f"{gflops['again'] / gflops['new']:10.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
