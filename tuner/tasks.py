"""Tuning tasks: one per distinct (workload, target) of a fused model, weighted by its uses.

A workload is a primitive function together with which of its parameters are bound to
constants (weights a schedule may repack), so the same function called once with a weight
and once with a computed tensor is two workloads. Its key is the sha256 of one canonical
JSON object (the function with positional parameters, the sorted constant parameter
names, and the TE version); this module is the only place keys are built.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from codegen.aot.plan import model_sizes
from codegen.target import Target
from ir.errors import AutotuneError
from ir.graph.canonical import function_from_json, function_to_json
from ir.graph.nodes import Call, Constant, Function
from ir.graph.passes.narrow_sizes import (
    narrow_sizes,
    size_names,
    size_uppers,
    small_size_limits,
)
from ir.graph.summary import function_flops
from ir.graph.traversal import nodes_with_runs
from ir.te import TE_VERSION
from tuner.size_histogram import (
    SizeHistogram,
    bucket_share,
    check_size_histogram,
    representative_sizes,
)

COMPUTE_VERSION = TE_VERSION  # part of every workload key: a new TE means new workloads


class TaskError(AutotuneError):
    """A task's JSON is malformed, or was made by an incompatible version."""


def workload_key(function: Function, constant_params: frozenset[str] | set[str]) -> str:
    """The sha256 hex key of a primitive function with these constant parameters."""
    identity = {
        "function": function_to_json(function, positional_params=True),
        "constants": sorted(constant_params),
        "version": COMPUTE_VERSION,
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _positional(function: Function) -> Function:
    """`function` with parameters named p0, p1, ... (as a worker rebuilds it)."""
    return function_from_json(function_to_json(function, positional_params=True))


@dataclass(frozen=True)
class Task:
    """One workload to tune for one target; `weight` is how often the model runs it.

    A kernel over symbolic dims whose range is wide is two tasks, one per size bucket
    (`ir.graph.passes.narrow_sizes.small_size_limits`): the whole range, and the range
    narrowed to small sizes, whose schedules must lay the constants out as the whole
    range's best does (`layouts_of` is that task's key: the two bodies share one copy of
    the weights). `share` is the part of the model's runs in the task's bucket.
    """

    key: str
    name: str
    function: Function  # the primitive function, parameters named p0, p1, ...
    constant_params: frozenset[str]  # "p<i>" for parameters bound to constants
    flops: int
    weight: int
    target: str
    share: float = 1.0
    layouts_of: str | None = None
    # The size variables of the task's dims and the largest of each it is tuned for (empty
    # for a static workload): the shapes its records cover. Its candidates are measured
    # there, but at `measure_at`'s sizes where it names some (a histogram's median).
    covers: Mapping[str, int] = field(default_factory=dict)
    measure_at: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; the function travels in its canonical form."""
        return {
            "key": self.key,
            "name": self.name,
            "function": function_to_json(self.function, positional_params=True),
            "constant_params": sorted(self.constant_params),
            "flops": self.flops,
            "weight": self.weight,
            "target": self.target,
            "version": COMPUTE_VERSION,
            "share": self.share,
            "layouts_of": self.layouts_of,
            "covers": dict(self.covers),
            "measure_at": dict(self.measure_at),
        }

    @staticmethod
    def from_json(data: str | Mapping[str, Any]) -> Task:
        """Parse `to_json` output; raises TaskError when malformed, from another TE
        version, or when the key does not match the function."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as err:
                raise TaskError(f"task is not valid JSON: {err}") from None
        if not isinstance(data, Mapping):
            raise TaskError("a task must be a JSON object")
        version = data.get("version")
        if version != COMPUTE_VERSION:
            raise TaskError(
                f"task {data.get('name', '?')!r} was made for TE version {version!r}; "
                f"this autotune computes TE version {COMPUTE_VERSION!r}"
            )
        try:
            function = function_from_json(data["function"])
            constants = frozenset(str(name) for name in data["constant_params"])
            task = Task(
                key=workload_key(function, constants),
                name=str(data["name"]),
                function=function,
                constant_params=constants,
                flops=int(data["flops"]),
                weight=int(data["weight"]),
                target=str(data["target"]),
                share=float(data.get("share", 1.0)),
                layouts_of=None if data.get("layouts_of") is None else str(data["layouts_of"]),
                covers={str(k): int(v) for k, v in dict(data.get("covers", {})).items()},
                measure_at={str(k): int(v) for k, v in dict(data.get("measure_at", {})).items()},
            )
        except (KeyError, TypeError, ValueError) as err:
            raise TaskError(f"malformed task JSON: {type(err).__name__}: {err}") from None
        if data.get("key", task.key) != task.key:
            raise TaskError(
                f"task {task.name!r}: key {data['key']} does not match its function "
                f"(recomputed {task.key})"
            )
        return task


def extract_tasks(
    fn: Function, target: Target, histogram: SizeHistogram | None = None
) -> list[Task]:
    """The tuning tasks of a fused main function (the output of `optimize`) on `target`
    (each keyed by its canonical string), in first-call order. Calls of identical
    workloads are one task whose weight counts the calls of one run of the model (a loop
    body's once per iteration of a loop with a constant trip count). A kernel with a
    small-size bucket is followed by that bucket's task; the two share its runs by
    `histogram` (uniform over the size ranges where it says nothing)."""
    uppers = {size.name: size.upper for size in model_sizes(fn)}
    if histogram:
        check_size_histogram(histogram, uppers)
    tasks: dict[str, Task] = {}
    weights: dict[str, int] = {}
    # A kernel inside a branch or loop body is a task too, a loop's once per iteration.
    for node, runs in nodes_with_runs(fn):
        if not (isinstance(node, Call) and isinstance(node.op, Function)):
            continue
        constants = frozenset(
            f"p{index}" for index, arg in enumerate(node.args) if isinstance(arg, Constant)
        )
        for task in _bucket_tasks(node.op, constants, uppers, histogram or {}, str(target)):
            weights[task.key] = weights.get(task.key, 0) + runs
            tasks.setdefault(task.key, task)
    return [replace(task, weight=weights[key]) for key, task in tasks.items()]


def _bucket_tasks(
    function: Function,
    constants: frozenset[str],
    uppers: Mapping[str, int],
    histogram: SizeHistogram,
    target: str,
) -> list[Task]:
    """The task of `function` over its whole size ranges and, where it has a small-size
    bucket, that bucket's task (weights 0: the caller counts the calls)."""
    name = str(function.attrs.get("name", "fn"))
    key = workload_key(function, constants)
    solved = size_uppers(function)
    covers = {
        size: upper
        for size in sorted(size_names(function))
        if (upper := uppers.get(size) or solved.get(size))
    }
    limits = small_size_limits(function, uppers)
    whole = Task(
        key, name, _positional(function), constants, function_flops(function), 0, target,
        covers=covers,
        measure_at=representative_sizes(
            {size: (limits.get(size, 0) + 1, upper) for size, upper in covers.items()}, histogram
        ),
    )  # fmt: skip
    if not limits:
        return [whole]
    narrow = narrow_sizes(function, {**uppers, **limits})
    narrow_key = workload_key(narrow, constants)
    if narrow_key == key:
        return [whole]
    share = bucket_share(limits, uppers, histogram)
    bucket = ", ".join(f"{size}<={limit}" for size, limit in limits.items())
    small = Task(
        narrow_key,
        f"{name} [{bucket}]",
        _positional(narrow),
        constants,
        function_flops(narrow),
        0,
        target,
        share=share,
        layouts_of=key,
        covers={**covers, **limits},
        measure_at=representative_sizes(
            {size: (1, limits.get(size, upper)) for size, upper in covers.items()}, histogram
        ),
    )
    return [replace(whole, share=1.0 - share), small]
