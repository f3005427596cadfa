"""Control flow against onnxruntime: a GRU decoder run n times by an ONNX Loop, and an RNN
run over a sequence by an ONNX Scan.

    .venv/bin/python bench/control_flow.py [--hidden 256] [--batch 1] [--steps 1 16 128]
        [--scan-lengths 16 128 512] [--output FILE]

The model (built here with onnx.helper, seeded random weights): each step projects the
hidden state and feeds it to an ONNX GRU cell; the step count `n` is a graph input, so the
Loop runs as the graph IR's Loop and one artifact serves every `n`. The same model with the
count fixed (an initializer) unrolls instead. Per step count, in one run on this host (2
threads everywhere, timed in turns, untuned): our artifact (its C entry point loops), our
JIT executor (the loop in Python), the unrolled artifact compiled for that count, and
onnxruntime; and the largest difference of our output from onnxruntime's.

The Scan (an Elman RNN, h <- tanh(x_t W + h R + b), every h scanned out) runs as the graph
IR's Loop with scan outputs: per sequence length, our artifact against onnxruntime, and
the seconds the artifact took to build.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import onnxruntime_session, time_in_turn
from codegen.aot.build import build_model_artifact
from codegen.executor import compile_model
from codegen.llvm import host_target
from codegen.runtime.loader import load_artifact
from ir.frontend.onnx import import_model
from ir.graph.passes.pipeline import optimize

ORT_SETTLE_S = 0.1  # (see bench.common.time_in_turn)
TURNS = 9
FLOAT, BOOL, INT64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def gru_decoder(hidden: int, batch: int, steps: int | None, seed: int = 0) -> onnx.ModelProto:
    """h <- GRU(h @ P, h), `steps` times (None: `n`, a graph input)."""
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(hidden)
    weights = {
        "w": (rng.standard_normal((1, 3 * hidden, hidden)) * scale).astype(np.float32),
        "r": (rng.standard_normal((1, 3 * hidden, hidden)) * scale).astype(np.float32),
        "b": (rng.standard_normal((1, 6 * hidden)) * 0.1).astype(np.float32),
        "projection": (rng.standard_normal((hidden, hidden)) * scale).astype(np.float32),
    }
    state = [1, batch, hidden]
    cell = helper.make_graph(
        [
            helper.make_node("MatMul", ["h_in", "projection"], ["x_step"]),
            helper.make_node(
                "GRU", ["x_step", "w", "r", "b", "", "h_in"], ["", "h_out"], hidden_size=hidden
            ),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "step",
        [
            helper.make_tensor_value_info("i", INT64, []),
            helper.make_tensor_value_info("cond_in", BOOL, []),
            helper.make_tensor_value_info("h_in", FLOAT, state),
        ],
        [
            helper.make_tensor_value_info("cond_out", BOOL, []),
            helper.make_tensor_value_info("h_out", FLOAT, state),
        ],
    )
    inputs = [helper.make_tensor_value_info("h0", FLOAT, state)]
    if steps is None:
        inputs.append(helper.make_tensor_value_info("n", INT64, []))
    else:
        weights["n"] = np.array(steps, np.int64)
    graph = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "h0"], ["h"], body=cell)],
        "gru_decoder",
        inputs,
        [helper.make_tensor_value_info("h", FLOAT, state)],
        [numpy_helper.from_array(value, name) for name, value in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def scan_rnn(hidden: int, batch: int, length: int, seed: int = 0) -> onnx.ModelProto:
    """h <- tanh(x_t @ W + h @ R + b) over the `length` rows of x (length, batch, hidden);
    outputs the last h and every h."""
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(hidden)
    weights = {
        "w": (rng.standard_normal((hidden, hidden)) * scale).astype(np.float32),
        "r": (rng.standard_normal((hidden, hidden)) * scale).astype(np.float32),
        "b": (rng.standard_normal(hidden) * 0.1).astype(np.float32),
    }
    state = [batch, hidden]
    cell = helper.make_graph(
        [
            helper.make_node("MatMul", ["x_t", "w"], ["input_part"]),
            helper.make_node("MatMul", ["h_in", "r"], ["state_part"]),
            helper.make_node("Add", ["input_part", "state_part"], ["both"]),
            helper.make_node("Add", ["both", "b"], ["biased"]),
            helper.make_node("Tanh", ["biased"], ["h_out"]),
            helper.make_node("Identity", ["h_out"], ["h_t"]),
        ],
        "cell",
        [
            helper.make_tensor_value_info("h_in", FLOAT, state),
            helper.make_tensor_value_info("x_t", FLOAT, state),
        ],
        [
            helper.make_tensor_value_info("h_out", FLOAT, state),
            helper.make_tensor_value_info("h_t", FLOAT, state),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Scan", ["h0", "x"], ["h", "hs"], body=cell, num_scan_inputs=1)],
        "scan_rnn",
        [
            helper.make_tensor_value_info("h0", FLOAT, state),
            helper.make_tensor_value_info("x", FLOAT, [length, *state]),
        ],
        [
            helper.make_tensor_value_info("h", FLOAT, state),
            helper.make_tensor_value_info("hs", FLOAT, [length, *state]),
        ],
        [numpy_helper.from_array(value, name) for name, value in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def scan_lines(hidden: int, batch: int, lengths: list[int], work: Path) -> list[str]:
    """The Scan table: per sequence length, our artifact against onnxruntime."""
    target = host_target()
    lines = [
        f"Scan RNN, hidden {hidden}, batch {batch}; host {target.mcpu} ({target.num_cores} "
        f"cores), 2 threads, untuned; median of {TURNS} turns, ms",
        f"{'length':>6} {'artifact':>9} {'ORT':>9} {'art/ORT':>8} {'build s':>8} {'max err':>9}",
    ]
    rng = np.random.default_rng(2)
    for length in lengths:
        model = scan_rnn(hidden, batch, length)
        started = time.perf_counter()
        fn = optimize(import_model(model).function)
        built = build_model_artifact(fn, target, work / f"scan{length}", output_names=["h", "hs"])
        build_s = time.perf_counter() - started
        artifact = load_artifact(built.path)
        session = onnxruntime_session(model.SerializeToString())
        feeds = {
            "h0": rng.standard_normal((batch, hidden)).astype(np.float32),
            "x": rng.standard_normal((length, batch, hidden)).astype(np.float32),
        }
        expected = session.run(None, feeds)
        got = artifact.run(feeds)
        error = max(
            float(np.abs(got[name] - want).max())
            for name, want in zip(("h", "hs"), expected, strict=True)
        )
        ours = time_in_turn(
            {"artifact": lambda feeds=feeds, artifact=artifact: artifact.run(feeds)},
            rounds=TURNS,
        )
        ort = time_in_turn(
            {"ort": lambda feeds=feeds, session=session: session.run(None, feeds)},
            rounds=TURNS,
            settle_s=ORT_SETTLE_S,
        )["ort"]
        lines.append(
            f"{length:>6} {ours['artifact'] * 1e3:>9.3f} {ort * 1e3:>9.3f} "
            f"{ours['artifact'] / ort:>8.2f} {build_s:>8.1f} {error:>9.1e}"
        )
        artifact.close()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--steps", type=int, nargs="+", default=[1, 16, 128])
    parser.add_argument("--scan-lengths", type=int, nargs="+", default=[16, 128, 512])
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    target = host_target()
    work = Path(tempfile.mkdtemp(prefix="control_flow_"))
    dynamic = gru_decoder(args.hidden, args.batch, None)
    dynamic_fn = optimize(import_model(dynamic).function)
    built = build_model_artifact(dynamic_fn, target, work / "loop", output_names=["h"])
    artifact = load_artifact(built.path)
    jit = compile_model(dynamic_fn, target)
    session = onnxruntime_session(dynamic.SerializeToString())
    lines = [
        f"GRU decoder loop, hidden {args.hidden}, batch {args.batch}; host {target.mcpu} "
        f"({target.num_cores} cores), 2 threads, untuned; median of {TURNS} turns, ms",
        f"{'steps':>6} {'artifact':>9} {'JIT':>9} {'unrolled':>9} {'ORT':>9} "
        f"{'art/ORT':>8} {'unr/ORT':>8} {'max err':>9}",
    ]
    rng = np.random.default_rng(1)
    h0 = rng.standard_normal((1, args.batch, args.hidden)).astype(np.float32)
    for steps in args.steps:
        feeds = {"h0": h0, "n": np.array(steps, np.int64)}
        fixed = gru_decoder(args.hidden, args.batch, steps)
        fixed_fn = optimize(import_model(fixed).function)
        unrolled_built = build_model_artifact(
            fixed_fn, target, work / f"u{steps}", output_names=["h"]
        )
        unrolled = load_artifact(unrolled_built.path)
        expected = session.run(None, feeds)[0]
        error = max(
            float(np.abs(artifact.run(feeds)["h"] - expected).max()),
            float(np.abs(np.asarray(jit.run(feeds)) - expected).max()),
            float(np.abs(unrolled.run({"h0": h0})["h"] - expected).max()),
        )
        ours = time_in_turn(
            {
                "artifact": lambda feeds=feeds: artifact.run(feeds),
                "jit": lambda feeds=feeds: jit.run(feeds),
                "unrolled": lambda unrolled=unrolled: unrolled.run({"h0": h0}),
            },
            rounds=TURNS,
        )
        ort = time_in_turn(
            {"ort": lambda feeds=feeds: session.run(None, feeds)},
            rounds=TURNS,
            settle_s=ORT_SETTLE_S,
        )["ort"]
        lines.append(
            f"{steps:>6} {ours['artifact'] * 1e3:>9.3f} {ours['jit'] * 1e3:>9.3f} "
            f"{ours['unrolled'] * 1e3:>9.3f} {ort * 1e3:>9.3f} "
            f"{ours['artifact'] / ort:>8.2f} {ours['unrolled'] / ort:>8.2f} {error:>9.1e}"
        )
        unrolled.close()
    artifact.close()
    lines += scan_lines(args.hidden, args.batch, args.scan_lengths, work)
    text = "\n".join(lines)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")


if __name__ == "__main__":
    main()
