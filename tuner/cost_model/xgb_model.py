"""The XGBoost cost model (AutoTVM's and Ansor's, with MetaSchedule's adaptive retraining).

Labels are throughputs divided by the best throughput of their task, so tasks of very
different speeds share one model. Two objectives:

- "reg" — `reg:squarederror` weighted by the label (Ansor, MetaSchedule): fast
  candidates dominate the loss, slow ones only need to be predicted slow. A failed
  candidate (label 0) would weigh nothing, so weights are floored at `weight_floor`;
- "rank" — `rank:pairwise` with one query group per task (AutoTVM's `rank`): only the
  order within a task is learnt.

Neither wins everywhere (on the logs measured so far each has had the better top-k
recall on some workloads and the worse on others), so by default ("auto") each fit with
held-out folds trains both on the same folds and keeps the one whose out-of-fold top-k
recall is higher (pairwise accuracy breaks ties; a tie keeps the objective in use).
Below `min_validation_rows` there are no held-out rows to compare them on, and the
objective in use ("reg" at first) is trained alone.

Training follows the research notes: max_depth 3-6, eta 0.2-0.3, up to ~200 boosting
rounds with early stopping on the pairwise accuracy of held-out rows, and a refit only
when the data grew by at least 20 % since the last one. Data from earlier tasks on the
same target is simply part of the training set (warm start).

With enough rows the model is an ensemble of `ensemble` boosters over disjoint folds:
each holds one fold out for its early stopping and learns from the others, and a
prediction is their mean. A single booster would never learn from its held-out part and
stops at a round picked on a few dozen noisy rows; the folds together train on every row
and average that noise out. The logged metrics are out-of-fold: each row scored by the
booster that did not see it.
"""

from __future__ import annotations

import io
import json
import logging
import os
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
AUTO_OBJECTIVE = "auto"  # both trained at each fit, the better out-of-fold top-k kept
# Rows a saved model keeps (the latest): a model every job of a target goes on training
# (the service's) would otherwise grow without end.
MAX_SAVED_ROWS = 20_000


@dataclass(frozen=True)
class XGBConfig:
    """Booster and training parameters."""

    objective: str = AUTO_OBJECTIVE  # or "reg" (weighted squared error), "rank" (pairwise)
    max_depth: int = 6
    eta: float = 0.2
    gamma: float = 1e-3
    min_child_weight: float = 0.0
    num_rounds: int = 200
    early_stopping_rounds: int = 20
    validation_fraction: float = 0.2  # the held-out share of a single booster
    ensemble: int = 4  # boosters over disjoint folds (1: one booster, one held-out part)
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
    """What a fit achieved on its held-out rows (training rows if none), with the
    objective it kept and, when both were trained, the other one's scores."""

    rows: int
    rounds: int
    pairwise_accuracy: float
    top_k_recall: float
    held_out: bool
    objective: str = "reg"
    rejected: FitMetrics | None = None  # the other objective's, on the same folds


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
        if self.config.objective not in OBJECTIVES and self.config.objective != AUTO_OBJECTIVE:
            known = ", ".join([*OBJECTIVES, AUTO_OBJECTIVE])
            raise ValueError(f"unknown objective {self.config.objective!r}; known: {known}")
        if self.config.ensemble < 1:
            raise ValueError(f"ensemble must be at least 1, not {self.config.ensemble}")
        self.boosters: list[xgb.Booster] = []
        self.objective = self._first_objective()  # the boosters' objective
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
        return not self.boosters or rows >= (1.0 + self.config.retrain_growth) * self.fitted_rows

    def predict(self, features_list: Sequence[np.ndarray]) -> np.ndarray:
        """Scores, higher = faster; random before the first fit (search is random then)."""
        if len(features_list) == 0:
            return np.zeros(0, dtype=np.float64)
        if not self.boosters:
            return self.rng.random(len(features_list))
        dmatrix = xgb.DMatrix(as_matrix(features_list), nthread=self.config.nthread)
        scores: np.ndarray = np.stack([booster.predict(dmatrix) for booster in self.boosters])
        return np.asarray(scores.mean(axis=0, dtype=np.float64))

    @property
    def trained(self) -> bool:
        """Whether a fit has happened (predictions are random before)."""
        return bool(self.boosters)

    def feature_width(self) -> int | None:
        """The length of the feature vectors it was given (None before any)."""
        return int(self.data.features[0].shape[0]) if self.data.features else None

    def save(self, path: str | Path) -> None:
        """One .npz file: training data (the latest MAX_SAVED_ROWS rows), config, and the
        boosters as UBJSON bytes (one array of their concatenation and one of their
        lengths); written beside `path` and renamed over it, so a reader never sees half."""
        raw = [bytes(booster.save_raw("ubj")) for booster in self.boosters]
        kept = slice(-MAX_SAVED_ROWS, None)
        buffer = io.BytesIO()
        np.savez(
            buffer,
            features=as_matrix(self.data.features[kept]),
            throughputs=np.asarray(self.data.throughputs[kept], dtype=np.float64),
            keys=np.asarray(self.data.keys[kept], dtype=np.str_),
            boosters=np.frombuffer(b"".join(raw), dtype=np.uint8),
            booster_sizes=np.asarray([len(r) for r in raw], dtype=np.int64),
            config=np.asarray(json.dumps(asdict(self.config))),
            objective=np.asarray(self.objective),
            fitted_rows=np.asarray(min(self.fitted_rows, MAX_SAVED_ROWS)),
        )
        target = Path(path)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        partial.write_bytes(buffer.getvalue())
        partial.replace(target)

    def load(self, path: str | Path) -> None:
        """Restore a model written by `save`."""
        with np.load(Path(path), allow_pickle=False) as saved:
            self.config = XGBConfig(**json.loads(str(saved["config"])))
            # (files from before "auto" hold no objective: their config's is the boosters')
            self.objective = (
                str(saved["objective"]) if "objective" in saved else self._first_objective()
            )
            features = saved["features"]
            self.data = _Data(
                features=[row.copy() for row in features],
                throughputs=[float(v) for v in saved["throughputs"]],
                keys=[str(k) for k in saved["keys"]],
            )
            self.fitted_rows = int(saved["fitted_rows"])
            if "booster" in saved:  # (a file of the single-booster format)
                raw, sizes = saved["booster"], [saved["booster"].size]
            else:
                raw, sizes = saved["boosters"], [int(n) for n in saved["booster_sizes"]]
            self.boosters = []
            start = 0
            for size in sizes:
                if size:
                    booster = xgb.Booster(params={"nthread": self.config.nthread})
                    booster.load_model(bytearray(raw[start : start + size].tobytes()))
                    self.boosters.append(booster)
                start += size

    # -- training ----------------------------------------------------------------------------

    def fit(self) -> FitMetrics:
        """Train fresh boosters on all data (early stopping on held-out folds); with the
        "auto" objective and held-out folds, both objectives on the same folds, keeping
        the better."""
        cfg = self.config
        features = as_matrix(self.data.features)
        keys = np.asarray(self.data.keys)
        labels = normalize_per_task(np.asarray(self.data.throughputs), keys)
        rows = len(labels)
        order = self.rng.permutation(rows)
        if rows < cfg.min_validation_rows:
            held_out_parts = [order[:0]]
        elif cfg.ensemble == 1:
            held_out_parts = [order[: int(rows * cfg.validation_fraction)]]
        else:
            held_out_parts = np.array_split(order, cfg.ensemble)
        data = (features, labels, keys, order, held_out_parts)
        boosters, metrics = self._fit_objective(self.objective, *data)
        if cfg.objective == AUTO_OBJECTIVE and metrics.held_out:
            (other,) = [name for name in OBJECTIVES if name != self.objective]
            other_boosters, other_metrics = self._fit_objective(other, *data)
            if _score(other_metrics) > _score(metrics):
                boosters, metrics, other_metrics = other_boosters, other_metrics, metrics
            metrics.rejected = other_metrics
        self.boosters = boosters
        self.objective = metrics.objective
        self.fitted_rows = rows
        self.metrics = metrics
        self.history.append(metrics)
        logger.info(
            "xgb(%s) fit %d booster(s) on %d rows, %d rounds: pairwise accuracy %.3f, "
            "top-%d recall %.3f (%s)%s",
            metrics.objective,
            len(boosters),
            rows,
            metrics.rounds,
            metrics.pairwise_accuracy,
            cfg.top_k,
            metrics.top_k_recall,
            "out of fold" if metrics.held_out else "training rows",
            ""
            if metrics.rejected is None
            else f"; {metrics.rejected.objective} scored {metrics.rejected.pairwise_accuracy:.3f} "
            f"and {metrics.rejected.top_k_recall:.3f}",
        )
        return metrics

    def _fit_objective(
        self,
        objective: str,
        features: np.ndarray,
        labels: np.ndarray,
        keys: np.ndarray,
        order: np.ndarray,
        held_out_parts: list[np.ndarray],
    ) -> tuple[list[xgb.Booster], FitMetrics]:
        """One booster per held-out part (trained on the other rows) and their metrics,
        out-of-fold where there are held-out rows."""
        cfg = self.config
        boosters, rounds = [], []
        scored_rows, scores = [], []
        for held in held_out_parts:
            train = np.setdiff1d(order, held, assume_unique=True)
            booster, booster_rounds = self._train_one(
                objective, features, labels, keys, train, held
            )
            boosters.append(booster)
            rounds.append(booster_rounds)
            eval_rows = held if len(held) else train
            scored_rows.append(eval_rows)
            dmatrix = xgb.DMatrix(features[eval_rows], nthread=cfg.nthread)
            scores.append(np.asarray(booster.predict(dmatrix), dtype=np.float64))
        eval_rows = np.concatenate(scored_rows)
        pred, actual, eval_keys = np.concatenate(scores), labels[eval_rows], keys[eval_rows]
        metrics = FitMetrics(
            rows=len(labels),
            rounds=round(float(np.mean(rounds))),
            pairwise_accuracy=per_task_mean(pairwise_accuracy, pred, actual, eval_keys),
            top_k_recall=per_task_mean(
                lambda p, a: top_k_recall(p, a, _recall_k(cfg.top_k, len(p))),
                pred,
                actual,
                eval_keys,
            ),
            held_out=len(held_out_parts[0]) > 0,
            objective=objective,
        )
        return boosters, metrics

    def _first_objective(self) -> str:
        """The objective trained before any comparison: the configured one, "reg" for
        "auto"."""
        return "reg" if self.config.objective == AUTO_OBJECTIVE else self.config.objective

    def _train_one(
        self,
        objective: str,
        features: np.ndarray,
        labels: np.ndarray,
        keys: np.ndarray,
        train: np.ndarray,
        held: np.ndarray,
    ) -> tuple[xgb.Booster, int]:
        """One booster on the rows `train`, early-stopped on the rows `held` (a fixed
        round count when there are none), and its number of rounds."""
        cfg = self.config
        # Rows of one task together: rank:pairwise needs contiguous query groups.
        train = train[np.argsort(keys[train], kind="stable")]
        held = held[np.argsort(keys[held], kind="stable")]
        dtrain = self._dmatrix(objective, features[train], labels[train], keys[train])
        params = {
            "objective": OBJECTIVES[objective],
            "max_depth": cfg.max_depth,
            "eta": cfg.eta,
            "gamma": cfg.gamma,
            "min_child_weight": cfg.min_child_weight,
            "nthread": cfg.nthread,
            "seed": cfg.seed,
            "verbosity": 0,
            "disable_default_eval_metric": 1,
        }
        if objective == "rank":
            # XGBoost's default pairs only each query's top item ("topk", 1 pair); compare
            # every candidate with a few random others of its task instead.
            params["lambdarank_pair_method"] = "mean"
            params["lambdarank_num_pair_per_sample"] = cfg.pairs_per_sample
        if not len(held):
            rounds = min(cfg.num_rounds, cfg.rounds_without_validation)
            return xgb.train(params, dtrain, num_boost_round=rounds, verbose_eval=False), rounds
        dvalid = self._dmatrix(objective, features[held], labels[held], keys[held])
        held_keys = keys[held]

        def accuracy(pred: np.ndarray, dmatrix: xgb.DMatrix) -> tuple[str, float]:
            actual = dmatrix.get_label()
            return "pairwise_acc", per_task_mean(pairwise_accuracy, pred, actual, held_keys)

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
        return booster[:rounds], rounds  # only the rounds up to the best one

    def _dmatrix(
        self, objective: str, features: np.ndarray, labels: np.ndarray, keys: np.ndarray
    ) -> xgb.DMatrix:
        if objective == "rank":
            # One query group per task (the caller sorted the rows by task).
            _, qid = np.unique(keys, return_inverse=True)
            return xgb.DMatrix(features, label=labels, qid=qid, nthread=self.config.nthread)
        weights = np.maximum(labels, self.config.weight_floor)
        return xgb.DMatrix(features, label=labels, weight=weights, nthread=self.config.nthread)


def _score(metrics: FitMetrics) -> tuple[float, float]:
    """What "auto" compares objectives by: top-k recall, then pairwise accuracy."""
    return _finite(metrics.top_k_recall), _finite(metrics.pairwise_accuracy)


def _finite(value: float) -> float:
    return value if np.isfinite(value) else -1.0


def _recall_k(k: int, rows: int) -> int:
    """k for a task of `rows` evaluated rows: at most half of them (else recall is trivially 1)."""
    return max(1, min(k, rows // 2))


def saved_rows(path: str | Path) -> int:
    """How many training rows the model saved at `path` holds (0 when it holds none, or
    is not such a file)."""
    try:
        with np.load(Path(path), allow_pickle=False) as saved:
            return int(saved["features"].shape[0]) if "features" in saved else 0
    except (OSError, ValueError):
        return 0
