"""A cost model carried from one model to the next of its family: the second model tuned
after the first, its tuner starting from the cost model the first one trained
(`autotune tune --cost-model`, what the service does per target), against the same
tuning started from a fresh model; at each cumulative trial budget, the second model's
tuned latency over ONNX Runtime's (`bench/models.py`'s measurement: artifacts and
ONNX Runtime in child processes, 2 threads, in turns, the fastest of 3 rounds), in one run.

    .venv/bin/python bench/family_transfer.py [--first light_inception_v1]
        [--second light_inception_v2] [--first-trials 400] [--budgets 64 128 256 512]
        [--out bench/results]

Both conditions resume their own records at each budget, so a budget's figure is the
tuning of all the trials up to it. Results: `--out`/family_transfer_<cpu>.txt.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.models import _model, measure
from bench.onnx_conformance import host_name

CONDITIONS = ("fresh", "carried")


def _tune(onnx_path: Path, trials: int, cost_model: Path, records: Path) -> float:
    """Tune the model to `trials` in all (resuming `records`); the seconds it took."""
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target
    from tuner.options import TuneOptions
    from tuner.tune import tune_model

    target = host_target()
    function = prepare_for_target(onnx_path, target).function
    options = TuneOptions(trials=trials, cost_model_path=str(cost_model))
    started = time.perf_counter()
    tune_model(function, target, options, records)
    return time.perf_counter() - started


def _ratio(name: str, records: Path) -> tuple[float, float]:
    """The untuned and tuned latency of model `name` over ONNX Runtime's."""
    from tuner.records import load_records

    row = measure(name, runs=20, records=load_records(records), jit=False, rounds=3)
    return float(row["untuned_ratio"]), float(row["tuned_ratio"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--first", default="light_inception_v1")
    parser.add_argument("--second", default="light_inception_v2")
    parser.add_argument("--first-trials", type=int, default=400)
    parser.add_argument("--budgets", type=int, nargs="+", default=[64, 128, 256, 512])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    args = parser.parse_args()
    import onnx

    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    say(f"cost model carried from {args.first} ({args.first_trials} trials) to {args.second}")
    say(f"host {host_name()}; latency / ONNX Runtime's (2 threads), lower is better")
    with tempfile.TemporaryDirectory(prefix="bench-family-") as directory:
        work = Path(directory)
        paths = {}
        for name in (args.first, args.second):
            paths[name] = work / f"{name}.onnx"
            onnx.save(_model(name), str(paths[name]))
        first_model = work / "first.npz"
        seconds = _tune(paths[args.first], args.first_trials, first_model, work / "first.jsonl")
        say(f"{args.first}: tuned {args.first_trials} trials in {seconds:.0f} s; ")
        untuned, tuned = _ratio(args.first, work / "first.jsonl")
        say(f"  untuned {untuned:.3f}, tuned {tuned:.3f}")
        shutil.copyfile(first_model, work / "carried.npz")
        rows: list[dict[str, Any]] = []
        for budget in sorted(args.budgets):
            row: dict[str, Any] = {"budget": budget}
            for condition in CONDITIONS:
                records = work / f"{condition}.jsonl"
                row[f"{condition}_s"] = _tune(
                    paths[args.second], budget, work / f"{condition}.npz", records
                )
                row["untuned"], row[condition] = _ratio(args.second, records)
            rows.append(row)
            say(
                f"{args.second} at {budget:5d} trials: fresh {row['fresh']:.3f} "
                f"({row['fresh_s']:.0f} s), carried {row['carried']:.3f} "
                f"({row['carried_s']:.0f} s), untuned {row['untuned']:.3f}"
            )
    out = Path(args.out) / f"family_transfer_{host_name()}.txt"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
