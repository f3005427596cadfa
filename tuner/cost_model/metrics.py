"""Ranking metrics of a cost model: do predicted scores order candidates like measurements?"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

MAX_PAIRWISE_ROWS = 2048  # above this, pairs are counted on a fixed random subsample


def pairwise_accuracy(pred: np.ndarray, actual: np.ndarray) -> float:
    """Fraction of pairs with different actual values that `pred` orders the same way.

    A tie in `pred` counts as half right. 1.0 is a perfect order, 0.5 a random one;
    with no comparable pair the answer is 0.5.
    """
    pred = np.asarray(pred, dtype=np.float64)
    actual = np.asarray(actual, dtype=np.float64)
    if len(pred) > MAX_PAIRWISE_ROWS:
        rows = np.random.default_rng(0).choice(len(pred), MAX_PAIRWISE_ROWS, replace=False)
        pred, actual = pred[rows], actual[rows]
    actual_order = np.sign(actual[:, None] - actual[None, :])
    pred_order = np.sign(pred[:, None] - pred[None, :])
    comparable = actual_order > 0  # each unordered pair once
    total = int(comparable.sum())
    if total == 0:
        return 0.5
    right = (pred_order[comparable] > 0).sum() + 0.5 * (pred_order[comparable] == 0).sum()
    return float(right / total)


def top_k_recall(pred: np.ndarray, actual: np.ndarray, k: int) -> float:
    """How many of the k truly best candidates are among the k best predicted (0 to 1)."""
    pred = np.asarray(pred, dtype=np.float64)
    actual = np.asarray(actual, dtype=np.float64)
    k = min(k, len(pred))
    if k <= 0:
        return 0.0
    best_predicted = set(np.argsort(-pred, kind="stable")[:k].tolist())
    best_actual = set(np.argsort(-actual, kind="stable")[:k].tolist())
    return len(best_predicted & best_actual) / k


def per_task_mean(
    metric: Callable[[np.ndarray, np.ndarray], float],
    pred: np.ndarray,
    actual: np.ndarray,
    task_keys: np.ndarray,
    min_rows: int = 2,
) -> float:
    """`metric` evaluated within each task (of at least `min_rows` rows), averaged."""
    values = []
    for key in np.unique(task_keys):
        mask = task_keys == key
        if int(mask.sum()) >= min_rows:
            values.append(metric(pred[mask], actual[mask]))
    return float(np.mean(values)) if values else float("nan")
