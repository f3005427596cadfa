"""Shared pieces of the benchmarks: workloads as graphs, timing, ONNX Runtime sessions."""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import onnx
from onnx import TensorProto, helper

from ir.graph.nodes import Function, Var, call, const
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.types import TensorType

Key = TypeVar("Key")

HERE = Path(__file__).resolve().parent
SHARED_WORKLOADS = HERE.parent.parent / "shared" / "bench" / "workloads.json"


def load_workloads(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The workloads of the file at `path` (the same format), by default the standard ones:
    the shared file when present, else the copy in bench/."""
    if path is None:
        path = SHARED_WORKLOADS if SHARED_WORKLOADS.is_file() else HERE / "workloads.json"
    path = Path(path)
    workloads: list[dict[str, Any]] = json.loads(path.read_text())["workloads"]
    return workloads


def time_call(fn: Callable[[], object], min_repeat_ms: float = 100.0, repeat: int = 5) -> float:
    """Median seconds per call: `number` calls per repeat so a repeat lasts min_repeat_ms."""
    fn()  # warm-up
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(min_repeat_ms / 1e3 / once))
    costs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        costs.append((time.perf_counter() - start) / number)
    return statistics.median(costs)


def time_baseline(fn: Callable[[], object], rounds: int = 5, gap_s: float = 0.5) -> float:
    """Seconds per call of a baseline (numpy, ONNX Runtime): the fastest of `rounds`
    `time_call` medians, `gap_s` apart. This machine's two cores at times run two threads
    at one core's speed for several seconds (ONNX Runtime's 2-thread conv1x1_256x56 timed
    100 or 190 GFLOPS minutes apart); a baseline timed once can land in such a spell, and
    taking its best spell errs in its favour."""
    costs = []
    for round_index in range(rounds):
        if round_index:
            time.sleep(gap_s)
        costs.append(time_call(fn))
    return min(costs)


def time_in_turn(
    fns: Mapping[Key, Callable[[], object]], rounds: int = 5, settle_s: float = 0.0
) -> dict[Key, float]:
    """Median seconds per call of each function, timed in turn for `rounds` rounds (one
    `time_call` repeat each), so a slow spell of the machine falls on all of them; each
    turn `settle_s` after the last. Give ONNX Runtime's turns 0.1 s: its threads spin
    for tens of milliseconds after a run, taking a core from the turn after (a 3.9 ms
    MobileNetV2 of ours timed 8.4 ms right after onnxruntime's, 3.8 ms 0.1 s later)."""
    costs: dict[Key, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            if settle_s:
                time.sleep(settle_s)
            costs[name].append(time_call(fn, repeat=1))
    return {name: statistics.median(values) for name, values in costs.items()}


def time_placed_in_turn(
    runners: dict[str, list[Callable[[], object]]], rounds: int = 5
) -> dict[str, float]:
    """Seconds per call of each entry, its runners being one kernel on several placements
    of its arguments (`bench.kernels.placed_kernel_runners`): every runner timed in turn
    as `time_in_turn` does, and an entry's cost the mean over its placements, as the tuner
    ranks candidates over the same placements."""
    flat = {(name, index): run for name, runs in runners.items() for index, run in enumerate(runs)}
    costs = time_in_turn(flat, rounds)
    return {
        name: statistics.fmean(costs[(name, index)] for index in range(len(runs)))
        for name, runs in runners.items()
    }


def workload_flops(w: dict[str, Any]) -> int:
    """FLOPs of a workload (a multiply-add counts 2)."""
    op = w["op"]
    if op == "softmax":
        # Counted as 5 operations per element (max, subtract, exp, sum, divide): a
        # throughput figure to compare runs by, not arithmetic the hardware does.
        return 5 * math.prod(w["shape"])
    if op == "matmul" or op == "dense":
        return 2 * w["M"] * w["N"] * w["K"]
    if op == "batch_matmul":
        return 2 * w["B"] * w["M"] * w["N"] * w["K"]
    out_h = (w["H"] + 2 * w["pad"] - w["R"]) // w["stride"] + 1
    out_w = (w["W"] + 2 * w["pad"] - w["S"]) // w["stride"] + 1
    if op == "depthwise_conv2d":
        return 2 * w["N"] * w["C"] * out_h * out_w * w["R"] * w["S"]
    return 2 * w["N"] * w["K"] * out_h * out_w * w["C"] * w["R"] * w["S"]


def workload_arrays(w: dict[str, Any], seed: int = 0) -> dict[str, np.ndarray]:
    """Random inputs and weights of a workload, by name."""
    rng = np.random.default_rng(seed)

    def rand(*shape: int) -> np.ndarray:
        return rng.uniform(-1.0, 1.0, shape).astype(np.float32)

    op = w["op"]
    if op == "softmax":
        return {"a": rand(*w["shape"]) * 8.0}
    if op == "matmul":
        return {"a": rand(w["M"], w["K"]), "b": rand(w["K"], w["N"])}
    if op == "dense":
        return {"a": rand(w["M"], w["K"]), "b": rand(w["N"], w["K"])}
    if op == "batch_matmul":
        return {"a": rand(w["B"], w["M"], w["K"]), "b": rand(w["B"], w["K"], w["N"])}
    data = rand(w["N"], w["C"], w["H"], w["W"])
    if op == "depthwise_conv2d":
        return {"data": data, "weight": rand(w["C"], 1, w["R"], w["S"])}
    arrays = {"data": data, "weight": rand(w["K"], w["C"], w["R"], w["S"]) * 0.1}
    if op == "conv2d+bias+relu":
        arrays["bias"] = rand(w["K"], 1, 1)
    return arrays


def workload_function(w: dict[str, Any], arrays: dict[str, np.ndarray]) -> Function:
    """The workload as a fused graph: activations are inputs, weights are constants."""
    op = w["op"]
    if op == "softmax":  # over the last axis
        a = Var("a", TensorType(arrays["a"].shape))
        body = call("nn.softmax", a)
        params: tuple[Var, ...] = (a,)
    elif op in ("matmul", "batch_matmul"):
        a = Var("a", TensorType(arrays["a"].shape))
        b = Var("b", TensorType(arrays["b"].shape))
        name = "nn.matmul" if op == "matmul" else "nn.batch_matmul"
        body = call(name, a, b)
        params = (a, b)
    elif op == "dense":
        a = Var("a", TensorType(arrays["a"].shape))
        body = call("nn.dense", a, const(arrays["b"]))
        params = (a,)
    else:
        data = Var("data", TensorType(arrays["data"].shape))
        pad = w["pad"]
        groups = w["C"] if op == "depthwise_conv2d" else 1
        body = call(
            "nn.conv2d",
            data,
            const(arrays["weight"]),
            strides=(w["stride"], w["stride"]),
            padding=(pad, pad, pad, pad),
            groups=groups,
        )
        if op == "conv2d+bias+relu":
            body = call("nn.relu", call("add", body, const(arrays["bias"])))
        params = (data,)
    return fuse_ops(infer_type(Function(params, body)))


def workload_onnx(
    w: dict[str, Any], arrays: dict[str, np.ndarray]
) -> tuple[bytes, dict[str, np.ndarray]]:
    """The workload as a one-node ONNX model (weights as initializers) and its feeds."""
    op = w["op"]
    floats = TensorProto.FLOAT
    initializers = []
    feeds: dict[str, np.ndarray] = {}
    if op == "softmax":
        nodes = [helper.make_node("Softmax", ["a"], ["y"], axis=-1)]
        inputs = ["a"]
        feeds = {"a": arrays["a"]}
    elif op in ("matmul", "batch_matmul"):
        nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
        inputs = ["a", "b"]
        feeds = {"a": arrays["a"], "b": arrays["b"]}
    elif op == "dense":
        nodes = [helper.make_node("Gemm", ["a", "b"], ["y"], transB=1)]
        inputs = ["a"]
        feeds = {"a": arrays["a"]}
        initializers.append(onnx.numpy_helper.from_array(arrays["b"], "b"))
    else:
        pad = w["pad"]
        groups = w["C"] if op == "depthwise_conv2d" else 1
        conv_inputs = ["data", "weight"]
        if op == "conv2d+bias+relu":
            conv_inputs.append("bias")
            initializers.append(onnx.numpy_helper.from_array(arrays["bias"].reshape(-1), "bias"))
        nodes = [
            helper.make_node(
                "Conv",
                conv_inputs,
                ["conv" if op == "conv2d+bias+relu" else "y"],
                strides=[w["stride"]] * 2,
                pads=[pad] * 4,
                group=groups,
            )
        ]
        if op == "conv2d+bias+relu":
            nodes.append(helper.make_node("Relu", ["conv"], ["y"]))
        inputs = ["data"]
        feeds = {"data": arrays["data"]}
        initializers.append(onnx.numpy_helper.from_array(arrays["weight"], "weight"))
    graph = helper.make_graph(
        nodes,
        "workload",
        [helper.make_tensor_value_info(n, floats, list(arrays[n].shape)) for n in inputs],
        [helper.make_tensor_value_info("y", floats, None)],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    # The output's shape, inferred: the ONNX checker (our importer runs it) wants one.
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    return model.SerializeToString(), feeds


def onnxruntime_session(model: bytes, threads: int = 2) -> Any:
    """An ONNX Runtime CPU session with `threads` intra-op threads, or None if absent."""
    try:
        import onnxruntime
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def json_settings(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` command-line pairs as a dict, each value parsed as JSON."""
    return {key: json.loads(value) for key, _, value in (pair.partition("=") for pair in pairs)}
