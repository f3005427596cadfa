"""The task scheduler on synthetic latencies: warm-up, gradient choice, stopping rules."""

from __future__ import annotations

import pytest

from tuner.scheduler import NO_RESULT_COST, TaskScheduler


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run_rounds(
    scheduler: TaskScheduler, curves: list[list[float]], batch: int, rounds: int
) -> list[int]:
    """Give `rounds` rounds; task i's best cost after its r-th round is curves[i][r]."""
    picks = []
    for _ in range(rounds):
        index = scheduler.next_task()
        if index is None:
            break
        picks.append(index)
        task = scheduler.tasks[index]
        curve = curves[index]
        scheduler.update(index, batch, curve[min(task.rounds, len(curve) - 1)])
    return picks


def test_warm_up_gives_every_task_one_round_in_order() -> None:
    scheduler = TaskScheduler([1, 1, 1], max_trials=1000)
    picks = run_rounds(scheduler, [[1.0], [1.0], [1.0]], batch=8, rounds=3)
    assert picks == [0, 1, 2]


def test_gradient_prefers_the_task_with_the_most_weighted_latency() -> None:
    # Task 1 is ten times slower than task 0 and nothing improves: the forward gradient
    # (-best / rounds) of task 1 stays larger in magnitude, so it gets most rounds.
    scheduler = TaskScheduler([1, 1], max_trials=10_000)
    picks = run_rounds(scheduler, [[1e-3], [1e-2]], batch=8, rounds=40)
    assert picks[:2] == [0, 1]
    assert picks.count(1) > 3 * picks.count(0)


def test_weight_scales_the_gradient() -> None:
    # Equal latencies, but task 0 runs five times per inference.
    scheduler = TaskScheduler([5, 1], max_trials=10_000)
    picks = run_rounds(scheduler, [[1e-3], [1e-3]], batch=8, rounds=30)
    assert picks.count(0) > picks.count(1)


def test_backward_gradient_favours_the_task_that_just_improved() -> None:
    # Same best cost and rounds; task 0 got there by improving over its last 3 rounds.
    scheduler = TaskScheduler([1, 1], max_trials=10_000)
    for cost in (4e-3, 3e-3, 2e-3, 1e-3):
        scheduler.update(0, 8, cost)
        scheduler.update(1, 8, 1e-3)
    assert scheduler.gradient(0) < scheduler.gradient(1) < 0
    assert scheduler.next_task() == 0


def test_a_task_without_a_valid_result_is_retried_first() -> None:
    scheduler = TaskScheduler([1, 1], max_trials=10_000)
    scheduler.update(0, 8, 1e-3)
    scheduler.update(1, 8, None)
    assert scheduler.objective_s() == pytest.approx(1e-3 + NO_RESULT_COST)
    assert scheduler.next_task() == 1


def test_global_trial_budget_stops_tuning() -> None:
    scheduler = TaskScheduler([1, 1], max_trials=40)
    picks = run_rounds(scheduler, [[1e-3], [2e-3]], batch=8, rounds=100)
    assert len(picks) == 5
    assert scheduler.remaining_trials == 0
    assert scheduler.next_task() is None


def test_per_task_early_stopping() -> None:
    scheduler = TaskScheduler([1, 1], max_trials=10_000, early_stopping_trials=24)
    improving = [1e-3 / (r + 1) for r in range(1000)]
    picks = run_rounds(scheduler, [[1.0], improving], batch=8, rounds=50)
    assert scheduler.tasks[0].done.startswith("no improvement")
    assert not scheduler.tasks[1].done
    # Task 0 stopped after its improvement-free trials: 1 round + 3 more.
    assert picks.count(0) == 4


def test_wall_clock_limit() -> None:
    clock = FakeClock()
    scheduler = TaskScheduler([1], max_trials=10_000, time_limit_s=10.0, clock=clock)
    assert scheduler.next_task() == 0
    clock.now = 10.5
    assert scheduler.out_of_time()
    assert scheduler.next_task() is None


def test_finished_tasks_are_skipped_and_all_finished_ends() -> None:
    scheduler = TaskScheduler([1, 1], max_trials=10_000)
    scheduler.finish(0, "search space exhausted")
    assert scheduler.next_task() == 1
    scheduler.finish(1, "search space exhausted")
    assert scheduler.next_task() is None


def test_restored_tasks_skip_warm_up_and_count_against_the_budget() -> None:
    scheduler = TaskScheduler([1, 1], max_trials=32)
    scheduler.restore(0, 16, 1e-3)
    assert scheduler.remaining_trials == 16
    assert scheduler.next_task() == 1
    scheduler.restore(1, 16, None)
    assert scheduler.next_task() is None


def test_round_robin_strategy_cycles() -> None:
    scheduler = TaskScheduler([1, 1, 1], max_trials=10_000, strategy="round-robin")
    picks = run_rounds(scheduler, [[1e-3], [1e-2], [1e-1]], batch=8, rounds=9)
    assert picks == [0, 1, 2] * 3


def test_unknown_strategy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown scheduler strategy"):
        TaskScheduler([1], max_trials=1, strategy="bandit")
