"""Default schedules of the working tree against those of another commit, timed in turn.

    .venv/bin/python bench/defaults_ab.py --base REV [--workloads FILE] [--only NAME ...]
        [--shape dense:MxNxK conv2d:NxCxHxWxKxRxSxSTRIDExPAD ...] [--cores 1 2] [--rounds 15]
    .venv/bin/python bench/defaults_ab.py --base REV --model MODEL.onnx ... [--cores 2]

For each workload (those of `--workloads`, by default the standard ones, narrowed by
`--only`, plus `--shape` products) and each core count, the base commit's
`default_schedule` is run in a temporary `git worktree` of REV (a subprocess importing
that tree) and hands back its trace; this tree replays the trace and builds its own
default. Both kernels are compiled by this tree's code generator, checked against the
reference, and timed in turn with a second copy of this tree's kernel: `new/base` is the
change, `again/new` the noise between two copies of one kernel in the same run (their
arguments sit at other addresses). Figures are GFLOPS.

With `--model`, the jobs are the tuning tasks of real models (ONNX files; their inputs'
shapes must be static): every task whose default differs between the two trees is
timed in turn the same way on seeded random inputs (its constants laid out as each
schedule asks) and its outputs compared; the figures are milliseconds per call, and the
last line of each model sums both sides over its tasks, each weighed by its calls.
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


def _model_tasks(path: str, target_text: str) -> list[Any]:
    """The tuning tasks of the ONNX model at `path` on `target_text` (imports the tree
    that is first on sys.path)."""
    import onnx

    from codegen.llvm import parse_cpu_target
    from ir.frontend.onnx import import_model
    from ir.graph.passes.pipeline import optimize
    from tuner.tasks import extract_tasks

    function = optimize(import_model(onnx.load(path)).function)
    return extract_tasks(function, parse_cpu_target(target_text))


def _model_traces(path: str, target_text: str) -> dict[str, Any]:
    """The default trace of every task of the model at `path`, by task key."""
    from codegen.llvm import parse_cpu_target
    from ir.schedule.default import default_schedule
    from ir.te.program import function_to_te

    hardware = parse_cpu_target(target_text).hardware
    return {
        task.key: default_schedule(
            function_to_te(task.function), hardware, task.constant_params
        ).trace.to_json()
        for task in _model_tasks(path, target_text)
    }


def emit_traces() -> int:
    """In the base tree's subprocess (`_EMITTER`): read [(workload, target)] as JSON on
    stdin (a workload {"model": path} stands for every task of that model), print their
    default traces as a JSON list (a model's as one {task key: trace} object)."""
    jobs = json.load(sys.stdin)
    print(
        json.dumps(
            [
                _model_traces(job["model"], target)
                if "model" in job
                else _default_trace(job, target)
                for job, target in jobs
            ]
        )
    )
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


def compare_model(
    path: str, target_text: str, base: dict[str, Any], rounds: int
) -> list[tuple[Any, float, float]]:
    """(task, base ms, new ms) of every task of the model at `path` whose default differs
    from the base commit's trace (`base`, by task key), timed in turn."""
    import numpy as np

    from bench.common import time_in_turn
    from codegen.llvm import compile_kernel, parse_cpu_target
    from codegen.runtime.aligned import aligned_copy, aligned_empty
    from ir.lower.lower import lower
    from ir.reference import random_inputs
    from ir.schedule import Trace
    from ir.schedule.default import default_schedule
    from ir.te.program import function_to_te

    target = parse_cpu_target(target_text)
    rows = []
    for task in _model_tasks(path, target_text):
        program = function_to_te(task.function)
        new = default_schedule(program, target.hardware, task.constant_params)
        if task.key not in base or new.trace.to_json() == base[task.key]:
            continue
        schedules = {"base": Trace.from_json(base[task.key]).replay(program), "new": new}
        inputs = random_inputs(task.function)
        output_type = task.function.body.checked_type
        runners, outputs = {}, {}
        for label, schedule in schedules.items():
            kernel = compile_kernel(lower(schedule), target)
            args = []
            for param in task.function.params:
                layout = schedule.input_layouts.get(param.name)
                value = inputs[param.name]
                args.append(aligned_copy(layout.apply(value) if layout is not None else value))
            args.append(aligned_empty(tuple(output_type.shape), output_type.dtype))
            kernel(*args)
            outputs[label] = args[-1]
            runners[label] = lambda kernel=kernel, args=args: kernel(*args)
        np.testing.assert_allclose(
            outputs["new"], outputs["base"], rtol=1e-4, atol=1e-4, err_msg=task.name
        )
        costs = time_in_turn(runners, rounds)
        rows.append((task, costs["base"] * 1e3, costs["new"] * 1e3))
    return rows


def _print_model(path: str, cores: str, rows: list[tuple[Any, float, float]]) -> None:
    print(f"{Path(path).name} ({cores} cores): tasks whose default changed, ms per call")
    print(f"{'task':<48}{'calls':>6}{'base':>9}{'new':>9}{'base/new':>9}  inputs")
    for task, base_ms, new_ms in rows:
        shapes = " ".join("x".join(map(str, p.checked_type.shape)) for p in task.function.params)
        print(
            f"{task.name[:47]:<48}{task.weight:>6}{base_ms:9.3f}{new_ms:9.3f}"
            f"{base_ms / new_ms:9.2f}  {shapes[:60]}",
            flush=True,
        )
    base_total = sum(task.weight * base_ms for task, base_ms, _ in rows)
    new_total = sum(task.weight * new_ms for task, _, new_ms in rows)
    if rows:
        print(
            f"{'weighed by calls':<54}{base_total:9.2f}{new_total:9.2f}"
            f"{base_total / new_total:9.2f}"
        )


def main() -> int:
    sys.path.insert(0, str(REPO))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--workloads", metavar="FILE", help="a workloads file (default: standard)")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--shape", nargs="*", default=[], help="dense:MxNxK, matmul:MxNxK, ...")
    parser.add_argument("--cores", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--model", nargs="*", default=[], help="ONNX models: time their tasks")
    args = parser.parse_args()

    from bench.common import load_workloads
    from codegen.llvm import host_target

    host = str(host_target())
    base = host.split(" -num-cores=")[0]
    if args.model:
        model_jobs = [
            ({"model": str(Path(path).resolve())}, f"{base} -num-cores={cores}")
            for path in args.model
            for cores in args.cores
        ]
        print(f"# base {args.base}, target {base}, rounds {args.rounds}", file=sys.stderr)
        for (job, target), by_key in zip(
            model_jobs, base_traces(args.base, model_jobs), strict=True
        ):
            rows = compare_model(job["model"], target, by_key, args.rounds)
            _print_model(job["model"], target.rsplit("=", 1)[1], rows)
        return 0
    workloads = [
        w for w in load_workloads(args.workloads) if not args.only or w["name"] in args.only
    ]
    workloads += [shape_workload(spec) for spec in args.shape]
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
