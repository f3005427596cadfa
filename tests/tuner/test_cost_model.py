"""Cost models: training, prediction, persistence, retraining policy, and ranking quality."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xgboost as xgb

from tuner.cost_model import (
    CostModel,
    RandomCostModel,
    XGBCostModel,
    make_cost_model,
    normalize_per_task,
    pairwise_accuracy,
    top_k_recall,
)
from tuner.cost_model.metrics import per_task_mean


def synthetic(rows: int, seed: int = 0) -> tuple[list[np.ndarray], list[float], list[str]]:
    """Features whose throughput is a nonlinear function of a few columns, in 3 tasks
    whose speeds differ by 100x (the per-task normalisation must take that out)."""
    rng = np.random.default_rng(seed)
    features = rng.random((rows, 24)).astype(np.float32)
    keys = np.array(["conv", "dense", "pool"])[rng.integers(0, 3, rows)]
    scale = np.where(keys == "conv", 100.0, np.where(keys == "dense", 1.0, 10.0))
    speed = np.exp(2 * features[:, 0] - features[:, 1] + features[:, 2] * features[:, 3])
    speed[features[:, 5] > 0.9] = 0.0  # some candidates fail
    return list(features), list(speed * scale), [str(k) for k in keys]


def held_out_scores(model: CostModel, seed: int = 1) -> tuple[float, float]:
    features, throughputs, keys = synthetic(300, seed)
    pred = model.predict(features)
    task_keys = np.asarray(keys)
    actual = normalize_per_task(np.asarray(throughputs), task_keys)
    # Rankings only need to hold within a task.
    return (
        per_task_mean(pairwise_accuracy, pred, actual, task_keys),
        per_task_mean(lambda p, a: top_k_recall(p, a, 10), pred, actual, task_keys),
    )


@pytest.mark.parametrize("objective", ["reg", "rank"])
def test_xgb_beats_random_on_a_synthetic_ranking(objective: str) -> None:
    model = XGBCostModel(objective=objective)
    model.update(*synthetic(600))
    assert model.metrics is not None and model.metrics.held_out
    xgb_pairs, xgb_recall = held_out_scores(model)
    random_pairs, random_recall = held_out_scores(RandomCostModel(seed=3))
    assert xgb_pairs > 0.8 > random_pairs + 0.2
    assert xgb_recall > random_recall + 0.2
    print(f"{objective}: pairwise {xgb_pairs:.3f} vs {random_pairs:.3f} (random), "
          f"top-10 recall {xgb_recall:.3f} vs {random_recall:.3f}")  # fmt: skip


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    model = XGBCostModel(objective="rank", max_depth=4)
    model.update(*synthetic(200))
    path = tmp_path / "model.npz"
    model.save(path)
    loaded = XGBCostModel()
    loaded.load(path)
    features, _, _ = synthetic(50, seed=9)
    np.testing.assert_allclose(loaded.predict(features), model.predict(features))
    assert loaded.config == model.config
    assert len(loaded.data.features) == 200 and loaded.fitted_rows == 200


def test_an_ensemble_holds_out_disjoint_folds_and_averages_them() -> None:
    features, throughputs, keys = synthetic(400)
    model = XGBCostModel(ensemble=4)
    model.update(features, throughputs, keys)
    assert len(model.boosters) == 4 and model.metrics is not None and model.metrics.held_out
    matrix = xgb.DMatrix(np.stack(features[:20]))
    members = [booster.predict(matrix) for booster in model.boosters]
    np.testing.assert_allclose(model.predict(features[:20]), np.mean(members, axis=0), rtol=1e-6)
    assert len({tuple(np.round(m, 5)) for m in members}) == 4  # each learnt from other rows
    single = XGBCostModel(ensemble=1)
    single.update(features, throughputs, keys)
    assert len(single.boosters) == 1
    with pytest.raises(ValueError, match="ensemble"):
        XGBCostModel(ensemble=0)


def test_auto_keeps_the_objective_with_the_better_out_of_fold_top_k() -> None:
    """ "auto" trains both objectives on the same folds and keeps the one an explicit
    model of that objective would score higher; the other's scores are kept beside."""
    data = synthetic(400, seed=5)
    auto = XGBCostModel(objective="auto", seed=2)
    auto.update(*data)
    explicit = {}
    for objective in ("reg", "rank"):
        model = XGBCostModel(objective=objective, seed=2)
        model.update(*data)
        assert model.metrics is not None and model.metrics.rejected is None
        explicit[objective] = model.metrics
    kept = auto.metrics
    assert kept is not None and kept.rejected is not None
    assert {kept.objective, kept.rejected.objective} == {"reg", "rank"}
    assert auto.objective == kept.objective
    for metrics in (kept, kept.rejected):
        same = explicit[metrics.objective]
        assert (metrics.top_k_recall, metrics.pairwise_accuracy) == pytest.approx(
            (same.top_k_recall, same.pairwise_accuracy)
        )
    assert (kept.top_k_recall, kept.pairwise_accuracy) >= (
        kept.rejected.top_k_recall,
        kept.rejected.pairwise_accuracy,
    )
    features, _, _ = synthetic(40, seed=6)
    winner = XGBCostModel(objective=kept.objective, seed=2)
    winner.update(*data)
    np.testing.assert_allclose(auto.predict(features), winner.predict(features), rtol=1e-6)


def test_auto_trains_reg_alone_without_held_out_rows(tmp_path: Path) -> None:
    model = XGBCostModel(objective="auto", min_validation_rows=100)
    model.update(*synthetic(60))
    assert model.metrics is not None and not model.metrics.held_out
    assert model.metrics.objective == "reg" and model.metrics.rejected is None
    model.update(*synthetic(300, seed=1))
    assert model.metrics.rejected is not None  # (compared once there are folds)
    path = tmp_path / "auto.npz"
    model.save(path)
    loaded = XGBCostModel()
    loaded.load(path)
    assert loaded.objective == model.objective and loaded.config.objective == "auto"
    features, _, _ = synthetic(30, seed=4)
    np.testing.assert_allclose(loaded.predict(features), model.predict(features))
    with pytest.raises(ValueError, match="known: reg, rank, auto"):
        XGBCostModel(objective="lambdamart")


def test_loads_a_single_booster_file(tmp_path: Path) -> None:
    """A model saved before ensembles (one `booster` array) still loads."""
    model = XGBCostModel(ensemble=1)
    model.update(*synthetic(150))
    path = tmp_path / "model.npz"
    model.save(path)
    with np.load(path) as saved:
        old = {k: saved[k] for k in saved.files if k not in ("boosters", "booster_sizes")}
    old["booster"] = np.frombuffer(bytes(model.boosters[0].save_raw("ubj")), dtype=np.uint8)
    np.savez(path, **old)
    loaded = XGBCostModel()
    loaded.load(path)
    features, _, _ = synthetic(30, seed=4)
    np.testing.assert_allclose(loaded.predict(features), model.predict(features))


def test_retrains_only_when_the_data_grew_by_a_fifth() -> None:
    features, throughputs, keys = synthetic(100)
    model = XGBCostModel(min_samples=16)
    model.update(features[:10], throughputs[:10], keys[:10])
    assert not model.trained  # below min_samples: random scores
    assert model.predict(features[:5]).shape == (5,)
    model.update(features[10:20], throughputs[10:20], keys[10:20])
    assert model.fitted_rows == 20
    model.update(features[20:23], throughputs[20:23], keys[20:23])
    assert model.fitted_rows == 20  # 23 < 1.2 x 20
    model.update(features[23:24], throughputs[23:24], keys[23:24])
    assert model.fitted_rows == 24
    assert len(model.history) == 2


def test_labels_are_normalised_per_task() -> None:
    labels = normalize_per_task(np.array([1.0, 2.0, 100.0, 50.0, 0.0]), np.array(list("aabbb")))
    np.testing.assert_allclose(labels, [0.5, 1.0, 1.0, 0.5, 0.0])


def test_metrics() -> None:
    actual = np.array([1.0, 2.0, 3.0, 4.0])
    assert pairwise_accuracy(actual, actual) == 1.0
    assert pairwise_accuracy(-actual, actual) == 0.0
    assert pairwise_accuracy(np.zeros(4), actual) == 0.5
    assert top_k_recall(np.array([4.0, 3.0, 2.0, 1.0]), actual, 2) == 0.0
    assert top_k_recall(actual, actual, 2) == 1.0


def test_factory(tmp_path: Path) -> None:
    assert isinstance(make_cost_model("xgb", objective="rank"), XGBCostModel)
    random_model = make_cost_model("random", seed=5)
    assert isinstance(random_model, RandomCostModel)
    random_model.save(tmp_path / "random.json")
    random_model.load(tmp_path / "random.json")
    assert isinstance(random_model, CostModel)
    with pytest.raises(ValueError, match="unknown cost model"):
        make_cost_model("mlp")
    with pytest.raises(ValueError, match="unknown objective"):
        XGBCostModel(objective="listwise")
