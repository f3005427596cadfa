"""The cost-model interface: learn from measured candidates, score unmeasured ones.

A cost model sees each candidate as a feature vector (`tuner.features`) and predicts a
score where higher means faster; only the order of the scores within one task matters.
Throughputs passed to `update` are any "higher is faster" measure (GFLOPS, 1 / cost);
a failed candidate has throughput 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class CostModel(Protocol):
    """Batch in, batch out: `update` with measured candidates, `predict` scores."""

    def update(
        self,
        features_list: Sequence[np.ndarray],
        throughputs: Sequence[float],
        task_keys: Sequence[str],
    ) -> None:
        """Add measured candidates (features, throughput, workload key of their task)."""
        ...

    def predict(self, features_list: Sequence[np.ndarray]) -> np.ndarray:
        """One score per candidate (higher = predicted faster), float64."""
        ...

    def save(self, path: str | Path) -> None:
        """Write the model (and the data it was trained on) to `path`."""
        ...

    def load(self, path: str | Path) -> None:
        """Replace this model's state by the one saved at `path`."""
        ...


def normalize_per_task(throughputs: np.ndarray, task_keys: np.ndarray) -> np.ndarray:
    """Throughputs divided by their task's best (labels in [0, 1]; 0 where a task has none)."""
    labels = np.zeros(len(throughputs), dtype=np.float64)
    values = np.maximum(np.asarray(throughputs, dtype=np.float64), 0.0)
    for key in np.unique(task_keys):
        mask = task_keys == key
        best = float(values[mask].max(initial=0.0))
        if best > 0:
            labels[mask] = values[mask] / best
    return labels


def as_matrix(features_list: Sequence[np.ndarray]) -> np.ndarray:
    """Stack feature vectors into a float32 matrix (an empty list gives 0 rows)."""
    if len(features_list) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([np.asarray(row, dtype=np.float32) for row in features_list])
