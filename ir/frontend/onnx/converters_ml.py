"""Converters for the ai.onnx.ml domain: tree ensembles (TreeEnsemble, and the
TreeEnsembleRegressor that scikit-learn, XGBoost and LightGBM exports carry), and the
linear and preprocessing ops around them (LinearRegressor, Scaler, Normalizer,
Binarizer, ArrayFeatureExtractor).

A forest becomes one table of nodes, leaves included (a leaf leads to itself), known
when compiling: per node its feature, threshold, rule, the nodes its two branches lead
to, and per leaf its weight for each target. The graph walks every tree at once: a
[batch, trees] tensor of current nodes, advanced as many times as the deepest tree is
deep, each step a gather of the node's feature from the input, a comparison with its
threshold and a choice between its branches (`take` of the constant tables). The
leaves' weights are then gathered and aggregated over the trees. The work is
batch x trees x depth gathers whatever the trees' shapes, where a matrix formulation
grows with the leaves of every tree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr
from ir.graph.types import TensorType

RULES = ("LEQ", "LT", "GTE", "GT", "EQ", "NEQ", "MEMBER")  # TreeEnsemble's modes, in order
AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")  # its aggregate_function values, in order
TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")  # its post_transform
SUPPORTED_TRANSFORMS = TRANSFORMS[:4]
LEAF = "LEAF"


@dataclass(frozen=True)
class Forest:
    """Trees as one table of M nodes, leaves included, and their K targets."""

    features: np.ndarray  # int64 [M]: the input feature a node compares
    thresholds: np.ndarray  # float64 [M]
    rules: tuple[str, ...]  # per node: one of RULES, or LEAF
    true_next: np.ndarray  # int64 [M]: where a node leads when its rule holds (a leaf: itself)
    false_next: np.ndarray  # int64 [M]
    missing_true: np.ndarray  # bool [M]: a NaN feature takes the true branch
    members: np.ndarray  # float64 [M, S]: a MEMBER node's set, NaN-padded
    roots: np.ndarray  # int64 [T]
    weights: np.ndarray  # float64 [M, K]: a leaf's summed weight for each target
    hits: np.ndarray  # bool [M, K]: whether a leaf gives a target a weight

    def depth(self, where: str) -> int:
        """The most branches a walk from a root to its leaf takes; ValueError naming
        `where` for branches that loop."""
        frontier = [int(root) for root in self.roots]
        for level in range(len(self.rules) + 1):
            following = [
                int(nexts[node])
                for node in frontier
                if self.rules[node] != LEAF
                for nexts in (self.true_next, self.false_next)
            ]
            if not following:
                return level
            frontier = sorted(set(following))
        raise ValueError(f"{where}: the trees' branches loop")


def _not(ctx: NodeContext, value: Expr) -> Expr:
    return ctx.call("equal", value, ctx.scalar(False, "bool"))


def _rule_holds(ctx: NodeContext, rule: str, value: Expr, threshold: Expr) -> Expr:
    """Whether `value` meets comparison `rule` against `threshold`, elementwise; never
    for a NaN value (`Forest.missing_true` says where a NaN goes)."""
    # LEQ and GTE as two compares, not less_equal / greater_equal: the threshold's lookup
    # then feeds two ops, so FuseOps keeps it and each level's walk step in kernels of
    # their own; with one compare, the step before fuses in and is recomputed for each of
    # the next level's table lookups (a 100-tree forest over 1000 rows on Zen 5: 1.40 ms
    # against 0.88 ms).
    if rule in ("LEQ", "GTE", "NEQ"):
        first, second = {"LEQ": ("less", "equal"), "GTE": ("greater", "equal")}.get(
            rule, ("less", "greater")
        )
        return ctx.call(
            "logical_or", ctx.call(first, value, threshold), ctx.call(second, value, threshold)
        )
    op = {"LT": "less", "GT": "greater", "EQ": "equal"}[rule]
    return ctx.call(op, value, threshold)


def leaves_reached(ctx: NodeContext, data: Expr, forest: Forest, where: str) -> Expr:
    """The leaf (a node index, int32 below 2**31 nodes) each tree of `forest` reaches for
    each row of the float `data` [N, F]: [N, T]. A NaN feature takes the branch
    `missing_true` says."""
    ty = data.checked_type
    assert isinstance(ty, TensorType)
    rows, dtype = ty.shape[0], ty.dtype
    # Node and feature indices in 32 bits: half the bytes of the tables the walk gathers.
    index = np.int32 if len(forest.rules) < 2**31 else np.int64
    start = np.broadcast_to(forest.roots.astype(index), (rows, len(forest.roots)))
    node: Expr = Constant(np.ascontiguousarray(start))
    rules = sorted({rule for rule in forest.rules if rule != LEAF}, key=RULES.index)
    rule_ids = np.array([RULES.index(r) if r != LEAF else -1 for r in forest.rules], index)

    def table(values: np.ndarray) -> Expr:
        return ctx.call("take", Constant(values), node, axis=0)

    for _ in range(forest.depth(where)):
        value = ctx.call("gather_elements", data, table(forest.features.astype(index)), axis=1)
        threshold = table(forest.thresholds.astype(dtype))
        holds: Expr | None = None
        for rule in rules:
            if rule == "MEMBER":
                sets = table(forest.members.astype(dtype))  # [N, T, S]
                matches = ctx.call("equal", ctx.call("expand_dims", value, axes=(2,)), sets)
                count = ctx.call("sum", ctx.call("cast", matches, dtype="int32"), axis=(2,))
                met = ctx.call("greater", count, ctx.scalar(0, "int32"))
            else:
                met = _rule_holds(ctx, rule, value, threshold)
            if holds is not None:
                this = ctx.call(
                    "equal", table(rule_ids), ctx.scalar(RULES.index(rule), np.dtype(index).name)
                )
                met = ctx.call("where", this, met, holds)
            holds = met
        assert holds is not None
        if forest.missing_true.any():  # else a NaN takes the false branch: no rule holds
            missing = _not(ctx, ctx.call("equal", value, value))
            holds = ctx.call("where", missing, table(forest.missing_true), holds)
        node = ctx.call(
            "where",
            holds,
            table(forest.true_next.astype(index)),
            table(forest.false_next.astype(index)),
        )
    return node


def forest_scores(ctx: NodeContext, data: Expr, forest: Forest, aggregate: str, where: str) -> Expr:
    """The forest's [N, K] scores for `data` [N, F]: each tree's leaf's weights,
    aggregated over the trees (`aggregate`, one of AGGREGATES; for MIN and MAX, a target
    no reached leaf weighs scores 0, as onnxruntime has it, where ONNX's reference
    evaluator leaves the dtype's extreme value)."""
    ty = data.checked_type
    assert isinstance(ty, TensorType)
    dtype = ty.dtype
    leaves = leaves_reached(ctx, data, forest, where)
    if aggregate in ("SUM", "AVERAGE"):
        weights = forest.weights
    else:
        empty = np.inf if aggregate == "MIN" else -np.inf
        weights = np.where(forest.hits, forest.weights, empty)
    picked = ctx.call("take", Constant(weights.astype(dtype)), leaves, axis=0)  # [N, T, K]
    if aggregate in ("SUM", "AVERAGE"):
        total = ctx.call("sum", picked, axis=(1,))
        if aggregate == "SUM":
            return total
        return ctx.call("divide", total, ctx.scalar(float(len(forest.roots)), dtype))
    reduced = ctx.call("min" if aggregate == "MIN" else "max", picked, axis=(1,))
    empty_score = ctx.scalar(float(np.inf if aggregate == "MIN" else -np.inf), dtype)
    unreached = ctx.call("equal", reduced, empty_score)
    return ctx.call("where", unreached, ctx.scalar(0.0, dtype), reduced)


def post_transformed(ctx: NodeContext, scores: Expr, transform: str) -> Expr:
    """`scores` [N, K] after `transform` (NONE, SOFTMAX, LOGISTIC or SOFTMAX_ZERO: a
    softmax over the nonzero scores, zero where a score is zero); PROBIT is refused."""
    if transform not in SUPPORTED_TRANSFORMS:
        raise ctx.unsupported_attr("post_transform", transform, SUPPORTED_TRANSFORMS)
    if transform == "LOGISTIC":
        return ctx.call("sigmoid", scores)
    if transform == "SOFTMAX":
        return ctx.call("nn.softmax", scores, axis=1)
    if transform == "SOFTMAX_ZERO":
        ty = scores.checked_type
        assert isinstance(ty, TensorType)
        zero = ctx.scalar(0.0, ty.dtype)
        nonzero = _not(ctx, ctx.call("equal", scores, zero))
        peak = ctx.call("max", scores, axis=(1,), keepdims=True)
        exps = ctx.call("exp", ctx.call("subtract", scores, peak))
        exps = ctx.call("where", nonzero, exps, zero)
        total = ctx.call("sum", exps, axis=(1,), keepdims=True)
        return ctx.call("divide", exps, total)
    return scores


def _float_rows(ctx: NodeContext, compute: str) -> Expr:
    """Input 0 as [N, F] of float dtype `compute` (a vector is one row)."""
    data, shape = ctx.input(0), ctx.shape(0)
    if len(shape) == 1:
        data = ctx.call("reshape", data, newshape=(1, shape[0]))
    elif len(shape) != 2:
        raise ctx.error(f"X must be [N, F] (or [F]), got shape {shape}")
    if ctx.dtype(0) != compute:
        data = ctx.call("cast", data, dtype=compute)
    return data


def _features_in_range(ctx: NodeContext, forest: Forest, features: int) -> None:
    used = forest.features[[rule != LEAF for rule in forest.rules]]
    if used.size and (used.min() < 0 or used.max() >= features):
        raise ctx.error(f"a node compares feature {int(used.max())}, but X has {features}")


# -- TreeEnsemble (ai.onnx.ml 5) --------------------------------------------------------------


def _member_sets(ctx: NodeContext, modes: np.ndarray) -> list[list[float]]:
    """Per MEMBER node in order, its set: membership_values, NaN-separated."""
    count = int(np.sum(modes == RULES.index("MEMBER")))
    if not count:
        return []
    values = ctx.attr("membership_values")
    if values is None:
        raise ctx.error("MEMBER nodes need membership_values")
    sets: list[list[float]] = [[]]
    for value in np.asarray(values, np.float64).reshape(-1):
        if np.isnan(value):
            sets.append([])
        else:
            sets[-1].append(float(value))
    if len(sets) < count:
        raise ctx.error(f"membership_values hold {len(sets)} sets for {count} MEMBER nodes")
    return sets[:count]


def _ints(ctx: NodeContext, name: str, required: bool = True) -> np.ndarray:
    value = ctx.attr(name)
    if value is None:
        if required:
            raise ctx.error(f"attribute {name} is required")
        return np.zeros(0, np.int64)
    return np.asarray(value, np.int64).reshape(-1)


def _floats(ctx: NodeContext, name: str) -> np.ndarray | None:
    """A float list attribute, or its `_as_tensor` form, as float64; None when absent."""
    for key in (name, f"{name}_as_tensor"):
        value = ctx.attr(key)
        if value is not None:
            return np.asarray(value, np.float64).reshape(-1)
    return None


def _tree_ensemble_forest(ctx: NodeContext) -> Forest:
    """TreeEnsemble's attributes as a Forest: its branch nodes first, then its leaves."""
    splits = _floats(ctx, "nodes_splits")
    modes = np.asarray(ctx.attr("nodes_modes", ()), np.int64).reshape(-1)
    features = _ints(ctx, "nodes_featureids")
    true_ids, false_ids = _ints(ctx, "nodes_truenodeids"), _ints(ctx, "nodes_falsenodeids")
    true_leaf, false_leaf = _ints(ctx, "nodes_trueleafs"), _ints(ctx, "nodes_falseleafs")
    targets, leaf_weights = _ints(ctx, "leaf_targetids"), _floats(ctx, "leaf_weights")
    roots = _ints(ctx, "tree_roots")
    branches = len(features)
    if splits is None or leaf_weights is None:
        raise ctx.error("attributes nodes_splits and leaf_weights are required")
    lengths = {len(a) for a in (splits, modes, true_ids, false_ids, true_leaf, false_leaf)}
    if lengths != {branches} or len(targets) != len(leaf_weights):
        raise ctx.error(
            "the nodes_* attributes, and leaf_targetids and leaf_weights, must match in length"
        )
    if np.any((modes < 0) | (modes >= len(RULES))):
        raise ctx.error(
            f"nodes_modes must be 0..{len(RULES) - 1}, got {sorted(set(modes.tolist()))}"
        )
    leaves = len(targets)
    n_targets = ctx.int_attr("n_targets", int(targets.max(initial=-1)) + 1)
    if leaves and (targets.min() < 0 or targets.max() >= n_targets):
        raise ctx.error(f"leaf_targetids must be in 0..{n_targets - 1}")
    total = branches + leaves

    def target(index: int, is_leaf: int) -> int:
        limit = leaves if is_leaf else branches
        if not 0 <= index < limit:
            raise ctx.error(f"a branch leads to {'leaf' if is_leaf else 'node'} {index} of {limit}")
        return branches + index if is_leaf else index

    true_next = np.arange(total, dtype=np.int64)
    false_next = np.arange(total, dtype=np.int64)
    for node in range(branches):
        true_next[node] = target(int(true_ids[node]), int(true_leaf[node]))
        false_next[node] = target(int(false_ids[node]), int(false_leaf[node]))
    rules = tuple(RULES[int(mode)] for mode in modes) + (LEAF,) * leaves
    missing = np.zeros(total, bool)
    tracks = _ints(ctx, "nodes_missing_value_tracks_true", required=False)
    if len(tracks):
        missing[:branches] = tracks.astype(bool)
    # NaN != split holds: a NaN meets NEQ whatever its branch says.
    missing[:branches] |= modes == RULES.index("NEQ")
    sets = _member_sets(ctx, modes)
    members = np.full((total, max([len(s) for s in sets], default=0)), np.nan)
    for member, values in zip(np.flatnonzero(modes == RULES.index("MEMBER")), sets, strict=True):
        members[member, : len(values)] = values
    weights = np.zeros((total, n_targets))
    hits = np.zeros((total, n_targets), bool)
    weights[branches + np.arange(leaves), targets] = leaf_weights
    hits[branches + np.arange(leaves), targets] = True
    if np.any((roots < 0) | (roots >= max(branches, 1))):
        raise ctx.error(f"tree_roots must be nodes 0..{branches - 1}")
    # A tree that is one leaf: its root's two branches lead to that leaf.
    starts = np.array(
        [
            true_next[root]
            if true_leaf[root] and false_leaf[root] and true_ids[root] == false_ids[root]
            else root
            for root in roots
        ],
        np.int64,
    )
    thresholds = np.zeros(total)
    thresholds[:branches] = splits
    all_features = np.zeros(total, np.int64)
    all_features[:branches] = features
    return Forest(
        all_features,
        thresholds,
        rules,
        true_next,
        false_next,
        missing,
        members,
        starts,
        weights,
        hits,
    )


def convert_tree_ensemble(ctx: NodeContext) -> ConverterResult:
    """TreeEnsemble (ai.onnx.ml 5): X [N, F] -> [N, n_targets] of X's dtype."""
    forest = _tree_ensemble_forest(ctx)
    dtype = ctx.dtype(0)
    compute = dtype if dtype in ("float32", "float64") else "float32"
    data = _float_rows(ctx, compute)
    _features_in_range(ctx, forest, ctx.shape(0)[-1])
    aggregate = ctx.int_attr("aggregate_function", 1)
    transform = ctx.int_attr("post_transform", 0)
    if not 0 <= aggregate < len(AGGREGATES) or not 0 <= transform < len(TRANSFORMS):
        raise ctx.error(
            f"aggregate_function {aggregate} or post_transform {transform} is out of range"
        )
    scores = forest_scores(ctx, data, forest, AGGREGATES[aggregate], ctx.where)
    scores = post_transformed(ctx, scores, TRANSFORMS[transform])
    return scores if compute == dtype else ctx.call("cast", scores, dtype=dtype)


# -- TreeEnsembleRegressor (ai.onnx.ml 1, 3) ----------------------------------------------------

_LEGACY_RULES = {f"BRANCH_{rule}": rule for rule in RULES if rule != "MEMBER"}


def _legacy_forest(ctx: NodeContext, n_targets: int, votes: str = "target") -> Forest:
    """TreeEnsembleRegressor's (or, with `votes` "class", TreeEnsembleClassifier's) nodes,
    keyed by tree and node id, and leaf votes as a Forest."""
    trees, ids = _ints(ctx, "nodes_treeids"), _ints(ctx, "nodes_nodeids")
    features = _ints(ctx, "nodes_featureids")
    true_ids, false_ids = _ints(ctx, "nodes_truenodeids"), _ints(ctx, "nodes_falsenodeids")
    modes = tuple(ctx.attr("nodes_modes", ()))
    values = _floats(ctx, "nodes_values")
    count = len(trees)
    if values is None:
        values = np.zeros(count)
    if {len(ids), len(features), len(true_ids), len(false_ids), len(modes), len(values)} != {count}:
        raise ctx.error("the nodes_* attributes must all have one value per node")
    unknown = sorted(set(modes) - set(_LEGACY_RULES) - {LEAF})
    if unknown:
        raise ctx.unsupported_attr("nodes_modes", unknown[0], [*_LEGACY_RULES, LEAF])
    index = {
        (int(tree), int(node)): position
        for position, (tree, node) in enumerate(zip(trees, ids, strict=True))
    }
    if len(index) != count:
        raise ctx.error("two nodes share a (tree id, node id)")

    def lookup(tree: int, node: int) -> int:
        found = index.get((tree, node))
        if found is None:
            raise ctx.error(f"tree {tree} has no node {node}")
        return found

    rules = tuple(_LEGACY_RULES.get(mode, LEAF) for mode in modes)
    true_next = np.arange(count, dtype=np.int64)
    false_next = np.arange(count, dtype=np.int64)
    children: set[int] = set()
    for position in range(count):
        if rules[position] != LEAF:
            tree = int(trees[position])
            true_next[position] = lookup(tree, int(true_ids[position]))
            false_next[position] = lookup(tree, int(false_ids[position]))
            children.update((int(true_next[position]), int(false_next[position])))
    heads: dict[int, list[int]] = {}  # per tree, in order of first appearance
    for position, tree in enumerate(trees.tolist()):
        found = heads.setdefault(tree, [])
        if position not in children:
            found.append(position)
    for tree, found in heads.items():
        if len(found) != 1:
            raise ctx.error(f"tree {tree} must have one root, has {len(found)}")
    roots = [found[0] for found in heads.values()]
    missing = np.zeros(count, bool)
    tracks = _ints(ctx, "nodes_missing_value_tracks_true", required=False)
    if len(tracks):
        missing = tracks.astype(bool)
    # NaN != split holds, as onnxruntime and TreeEnsemble have it.
    missing |= np.array([rule == "NEQ" for rule in rules], bool)
    weights = np.zeros((count, n_targets))
    hits = np.zeros((count, n_targets), bool)
    target_trees, target_nodes = _ints(ctx, f"{votes}_treeids"), _ints(ctx, f"{votes}_nodeids")
    target_ids, target_weights = _ints(ctx, f"{votes}_ids"), _floats(ctx, f"{votes}_weights")
    if target_weights is None or not len(target_trees) == len(target_nodes) == len(
        target_ids
    ) == len(target_weights):
        raise ctx.error(f"the {votes}_* attributes must all have one value per weight")
    for tree, node, target, weight in zip(
        target_trees, target_nodes, target_ids, target_weights, strict=True
    ):
        if not 0 <= target < n_targets:
            raise ctx.error(f"target id {int(target)} is not below n_targets={n_targets}")
        leaf = lookup(int(tree), int(node))
        weights[leaf, target] += weight
        hits[leaf, target] = True
    members = np.zeros((count, 0))
    return Forest(
        features,
        values,
        rules,
        true_next,
        false_next,
        missing,
        members,
        np.array(roots, np.int64),
        weights,
        hits,
    )


def convert_tree_ensemble_regressor(ctx: NodeContext) -> ConverterResult:
    """TreeEnsembleRegressor: X [N, F] (float, double, int64 or int32) -> float32
    [N, n_targets]: the trees' aggregated weights plus base_values, post-transformed."""
    n_targets = ctx.int_attr("n_targets", 1)
    forest = _legacy_forest(ctx, n_targets)
    compute = "float64" if ctx.dtype(0) == "float64" else "float32"
    data = _float_rows(ctx, compute)
    _features_in_range(ctx, forest, ctx.shape(0)[-1])
    aggregate = ctx.choice_attr("aggregate_function", "SUM", AGGREGATES)
    scores = forest_scores(ctx, data, forest, aggregate, ctx.where)
    base = _floats(ctx, "base_values")
    if base is not None and len(base):
        if len(base) != n_targets:
            raise ctx.error(f"base_values has {len(base)} values for n_targets={n_targets}")
        scores = ctx.call("add", scores, Constant(base.astype(compute).reshape(1, -1)))
    transform = ctx.choice_attr("post_transform", "NONE", TRANSFORMS)
    scores = post_transformed(ctx, scores, transform)
    return scores if compute == "float32" else ctx.call("cast", scores, dtype="float32")


def convert_tree_ensemble_classifier(ctx: NodeContext) -> ConverterResult:
    """TreeEnsembleClassifier with int64 class labels: X [N, F] -> (the label of each row's
    highest score [N] int64, the float32 scores [N, classes]: the trees' summed class
    weights plus base_values, post-transformed), for three or more classes; two-class
    forests (which onnxruntime scores in a form of its own) and string labels are
    refused by name."""
    labels = ctx.attr("classlabels_int64s")
    if labels is None:
        raise ctx.unsupported("string class labels (classlabels_strings) are not supported")
    classes = len(labels)
    forest = _legacy_forest(ctx, classes, votes="class")
    if classes < 3:
        raise ctx.unsupported(
            f"a forest of {classes} classes: onnxruntime scores two classes in a form of "
            "its own (one score and its negation or complement), not supported here; "
            "three or more classes are"
        )
    compute = "float64" if ctx.dtype(0) == "float64" else "float32"
    data = _float_rows(ctx, compute)
    _features_in_range(ctx, forest, ctx.shape(0)[-1])
    scores = forest_scores(ctx, data, forest, "SUM", ctx.where)
    base = _floats(ctx, "base_values")
    if base is not None and len(base):
        if len(base) != classes:
            raise ctx.error(f"base_values has {len(base)} values for {classes} classes")
        scores = ctx.call("add", scores, Constant(base.astype(compute).reshape(1, -1)))
    best = ctx.call("argmax", scores, axis=1, keepdims=False)
    label = ctx.call("take", Constant(np.asarray(labels, np.int64)), best, axis=0)
    scores = post_transformed(ctx, scores, ctx.choice_attr("post_transform", "NONE", TRANSFORMS))
    if compute != "float32":
        scores = ctx.call("cast", scores, dtype="float32")
    return [label, scores]


# -- linear and preprocessing ops -------------------------------------------------------------


def convert_linear_regressor(ctx: NodeContext) -> ConverterResult:
    """LinearRegressor: X [N, F] -> float32 [N, targets] = X @ coefficients^T + intercepts."""
    targets = ctx.int_attr("targets", 1)
    data = _float_rows(ctx, "float32")
    features = ctx.shape(0)[-1]
    coefficients = np.asarray(ctx.attr("coefficients", ()), np.float32)
    if coefficients.size != targets * features:
        raise ctx.error(
            f"coefficients hold {coefficients.size} values for {targets} targets of "
            f"{features} features"
        )
    scores = ctx.call("nn.dense", data, Constant(coefficients.reshape(targets, features)))
    intercepts = ctx.attr("intercepts")
    if intercepts:
        scores = ctx.call(
            "add", scores, Constant(np.asarray(intercepts, np.float32).reshape(1, -1))
        )
    return post_transformed(ctx, scores, ctx.choice_attr("post_transform", "NONE", TRANSFORMS))


def convert_scaler(ctx: NodeContext) -> ConverterResult:
    """Scaler: float32 (X - offset) * scale, offset and scale one value or one per feature."""
    data = ctx.input(0)
    if ctx.dtype(0) != "float32":
        data = ctx.call("cast", data, dtype="float32")
    offset = np.asarray(ctx.attr("offset", (0.0,)), np.float32)
    scale = np.asarray(ctx.attr("scale", (1.0,)), np.float32)
    shifted = ctx.call("subtract", data, Constant(offset))
    return ctx.call("multiply", shifted, Constant(scale))


def convert_normalizer(ctx: NodeContext) -> ConverterResult:
    """Normalizer: each row of float32 X [N, F] over its largest value (MAX, as ONNX
    defines it and onnxruntime computes it; a row whose largest value is 0 stays as it
    is), or its L1 or L2 norm (at least 1e-30)."""
    norm = ctx.choice_attr("norm", "MAX", ("MAX", "L1", "L2"))
    data = _float_rows(ctx, "float32")
    if norm == "MAX":
        largest = ctx.call("max", data, axis=(1,), keepdims=True)
        zero = ctx.call("equal", largest, ctx.scalar(0.0, "float32"))
        return ctx.call("where", zero, data, ctx.call("divide", data, largest))
    if norm == "L1":
        size = ctx.call("sum", ctx.call("abs", data), axis=(1,), keepdims=True)
    else:
        squares = ctx.call("sum", ctx.call("multiply", data, data), axis=(1,), keepdims=True)
        size = ctx.call("sqrt", squares)
    size = ctx.call("maximum", size, ctx.scalar(1e-30, "float32"))
    return ctx.call("divide", data, size)


def convert_binarizer(ctx: NodeContext) -> ConverterResult:
    """Binarizer: 1 where X > threshold, else 0, in X's type."""
    threshold = ctx.scalar(ctx.float_attr("threshold", 0.0), ctx.dtype(0))
    above = ctx.call("greater", ctx.input(0), threshold)
    return ctx.call("cast", above, dtype=ctx.dtype(0))


def convert_array_feature_extractor(ctx: NodeContext) -> ConverterResult:
    """ArrayFeatureExtractor(X [..., F], indices) -> X's last axis at the indices (flattened):
    [..., len(indices)] (a vector X gives one row), as onnxruntime computes it."""
    data, shape = ctx.input(0), ctx.shape(0)
    indices = ctx.input(1)
    count = int(np.prod(ctx.shape(1)))
    flat = ctx.call("reshape", indices, newshape=(count,))
    picked = ctx.call("take", data, flat, axis=len(shape) - 1)
    return picked if len(shape) > 1 else ctx.call("reshape", picked, newshape=(1, count))


ML_CONVERTERS: dict[str, Converter] = {
    "ArrayFeatureExtractor": convert_array_feature_extractor,
    "Binarizer": convert_binarizer,
    "LinearRegressor": convert_linear_regressor,
    "Normalizer": convert_normalizer,
    "Scaler": convert_scaler,
    "TreeEnsemble": convert_tree_ensemble,
    "TreeEnsembleClassifier": convert_tree_ensemble_classifier,
    "TreeEnsembleRegressor": convert_tree_ensemble_regressor,
}
