"""Tree ensembles (ai.onnx.ml) against onnxruntime: forests shaped like the exports of
scikit-learn (a random forest regressor: BRANCH_LEQ, AVERAGE), XGBoost (boosted trees:
BRANCH_LT, SUM plus a base value, a LOGISTIC output) and a three-class classifier
(BRANCH_LEQ, SOFTMAX), with seeded random splits: no trained model is needed to time the
walk, and the results are checked against onnxruntime's.

    .venv/bin/python bench/forests.py [--rows N] [--output FILE]

Per forest, in one run on this host (2 threads everywhere, timed in turns): the largest
difference from onnxruntime's output, our latency (default schedules) and onnxruntime's.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import onnxruntime_session, time_in_turn
from bench.onnx_conformance import host_name

ML = "ai.onnx.ml"
FEATURES = 20


@dataclass(frozen=True)
class ForestShape:
    """What a benchmark forest looks like."""

    name: str
    op: str
    trees: int
    depth: int
    rule: str
    outputs: int  # targets, or classes
    attrs: tuple[tuple[str, Any], ...]


SHAPES = (
    ForestShape(
        "sklearn_rf_100x8",
        "TreeEnsembleRegressor",
        100,
        8,
        "BRANCH_LEQ",
        1,
        (("aggregate_function", "AVERAGE"),),
    ),
    ForestShape(
        "xgboost_300x6",
        "TreeEnsembleRegressor",
        300,
        6,
        "BRANCH_LT",
        1,
        (("aggregate_function", "SUM"), ("base_values", [0.5])),
    ),
    ForestShape(
        "classifier_3x50x8",
        "TreeEnsembleClassifier",
        50,
        8,
        "BRANCH_LEQ",
        3,
        (("post_transform", "SOFTMAX"), ("classlabels_int64s", [0, 1, 2])),
    ),
)


def forest_attributes(shape: ForestShape, rng: np.random.Generator) -> dict[str, list[Any]]:
    """Full binary trees of `shape.depth` levels with random features and thresholds, and
    a random weight per output at each leaf, in the legacy ensembles' attributes."""
    votes = "class" if shape.op == "TreeEnsembleClassifier" else "target"
    attrs: dict[str, list[Any]] = {}
    for key in (
        "treeids",
        "nodeids",
        "featureids",
        "modes",
        "values",
        "truenodeids",
        "falsenodeids",
    ):
        attrs[f"nodes_{key}"] = []
    for key in ("treeids", "nodeids", "ids", "weights"):
        attrs[f"{votes}_{key}"] = []
    internal = 2**shape.depth - 1
    for tree in range(shape.trees):
        for node in range(2 * internal + 1):
            leaf = node >= internal
            attrs["nodes_treeids"].append(tree)
            attrs["nodes_nodeids"].append(node)
            attrs["nodes_featureids"].append(0 if leaf else int(rng.integers(FEATURES)))
            attrs["nodes_modes"].append("LEAF" if leaf else shape.rule)
            attrs["nodes_values"].append(0.0 if leaf else float(rng.normal()))
            attrs["nodes_truenodeids"].append(0 if leaf else 2 * node + 1)
            attrs["nodes_falsenodeids"].append(0 if leaf else 2 * node + 2)
            if leaf:
                for output in range(shape.outputs):
                    attrs[f"{votes}_treeids"].append(tree)
                    attrs[f"{votes}_nodeids"].append(node)
                    attrs[f"{votes}_ids"].append(output)
                    attrs[f"{votes}_weights"].append(float(rng.normal()))
    return attrs


def forest_model(shape: ForestShape, rows: int, seed: int = 0) -> onnx.ModelProto:
    """The forest as a one-node ONNX model of input x [rows, FEATURES]."""
    attrs: dict[str, Any] = {**forest_attributes(shape, np.random.default_rng(seed))}
    attrs.update(dict(shape.attrs))
    if shape.op == "TreeEnsembleRegressor":
        attrs["n_targets"] = shape.outputs
        outputs = ["y"]
        infos = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, shape.outputs])]
    else:
        outputs = ["label", "y"]
        infos = [
            helper.make_tensor_value_info("label", TensorProto.INT64, [rows]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, shape.outputs]),
        ]
    node = helper.make_node(shape.op, ["x"], outputs, domain=ML, **attrs)
    graph = helper.make_graph(
        [node],
        shape.name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, FEATURES])],
        infos,
    )
    opsets = [helper.make_opsetid("", 19), helper.make_opsetid(ML, 3)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    return model


def measure(shape: ForestShape, rows: int) -> dict[str, float]:
    """Our latency and onnxruntime's (seconds) and the largest output difference."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    model = forest_model(shape, rows)
    x = np.random.default_rng(1).normal(size=(rows, FEATURES)).astype(np.float32)
    target = host_target()
    ours = compile_model(prepare_for_target(model, target).function, target)
    theirs = onnxruntime_session(model.SerializeToString())
    ours_out = ours.run({"x": x})
    mine = np.asarray(ours_out[-1] if isinstance(ours_out, tuple) else ours_out)
    reference = theirs.run(None, {"x": x})[-1]
    times = time_in_turn(
        {"ours": lambda: ours.run({"x": x}), "onnxruntime": lambda: theirs.run(None, {"x": x})},
        rounds=7,
        settle_s=0.1,
    )
    return {"error": float(np.abs(mine - reference).max()), **times}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    lines = [
        f"host: {host_name()} (2 threads); tree ensembles of random splits over {args.rows} rows "
        f"of {FEATURES} features; latencies: median of 7 turns, ms",
        "",
        f"{'forest':<22}{'op':<24}{'nodes':>8}{'max err':>10}{'ours':>9}{'ORT':>9}{'ours/ORT':>10}",
    ]
    for shape in SHAPES:
        result = measure(shape, args.rows)
        nodes = shape.trees * (2 ** (shape.depth + 1) - 1)
        lines.append(
            f"{shape.name:<22}{shape.op:<24}{nodes:>8}{result['error']:>10.1e}"
            f"{result['ours'] * 1e3:>9.3f}{result['onnxruntime'] * 1e3:>9.3f}"
            f"{result['ours'] / result['onnxruntime']:>10.2f}"
        )
        print(lines[-1], flush=True)
    report = "\n".join(lines) + "\n"
    print(report)
    if args.output:
        args.output.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
