"""Int8 models against onnxruntime's int8 run: a ResNet-50 and a MobileNetV2, quantized
by onnxruntime's `quantize_static` (QDQ, or its QOperator form with `--qoperator`;
per-channel int8 weights, uint8 activations, calibrated on a few seeded random inputs).

    .venv/bin/python bench/int8.py [--models resnet50 mobilenet_v2] [--target T]
        [--reduce-range] [--qoperator] [--tune-s SECONDS] [--output FILE]

Both networks are built here with onnx.helper (batch norms folded, as exporters and
onnxruntime's pre-processing leave them), seeded He-initialised weights and biases drawn
so that every layer's activations keep a spread: no pretrained weights. Per model, in
one run on this host (2 threads everywhere, timed in turns): our untuned latency of the
float model and of the int8 model, onnxruntime's of both, and how far our int8 output
lies from onnxruntime's int8 output, in steps of the output's quantization scale.
Untuned: `autotune tune` is not run here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import onnxruntime_session, time_in_turn
from ir.graph.nodes import Call, Function
from ir.graph.ops.quantized import computes_on_integers
from ir.graph.traversal import post_order

INPUT = "input"
ORT_SETTLE_S = 0.1  # (see bench.common.time_in_turn)
TRIALS = 100_000  # tuning is bounded by --tune-s
TURNS = 15  # timing turns per runner (this 2-core host's speed swings by 20% within minutes)
IMAGE = (1, 3, 224, 224)


class _Builder:
    """An ONNX graph built node by node, its weights seeded."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.count = 0

    def _name(self, kind: str) -> str:
        self.count += 1
        return f"{kind}{self.count}"

    def _constant(self, array: np.ndarray, kind: str) -> str:
        name = self._name(kind)
        self.initializers.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv(
        self, x: str, cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1
    ) -> str:
        """A conv with a bias (a folded batch norm's shift), He-initialised."""
        fan_in = cin // groups * kernel * kernel
        weight = self.rng.standard_normal((cout, cin // groups, kernel, kernel))
        weight *= np.sqrt(2.0 / fan_in)
        bias = self.rng.normal(0.0, 0.1, cout)
        out = self._name("conv")
        pad = kernel // 2
        self.nodes.append(
            helper.make_node(
                "Conv",
                [x, self._constant(weight, "w"), self._constant(bias, "b")],
                [out],
                pads=[pad] * 4,
                strides=[stride, stride],
                group=groups,
                name=out,
            )
        )
        return out

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        out = self._name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=out, **attrs))
        return out

    def relu6(self, x: str) -> str:
        low = self._constant(np.array(0.0), "lo")
        high = self._constant(np.array(6.0), "hi")
        return self.op("Clip", x, low, high)

    def classifier(self, x: str, channels: int) -> str:
        pooled = self.op("Flatten", self.op("GlobalAveragePool", x), axis=1)
        weight = self.rng.standard_normal((1000, channels)) * np.sqrt(1.0 / channels)
        bias = self.rng.normal(0.0, 0.1, 1000)
        return self.op(
            "Gemm", pooled, self._constant(weight, "fc_w"), self._constant(bias, "fc_b"), transB=1
        )

    def model(self, output: str, name: str) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            name,
            [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, list(IMAGE))],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, 1000])],
            self.initializers,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        return model


def resnet50(seed: int = 0) -> onnx.ModelProto:
    """ResNet-50 v1.5 (stride in the 3x3 conv), batch norms folded into the convs."""
    b = _Builder(seed)
    x = b.op("Relu", b.conv(INPUT, 3, 64, 7, stride=2))
    x = b.op("MaxPool", x, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    channels = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for index in range(blocks):
            step = stride if index == 0 else 1
            y = b.op("Relu", b.conv(x, channels, width, 1))
            y = b.op("Relu", b.conv(y, width, width, 3, stride=step))
            y = b.conv(y, width, width * 4, 1)
            shortcut = x if index else b.conv(x, channels, width * 4, 1, stride=step)
            x = b.op("Relu", b.op("Add", y, shortcut))
            channels = width * 4
    return b.model(b.classifier(x, channels), "resnet50")


def mobilenet_v2(seed: int = 0) -> onnx.ModelProto:
    """MobileNetV2 (width 1.0): inverted residual blocks, ReLU6 as Clip(0, 6)."""
    b = _Builder(seed)
    x = b.relu6(b.conv(INPUT, 3, 32, 3, stride=2))
    channels = 32
    settings = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1))
    settings += ((6, 160, 3, 2), (6, 320, 1, 1))
    for expansion, out, repeats, stride in settings:
        for index in range(repeats):
            step = stride if index == 0 else 1
            hidden = channels * expansion
            y = b.relu6(b.conv(x, channels, hidden, 1)) if expansion != 1 else x
            y = b.relu6(b.conv(y, hidden, hidden, 3, stride=step, groups=hidden))
            y = b.conv(y, hidden, out, 1)
            x = b.op("Add", x, y) if step == 1 and channels == out else y
            channels = out
    x = b.relu6(b.conv(x, channels, 1280, 1))
    return b.model(b.classifier(x, 1280), "mobilenet_v2")


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "resnet50": resnet50,
    "mobilenet_v2": mobilenet_v2,
}


def random_images(count: int, seed: int) -> list[dict[str, np.ndarray]]:
    """`count` seeded input images, roughly normalised."""
    rng = np.random.default_rng(seed)
    return [{INPUT: rng.standard_normal(IMAGE).astype(np.float32)} for _ in range(count)]


def quantize_with_onnxruntime(
    model: onnx.ModelProto, directory: Path, reduce_range: bool = False, qoperator: bool = False
) -> onnx.ModelProto:
    """`model` quantized by onnxruntime's quantize_static: QDQ (QOperator with
    `qoperator`: QLinearConv, com.microsoft's QLinearAdd...), per-channel int8 weights
    (7-bit with `reduce_range`, as onnxruntime advises for CPUs without VNNI), uint8
    activations, min-max calibration on 8 seeded random images."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.batches: Iterator[dict[str, np.ndarray]] = iter(random_images(8, seed=1))

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    source, target = directory / "float.onnx", directory / "int8.onnx"
    onnx.save(model, str(source))
    quantize_static(
        str(source),
        str(target),
        Reader(),
        quant_format=QuantFormat.QOperator if qoperator else QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        reduce_range=reduce_range,
    )
    return onnx.load(str(target))


def output_scale(model: onnx.ModelProto) -> float:
    """The quantization scale of the model's output (its last DequantizeLinear's)."""
    output = model.graph.output[0].name
    values = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.output[0] == output:
            return float(values[node.input[1]])
    raise ValueError("the model's output is not a DequantizeLinear")


def tuned_records(model_path: Path, target: str, seconds: float) -> tuple[list[Any], float]:
    """The records of `autotune tune` run on the model at `model_path` for `seconds`
    (a child process, as a user runs it), and its wall time in seconds."""
    import json
    import subprocess
    import time

    from tuner.records import load_records

    records = model_path.with_suffix(".records.jsonl")
    command = [
        str(Path(sys.executable).parent / "autotune"), "tune", str(model_path),
        "--target", target, "--trials", str(TRIALS), "--time-limit", str(seconds),
        "--records", str(records), "--json",
    ]  # fmt: skip
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wall_s = time.perf_counter() - started
    if completed.returncode not in (0, 1):  # 1: some task had no correct candidate
        raise RuntimeError(f"autotune tune failed: {completed.stderr[-3000:]}")
    json.loads(completed.stdout)  # (a summary, or the run failed)
    return (load_records(records) if records.exists() else []), wall_s


def measure(
    name: str,
    directory: Path,
    target_text: str,
    reduce_range: bool,
    qoperator: bool,
    tune_s: float = 0.0,
) -> dict[str, Any]:
    """One row of the report (module docstring); with `tune_s`, also the int8 model
    tuned for that long."""
    from codegen.executor import compile_model
    from codegen.llvm.target import parse_cpu_target
    from codegen.prepare import prepare_for_target
    from tuner.records import records_chooser

    float_model = MODELS[name]()
    int8_model = quantize_with_onnxruntime(float_model, directory, reduce_range, qoperator)
    target = parse_cpu_target(target_text)
    ours = {
        kind: compile_model(prepare_for_target(model, target).function, target)
        for kind, model in (("float", float_model), ("int8", int8_model))
    }
    tuning: dict[str, Any] = {}
    if tune_s > 0:
        int8_path = directory / f"{name}.int8.onnx"
        onnx.save(int8_model, str(int8_path))
        records, tuning["tune_s"] = tuned_records(int8_path, str(target), tune_s)
        chooser = records_chooser(records, str(target))
        ours["int8_tuned"] = compile_model(
            prepare_for_target(int8_model, target).function, target, chooser
        )
    theirs = {
        kind: onnxruntime_session(model.SerializeToString())
        for kind, model in (("float", float_model), ("int8", int8_model))
    }
    integer = sum(
        1
        for node in post_order(ours["int8"].function.body)
        if isinstance(node, Call)
        and isinstance(node.op, Function)
        and computes_on_integers(node.op)
    )
    step = output_scale(int8_model)
    worst = 0.0
    for inputs in random_images(4, seed=7):
        got = np.asarray(ours["int8"].run(inputs))
        want = theirs["int8"].run(None, inputs)[0]
        worst = max(worst, float(np.abs(got - want).max()) / step)
    image = random_images(1, seed=9)[0]
    runners: dict[str, Callable[[], object]] = {
        f"ours_{kind}": (lambda m=compiled: m.run(image)) for kind, compiled in ours.items()
    }
    runners.update(
        {f"ort_{kind}": (lambda s=session: s.run(None, image)) for kind, session in theirs.items()}
    )
    seconds = time_in_turn(runners, rounds=TURNS, settle_s=ORT_SETTLE_S)
    return {
        "model": name,
        "integer_kernels": integer,
        "error_steps": worst,
        **{key: value * 1e3 for key, value in seconds.items()},
        **tuning,
    }


def report(
    rows: list[dict[str, Any]],
    host: str,
    target: str,
    reduce_range: bool,
    qoperator: bool = False,
    tune_s: float = 0.0,
) -> list[str]:
    """The table of `rows` (ms; ratios against onnxruntime's int8 and our float)."""
    weights = "7-bit (reduce_range)" if reduce_range else "8-bit"
    form = "QOperator" if qoperator else "QDQ"
    tuned = f"int8 also tuned for {tune_s:.0f} s ('tuned')" if tune_s else "untuned"
    lines = [
        f"host: {host} (2 threads); our code for: {target}; {form} models, {weights} int8 "
        f"weights; {tuned}; latencies: median of {TURNS} turns, ms",
        "",
        f"{'model':14} {'int convs':>11} {'err steps':>9} {'ours f32':>9} {'ours i8':>9} "
        f"{'ORT f32':>9} {'ORT i8':>9} {'i8/ORT i8':>9} {'f32/i8':>7}"
        + (f" {'tuned i8':>9} {'tuned/ORT':>9} {'tune s':>7}" if tune_s else ""),
    ]
    for row in rows:
        lines.append(
            f"{row['model']:14} {row['integer_kernels']:>11} {row['error_steps']:>9.1f} "
            f"{row['ours_float']:>9.2f} {row['ours_int8']:>9.2f} {row['ort_float']:>9.2f} "
            f"{row['ort_int8']:>9.2f} {row['ours_int8'] / row['ort_int8']:>9.2f} "
            f"{row['ours_float'] / row['ours_int8']:>7.2f}"
            + (
                f" {row['ours_int8_tuned']:>9.2f} {row['ours_int8_tuned'] / row['ort_int8']:>9.2f}"
                f" {row['tune_s']:>7.0f}"
                if "ours_int8_tuned" in row
                else ""
            )
        )
    lines.append(
        "('err steps': the largest |ours - onnxruntime| of the int8 logits over 4 inputs, in "
        "output quantization steps; 'f32/i8': our float latency over our int8 latency)"
    )
    return lines


def main() -> int:
    import tempfile

    import llvmlite.binding as llvm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    parser.add_argument("--output", type=Path, help="also write the report here")
    parser.add_argument(
        "--target", default="llvm", help="compile our models for this CPU (default: the host)"
    )
    parser.add_argument(
        "--reduce-range", action="store_true", help="quantize weights to 7 bits (onnxruntime's)"
    )
    parser.add_argument(
        "--qoperator", action="store_true", help="onnxruntime's QOperator form, not QDQ"
    )
    parser.add_argument(
        "--tune-s", type=float, default=0.0, help="also tune each int8 model this long"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        rows = [
            measure(name, Path(work), args.target, args.reduce_range, args.qoperator, args.tune_s)
            for name in args.models
        ]
    from codegen.llvm.target import parse_cpu_target

    target = str(parse_cpu_target(args.target))
    host = str(llvm.get_host_cpu_name())
    lines = report(rows, host, target, args.reduce_range, args.qoperator, args.tune_s)
    print("\n".join(lines))
    if args.output:
        args.output.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
