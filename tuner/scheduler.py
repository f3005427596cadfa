"""The task scheduler: which task gets the next batch of trials (Ansor's, paper §6).

The objective is the model's estimated latency, sum(weight_i x best_cost_i). Every task
first gets one round (warm-up, in order, skipping tasks restored from earlier records; the
tuner's survey makes each task's default schedule that round, so the rounds after it
already follow each task's share of the latency);
afterwards each round goes to the task whose objective is predicted to drop fastest:

    grad_i = weight_i x (alpha x backward_i + (1 - alpha) x forward_i)
    backward_i = (best_i after its last round - best_i `window` rounds earlier) / window
    forward_i = -best_i / rounds_i    (the optimistic "one more round helps as much as
                                       the average round did")

and the most negative gradient wins (random among ties). A task with no valid
measurement yet counts as NO_RESULT_COST seconds, so it is retried first, as in Ansor.
A task stops when it improved on nothing for `early_stopping_trials` trials, or when its
search has nothing left; everything stops at the trial budget or the wall-clock limit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

NO_RESULT_COST = 1e10  # seconds, the cost of a task with no valid measurement (Ansor's)
STRATEGIES = ("gradient", "round-robin")


@dataclass
class TaskProgress:
    """One task's trials, rounds and best cost so far."""

    weight: float
    trials: int = 0
    rounds: int = 0
    best_cost_s: float = math.inf
    history: list[float] = field(default_factory=list)  # best cost after each round
    trials_at_best: int = 0
    done: str = ""  # why the task stopped ("" = still tuning)


class TaskScheduler:
    """Allocates rounds of trials across tasks; see the module docstring."""

    def __init__(
        self,
        weights: Sequence[float],
        *,
        max_trials: int,
        time_limit_s: float | None = None,
        early_stopping_trials: int | None = None,
        strategy: str = "gradient",
        alpha: float = 0.2,
        backward_window: int = 3,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown scheduler strategy {strategy!r}; known: {STRATEGIES}")
        self.tasks = [TaskProgress(weight=float(w)) for w in weights]
        self.max_trials = max_trials
        self.time_limit_s = time_limit_s
        self.early_stopping_trials = early_stopping_trials
        self.strategy = strategy
        self.alpha = alpha
        self.backward_window = backward_window
        self.rng = np.random.default_rng(seed)
        self.clock = clock
        self.start_s = clock()
        self._next_round_robin = 0

    # -- state -----------------------------------------------------------------------------

    @property
    def total_trials(self) -> int:
        """Trials spent on all tasks (restored ones included)."""
        return sum(task.trials for task in self.tasks)

    @property
    def remaining_trials(self) -> int:
        """Trials left in the global budget."""
        return max(0, self.max_trials - self.total_trials)

    def objective_s(self) -> float:
        """sum(weight x best cost) over tasks (a task without a result: NO_RESULT_COST)."""
        return sum(task.weight * _cost(task) for task in self.tasks)

    def out_of_time(self) -> bool:
        """Whether the wall-clock limit has passed."""
        return self.time_limit_s is not None and self.clock() - self.start_s >= self.time_limit_s

    def remaining_time_s(self) -> float | None:
        """Seconds left before the wall-clock limit (None without one)."""
        if self.time_limit_s is None:
            return None
        return max(0.0, self.time_limit_s - (self.clock() - self.start_s))

    def restore(self, index: int, trials: int, best_cost_s: float | None) -> None:
        """Count trials measured before this scheduler existed (resume from records)."""
        task = self.tasks[index]
        task.trials += trials
        if trials > 0:
            task.rounds = max(task.rounds, 1)
            if best_cost_s is not None and best_cost_s < task.best_cost_s:
                task.best_cost_s = best_cost_s
            task.trials_at_best = task.trials
            task.history.append(task.best_cost_s)

    def update(self, index: int, trials: int, best_cost_s: float | None) -> None:
        """A round of `trials` measurements of task `index` ended; its best cost is now
        `best_cost_s` (None: still no valid measurement)."""
        task = self.tasks[index]
        task.trials += trials
        task.rounds += 1
        if best_cost_s is not None and best_cost_s < task.best_cost_s:
            task.best_cost_s = best_cost_s
            task.trials_at_best = task.trials
        task.history.append(task.best_cost_s)
        stop_after = self.early_stopping_trials
        if stop_after is not None and task.trials - task.trials_at_best >= stop_after:
            task.done = f"no improvement in {task.trials - task.trials_at_best} trials"

    def finish(self, index: int, reason: str) -> None:
        """Stop tuning task `index` (e.g. its search space is exhausted)."""
        self.tasks[index].done = reason or "finished"

    # -- the choice ------------------------------------------------------------------------

    def next_task(self) -> int | None:
        """The task to give the next round to, or None when tuning is over."""
        if self.remaining_trials <= 0 or self.out_of_time():
            return None
        alive = [i for i, task in enumerate(self.tasks) if not task.done]
        if not alive:
            return None
        # Warm-up: one round each, in order.
        for index in alive:
            if self.tasks[index].rounds == 0:
                return index
        if self.strategy == "round-robin":
            return self._round_robin(alive)
        gradients = np.array([self.gradient(i) for i in alive])
        if float(gradients.max()) == float(gradients.min()):
            return int(alive[int(self.rng.integers(len(alive)))])
        return int(alive[int(np.argmin(gradients))])

    def gradient(self, index: int) -> float:
        """d objective / d trials of task `index` (<= 0; more negative = more promising)."""
        task = self.tasks[index]
        cost = _cost(task)
        window = self.backward_window
        history = [min(c, NO_RESULT_COST) for c in task.history]
        backward = 0.0
        if len(history) > window:
            backward = (history[-1] - history[-1 - window]) / window
        forward = -cost / max(task.rounds, 1)
        return task.weight * (self.alpha * backward + (1.0 - self.alpha) * forward)

    def _round_robin(self, alive: list[int]) -> int:
        count = len(self.tasks)
        for step in range(count):
            index = (self._next_round_robin + step) % count
            if index in alive:
                self._next_round_robin = (index + 1) % count
                return index
        return alive[0]


def _cost(task: TaskProgress) -> float:
    return task.best_cost_s if math.isfinite(task.best_cost_s) else NO_RESULT_COST
