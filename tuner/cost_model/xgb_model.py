"""The XGBoost cost model (AutoTVM's and Ansor's, with MetaSchedule's adaptive retraining).

Labels are throughputs divided by the best throughput of their task, so tasks of very
different speeds share one model. Two objectives are kept selectable:

- "reg" — `reg:squarederror` weighted by the label (Ansor, MetaSchedule): fast
  candidates dominate the loss, slow ones only need to be predicted slow. A failed
  candidate (label 0) would weigh nothing, so weights are floored at `weight_floor`;
- "rank" — `rank:pairwise` with one query group per task (AutoTVM's `rank`): only the
  order within a task is learnt.

Training follows the research notes: max_depth 3-6, eta 0.2-0.3, up to ~200 boosting
rounds with early stopping on the pairwise accuracy of a held-out 20 %, and a refit only
when the data grew by at least 20 % since the last one. Data from earlier tasks on the
same target is simply part of the training set (warm start).
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xgboost as xgb

from tuner.cost_model.base import as_matrix, normalize_per_task
from tuner.cost_model.metrics import pairwise_accuracy, per_task_mean, top_k_recall

logger = logging.getLogger(__name__)

OBJECTIVES = {"reg": "reg:squarederror", "rank": "rank:pairwise"}


@dataclass(frozen=True)
class XGBConfig:
    """Booster and training parameters."""

    objective: str = "reg"  # "reg" (weighted squared error) or "rank" (pairwise)
    max_depth: int = 6
    eta: float = 0.2
    gamma: float = 1e-3
    min_child_weight: float = 0.0
    num_rounds: int = 200
    early_stopping_rounds: int = 20
    validation_fraction: float = 0.2
    min_validation_rows: int = 100  # fewer rows: no held-out set, a fixed round count
    rounds_without_validation: int = 50
    retrain_growth: float = 0.2  # refit when the data grew by this fraction
    min_samples: int = 16  # no model below this many measured candidates
    weight_floor: float = 0.05
    pairs_per_sample: int = 8  # rank: random pairs per candidate and round
    top_k: int = 16  # k of the logged top-k recall
    nthread: int = 1
    seed: int = 0


@dataclass
class FitMetrics:
    """What the last fit achieved on its held-out rows (training rows if none)."""

    rows: int
    rounds: int
    pairwise_accuracy: float
    top_k_recall: float
    held_out: bool


@dataclass
class _Data:
    features: list[np.ndarray] = field(default_factory=list)
    throughputs: list[float] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)


class XGBCostModel:
    """XGBoost regression or ranking on loop-IR features; see the module docstring."""

    def __init__(self, config: XGBConfig | None = None, **overrides: Any) -> None:
        base = config or XGBConfig()
        self.config = XGBConfig(**{**asdict(base), **overrides})
        if self.config.objective not in OBJECTIVES:
            known = ", ".join(OBJECTIVES)
            raise ValueError(f"unknown objective {self.config.objective!r}; known: {known}")
        self.booster: xgb.Booster | None = None
        self.data = _Data()
        self.fitted_rows = 0
        self.metrics: FitMetrics | None = None
        self.history: list[FitMetrics] = []
        self.rng = np.random.default_rng(self.config.seed)

    # -- the CostModel protocol ------------------------------------------------------------

    def update(
        self,
        features_list: Sequence[np.ndarray],
        throughputs: Sequence[float],
        task_keys: Sequence[str],
    ) -> None:
        """Add measured candidates; refit when the data grew enough since the last fit."""
        if not (len(features_list) == len(throughputs) == len(task_keys)):
            raise ValueError("features_list, throughputs and task_keys differ in length")
        self.data.features.extend(np.asarray(row, dtype=np.float32) for row in features_list)
        self.data.throughputs.extend(float(value) for value in throughputs)
        self.data.keys.extend(str(key) for key in task_keys)
        if self.needs_fit():
            self.fit()

    def needs_fit(self) -> bool:
        """Enough data, and (for a refit) at least `retrain_growth` more than last time."""
        rows = len(self.data.features)
        if rows < self.config.min_samples:
            return False
        return self.booster is None or rows >= (1.0 + self.config.retrain_growth) * (
            self.fitted_rows
        )

    def predict(self, features_list: Sequence[np.ndarray]) -> np.ndarray:
        """Scores, higher = faster; random before the first fit (search is random then)."""
        if len(features_list) == 0:
            return np.zeros(0, dtype=np.float64)
        if self.booster is None:
            return self.rng.random(len(features_list))
        matrix = as_matrix(features_list)
        return np.asarray(
            self.booster.predict(xgb.DMatrix(matrix, nthread=self.config.nthread)),
            dtype=np.float64,
        )

    def feature_width(self) -> int | None:
        """The length of the feature vectors it was given (None before any)."""
        return int(self.data.features[0].shape[0]) if self.data.features else None

    def save(self, path: str | Path) -> None:
        """One .npz file: training data, config, and the booster as UBJSON bytes."""
        booster = (
            np.frombuffer(bytes(self.booster.save_raw("ubj")), dtype=np.uint8)
            if self.booster is not None
            else np.zeros(0, dtype=np.uint8)
        )
        buffer = io.BytesIO()
        np.savez(
            buffer,
            features=as_matrix(self.data.features),
            throughputs=np.asarray(self.data.throughputs, dtype=np.float64),
            keys=np.asarray(self.data.keys, dtype=np.str_),
            booster=booster,
            config=np.asarray(json.dumps(asdict(self.config))),
            fitted_rows=np.asarray(self.fitted_rows),
        )
        Path(path).write_bytes(buffer.getvalue())

    def load(self, path: str | Path) -> None:
        """Restore a model written by `save`."""
        with np.load(Path(path), allow_pickle=False) as saved:
            self.config = XGBConfig(**json.loads(str(saved["config"])))
            features = saved["features"]
            self.data = _Data(
                features=[row.copy() for row in features],
                throughputs=[float(v) for v in saved["throughputs"]],
                keys=[str(k) for k in saved["keys"]],
            )
            self.fitted_rows = int(saved["fitted_rows"])
            raw = saved["booster"]
            self.booster = None
            if raw.size:
                booster = xgb.Booster(params={"nthread": self.config.nthread})
                booster.load_model(bytearray(raw.tobytes()))
                self.booster = booster

    # -- training ----------------------------------------------------------------------------

    def fit(self) -> FitMetrics:
        """Train a fresh booster on all data (early stopping on a held-out part)."""
        cfg = self.config
        features = as_matrix(self.data.features)
        keys = np.asarray(self.data.keys)
        labels = normalize_per_task(np.asarray(self.data.throughputs), keys)
        rows = len(labels)
        order = self.rng.permutation(rows)
        held = int(rows * cfg.validation_fraction) if rows >= cfg.min_validation_rows else 0
        # Rows of one task together: rank:pairwise needs contiguous query groups.
        valid = order[:held][np.argsort(keys[order[:held]], kind="stable")]
        train = order[held:][np.argsort(keys[order[held:]], kind="stable")]
        dtrain = self._dmatrix(features[train], labels[train], keys[train])
        params = {
            "objective": OBJECTIVES[cfg.objective],
            "max_depth": cfg.max_depth,
            "eta": cfg.eta,
            "gamma": cfg.gamma,
            "min_child_weight": cfg.min_child_weight,
            "nthread": cfg.nthread,
            "seed": cfg.seed,
            "verbosity": 0,
            "disable_default_eval_metric": 1,
        }
        if cfg.objective == "rank":
            # XGBoost's default pairs only each query's top item ("topk", 1 pair); compare
            # every candidate with a few random others of its task instead.
            params["lambdarank_pair_method"] = "mean"
            params["lambdarank_num_pair_per_sample"] = cfg.pairs_per_sample
        if held:
            dvalid = self._dmatrix(features[valid], labels[valid], keys[valid])
            valid_keys = keys[valid]

            def accuracy(pred: np.ndarray, dmatrix: xgb.DMatrix) -> tuple[str, float]:
                actual = dmatrix.get_label()
                return "pairwise_acc", per_task_mean(pairwise_accuracy, pred, actual, valid_keys)

            booster = xgb.train(
                params,
                dtrain,
                num_boost_round=cfg.num_rounds,
                evals=[(dvalid, "valid")],
                custom_metric=accuracy,
                maximize=True,
                early_stopping_rounds=cfg.early_stopping_rounds,
                verbose_eval=False,
            )
            rounds = int(booster.best_iteration) + 1
            # Keep only the rounds up to the best one.
            booster = booster[:rounds]
            eval_rows = valid
        else:
            rounds = min(cfg.num_rounds, cfg.rounds_without_validation)
            booster = xgb.train(params, dtrain, num_boost_round=rounds, verbose_eval=False)
            eval_rows = train
        self.booster = booster
        self.fitted_rows = rows
        pred = self.predict([features[i] for i in eval_rows])
        actual, eval_keys = labels[eval_rows], keys[eval_rows]
        metrics = FitMetrics(
            rows=rows,
            rounds=rounds,
            pairwise_accuracy=per_task_mean(pairwise_accuracy, pred, actual, eval_keys),
            top_k_recall=per_task_mean(
                lambda p, a: top_k_recall(p, a, _recall_k(cfg.top_k, len(p))),
                pred,
                actual,
                eval_keys,
            ),
            held_out=bool(held),
        )
        self.metrics = metrics
        self.history.append(metrics)
        logger.info(
            "xgb(%s) fit on %d rows, %d rounds: pairwise accuracy %.3f, top-%d recall %.3f (%s)",
            cfg.objective,
            rows,
            rounds,
            metrics.pairwise_accuracy,
            cfg.top_k,
            metrics.top_k_recall,
            "held out" if held else "training rows",
        )
        return metrics

    def _dmatrix(self, features: np.ndarray, labels: np.ndarray, keys: np.ndarray) -> xgb.DMatrix:
        if self.config.objective == "rank":
            # One query group per task (the caller sorted the rows by task).
            _, qid = np.unique(keys, return_inverse=True)
            return xgb.DMatrix(features, label=labels, qid=qid, nthread=self.config.nthread)
        weights = np.maximum(labels, self.config.weight_floor)
        return xgb.DMatrix(features, label=labels, weight=weights, nthread=self.config.nthread)


def _recall_k(k: int, rows: int) -> int:
    """k for a task of `rows` evaluated rows: at most half of them (else recall is trivially 1)."""
    return max(1, min(k, rows // 2))
