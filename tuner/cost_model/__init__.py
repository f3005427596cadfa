"""Cost models: predict which candidates are fast from their loop-IR features.

`make_cost_model("xgb" | "random")` is the one place a kind string becomes a model.
"""

from __future__ import annotations

from typing import Any

from tuner.cost_model.base import CostModel, normalize_per_task
from tuner.cost_model.metrics import pairwise_accuracy, top_k_recall
from tuner.cost_model.random_model import RandomCostModel
from tuner.cost_model.xgb_model import (
    OBJECTIVES,
    FitMetrics,
    XGBConfig,
    XGBCostModel,
    saved_rows,
)

COST_MODEL_KINDS = ("xgb", "random")


def make_cost_model(kind: str, **options: Any) -> CostModel:
    """A cost model by name: "xgb" (options: XGBConfig fields) or "random" (seed)."""
    if kind == "xgb":
        return XGBCostModel(**options)
    if kind == "random":
        return RandomCostModel(**options)
    raise ValueError(f"unknown cost model {kind!r}; known: {', '.join(COST_MODEL_KINDS)}")


__all__ = [
    "COST_MODEL_KINDS",
    "OBJECTIVES",
    "CostModel",
    "FitMetrics",
    "RandomCostModel",
    "XGBConfig",
    "XGBCostModel",
    "make_cost_model",
    "normalize_per_task",
    "pairwise_accuracy",
    "saved_rows",
    "top_k_recall",
]
