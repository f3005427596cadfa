"""The model zoo: real PyTorch exports, ours untuned and tuned next to ONNX Runtime and
OpenVINO, on this host, in one run.

    make bench-zoo                      # creates .zoo-venv (torch, torchvision, transformers,
                                        # openvino, onnxruntime, this project), then runs this
    .zoo-venv/bin/python bench/zoo.py [--only NAME ...] [--time-limit S] [--threads 2]
                                      [--runs 20] [--rounds 3] [--out DIR]

Models (exported here with seeded random weights, never pretrained ones: normalisation
layers get non-trivial statistics and any all-zero weight, such as ViT's head, is redrawn,
so that a wrong kernel shows in the outputs): resnet50, mobilenet_v3_small,
efficientnet_b0 and vit_b_16 from torchvision; a 4-layer, 256-wide BERT encoder from
transformers run with an attention mask that pads the last quarter of the sequence; a
2-layer LSTM classifier. `--only` also takes a 4-layer, 256-wide GPT-2 decoder
(`gpt2_4x256`, transformers, 128 tokens, its logits) and any other torchvision classifier
by name (shufflenet_v2_x1_0, regnet_y_400mf, swin_t, ...), exported and randomised the
same way: models no issue names, which is where a gap shows first.

Per model: the export (a child process with torch); our artifact untuned (the default
schedules) and its per-kernel profile (`codegen.profile`: share, GFLOPS, GB/s, roofline
efficiency); `autotune tune --time-limit S` (its wall time); our artifact with those
records; then ONNX Runtime, OpenVINO and both artifacts timed in turns, each runner a fresh
child process (`--rounds` times; a runner's latency is its fastest round, since a slow
spell of a shared machine only ever slows one down), every runner at `--threads` threads.
Our outputs are checked against ONNX Runtime's. The summary's last line is the geometric
mean of each ratio to ONNX Runtime. Results: `--out`/zoo_<cpu>.txt (and .json).

Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODELS = (
    "resnet50",
    "mobilenet_v3_small",
    "efficientnet_b0",
    "vit_b_16",
    "bert_4x256",
    "lstm_2x128",
)
RUNNERS = ("onnxruntime", "openvino", "untuned", "tuned")

# -- export (a child with torch) ------------------------------------------------------------


def _randomise(model: Any, seed: int) -> Any:
    """Seeded random weights with non-trivial normalisation statistics; no zero weights."""
    import torch

    torch.manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d | torch.nn.BatchNorm1d):
                module.running_mean.normal_(0.0, 0.2)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
            elif isinstance(module, torch.nn.LayerNorm) and module.elementwise_affine:
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
        for parameter in model.parameters():
            if parameter.dim() >= 2 and not bool(parameter.abs().sum()):
                parameter.normal_(0.0, 0.02)  # a zero-initialised head, redrawn
    return model.eval()


def _is_torchvision_classifier(name: str) -> bool:
    import torchvision

    return name in torchvision.models.list_models(module=torchvision.models)


def build_model(name: str) -> tuple[Any, dict[str, Any], tuple[Any, ...]]:
    """The seeded, randomised torch module `name`, its example inputs (numpy, by input
    name) and the torch arguments of a call on them."""
    import numpy as np
    import torch

    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    if name not in ("bert_4x256", "gpt2_4x256", "lstm_2x128") and _is_torchvision_classifier(name):
        import torchvision

        model = _randomise(getattr(torchvision.models, name)(weights=None), 0)
        inputs: dict[str, Any] = {"image": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}
        args: tuple[Any, ...] = (torch.from_numpy(inputs["image"]),)
    elif name == "bert_4x256":
        import transformers

        config = transformers.BertConfig(
            vocab_size=8192,
            hidden_size=256,
            num_hidden_layers=4,
            num_attention_heads=4,
            intermediate_size=1024,
            max_position_embeddings=512,
        )
        config._attn_implementation = "eager"  # (plain ops in the export, as most exports have)
        bert = _randomise(transformers.BertModel(config, add_pooling_layer=False), 0)

        class Encoder(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = bert

            def forward(self, input_ids: Any, attention_mask: Any) -> Any:
                hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask)
                return hidden.last_hidden_state

        model = Encoder().eval()
        tokens = 128
        mask = np.ones((1, tokens), np.int64)
        mask[:, tokens * 3 // 4 :] = 0
        inputs = {
            "input_ids": rng.integers(0, config.vocab_size, (1, tokens)).astype(np.int64),
            "attention_mask": mask,
        }
        args = (torch.from_numpy(inputs["input_ids"]), torch.from_numpy(inputs["attention_mask"]))
    elif name == "gpt2_4x256":
        import transformers

        config = transformers.GPT2Config(
            vocab_size=8192, n_positions=512, n_embd=256, n_layer=4, n_head=4
        )
        config._attn_implementation = "eager"
        gpt2 = _randomise(transformers.GPT2LMHeadModel(config), 0)

        class Decoder(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.gpt2 = gpt2

            def forward(self, input_ids: Any, attention_mask: Any) -> Any:
                output = self.gpt2(
                    input_ids=input_ids, attention_mask=attention_mask, use_cache=False
                )
                return output.logits

        model = Decoder().eval()
        tokens = 128
        inputs = {
            "input_ids": rng.integers(0, config.vocab_size, (1, tokens)).astype(np.int64),
            "attention_mask": np.ones((1, tokens), np.int64),
        }
        args = (torch.from_numpy(inputs["input_ids"]), torch.from_numpy(inputs["attention_mask"]))
    elif name == "lstm_2x128":

        class Classifier(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.lstm = torch.nn.LSTM(64, 128, num_layers=2, batch_first=True)
                self.head = torch.nn.Linear(128, 10)

            def forward(self, x: Any) -> Any:
                out, _ = self.lstm(x)
                return self.head(out[:, -1])

        model = _randomise(Classifier(), 0)
        inputs = {"sequence": rng.standard_normal((1, 32, 64)).astype(np.float32)}
        args = (torch.from_numpy(inputs["sequence"]),)
    else:
        raise SystemExit(
            f"unknown model {name!r}; known: {', '.join(MODELS)}, gpt2_4x256 and torchvision's "
            "classifiers"
        )
    return model, inputs, args


def _export(name: str, directory: Path) -> None:
    import numpy as np
    import torch

    model, inputs, args = build_model(name)
    path = directory / f"{name}.onnx"
    torch.onnx.export(
        model, args, str(path), input_names=list(inputs), opset_version=17, dynamo=False
    )
    np.savez(directory / f"{name}.inputs.npz", **inputs)


# -- runners (children: each imports only its runtime) ---------------------------------------


def _runner(
    kind: str, model: str, inputs_path: str, outputs_path: str, runs: int, threads: int
) -> None:
    import numpy as np

    inputs = dict(np.load(inputs_path))
    if kind == "onnxruntime":
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])

        def run() -> list[Any]:
            return list(session.run(None, inputs))

    elif kind == "openvino":
        import openvino

        compiled = openvino.Core().compile_model(
            model,
            "CPU",
            {
                "INFERENCE_NUM_THREADS": threads,
                "PERFORMANCE_HINT": "LATENCY",
                # float32 as the others compute: on AMX or AVX-512 BF16 hosts OpenVINO
                # would otherwise run in bfloat16.
                "INFERENCE_PRECISION_HINT": "f32",
            },
        )
        request = compiled.create_infer_request()

        def run() -> list[Any]:
            result = request.infer(inputs)
            return [np.asarray(result[output]) for output in compiled.outputs]

    else:
        sys.path.insert(0, str(ROOT / "bench"))  # (only its own folder: a user's view)
        from standalone_runtime import runtime_module

        # the runtime folder alone, as a user would copy it
        load_artifact = runtime_module("loader").load_artifact

        artifact = load_artifact(model)

        def run() -> list[Any]:
            return list(artifact.run(inputs).values())

    outputs = run()
    latencies = []
    for _ in range(runs):
        begin = time.perf_counter()
        run()
        latencies.append(time.perf_counter() - begin)
    np.savez(outputs_path, *outputs)
    print(json.dumps({"latency_ms": statistics.median(latencies) * 1e3}))


def _child(args: list[str], timeout_s: float = 3600) -> str:
    completed = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, timeout=timeout_s,
        check=False,
    )  # fmt: skip
    if completed.returncode != 0:
        raise RuntimeError(f"{args[:2]} failed: {completed.stderr[-3000:]}")
    return completed.stdout


# -- the parent ------------------------------------------------------------------------------


def _host() -> str:
    import llvmlite.binding as llvm

    return str(llvm.get_host_cpu_name())


def _compile(model: Path, target: str, records: list[Any], out_dir: Path, inputs: Path) -> Path:
    import numpy as np

    from tuner.artifact_build import build_artifact

    examples = {name: value.shape for name, value in np.load(inputs).items()}
    build = build_artifact(model, target, records, out_dir, example_shapes=examples)
    return build.path


def _profile(model: Path, inputs: Path, target: str, runs: int) -> dict[str, Any]:
    import numpy as np

    from codegen.llvm import parse_cpu_target
    from codegen.profile import profile_model
    from tuner.run_model import prepare_model

    arrays = dict(np.load(inputs))
    compiled = prepare_model(model, None, arrays, target=parse_cpu_target(target))
    profile = profile_model(compiled, arrays, runs)
    return {"json": profile.to_json(), "table": profile.table(top=8)}


def _max_error(ours: Path, reference: Path) -> tuple[float, float]:
    """(max abs error, max abs reference) over every output."""
    import numpy as np

    with np.load(ours) as got, np.load(reference) as want:
        error = max(float(np.max(np.abs(got[k] - want[k]), initial=0.0)) for k in want.files)
        scale = max(float(np.max(np.abs(want[k]), initial=0.0)) for k in want.files)
    return error, scale


def measure_model(name: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Export, compile, tune and time one model; its row of the summary."""
    from tuner.records import load_records

    row: dict[str, Any] = {"model": name}
    model, inputs = work / f"{name}.onnx", work / f"{name}.inputs.npz"
    if not model.exists():
        _child(["--export", name, str(work)])
    target = f"llvm -num-cores={args.threads}"
    started = time.perf_counter()
    untuned = _compile(model, target, [], work / "untuned", inputs)
    row["compile_s"] = time.perf_counter() - started
    profile = _profile(model, inputs, target, args.runs)
    row["profile"] = profile["json"]
    row["profile_table"] = profile["table"]
    records_path = work / f"{name}.records.jsonl"
    tuned = untuned
    if args.time_limit > 0:
        started = time.perf_counter()
        command = [
            str(Path(sys.executable).parent / "autotune"), "tune", str(model), "--target", target,
            "--trials", str(args.trials), "--time-limit", str(args.time_limit),
            "--records", str(records_path), "--json",
        ]  # fmt: skip
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        row["tune_s"] = time.perf_counter() - started
        if completed.returncode not in (0, 1):  # 1: some task had no correct candidate
            raise RuntimeError(f"autotune tune failed: {completed.stderr[-3000:]}")
        summary = json.loads(completed.stdout)
        row["tuned_tasks"] = sum(1 for task in summary["tasks"] if task.get("trials", 0) > 1)
        row["tasks"] = len(summary["tasks"])
        records = load_records(records_path) if records_path.exists() else []
        row["trials"] = sum(1 for record in records if record.timing != "in_model")
        row["in_model"] = summary.get("in_model")
        tuned = _compile(model, target, records, work / "tuned", inputs)
    paths = {
        "onnxruntime": str(model),
        "openvino": str(model),
        "untuned": str(untuned),
        "tuned": str(tuned),
    }
    kinds = [kind for kind in RUNNERS if kind != "tuned" or args.time_limit > 0]
    if importlib.util.find_spec("openvino") is None:  # (outside the zoo's venv)
        kinds.remove("openvino")
    rounds: dict[str, list[float]] = {kind: [] for kind in RUNNERS}
    for _ in range(args.rounds):
        for kind in kinds:
            outputs = work / f"{name}.{kind}.out.npz"
            report = json.loads(
                _child([
                    "--runner", kind, paths[kind], str(inputs), str(outputs),
                    str(args.runs), str(args.threads),
                ]).splitlines()[-1]
            )  # fmt: skip
            rounds[kind].append(report["latency_ms"])
    for kind, latencies in rounds.items():
        row[f"{kind}_ms"] = min(latencies) if latencies else None
    reference = work / f"{name}.onnxruntime.out.npz"
    for kind in ("untuned", "tuned", "openvino"):
        if row.get(f"{kind}_ms") is not None:
            error, scale = _max_error(work / f"{name}.{kind}.out.npz", reference)
            row[f"{kind}_max_error"] = error
            row["output_scale"] = scale
    return row


def _ratio(row: dict[str, Any], kind: str) -> float | None:
    ours, ort = row.get(f"{kind}_ms"), row.get("onnxruntime_ms")
    return ours / ort if ours and ort else None


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def report_lines(rows: list[dict[str, Any]], args: argparse.Namespace, host: str) -> list[str]:
    """The summary table, the geometric means and each model's top kernels."""
    lines = [
        f"host: {host} ({os.cpu_count()} cores); {args.threads} threads per runtime; "
        f"tuning: autotune tune --time-limit {args.time_limit} per model; latencies: the "
        f"fastest of {args.rounds} rounds of the median of {args.runs} runs",
        "",
        f"{'model':<20}{'max err':>10}{'ours':>9}{'tuned':>9}{'ORT':>9}{'OpenVINO':>10}"
        f"{'ours/ORT':>10}{'tuned/ORT':>10}{'OV/ORT':>8}{'tune s':>8}{'tasks':>8}",
    ]

    def ms(value: float | None) -> str:
        return f"{value:9.2f}" if value is not None else f"{'-':>9}"

    def ratio(value: float | None, width: int) -> str:
        return f"{value:{width}.2f}" if value is not None else f"{'-':>{width}}"

    for row in rows:
        if "error" in row:
            lines.append(f"{row['model']:<20}failed: {row['error']}")
            continue
        errors = [row.get(f"{kind}_max_error", 0.0) for kind in ("untuned", "tuned")]
        relative = max(errors) / max(row.get("output_scale", 1.0), 1e-30)
        tasks = f"{row.get('tuned_tasks', '-')}/{row.get('tasks', '-')}"
        lines.append(
            f"{row['model']:<20}{relative:10.1e}{ms(row['untuned_ms'])}{ms(row.get('tuned_ms'))}"
            f"{ms(row['onnxruntime_ms'])}{ms(row['openvino_ms']):>10}"
            f"{ratio(_ratio(row, 'untuned'), 10)}{ratio(_ratio(row, 'tuned'), 10)}"
            f"{ratio(_ratio(row, 'openvino'), 8)}{row.get('tune_s', 0.0):8.0f}{tasks:>8}"
        )
    means = {
        kind: _geomean([r for row in rows if "error" not in row if (r := _ratio(row, kind))])
        for kind in ("untuned", "tuned", "openvino")
    }
    lines.append(
        "geometric mean of the ratios to ONNX Runtime: "
        + ", ".join(f"{kind} {value:.2f}" for kind, value in means.items() if value is not None)
    )
    lines.append(
        "('max err': the largest abs difference of our untuned and tuned outputs from ONNX "
        "Runtime's, over ONNX Runtime's max |output|; OpenVINO's is in the JSON)"
    )
    for row in rows:
        if "profile_table" in row:
            lines += ["", f"{row['model']}: untuned, kernel by kernel (the 8 biggest shares)"]
            lines += row["profile_table"]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only", nargs="*", help="these models: the zoo's, or any torchvision classifier"
    )
    parser.add_argument(
        "--time-limit", type=float, default=300.0, help="tuning seconds per model (0: none)"
    )
    parser.add_argument("--trials", type=int, default=100000, help="trial budget per model")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", default=str(ROOT / "build" / "zoo"), help="exports and artifacts")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--export", nargs=2, metavar=("NAME", "DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--runner", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export:
        _export(args.export[0], Path(args.export[1]))
        return 0
    if args.runner:
        kind, model, inputs, outputs, runs, threads = args.runner
        _runner(kind, model, inputs, outputs, int(runs), int(threads))
        return 0
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    host = _host()
    rows = []
    for name in args.only or MODELS:
        print(f"{name} ...", file=sys.stderr, flush=True)
        try:
            rows.append(measure_model(name, args, work))
        except Exception as err:  # one model's failure is its row, not the run's end
            rows.append({"model": name, "error": f"{type(err).__name__}: {str(err)[-500:]}"})
        print("\n".join(report_lines(rows[-1:], args, host)[3:4]), file=sys.stderr, flush=True)
    lines = report_lines(rows, args, host)
    print("\n".join(lines))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"zoo_{host}.txt").write_text("\n".join(lines) + "\n")
    (out / f"zoo_{host}.json").write_text(json.dumps(rows, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
