"""The GPU check: one command that runs every GPU check on a GPU host with no package index.

Run on the GPU host from the repository's root, with the bundle (`make gpu-bundle`,
`bench/gpu_host/bundle.py`) in `.gpu-bundle/`:

    python3 bench/gpu_host/check.py [--quick] [--only STAGE ...] [--deadline-s 555]

It runs these stages in order, each in its own processes under its own time budget and
all of them under one deadline, so that a stage that fails or overruns costs its own
results only:

  setup     the host's facts (GPU, driver, nvcc, Python); the bundle installed into a
            private site folder without an index (a fallback wheel only where the host's
            own version does not satisfy); pycuda from the prebuilt wheel, else built from
            the sdist against the host's CUDA; every requirement verified
  tests     the GPU tests (`GPU_TESTS`: every CUDA test, every test marked `gpu`, among
            them every op's default GPU schedule run on the GPU against the reference)
  models    the nine light models, a ResNet-18 and a MobileNetV2 export (torchvision,
            random weights) through `autotune run --target cuda` against ONNX Runtime
  resnet50  light_resnet50 tuned with `autotune tune --target cuda --time-limit`, its
            latency untuned and tuned beside PyTorch eager running the same graph
  tune      matmul_1024 and conv_64x56 tuned through a real service (SQLite) and a real
            `autotune worker --device cuda:0`; the best kernels re-timed beside PyTorch
  kernels   bench/gpu_check.py: the 13 standard workloads' default GPU schedules and
            schedules sampled from the GPU space, checked and timed beside PyTorch

Everything comes back under $OUT (default build/gpu-check), rewritten after every stage:
`gpu_host_check.txt` (the summary with every figure), `gpu_host_check.json`, `logs.tar.gz`
(every stage's log and JSON) and `records.jsonl` (the tuning records). `--quick` runs a
smaller version of each stage, for a rerun. `--dry-run` prints the plan and runs nothing.

This file needs nothing but the Python standard library: it runs before anything is
installed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROBES = Path(__file__).resolve().parent / "probes.py"

# The GPU tests: every CUDA test, and every test marked `gpu` (tests/support/gpu.py).
GPU_TESTS = (
    "tests/codegen/cuda",
    "tests/codegen/aot/test_cuda_artifact.py",
    "tests/workers/test_device.py",
    "tests/service/test_cli_cuda.py",
    "tests/tuner/space/test_gpu_space.py",
    "tests/ir/schedule",
)

# Python packages whose versions the summary reports.
REPORTED_PACKAGES = (
    "numpy",
    "onnx",
    "onnxruntime",
    "llvmlite",
    "torch",
    "torchvision",
    "pycuda",
    "xgboost-cpu",
    "fastapi",
    "sqlalchemy",
    "pytest",
)


@dataclass
class Context:
    """Where a run keeps its files and what it runs with."""

    out: Path
    work: Path
    bundle: Path
    python: str
    quick: bool
    deadline: float
    site: Path = field(init=False)
    logs: Path = field(init=False)

    def __post_init__(self) -> None:
        self.site = self.work / "site"
        self.logs = self.work / "logs"

    def env(self) -> dict[str, str]:
        """The environment every stage's command runs in: the bundle's site folder and this
        checkout on PYTHONPATH, the site's `autotune` first on PATH."""
        env = dict(os.environ)
        paths = [str(self.site), str(ROOT), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
        env["PATH"] = os.pathsep.join([str(self.site / "bin"), env.get("PATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        env.setdefault("AUTOTUNE_NVCC_CACHE", str(self.work / "nvcc-cache"))
        return env

    def left_s(self) -> float:
        """Seconds left before the deadline."""
        return self.deadline - time.monotonic()


@dataclass
class StageResult:
    """What one stage did: `ok`, `failed` (a command failed), `timeout`, or `skipped`."""

    name: str
    status: str
    seconds: float = 0.0
    detail: str = ""
    figures: dict[str, Any] = field(default_factory=dict)


class StageFailed(Exception):
    """A stage's command failed or ran out of time; the message says which and why.
    `figures` keeps what the stage found before; `fatal` (setup only) skips the rest."""

    def __init__(
        self,
        message: str,
        status: str = "failed",
        figures: dict[str, Any] | None = None,
        fatal: bool = True,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.figures = figures or {}
        self.fatal = fatal


def run_logged(
    ctx: Context,
    stage: str,
    argv: Sequence[str],
    timeout_s: float,
    check: bool = True,
    cwd: Path = ROOT,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` in the stage environment, appending its output to the stage's log; a
    StageFailed when it fails (with `check`) or outlasts `timeout_s` (at most what is
    left before the deadline)."""
    timeout_s = min(timeout_s, ctx.left_s())
    if timeout_s <= 1:
        raise StageFailed(f"no time left for {' '.join(argv[:3])}", "timeout")
    log = ctx.logs / f"{stage}.log"
    with log.open("a") as handle:
        handle.write(f"\n$ {' '.join(argv)}   (timeout {timeout_s:.0f} s)\n")
        handle.flush()
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=ctx.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            output, _ = process.communicate()
            handle.write(output or "")
            message = f"{' '.join(argv[:4])} ran past {timeout_s:.0f} s"
            raise StageFailed(message, "timeout") from None
        handle.write(output or "")
    done = subprocess.CompletedProcess(list(argv), process.returncode, output or "", "")
    if check and done.returncode != 0:
        tail = " | ".join((output or "").strip().splitlines()[-3:])
        raise StageFailed(f"{' '.join(argv[:4])} exited {done.returncode}: {tail[-600:]}")
    return done


def _kill_group(process: subprocess.Popen[str]) -> None:
    """Kill a stage command and every process it started (servers, workers, children)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, 9)


def read_json(path: Path) -> Any:
    """The JSON at `path`, or None when it is missing or cut short."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


# Step 1. setup -----------------------------------------------------------------------


def host_facts(ctx: Context) -> dict[str, Any]:
    """What the host is: GPU, driver, CUDA compiler, Python, cores."""

    def output(argv: list[str]) -> str:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"({argv[0]}: {err})"
        return (done.stdout or done.stderr).strip()

    query = "name,driver_version,memory.total,clocks.max.sm,compute_cap"
    return {
        "gpu": output(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"]),
        "nvcc": output(["nvcc", "--version"]).splitlines()[-1:],
        "python": output([ctx.python, "-c", "import sys; print(sys.version.split()[0])"]),
        "uname": output(["uname", "-srm"]),
        "cores": os.cpu_count(),
        "commit": output(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
        "dirty": bool(output(["git", "-C", str(ROOT), "status", "--porcelain", "-uno"])),
    }


def _pip_install(ctx: Context, files: list[Path], timeout_s: float, build: bool = False) -> None:
    argv = [
        ctx.python,
        "-m",
        "pip",
        "install",
        "--no-index",
        "--no-deps",
        "--no-compile",
        "--disable-pip-version-check",
        "--upgrade",
        "--target",
        str(ctx.site),
    ]
    if build:
        argv.append("--no-build-isolation")
    run_logged(ctx, "setup", [*argv, *map(str, files)], timeout_s)


def _probe_pycuda(ctx: Context) -> tuple[dict[str, Any] | None, str]:
    done = run_logged(ctx, "setup", [ctx.python, str(PROBES), "pycuda"], 60, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1]), ""
    return None, " | ".join(lines[-2:])


def _libcuda_folder(work: Path) -> Path:
    """A folder holding `libcuda.so` to link pycuda against: the driver's own library (only
    `libcuda.so.1` is there on most hosts), found through ldconfig, LD_LIBRARY_PATH or the
    usual driver folders."""
    found: list[Path] = []
    try:
        listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False)
        found += [
            Path(line.split("=>")[1].strip())
            for line in listing.stdout.splitlines()
            if "libcuda.so" in line and "=>" in line
        ]
    except OSError:
        pass
    folders = [
        *os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep),
        "/usr/local/nvidia/lib64",
        "/usr/local/nvidia/lib",
        "/usr/lib/x86_64-linux-gnu",
    ]
    found += [
        Path(f) / "libcuda.so.1" for f in folders if f and (Path(f) / "libcuda.so.1").exists()
    ]
    if not found:
        raise StageFailed("no libcuda.so.1 found (ldconfig, LD_LIBRARY_PATH, /usr/local/nvidia)")
    folder = work / "libcuda"
    folder.mkdir(exist_ok=True)
    link = folder / "libcuda.so"
    if not link.exists():
        link.symlink_to(found[0])
    return folder


def cuda_root() -> Path | None:
    """The CUDA toolkit that holds `cuda.h`: $CUDA_HOME or $CUDA_PATH, beside the nvcc on
    PATH, or /usr/local/cuda."""
    candidates = [
        Path(os.environ[name]) for name in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(name)
    ]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(nvcc).resolve().parent.parent)
    candidates.append(Path("/usr/local/cuda"))
    return next((root for root in candidates if (root / "include" / "cuda.h").is_file()), None)


def build_pycuda(ctx: Context, sdist: Path) -> None:
    """Build pycuda from the sdist with the host's compilers, CUDA headers and driver, and
    install it into the site folder (no index, no build isolation)."""
    root = cuda_root()
    if root is None:
        raise StageFailed("cannot build pycuda: no CUDA headers (cuda.h) found")
    source_root = ctx.work / "pycuda-src"
    shutil.rmtree(source_root, ignore_errors=True)
    with tarfile.open(sdist) as archive:
        archive.extractall(source_root, filter="data")
    (source,) = [p for p in source_root.iterdir() if p.is_dir()]
    libcuda = _libcuda_folder(ctx.work)
    run_logged(
        ctx,
        "setup",
        [
            ctx.python,
            "configure.py",
            f"--cuda-root={root}",
            "--no-cuda-enable-curand",
            f"--cudadrv-lib-dir={libcuda}",
        ],
        60,
        cwd=source,
    )
    _pip_install(ctx, [source], 420, build=True)


def stage_setup(ctx: Context) -> dict[str, Any]:
    """Step 1: host facts, the bundle installed, pycuda working, requirements verified."""
    figures: dict[str, Any] = {"host": host_facts(ctx)}
    manifest_path = ctx.bundle / "MANIFEST.json"
    manifest = read_json(manifest_path)
    if manifest is None:
        raise StageFailed(f"no bundle at {ctx.bundle}: run `make gpu-bundle` on a CPU machine")
    figures["bundle"] = {"commit": manifest["commit"], "notes": manifest["notes"]}
    probe = run_logged(
        ctx, "setup", [ctx.python, str(PROBES), "fallbacks-needed", str(manifest_path)], 60
    )
    fallbacks = set(json.loads(probe.stdout.strip().splitlines()[-1]))
    wheels = [
        ctx.bundle / item["filename"]
        for item in manifest["files"]
        if item["filename"].endswith(".whl")
        and item["name"] != "pycuda"
        and (not item.get("fallback") or item["filename"] in fallbacks)
    ]
    figures["installed_wheels"] = sorted(path.name for path in wheels)
    _pip_install(ctx, wheels, 180)
    pycuda_wheels = sorted(ctx.bundle.glob("pycuda-*.whl"))
    pycuda, error = None, "no prebuilt pycuda wheel in the bundle"
    if pycuda_wheels:
        _pip_install(ctx, pycuda_wheels[-1:], 60)
        pycuda, error = _probe_pycuda(ctx)
        figures["pycuda_from"] = "prebuilt wheel"
    if not pycuda_wheels or (pycuda is None and "import" in error.lower()):
        figures["pycuda_wheel_error"] = error
        for stale in ctx.site.glob("pycuda*"):
            shutil.rmtree(stale, ignore_errors=True)
        started = time.monotonic()
        try:
            build_pycuda(ctx, next(ctx.bundle.glob("pycuda-*.tar.gz")))
        except StageFailed as err:
            raise StageFailed(f"pycuda: {err}", err.status, figures, fatal=False) from None
        figures["pycuda_from"] = f"sdist, built here in {time.monotonic() - started:.0f} s"
        pycuda, error = _probe_pycuda(ctx)
    figures["pycuda"] = pycuda or {"error": error}
    _write_console_script(ctx)
    verify = run_logged(
        ctx,
        "setup",
        [ctx.python, str(PROBES), "verify", str(manifest_path), *REPORTED_PACKAGES],
        60,
    )
    figures.update(json.loads(verify.stdout.strip().splitlines()[-1]))
    if pycuda is None:  # the later stages still run: their CPU parts and errors tell
        raise StageFailed(f"pycuda does not start: {error}", figures=figures, fatal=False)
    return figures


def _write_console_script(ctx: Context) -> None:
    """`autotune` in the site's bin folder: the console script a pip install would make."""
    script = ctx.site / "bin" / "autotune"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(
        f'#!/bin/sh\nexec "{ctx.python}" -c '
        '"import sys; from service.cli import main; sys.exit(main())" "$@"\n'
    )
    script.chmod(0o755)


# Step 2. the tests, then the scripts of the other stages -------------------------------


def stage_tests(ctx: Context) -> dict[str, Any]:
    """Step 2: the GPU tests, side by side on the host's cores."""
    junit = ctx.logs / "tests.xml"
    workers = str(max(1, min(12, (os.cpu_count() or 2) - 2)))
    selected = (
        [
            "tests/codegen/cuda/test_cuda_ops.py",
            "tests/codegen/cuda/test_runtime.py",
            "tests/workers/test_device.py",
        ]
        if ctx.quick
        else list(GPU_TESTS)
    )
    done = run_logged(
        ctx,
        "tests",
        [
            ctx.python,
            "-m",
            "pytest",
            "-q",
            "-n",
            workers,
            "-p",
            "no:cacheprovider",
            "-p",
            "no:benchmark",
            f"--junitxml={junit}",
            *selected,
        ],
        300 if not ctx.quick else 150,
        check=False,
    )
    figures = junit_counts(junit)
    figures["summary"] = done.stdout.strip().splitlines()[-1:] if done.stdout else []
    if done.returncode != 0:
        raise StageFailed(f"pytest exited {done.returncode}: {figures['summary']}")
    return figures


def junit_counts(path: Path) -> dict[str, Any]:
    """Counts of a JUnit XML report (and of the tests skipped for want of a GPU), and the
    failing tests' ids."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return {"report": "missing"}
    counts = {"passed": 0, "failed": 0, "skipped": 0, "skipped_for_want_of_a_gpu": 0}
    failing: list[str] = []
    for case in root.iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
            failing.append(test_id)
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
            message = case.find("skipped")
            if message is not None and "GPU" in (message.get("message") or ""):
                counts["skipped_for_want_of_a_gpu"] += 1
        else:
            counts["passed"] += 1
    return {**counts, "failing": failing[:40]}


@dataclass(frozen=True)
class ScriptRun:
    """A stage that is one bench script, which writes its figures to `--json FILE`: its
    arguments and time limit, in full and with --quick."""

    script: str
    full_args: tuple[str, ...]
    quick_args: tuple[str, ...]
    timeout_s: float
    quick_timeout_s: float

    def argv(self, ctx: Context, result: Path) -> list[str]:
        """The command line of this run in `ctx`, writing its figures to `result`."""
        args = self.quick_args if ctx.quick else self.full_args
        return [ctx.python, self.script, *args, "--json", str(result)]

    def __call__(self, ctx: Context, stage: str) -> dict[str, Any]:
        """Run the script under the stage's log; the figures it wrote, even when it failed."""
        result = ctx.logs / f"{stage}.json"
        try:
            timeout_s = self.quick_timeout_s if ctx.quick else self.timeout_s
            run_logged(ctx, stage, self.argv(ctx, result), timeout_s)
        except StageFailed as err:
            figures = read_json(result)
            err.figures = figures if isinstance(figures, dict) else {}
            raise
        figures = read_json(result)
        return figures if isinstance(figures, dict) else {}


@dataclass(frozen=True)
class Stage:
    """One stage: its name, what it checks, and how (a function of the context, or a
    bench script)."""

    name: str
    what: str
    run: Callable[[Context], dict[str, Any]] | ScriptRun
    min_s: float  # not started with less than this left before the deadline

    def __call__(self, ctx: Context) -> dict[str, Any]:
        """Run the stage; its figures (StageFailed when it failed)."""
        if isinstance(self.run, ScriptRun):
            return self.run(ctx, self.name)
        return self.run(ctx)


STAGES = (
    Stage("setup", "the host's facts, the bundle installed, pycuda working", stage_setup, 20),
    Stage("tests", "the GPU tests (GPU_TESTS), side by side", stage_tests, 40),
    Stage(
        "models",
        "9 light models, ResNet-18, MobileNetV2 via `autotune run --target cuda` vs ORT",
        ScriptRun(
            "bench/gpu_cli_models.py",
            ("--runs", "10", "--export", "resnet18", "mobilenet_v2"),
            ("--runs", "5", "--only", "light_squeezenet", "--export", "resnet18"),
            timeout_s=165,
            quick_timeout_s=60,
        ),
        min_s=30,
    ),
    Stage(
        "resnet50",
        "light_resnet50 untuned, tuned (`autotune tune --time-limit`), PyTorch eager",
        ScriptRun(
            "bench/gpu_cli_models.py",
            (
                "--only",
                "light_resnet50",
                "--tune-time-limit-s",
                "60",
                "--runs",
                "20",
                "--torch-eager",
            ),
            (
                "--only",
                "light_resnet50",
                "--tune-time-limit-s",
                "25",
                "--runs",
                "5",
                "--torch-eager",
            ),
            timeout_s=130,
            quick_timeout_s=75,
        ),
        min_s=45,
    ),
    Stage(
        "tune",
        "matmul_1024, conv_64x56 tuned via the service and a GPU worker, vs PyTorch",
        ScriptRun(
            "bench/gpu_service_tune.py",
            ("--trials", "256", "--time-limit-s", "45"),
            ("--trials", "32", "--time-limit-s", "20"),
            timeout_s=200,
            quick_timeout_s=80,
        ),
        min_s=45,
    ),
    Stage(
        "kernels",
        "bench/gpu_check.py: 13 workloads' defaults and samples vs PyTorch",
        ScriptRun(
            "bench/gpu_check.py",
            ("--samples", "2", "--tune"),
            ("--samples", "0", "--tune"),
            timeout_s=100,
            quick_timeout_s=60,
        ),
        min_s=30,
    ),
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)


# The summary ------------------------------------------------------------------------


def write_outputs(ctx: Context, results: list[StageResult], started: float) -> None:
    """Rewrite the summary, the JSON and the logs archive under $OUT, and copy the
    tuning records there."""
    elapsed_s = round(time.monotonic() - started, 1)
    data = {
        "elapsed_s": elapsed_s,
        "quick": ctx.quick,
        "stages": [asdict(result) for result in results],
    }
    (ctx.out / "gpu_host_check.json").write_text(json.dumps(data, indent=1, default=str) + "\n")
    (ctx.out / "gpu_host_check.txt").write_text(summary_text(results, elapsed_s))
    with tarfile.open(ctx.out / "logs.tar.gz", "w:gz") as archive:
        archive.add(ctx.logs, arcname="logs")
    records = ctx.logs / "records.jsonl"
    if records.is_file():
        shutil.copy(records, ctx.out / "records.jsonl")


def summary_text(results: list[StageResult], elapsed_s: float) -> str:
    """The human summary: one line per stage, then each stage's figures."""
    lines = [f"autotune GPU check, {elapsed_s:.0f} s in all", ""]
    for result in results:
        lines.append(
            f"{result.name:<9} {result.status:<8} {result.seconds:6.0f} s  {result.detail}"
        )
    for result in results:
        if result.figures:
            lines += ["", f"== {result.name}", json.dumps(result.figures, indent=1, default=str)]
    return "\n".join(lines) + "\n"


def run_stages(ctx: Context, names: Sequence[str]) -> list[StageResult]:
    """Run the named stages in order under the deadline; write the outputs after each."""
    started = time.monotonic()
    results: list[StageResult] = []
    setup_failed = False
    for stage in STAGES:
        if stage.name not in names:
            continue
        if setup_failed:
            results.append(StageResult(stage.name, "skipped", detail="setup failed"))
            continue
        if ctx.left_s() < stage.min_s:
            detail = f"{ctx.left_s():.0f} s left before the deadline, {stage.min_s:.0f} needed"
            results.append(StageResult(stage.name, "skipped", detail=detail))
            continue
        print(f"[{time.monotonic() - started:5.0f} s] {stage.name} ...", flush=True)
        begun = time.monotonic()
        result = StageResult(stage.name, "ok")
        try:
            result.figures = stage(ctx)
            fatal = False
        except StageFailed as err:
            result.status, result.detail = err.status, str(err)
            result.figures, fatal = err.figures, err.fatal
        except Exception as err:  # a bug of this script must not cost the other stages
            result.status, result.detail = "failed", f"{type(err).__name__}: {err}"
            fatal = True
        result.seconds = time.monotonic() - begun
        setup_failed = stage.name == "setup" and fatal
        results.append(result)
        print(f"         {result.status} in {result.seconds:.0f} s {result.detail}", flush=True)
        write_outputs(ctx, results, started)
    write_outputs(ctx, results, started)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring); exit 0 when every stage that ran was ok."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run of each stage")
    parser.add_argument("--only", nargs="+", choices=STAGE_NAMES, help="these stages only")
    parser.add_argument("--skip", nargs="+", choices=STAGE_NAMES, default=[], help="not these")
    parser.add_argument("--deadline-s", type=float, default=555.0, help="for all stages")
    parser.add_argument("--bundle", type=Path, default=ROOT / ".gpu-bundle")
    parser.add_argument("--out", type=Path, help="results folder (default: $OUT)")
    parser.add_argument("--python", default=sys.executable, help="the host's Python")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")
    args = parser.parse_args(argv)
    names = [name for name in (args.only or STAGE_NAMES) if name not in args.skip]
    if "setup" not in names:
        names.insert(0, "setup")  # every stage runs in the environment setup makes
    if args.dry_run:
        for stage in STAGES:
            if stage.name in names:
                print(f"{stage.name:<9} {stage.what}")
        return 0
    out = args.out or Path(os.environ.get("OUT") or ROOT / "build" / "gpu-check")
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="autotune-gpu-check-"))
    ctx = Context(
        out,
        work,
        args.bundle.resolve(),
        args.python,
        args.quick,
        time.monotonic() + args.deadline_s,
    )
    ctx.logs.mkdir(parents=True)
    results = run_stages(ctx, names)
    print((out / "gpu_host_check.txt").read_text())
    return 0 if all(result.status == "ok" for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
