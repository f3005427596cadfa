"""ONNX's own backend node tests through autotune and through onnxruntime, side by side.

The cases come from the installed onnx package (`onnx.backend.test.case.node`: every op's
`expect` examples, the same data the wheel once shipped as `.pb` files). Each case runs in a
child process, so that a case which kills the process (a segmentation fault in a kernel) is
reported as `crash` and the run goes on. Per engine and case, the outcome is one of:

- `pass`: every output has the expected dtype and shape and is close to the expected values
  (the case's own rtol/atol, as ONNX's backend runner compares them);
- `wrong`: it ran, and an output differs;
- `unsupported`: the engine refused the model as unsupported (an op, an attribute value, an
  element type, a shape operand computed at run time);
- `error`: any other exception;
- `crash`: the child process died running the case;
- `timeout`: it ran past the time limit.

    python bench/onnx_conformance.py                     # both engines, a table and totals
    python bench/onnx_conformance.py --engine autotune -k "^test_cast" --details
    python bench/onnx_conformance.py --output bench/results/onnx_conformance_znver3.txt \\
        --write-floor                                    # also ratchet the committed floor

The committed floor (`bench/onnx_conformance_floor.json`) is autotune's pass count that the
CI test (`tests/bench/test_onnx_conformance.py`) holds the project to: it only goes up.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import selectors
import subprocess
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
FLOOR_PATH = HERE / "onnx_conformance_floor.json"
ENGINES = ("autotune", "onnxruntime")
OUTCOMES = ("pass", "wrong", "unsupported", "error", "crash", "timeout")
DEFAULT_TIMEOUT_S = 120.0
TARGET_VARIABLE = "AUTOTUNE_CONFORMANCE_TARGET"  # how --target reaches the children
SPECIALISED = "specialised to the values of inputs "  # the detail of such a pass


@dataclass(frozen=True)
class CaseResult:
    """One engine's outcome on one case, with a one-line reason when it did not pass."""

    name: str
    engine: str
    outcome: str
    detail: str = ""
    seconds: float = 0.0


# -- the cases -----------------------------------------------------------------------------


def collect_cases() -> dict[str, Any]:
    """Every node test case of the installed onnx package, by name (`onnx.backend.test.case
    .node.TestCase`: a model and its data sets of inputs and expected outputs)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases(None)
    return {case.name: case for case in sorted(cases, key=lambda case: case.name)}


def mismatch(expected: Sequence[Any], actual: Sequence[Any], rtol: float, atol: float) -> str:
    """Why `actual` outputs are not `expected` ("" when they match): ONNX's backend runner's
    comparison (same count, dtype and shape; values within rtol/atol; NaNs equal)."""
    expected = [as_value(value) for value in expected]
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for position, (want, got) in enumerate(zip(expected, actual, strict=True)):
        want_array, got_array = np.asarray(want), np.asarray(got)
        where = f"output {position}"
        if got_array.dtype != want_array.dtype:
            return f"{where}: dtype {got_array.dtype}, expected {want_array.dtype}"
        if got_array.shape != want_array.shape:
            return f"{where}: shape {got_array.shape}, expected {want_array.shape}"
        if want_array.dtype == object or want_array.dtype.kind in "SU":
            if not np.array_equal(want_array, got_array):
                return f"{where}: values differ"
            continue
        output_rtol = rtol
        if want_array.dtype.name == "bfloat16":  # as ONNX's runner: two bfloat16 ulps
            output_rtol = max(rtol, 2**-6)
            got_array, want_array = got_array.astype(np.float32), want_array.astype(np.float32)
        with np.errstate(all="ignore"):
            close = np.isclose(got_array, want_array, output_rtol, atol, equal_nan=True)
        if not bool(np.all(close)):
            bad = int(np.size(close) - np.count_nonzero(close))
            index = np.unravel_index(int(np.argmin(close)), close.shape) if close.ndim else ()
            return (
                f"{where}: {bad} of {close.size} values differ, e.g. at {tuple(map(int, index))}"
                f" {got_array[index]!r} vs {want_array[index]!r}"
            )
    return ""


def as_value(value: Any) -> Any:
    """A data-set value as numpy: TensorProtos (the element types numpy lacks, such as
    float8 and int4, which onnx keeps as protos) become arrays of ml_dtypes' types."""
    import onnx

    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        return np.asarray(value)  # a 0-d tensor, which some cases give as a numpy scalar
    return value


def _input_names(case: Any) -> list[str]:
    initializers = {tensor.name for tensor in case.model.graph.initializer}
    return [value.name for value in case.model.graph.input if value.name not in initializers]


def _plain_inputs(case: Any, inputs: Sequence[Any]) -> dict[str, np.ndarray]:
    """The data set's inputs by graph input name; UnsupportedInput for sequence or optional
    values, which are not tensors."""
    names = _input_names(case)
    inputs = [as_value(value) for value in inputs]
    if len(names) != len(inputs):
        raise UnsupportedInput(f"{len(inputs)} input values for {len(names)} graph inputs")
    for name, value in zip(names, inputs, strict=True):
        if not isinstance(value, np.ndarray):
            raise UnsupportedInput(f"input {name!r} is a {type(value).__name__}, not a tensor")
    return dict(zip(names, inputs, strict=True))


class UnsupportedInput(Exception):
    """A case feeds a value that is not a tensor (a sequence, an optional)."""


# -- the engines ---------------------------------------------------------------------------


def run_autotune(case: Any) -> CaseResult:
    """Import, optimise, compile (default schedules, for this host or the CPU target in
    $AUTOTUNE_CONFORMANCE_TARGET) and run every data set of `case` with autotune."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target, parse_cpu_target
    from codegen.prepare import prepare_for_inputs
    from ir.errors import UnsupportedOpError

    text = os.environ.get(TARGET_VARIABLE)
    specialised: set[str] = set()
    try:
        target = parse_cpu_target(text) if text else host_target()
        for inputs, expected in case.data_sets:
            feeds = _plain_inputs(case, inputs)
            prepared = prepare_for_inputs(case.model, target, feeds)
            specialised.update(prepared.values)
            compiled = compile_model(prepared.function, target, bound_values=prepared.values)
            outputs = compiled.run(feeds)
            actual = list(outputs) if isinstance(outputs, tuple) else [outputs]
            reason = mismatch(expected, actual, case.rtol, case.atol)
            if reason:
                return CaseResult(case.name, "autotune", "wrong", reason)
    except (UnsupportedOpError, UnsupportedInput) as err:
        return CaseResult(case.name, "autotune", "unsupported", _one_line(err))
    except Exception as err:
        return CaseResult(case.name, "autotune", "error", f"{type(err).__name__}: {err}")
    if specialised:
        return CaseResult(case.name, "autotune", "pass", SPECIALISED + str(sorted(specialised)))
    return CaseResult(case.name, "autotune", "pass")


def run_onnxruntime(case: Any) -> CaseResult:
    """Run every data set of `case` with onnxruntime's CPU provider, two threads."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 4
    try:
        session = onnxruntime.InferenceSession(
            case.model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        for inputs, expected in case.data_sets:
            feeds = _plain_inputs(case, inputs)
            actual = session.run(None, feeds)
            reason = mismatch(expected, actual, case.rtol, case.atol)
            if reason:
                return CaseResult(case.name, "onnxruntime", "wrong", reason)
    except UnsupportedInput as err:
        return CaseResult(case.name, "onnxruntime", "unsupported", _one_line(err))
    except Exception as err:
        text = _one_line(err)
        # Its Python binding has no numpy type for float8, 4-bit and 2-bit tensors.
        refusals = (
            "NOT_IMPLEMENTED",
            "not implemented",
            "No corresponding Numpy type",
            "can't be converted to MLDataType",
        )
        refused = any(word in text for word in refusals)
        outcome = "unsupported" if refused else "error"
        return CaseResult(case.name, "onnxruntime", outcome, text)
    return CaseResult(case.name, "onnxruntime", "pass")


RUNNERS: dict[str, Callable[[Any], CaseResult]] = {
    "autotune": run_autotune,
    "onnxruntime": run_onnxruntime,
}


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return text[:300]


# -- the child: runs the cases it is sent, one JSON line each ------------------------------


def child_main(engine: str) -> None:
    """Read case names on stdin, one per line; answer each with one CaseResult as JSON on
    the original stdout (what the engine prints goes to stderr)."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    cases = collect_cases()
    runner = RUNNERS[engine]
    answers.write("ready\n")
    for line in sys.stdin:
        name = line.strip()
        start = time.perf_counter()
        result = runner(cases[name])
        elapsed = time.perf_counter() - start
        answer = CaseResult(result.name, result.engine, result.outcome, result.detail, elapsed)
        answers.write(json.dumps(asdict(answer)) + "\n")


class _Child:
    """A child process running one engine's cases, one at a time."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--child", engine],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            cwd=HERE.parent,
            env={**os.environ, "PYTHONPATH": str(HERE.parent)},
        )
        self.case: str | None = None
        self.started = 0.0
        self.ready = False

    def send(self, name: str) -> None:
        assert self.process.stdin is not None
        self.case = name
        self.started = time.monotonic()
        self.process.stdin.write(name + "\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(BrokenPipeError):  # it died with input unread
                    pipe.close()


def run_cases(
    engine: str,
    names: Sequence[str],
    jobs: int = 1,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run `names` with `engine` in `jobs` child processes; a child that dies or runs past
    `timeout_s` on a case reports it as `crash` or `timeout` and is replaced."""
    pending = list(reversed(names))
    results: dict[str, CaseResult] = {}
    selector = selectors.DefaultSelector()
    children: list[_Child] = []

    def start_child() -> None:
        child = _Child(engine)
        assert child.process.stdout is not None
        selector.register(child.process.stdout, selectors.EVENT_READ, child)
        children.append(child)

    def retire(child: _Child, outcome: str, detail: str) -> None:
        assert child.process.stdout is not None
        selector.unregister(child.process.stdout)
        children.remove(child)
        child.stop()
        if child.case is not None:
            finish(
                CaseResult(child.case, engine, outcome, detail, time.monotonic() - child.started)
            )
        if pending:
            start_child()

    def finish(result: CaseResult) -> None:
        results[result.name] = result
        if on_result is not None:
            on_result(result)

    def feed(child: _Child) -> None:
        if pending:
            child.send(pending.pop())
        else:
            child.case = None

    for _ in range(max(1, min(jobs, len(names)))):
        start_child()
    try:
        while children:
            events = selector.select(timeout=1.0)
            for key, _ in events:
                child = key.data
                line = child.process.stdout.readline()
                if not line:
                    code = child.process.wait()
                    if not child.ready:
                        raise RuntimeError(f"a {engine} child exited ({code}) before it started")
                    retire(child, "crash", f"the process died (exit status {code})")
                    continue
                if line.strip() == "ready":
                    child.ready = True
                    feed(child)
                    continue
                finish(CaseResult(**json.loads(line)))
                child.case = None
                feed(child)
            now = time.monotonic()
            for child in list(children):
                if child.case is not None and now - child.started > timeout_s:
                    retire(child, "timeout", f"ran past {timeout_s:.0f} s")
                elif child.ready and child.case is None:
                    selector.unregister(child.process.stdout)  # type: ignore[arg-type]
                    children.remove(child)
                    child.stop()
    finally:
        for child in children:
            child.stop()
        selector.close()
    return [results[name] for name in names]


# -- the report ----------------------------------------------------------------------------


def totals(results: Iterable[CaseResult]) -> dict[str, int]:
    """Cases per outcome, every outcome present."""
    counts = Counter(result.outcome for result in results)
    return {outcome: counts.get(outcome, 0) for outcome in OUTCOMES}


def report(
    names: Sequence[str], by_engine: dict[str, list[CaseResult]], details: bool, host: str
) -> str:
    """The text report: totals per engine, autotune's reasons grouped, and per-case lines."""
    lines = [f"ONNX backend node tests ({len(names)} cases), host {host}", ""]
    header = f"{'engine':<12}" + "".join(f"{outcome:>12}" for outcome in OUTCOMES)
    lines.append(header)
    for engine, results in by_engine.items():
        counts = totals(results)
        lines.append(f"{engine:<12}" + "".join(f"{counts[o]:>12}" for o in OUTCOMES))
    autotune = by_engine.get("autotune")
    if autotune is not None:
        specialised = sum(result.detail.startswith(SPECIALISED) for result in autotune)
        lines += [
            "",
            f"autotune passes {specialised} cases by compiling for the values of inputs that "
            "decide a shape or another compile-time operand (JIT, checked at each run)",
            "",
            "autotune, cases that did not pass, by reason (most common first):",
        ]
        reasons = Counter(
            (result.outcome, _reason_kind(result.detail))
            for result in autotune
            if result.outcome != "pass"
        )
        for (outcome, kind), count in reasons.most_common():
            lines.append(f"{count:>6}  {outcome:<12} {kind}")
    if details:
        lines += ["", "per case:"]
        engines = list(by_engine)
        for position, name in enumerate(names):
            cells = [by_engine[engine][position] for engine in engines]
            outcome_cells = "  ".join(f"{cell.engine}={cell.outcome}" for cell in cells)
            reason = next((cell.detail for cell in cells if cell.detail), "")
            lines.append(f"{name:<60} {outcome_cells}  {reason[:160]}")
    return "\n".join(lines) + "\n"


def _reason_kind(detail: str) -> str:
    """A detail without its node names, numbers and quoted values, to group cases by."""
    text = re.sub(r"'[^']*'", "'…'", detail)
    text = re.sub(r"\bnode \S+", "node …", text)
    text = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", text)
    return text[:120]


def host_name() -> str:
    """This host's CPU as LLVM names it (znver4, skylake-avx512, …)."""
    from codegen.llvm.target import host_target

    return host_target().mcpu


def write_floor(results: Sequence[CaseResult], path: Path = FLOOR_PATH) -> bool:
    """Raise the committed floor to autotune's pass count in `results`, with the names of
    the cases that passed; never lower it. Whether it was raised."""
    passing = sorted(result.name for result in results if result.outcome == "pass")
    if len(passing) <= read_floor(path):
        return False
    payload = {"autotune_passed": len(passing), "passing": passing}
    path.write_text(json.dumps(payload, indent=1) + "\n")
    return True


def read_floor(path: Path = FLOOR_PATH) -> int:
    """The committed floor of autotune's pass count (0 when none is committed)."""
    if not path.is_file():
        return 0
    return int(json.loads(path.read_text())["autotune_passed"])


def floor_cases(path: Path = FLOOR_PATH) -> list[str]:
    """The cases that passed when the floor was committed."""
    if not path.is_file():
        return []
    return list(json.loads(path.read_text())["passing"])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the conformance cases and print (and optionally write) the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=(*ENGINES, "both"), default="both")
    parser.add_argument("-k", "--filter", default="", help="regular expression on case names")
    parser.add_argument("--jobs", type=int, default=1, help="child processes per engine")
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument(
        "--target",
        help="compile for this CPU target instead of the host's (one this host can run, "
        "e.g. 'llvm -mcpu=znver3' on an AVX-512 host to check the AVX2 code)",
    )
    parser.add_argument("--details", action="store_true", help="one line per case")
    parser.add_argument("--output", type=Path, help="also write the report (with details)")
    parser.add_argument("--json", type=Path, help="write every result as JSON")
    parser.add_argument("--write-floor", action="store_true", help="raise the committed floor")
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_main(args.child)
        return 0
    if args.target:
        from codegen.llvm.target import parse_cpu_target

        parse_cpu_target(args.target)  # a bad target stops here, not in every case
        os.environ[TARGET_VARIABLE] = args.target  # the children inherit it
    pattern = re.compile(args.filter)
    names = [name for name in collect_cases() if pattern.search(name)]
    engines = ENGINES if args.engine == "both" else (args.engine,)
    by_engine = {}
    for engine in engines:
        start = time.monotonic()
        by_engine[engine] = run_cases(engine, names, args.jobs, args.timeout_s)
        elapsed = time.monotonic() - start
        print(f"{engine}: {totals(by_engine[engine])} in {elapsed:.0f} s", file=sys.stderr)
    host = host_name() + (f" (compiling for {args.target})" if args.target else "")
    print(report(names, by_engine, args.details, host), end="")
    if args.output:
        args.output.write_text(report(names, by_engine, True, host))
    if args.json:
        payload = {engine: [asdict(r) for r in results] for engine, results in by_engine.items()}
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    if args.write_floor and "autotune" in by_engine and not args.filter:
        write_floor(by_engine["autotune"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
