"""`autotune inspect`, `run` and `tune`: the compiler on this machine, no service."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir.frontend.onnx.bindings import parse_shape_bindings, static_shape_bindings
from service.cli.errors import CliError

if TYPE_CHECKING:
    from codegen.llvm import CpuTarget
    from codegen.profile import ModelProfile

TUNE_BATCH_SIZE = 16  # `autotune tune --batch-size` default (TuneOptions')


def register(commands: Any) -> None:
    """Add `inspect`, `run` and `tune` to the `autotune` sub-parser collection."""
    inspect = commands.add_parser(
        "inspect", help="show a model's graph, its fused functions, shapes and FLOPs"
    )
    inspect.add_argument("model", help="path to an ONNX model")
    inspect.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=DxDxD",
        help="bind an input's shape, e.g. input=1x3x224x224 (repeatable)",
    )
    inspect.add_argument("--json", action="store_true", help="print machine-readable JSON")
    inspect.add_argument(
        "--opt-level", type=int, default=3, choices=range(4), help="optimisation level (0-3)"
    )
    inspect.add_argument("--no-graph", action="store_true", help="omit the optimised graph text")
    inspect.set_defaults(handler=_cmd_inspect)

    run = commands.add_parser("run", help="compile a model and run it on .npy inputs")
    run.add_argument("model", help="path to an ONNX model")
    run.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an input array (repeatable)",
    )
    run.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=DxDxD",
        help="bind a symbolic input shape (repeatable)",
    )
    run.add_argument("--output", metavar="OUT.npz", help="save the outputs")
    run.add_argument("--bench", type=int, metavar="N", help="time N runs, print the median")
    run.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=20,
        metavar="N",
        help=(
            "time each kernel over N runs (default 20): its share of the inference, GFLOPS, "
            "GB/s and how far it is from this host's measured rooflines, biggest first"
        ),
    )
    run.add_argument(
        "--records",
        metavar="RUN.jsonl",
        help="use the best tuned schedule of each task from these records",
    )
    run.add_argument(
        "--target",
        metavar="TARGET",
        help=(
            "llvm (this CPU, the default) or cuda -arch=sm_XX (a local GPU through pycuda; "
            "plain cuda: the GPU's own architecture)"
        ),
    )
    run.add_argument("--json", action="store_true", help="print machine-readable JSON")
    run.set_defaults(handler=_cmd_run)

    tune = commands.add_parser("tune", help="tune a model offline, appending to a record log")
    tune.add_argument("model", help="path to an ONNX model")
    tune.add_argument("--target", default="llvm", help="target (llvm = this host's CPU)")
    tune.add_argument("--trials", type=int, required=True, help="total measurement budget")
    tune.add_argument(
        "--records",
        required=True,
        metavar="RUN.jsonl",
        help="record log to resume from and append to",
    )
    tune.add_argument("--time-limit", type=float, metavar="S", help="wall-clock limit")
    tune.add_argument(
        "--search",
        default="evolutionary",
        choices=("evolutionary", "random"),
        help="evolutionary (guided by the cost model, the default) or random",
    )
    tune.add_argument(
        "--batch-size",
        type=int,
        default=TUNE_BATCH_SIZE,
        metavar="N",
        help="candidates measured per batch of a task (default %(default)s); a smaller "
        "batch spreads a small budget over more tasks",
    )
    tune.add_argument(
        "--flush-cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="time every run on cold caches (its arguments evicted, as inside a network) "
        "or, with --no-flush-cache, call after call on warm ones; default: cold on a CPU. "
        "Each kind of record is compared only with its own",
    )
    tune.add_argument(
        "--in-model",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="end by timing the tuned kernels inside the compiled model beside their "
        "defaults, keeping whichever runs faster there (default: on; CPU targets)",
    )
    tune.add_argument(
        "--feature-workers",
        type=int,
        metavar="N",
        help="processes that compute candidate features beside the tuner (default: one "
        "per other core; 0: none, every core left to measurement)",
    )
    tune.add_argument(
        "--cost-model",
        metavar="MODEL.npz",
        help="start the cost model from this file when it exists, and save it there "
        "retrained (a model tuned after others of its family needs fewer trials)",
    )
    tune.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=DxDxD",
        help="bind a symbolic input shape (repeatable)",
    )
    tune.add_argument(
        "--size-histogram",
        action="append",
        default=[],
        metavar="NAME=SIZE:COUNT,...",
        help="how often each size of a size variable occurs (repeatable; e.g. "
        "sequence=16:70,128:25,384:5): shares the budget between a kernel's whole range "
        "and its small sizes (default: every size of the range alike)",
    )
    tune.add_argument("--json", action="store_true", help="print the summary as JSON")
    tune.set_defaults(handler=_cmd_tune)


def _cmd_inspect(args: argparse.Namespace) -> int:
    from ir.graph.inspect import inspect_model, render_inspection

    report = inspect_model(
        Path(args.model), parse_shape_bindings(args.shape), opt_level=args.opt_level
    )
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(render_inspection(report, show_graph=not args.no_graph))
    return 0


def _runnable_cpu_target(text: str) -> CpuTarget:
    """The CPU target `run` compiles for: this CPU, as `text` names it (its core count
    and features turned off with -mattr=-x may differ); a CliError for another CPU or a
    feature this one may lack, whose code could not run here."""
    from codegen.errors import TargetError
    from codegen.llvm import host_target, parse_cpu_target

    try:
        cpu = parse_cpu_target(text)
    except TargetError as err:
        raise CliError(f"--target {text!r}: {err}") from None
    host = host_target()
    if (cpu.mcpu, cpu.triple) != (host.mcpu, host.triple) or any(
        flag.startswith("+") for flag in cpu.mattr
    ):
        raise CliError(
            f"--target {text!r}: run executes the model here, on {host.mcpu}; compile for "
            "another CPU (or with features added) with `autotune compile --target` and run "
            "the artifact where it belongs"
        )
    return cpu


def _cmd_run(args: argparse.Namespace) -> int:
    import time

    from codegen.errors import TargetError
    from codegen.target import target_kind
    from tuner.records import records_chooser
    from tuner.run_model import (
        is_artifact,
        parse_input_files,
        prepare_model,
        records_report,
        run_artifact,
        run_model,
        save_outputs,
    )

    inputs = parse_input_files(args.input)
    profile: ModelProfile | None = None
    path = Path(args.model)
    if not path.is_file():
        raise CliError(f"no such file: {path}")
    target = args.target or "llvm"
    try:
        on_gpu = target_kind(target) == "cuda"
    except TargetError as err:
        raise CliError(f"--target {target!r}: {err}") from None
    if args.profile is not None and (is_artifact(path) or on_gpu):
        raise CliError(
            "--profile times the kernels of an ONNX model compiled here for this CPU; "
            "an artifact or a GPU run cannot be profiled kernel by kernel"
        )
    if is_artifact(path):
        if args.records or args.shape or args.target:
            raise CliError(
                "--records, --shape and --target apply to ONNX models; an artifact is compiled"
            )
        result = run_artifact(path, inputs, args.bench or 0)
    elif on_gpu:
        from codegen.cuda.target import resolve_cuda_target
        from tuner.run_model import run_model_on_gpu

        try:
            gpu = resolve_cuda_target(target)  # plain `cuda`: the local GPU's architecture
        except TargetError as err:
            raise CliError(f"--target {target!r}: {err}") from None
        records_path = Path(args.records) if args.records else None
        result = run_model_on_gpu(
            path,
            gpu,
            static_shape_bindings(parse_shape_bindings(args.shape), "a CUDA run"),
            inputs,
            records_path,
            args.bench or 0,
        )
    else:
        records = None
        cpu = _runnable_cpu_target(target)
        target_text = str(cpu)
        if args.records:
            from tuner.records import load_records

            records_file = Path(args.records)
            if not records_file.is_file():
                raise CliError(f"--records {records_file}: no such file")
            records = load_records(records_file)
        start = time.perf_counter()
        model = prepare_model(
            path,
            parse_shape_bindings(args.shape),
            inputs,
            chooser=records_chooser(records, target_text) if records is not None else None,
            target=cpu,
        )
        compile_s = time.perf_counter() - start
        result = run_model(model, inputs, args.bench or 0, compile_s)
        if args.profile is not None:
            from codegen.profile import profile_model

            try:
                profile = profile_model(model, inputs, args.profile)
            except ValueError as err:
                raise CliError(str(err)) from None
        if records is not None:
            result = replace(result, tuned_kernels=sum(task.hit for task in model.coverage))
            for line in records_report(Path(args.records), records, target_text, model.coverage):
                print(line, file=sys.stderr)
    if args.output:
        save_outputs(Path(args.output), result.outputs)
    if args.json:
        data = result.to_json()
        if profile is not None:
            data["profile"] = profile.to_json()
        print(json.dumps(data, indent=2))
        return 0
    for index, output in enumerate(result.outputs):
        shape = "x".join(str(d) for d in output.shape) or "scalar"
        print(f"output {index}: {shape} {output.dtype.name}")
    if result.load_s is not None:
        print(f"loaded the artifact ({result.kernels} kernels) in {result.load_s * 1e3:.1f} ms")
    else:
        print(f"compiled {result.kernels} kernels in {result.compile_s:.1f} s")
    if result.median_latency_s is not None:
        print(f"median latency over {args.bench} runs: {result.median_latency_s * 1e3:.2f} ms")
    if profile is not None:
        print("\n".join(profile.table()))
    return 0


def _cmd_tune(args: argparse.Namespace) -> int:
    from service.cli.tune_command import parse_tune_target, run_tune, tune_options_from_flags
    from tuner.size_histogram import parse_size_histogram

    target = parse_tune_target(args.target or "llvm")
    options = tune_options_from_flags(
        target,
        trials=args.trials,
        time_limit_s=args.time_limit,
        search=args.search,
        batch_size=args.batch_size,
        flush_cache=args.flush_cache,
        feature_workers=args.feature_workers,
        in_model=args.in_model,
        cost_model_path=args.cost_model,
        size_histogram=parse_size_histogram(args.size_histogram),
    )
    return run_tune(
        Path(args.model),
        parse_shape_bindings(args.shape),
        target,
        options,
        Path(args.records),
        as_json=args.json,
    )
