"""The ai.onnx.ml ops, compiled and run: random forests (TreeEnsembleRegressor and
TreeEnsemble: every comparison rule, NaN features, several targets, each aggregate and
post-transform) and the linear and preprocessing ops, against onnxruntime; bad forests
refused naming the node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper
from onnx.reference import ReferenceEvaluator

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import ModelImportError, UnsupportedOpError
from tests.ir.frontend.onnx_helpers import IR_VERSION, run_onnxruntime

ML = "ai.onnx.ml"
LEGACY_RULES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def _model(
    node: onnx.NodeProto,
    x: np.ndarray,
    out_shape: list[int],
    ml_opset: int = 3,
    out_type: int = onnx.TensorProto.FLOAT,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        [node],
        "ml",
        [helper.make_tensor_value_info("x", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)],
        [helper.make_tensor_value_info("y", out_type, out_shape)],
    )
    opsets = [helper.make_opsetid("", 19), helper.make_opsetid(ML, ml_opset)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = IR_VERSION
    return model


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    target = host_target()
    return np.asarray(
        compile_model(prepare_for_target(model, target).function, target).run({"x": x})
    )


@dataclass
class _Trees:
    """Random trees in TreeEnsembleRegressor's attributes."""

    rng: np.random.Generator
    features: int
    targets: int
    every_target: bool  # each leaf weighs every target (else a random subset)
    attrs: dict[str, list[Any]] = field(default_factory=dict)

    def grow(self, tree: int, depth: int, rules: list[str]) -> None:
        def add(key: str, value: Any) -> None:
            self.attrs.setdefault(key, []).append(value)

        def node(level: int) -> int:
            ident = len([t for t in self.attrs.get("nodes_treeids", []) if t == tree])
            position = len(self.attrs.get("nodes_treeids", []))
            for key in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes"):
                add(key, 0)
            add("nodes_values", 0.0)
            for key in ("nodes_truenodeids", "nodes_falsenodeids"):
                add(key, 0)
            add("nodes_missing_value_tracks_true", int(self.rng.integers(0, 2)))
            self.attrs["nodes_treeids"][position] = tree
            self.attrs["nodes_nodeids"][position] = ident
            if level == depth or (level > 0 and self.rng.random() < 0.25):
                self.attrs["nodes_modes"][position] = "LEAF"
                count = (
                    self.targets if self.every_target else self.rng.integers(1, self.targets + 1)
                )
                for target in self.rng.choice(self.targets, count, replace=False):
                    add("target_treeids", tree)
                    add("target_nodeids", ident)
                    add("target_ids", int(target))
                    add("target_weights", float(self.rng.normal()))
                return ident
            rule = str(self.rng.choice(rules))
            self.attrs["nodes_modes"][position] = rule
            if rule == "BRANCH_NEQ":  # NaN != split: true in onnxruntime, the flag's in ONNX's
                self.attrs["nodes_missing_value_tracks_true"][position] = 1  # reference: agree
            self.attrs["nodes_featureids"][position] = int(self.rng.integers(0, self.features))
            # Thresholds on a grid the inputs also take, so that EQ and ties happen.
            self.attrs["nodes_values"][position] = float(self.rng.integers(-2, 3)) / 2
            self.attrs["nodes_truenodeids"][position] = node(level + 1)
            self.attrs["nodes_falsenodeids"][position] = node(level + 1)
            return ident

        node(0)


def _inputs(rng: np.random.Generator, rows: int, features: int) -> np.ndarray:
    x = (rng.integers(-3, 4, (rows, features)) / 2).astype(np.float32)
    x[rng.random((rows, features)) < 0.1] = np.nan
    return x


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    trees=st.integers(1, 6),
    depth=st.integers(0, 5),
    targets=st.integers(1, 3),
    aggregate=st.sampled_from(["SUM", "AVERAGE"]),
    transform=st.sampled_from(["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"]),
)
def test_tree_ensemble_regressor_matches_onnxruntime(
    seed: int, trees: int, depth: int, targets: int, aggregate: str, transform: str
) -> None:
    # onnxruntime applies no post-transform but PROBIT to one target's score; we (and
    # ONNX's definition) transform every score.
    transform = transform if targets > 1 else "NONE"
    rng = np.random.default_rng(seed)
    forest = _Trees(rng, features=5, targets=targets, every_target=transform != "NONE")
    for tree in range(trees):
        forest.grow(tree, depth, LEGACY_RULES)
    attrs: dict[str, Any] = {
        "n_targets": targets,
        "aggregate_function": aggregate,
        "post_transform": transform,
        "base_values": [float(v) for v in rng.normal(size=targets)],
        **forest.attrs,
    }
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], domain=ML, **attrs)
    x = _inputs(rng, 64, 5)
    model = _model(node, x, [64, targets])
    if transform == "NONE":  # ONNX's reference (onnxruntime gives 0 for a target no leaf weighs)
        (reference,) = ReferenceEvaluator(model).run(None, {"x": x})
        expected = np.asarray(reference)
    else:  # the reference has no post-transforms
        expected = run_onnxruntime(model, {"x": x})[0]
    np.testing.assert_allclose(_run(model, x), expected, rtol=1e-5, atol=1e-5)


def _tree_ensemble_node(rng: np.random.Generator, features: int, **extra: Any) -> onnx.NodeProto:
    """Two trees in TreeEnsemble's (ai.onnx.ml 5) form: every rule, a set membership."""
    # Tree 0: node 0 (x0 <= 0) -> node 1 (x1 in {0.5, 1}) | leaf 2; node 1 -> leaf 0 | node 2
    # (x2 != -0.5) -> leaf 1 | node 3 (x3 > 0) -> leaf 3 | leaf 4.
    # Tree 1: node 4 (x4 < 0.5) -> node 5 (x0 >= 1) | leaf 5; node 5 -> leaf 6 | node 6
    # (x1 == 0) -> leaf 7 | leaf 8.
    modes = np.array([0, 6, 5, 3, 1, 2, 4], np.uint8)
    return helper.make_node(
        "TreeEnsemble",
        ["x"],
        ["y"],
        domain=ML,
        nodes_featureids=[0, 1, 2, 3, 4, 0, 1],
        nodes_modes=helper.make_tensor("modes", onnx.TensorProto.UINT8, [7], modes),
        nodes_splits=helper.make_tensor(
            "splits", onnx.TensorProto.FLOAT, [7], [0, 0, -0.5, 0, 0.5, 1, 0]
        ),
        nodes_truenodeids=[1, 0, 1, 3, 5, 6, 7],
        nodes_trueleafs=[0, 1, 1, 1, 0, 1, 1],
        nodes_falsenodeids=[2, 2, 3, 4, 5, 6, 8],
        nodes_falseleafs=[1, 0, 0, 1, 1, 0, 1],
        nodes_missing_value_tracks_true=[1, 0, 0, 1, 0, 1, 0],
        membership_values=helper.make_tensor(
            "members", onnx.TensorProto.FLOAT, [3], [0.5, 1.0, np.nan]
        ),
        leaf_targetids=[0, 1, 0, 1, 0, 1, 0, 1, 0],
        leaf_weights=helper.make_tensor(
            "weights", onnx.TensorProto.FLOAT, [9], rng.normal(size=9).astype(np.float32)
        ),
        tree_roots=[0, 4],
        n_targets=2,
        **extra,
    )


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
def test_tree_ensemble_matches_onnxruntime(aggregate: int) -> None:
    rng = np.random.default_rng(aggregate)
    node = _tree_ensemble_node(rng, 5, aggregate_function=aggregate, post_transform=0)
    x = _inputs(rng, 200, 5)
    model = _model(node, x, [200, 2], ml_opset=5)
    expected = run_onnxruntime(model, {"x": x})[0]
    np.testing.assert_allclose(_run(model, x), expected, rtol=1e-6, atol=1e-6)


def test_linear_and_preprocessing_ops_match_onnxruntime() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(7, 4)).astype(np.float32)
    cases = [
        (
            helper.make_node(
                "Scaler", ["x"], ["y"], domain=ML, offset=[0.5, -1, 0, 2], scale=[2.0, 0.5, 1, -1]
            ),
            [7, 4],
        ),
        (helper.make_node("Normalizer", ["x"], ["y"], domain=ML, norm="L2"), [7, 4]),
        (helper.make_node("Normalizer", ["x"], ["y"], domain=ML, norm="MAX"), [7, 4]),
        (helper.make_node("Binarizer", ["x"], ["y"], domain=ML, threshold=0.25), [7, 4]),
        (
            helper.make_node(
                "LinearRegressor",
                ["x"],
                ["y"],
                domain=ML,
                coefficients=[float(v) for v in rng.normal(size=8)],
                intercepts=[0.5, -0.25],
                targets=2,
            ),
            [7, 2],
        ),
    ]
    for node, shape in cases:
        model = _model(node, x, shape, ml_opset=1)
        expected = run_onnxruntime(model, {"x": x})[0]
        np.testing.assert_allclose(
            _run(model, x), expected, rtol=1e-5, atol=1e-6, err_msg=node.op_type
        )


def test_a_tree_that_leads_to_a_missing_node_is_refused_naming_the_node() -> None:
    node = helper.make_node(
        "TreeEnsembleRegressor",
        ["x"],
        ["y"],
        name="forest",
        domain=ML,
        n_targets=1,
        nodes_treeids=[0, 0],
        nodes_nodeids=[0, 1],
        nodes_featureids=[0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF"],
        nodes_values=[0.0, 0.0],
        nodes_truenodeids=[1, 0],
        nodes_falsenodeids=[7, 0],
        target_treeids=[0],
        target_nodeids=[1],
        target_ids=[0],
        target_weights=[1.0],
    )
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ModelImportError, match=r"'forest'.*tree 0 has no node 7"):
        _run(_model(node, x, [2, 1]), x)


def test_an_ml_op_we_do_not_have_is_refused_by_name() -> None:
    node = helper.make_node("SVMRegressor", ["x"], ["y"], name="svm", domain=ML, coefficients=[1.0])
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(
        UnsupportedOpError, match=r"ai.onnx.ml.SVMRegressor \(node 'svm'\).*TreeEnsemble"
    ):
        _run(_model(node, x, [2, 1]), x)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    classes=st.integers(3, 5),
    transform=st.sampled_from(["NONE", "LOGISTIC", "SOFTMAX"]),
)
def test_tree_ensemble_classifier_matches_onnxruntime(
    seed: int, classes: int, transform: str
) -> None:
    rng = np.random.default_rng(seed)
    forest = _Trees(rng, features=5, targets=classes, every_target=True)
    for tree in range(4):
        forest.grow(tree, 4, LEGACY_RULES)
    attrs: dict[str, Any] = {
        key.replace("target", "class"): value for key, value in forest.attrs.items()
    }
    attrs["classlabels_int64s"] = [int(label) for label in rng.choice(100, classes, replace=False)]
    attrs["post_transform"] = transform
    attrs["base_values"] = [float(v) for v in rng.normal(size=classes)]
    node = helper.make_node("TreeEnsembleClassifier", ["x"], ["label", "y"], domain=ML, **attrs)
    x = _inputs(rng, 64, 5)
    graph = helper.make_graph(
        [node],
        "ml",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [
            helper.make_tensor_value_info("label", onnx.TensorProto.INT64, [64]),
            helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [64, classes]),
        ],
    )
    opsets = [helper.make_opsetid("", 19), helper.make_opsetid(ML, 3)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = IR_VERSION
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    label, scores = compiled.run({"x": x})
    want_label, want_scores = run_onnxruntime(model, {"x": x})
    np.testing.assert_allclose(np.asarray(scores), want_scores, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(label), want_label)


def test_a_two_class_forest_is_refused_naming_the_node() -> None:
    node = helper.make_node(
        "TreeEnsembleClassifier",
        ["x"],
        ["label", "y"],
        name="binary",
        domain=ML,
        classlabels_int64s=[0, 1],
        nodes_treeids=[0],
        nodes_nodeids=[0],
        nodes_featureids=[0],
        nodes_modes=["LEAF"],
        nodes_values=[0.0],
        nodes_truenodeids=[0],
        nodes_falsenodeids=[0],
        class_treeids=[0],
        class_nodeids=[0],
        class_ids=[1],
        class_weights=[1.0],
    )
    graph = helper.make_graph(
        [node],
        "ml",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("label", onnx.TensorProto.INT64, [2]),
            helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 2]),
        ],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 19), helper.make_opsetid(ML, 3)]
    )
    model.ir_version = IR_VERSION
    with pytest.raises(UnsupportedOpError, match=r"'binary'.*a forest of 2 classes"):
        _run(model, np.zeros((2, 3), np.float32))
