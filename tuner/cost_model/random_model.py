"""The baseline cost model: random scores (what search does without a model)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np


class RandomCostModel:
    """Scores uniformly at random; learns nothing."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def update(
        self,
        features_list: Sequence[np.ndarray],
        throughputs: Sequence[float],
        task_keys: Sequence[str],
    ) -> None:
        """Ignore the measurements."""

    def predict(self, features_list: Sequence[np.ndarray]) -> np.ndarray:
        """Uniform random scores in [0, 1)."""
        return self.rng.random(len(features_list))

    def save(self, path: str | Path) -> None:
        """Write the seed as JSON."""
        Path(path).write_text(json.dumps({"kind": "random", "seed": self.seed}))

    def load(self, path: str | Path) -> None:
        """Restore the seed (and restart the random stream)."""
        data = json.loads(Path(path).read_text())
        self.seed = int(data.get("seed", 0))
        self.rng = np.random.default_rng(self.seed)
