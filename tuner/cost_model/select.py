"""Pick the better XGBoost objective for measured data: train both, compare on held-out rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tuner.cost_model.base import normalize_per_task
from tuner.cost_model.metrics import pairwise_accuracy, per_task_mean, top_k_recall
from tuner.cost_model.xgb_model import OBJECTIVES, XGBCostModel


@dataclass(frozen=True)
class ObjectiveScore:
    """Held-out metrics of one objective (averaged over tasks)."""

    objective: str
    top_k_recall: float
    pairwise_accuracy: float


@dataclass(frozen=True)
class ObjectiveChoice:
    """Both objectives' scores and the chosen one (best top-k recall, then pairwise)."""

    best: str
    scores: tuple[ObjectiveScore, ...]


def choose_objective(
    features_list: Sequence[np.ndarray],
    throughputs: Sequence[float],
    task_keys: Sequence[str],
    *,
    k: int = 8,
    holdout_fraction: float = 0.3,
    seed: int = 0,
) -> ObjectiveChoice:
    """Train "reg" and "rank" on the same rows, score them on the same held-out rows.

    The held-out part is drawn per task so every task is represented on both sides.
    """
    keys = np.asarray([str(key) for key in task_keys])
    rng = np.random.default_rng(seed)
    held = np.zeros(len(keys), dtype=bool)
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        count = round(len(rows) * holdout_fraction)
        if len(rows) >= 4 and count >= 2:
            held[rng.choice(rows, count, replace=False)] = True
    train_rows = [int(i) for i in np.flatnonzero(~held)]
    test_rows = [int(i) for i in np.flatnonzero(held)]
    actual = normalize_per_task(np.asarray(throughputs, dtype=np.float64), keys)
    scores = []
    for objective in OBJECTIVES:
        model = XGBCostModel(objective=objective, min_samples=1, seed=seed)
        model.update(
            [features_list[i] for i in train_rows],
            [throughputs[i] for i in train_rows],
            [str(keys[i]) for i in train_rows],
        )
        pred = model.predict([features_list[i] for i in test_rows])
        truth, test_keys = actual[test_rows], keys[test_rows]
        scores.append(
            ObjectiveScore(
                objective=objective,
                top_k_recall=per_task_mean(
                    lambda p, a: top_k_recall(p, a, k), pred, truth, test_keys
                ),
                pairwise_accuracy=per_task_mean(pairwise_accuracy, pred, truth, test_keys),
            )
        )
    best = max(scores, key=lambda s: (_finite(s.top_k_recall), _finite(s.pairwise_accuracy)))
    return ObjectiveChoice(best.objective, tuple(scores))


def _finite(value: float) -> float:
    return value if np.isfinite(value) else -1.0
