"""Malformed schedule traces (hand-written, random JSON, and valid traces with random
edits) raise ScheduleError and nothing else, naming the step, or, when accepted, compute
the reference like any valid schedule (`test_schedule_properties.py`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.errors import ScheduleError
from ir.lower import lower
from ir.schedule import Schedule, Trace
from ir.schedule.schedule import STEP_KINDS
from tests.codegen.test_schedule_properties import (
    Draw,
    Workload,
    check_schedule,
    random_schedule,
    workloads,
)

# --- malformed traces ------------------------------------------------------------------------

# (workload, steps, the rejected step's index, words the message must contain)
MALFORMED_TRACES: list[tuple[str, list[dict[str, Any]], int, str]] = [
    (
        "matmul",
        [{"kind": "split", "stage": "nope", "axis": "i0", "factor": 2, "nparts": None}],
        0,
        "no stage",
    ),
    (
        "matmul",
        [{"kind": "split", "stage": "matmul", "axis": "j", "factor": 2, "nparts": None}],
        0,
        "not a loop",
    ),
    (
        "matmul",
        [{"kind": "split", "stage": "matmul", "axis": "i0", "factor": 0, "nparts": None}],
        0,
        "positive",
    ),
    (
        "matmul",
        [{"kind": "split", "stage": "matmul", "axis": "i0", "factor": -3, "nparts": None}],
        0,
        "positive",
    ),
    (
        "matmul",
        [{"kind": "split", "stage": "matmul", "axis": "i0", "factor": 1.5, "nparts": None}],
        0,
        "integer",
    ),
    (
        "matmul",
        [{"kind": "split", "stage": "matmul", "axis": "i0", "factor": 2, "nparts": 2}],
        0,
        "exactly one",
    ),
    ("matmul", [{"kind": "split", "stage": "matmul", "factor": 2}], 0, "invalid arguments"),
    (
        "matmul",
        [
            {"kind": "split", "stage": "matmul", "axis": "i0", "factor": 4, "nparts": None},
            {"kind": "split", "stage": "matmul", "axis": "i0", "factor": 2, "nparts": None},
        ],
        1,
        "not a loop",
    ),
    (
        "matmul",
        [
            {"kind": "reorder", "stage": "matmul", "axes": ["k", "i0", "i1"]},
            {"kind": "annotate", "stage": "matmul", "axis": "i0", "annotation": "vectorize"},
        ],
        1,
        "innermost",
    ),
    (
        "matmul",
        [{"kind": "annotate", "stage": "matmul", "axis": "k", "annotation": "parallel"}],
        0,
        "reduce axis",
    ),
    (
        "matmul",
        [{"kind": "annotate", "stage": "matmul", "axis": "i0", "annotation": "gpu"}],
        0,
        "unknown annotation",
    ),
    ("matmul", [{"kind": "fuse", "stage": "matmul", "outer": "i0", "inner": "k"}], 0, "adjacent"),
    ("matmul", [{"kind": "fuse", "stage": "matmul", "outer": "i1", "inner": "i0"}], 0, "adjacent"),
    ("matmul", [{"kind": "fuse", "stage": "matmul", "outer": "i1", "inner": "k"}], 0, "reduce"),
    ("matmul", [{"kind": "reorder", "stage": "matmul", "axes": ["i0", "i0"]}], 0, "twice"),
    ("matmul", [{"kind": "compute_inline", "stage": "matmul"}], 0, "output"),
    (
        "matmul",
        [
            {"kind": "split", "stage": "matmul", "axis": "i0", "factor": 4, "nparts": None},
            {"kind": "cache_write", "stage": "matmul", "scope": "local"},
        ],
        1,
        "must come before",
    ),
    ("matmul", [{"kind": "cache_write", "stage": "matmul", "scope": "vram"}], 0, "unknown scope"),
    (
        "conv2d_bias_relu",
        [{"kind": "compute_at", "stage": "pad", "target": "relu", "axis": "i0"}],
        0,
        "does not read",
    ),
    (
        "conv2d_bias_relu",
        [{"kind": "compute_at", "stage": "relu", "target": "add", "axis": "i0"}],
        0,
        "output",
    ),
    (
        "conv2d_bias_relu",
        [{"kind": "compute_at", "stage": "pad", "target": "conv2d", "axis": "nope"}],
        0,
        "not a loop",
    ),
    ("conv2d_bias_relu", [{"kind": "compute_inline", "stage": "relu"}], 0, "output"),
    ("conv2d_bias_relu", [{"kind": "compute_inline", "stage": "conv2d"}], 0, "reduction"),
    (
        "conv2d_bias_relu",
        [
            {"kind": "split", "stage": "add", "axis": "i1", "factor": 4, "nparts": None},
            {"kind": "compute_inline", "stage": "add"},
        ],
        1,
        "loop transformations",
    ),
    (
        "conv2d_bias_relu",
        [
            {
                "kind": "layout_rewrite",
                "input": "p1",
                "factors": [[5], [8], [3], [3]],
                "order": [0, 1, 2, 3],
            }
        ],
        0,
        "dimension 12",
    ),
    (
        "conv2d_bias_relu",
        [{"kind": "layout_rewrite", "input": "p1", "factors": [[12], [8]], "order": [0, 1]}],
        0,
        "one split per dimension",
    ),
    (
        "conv2d_bias_relu",
        [
            {
                "kind": "layout_rewrite",
                "input": "p1",
                "factors": [[0, 12], [8], [3], [3]],
                "order": [0, 1, 2, 3, 4],
            }
        ],
        0,
        "dimension 12",
    ),
    (
        "conv2d_bias_relu",
        [
            {
                "kind": "layout_rewrite",
                "input": "p1",
                "factors": [[3, 4], [8], [3], [3]],
                "order": [0, 1, 2, 3],
            }
        ],
        0,
        "not a permutation",
    ),
    (
        "conv2d_bias_relu",
        [
            {
                "kind": "layout_rewrite",
                "input": "w",
                "factors": [[12], [8], [3], [3]],
                "order": [0, 1, 2, 3],
            }
        ],
        0,
        "no program input",
    ),
    (
        "conv2d_bias_relu",
        [
            {
                "kind": "layout_rewrite",
                "input": "p1",
                "factors": [[12], [8], [3], [3]],
                "order": [3, 2, 1, 0],
            },
            {
                "kind": "layout_rewrite",
                "input": "p1",
                "factors": [[12], [8], [3], [3]],
                "order": [0, 1, 2, 3],
            },
        ],
        1,
        "already",
    ),
    ("matmul", [{"kind": "transmogrify", "stage": "matmul"}], 0, "unknown primitive"),
    ("matmul", [{"kind": "_split", "stage": "matmul"}], 0, "unknown primitive"),
    ("matmul", [{"kind": "bind", "stage": "matmul", "axis": "i0", "thread": "warp"}], 0, "thread"),
]


@pytest.mark.parametrize(
    ("workload", "steps", "position", "words"),
    MALFORMED_TRACES,
    ids=[f"{steps[position]['kind']}-{words}" for _, steps, position, words in MALFORMED_TRACES],
)
def test_a_malformed_step_raises_a_schedule_error_naming_it(
    workload: str, steps: list[dict[str, Any]], position: int, words: str
) -> None:
    trace = Trace.from_json(json.dumps({"version": 1, "steps": steps}))
    with pytest.raises(ScheduleError) as caught:
        trace.replay(workloads()[workload].program())
    message = str(caught.value)
    assert message.startswith(f"step {position} {trace.steps[position]}: "), message
    assert words in message, message


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "",
        "[]",
        "null",
        '{"steps": 3}',
        '{"version": 2, "steps": []}',
        '{"steps": [5]}',
        '{"steps": [{"stage": "matmul"}]}',
        '{"steps": [["split", "matmul"]]}',
    ],
)
def test_garbage_trace_text_raises_a_schedule_error(text: str) -> None:
    with pytest.raises(ScheduleError):
        Trace.from_json(text).replay(workloads()["matmul"].program())


# --- random JSON-ish steps: only ScheduleError may come out -----------------------------------

PLAUSIBLE_NAMES = ["matmul", "conv2d", "pad", "add", "relu", "i0", "i1", "i2", "i3", "k"]
PLAUSIBLE_NAMES += ["rc", "ry", "rx", "n", "y", "x", "i0_o", "i0_i", "p0", "p1", "p2", "local", ""]
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 40),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(PLAUSIBLE_NAMES),
    st.text(max_size=4),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=10,
)
_NAME = st.sampled_from(PLAUSIBLE_NAMES)
_AMOUNT = st.one_of(
    st.integers(1, 40), st.integers(-1, 0), st.booleans(), st.sampled_from([2.0, 2.5, "4"])
)
_PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "stage": _NAME,
    "axis": _NAME,
    "input": _NAME,
    "amount": _AMOUNT,
    "stages": st.lists(_NAME, max_size=4),
    "axes": st.lists(_NAME, max_size=6),
    "annotation": st.sampled_from(["parallel", "vectorize", "unroll", "bind", "gpu"]),
    "thread": st.sampled_from(["threadIdx.x", "blockIdx.y", "vthread", "warp"]),
    "scope": st.sampled_from(["global", "shared", "local", "texture"]),
    "factors": st.lists(st.lists(st.one_of(st.integers(1, 12), _AMOUNT), max_size=3), max_size=5),
    "order": st.lists(st.one_of(st.integers(-1, 6), st.sampled_from([0.0, 1.0, True])), max_size=7),
}
# Each primitive's arguments and what a plausible value of each looks like.
STEP_ARGUMENTS = {
    "split": {"stage": "stage", "axis": "axis", "factor": "amount", "nparts": "amount"},
    "tile": {
        "stage": "stage",
        "x": "axis",
        "y": "axis",
        "x_factor": "amount",
        "y_factor": "amount",
    },
    "reorder": {"stage": "stage", "axes": "axes"},
    "fuse": {"stage": "stage", "outer": "axis", "inner": "axis"},
    "annotate": {"stage": "stage", "axis": "axis", "annotation": "annotation"},
    "bind": {"stage": "stage", "axis": "axis", "thread": "thread"},
    "compute_at": {"stage": "stage", "target": "stage", "axis": "axis"},
    "compute_inline": {"stage": "stage"},
    "compute_root": {"stage": "stage"},
    "cache_write": {"stage": "stage", "scope": "scope"},
    "cache_read": {"tensor": "input", "scope": "scope", "readers": "stages"},
    "set_scope": {"stage": "stage", "scope": "scope"},
    "layout_rewrite": {"input": "input", "factors": "factors", "order": "order"},
}


def program_names(workload: Workload) -> dict[str, tuple[str, ...]]:
    """The workload's stage, axis (with split-axis names) and input names, and the inputs'
    valid layout factors (as JSON text), by role."""
    schedule = Schedule(workload.program())
    axes = {
        f"{axis}{suffix}"
        for stage in schedule.stages.values()
        for axis in stage.leaves
        for suffix in ("", "_o", "_i")
    }
    shapes = [tensor.shape for tensor in schedule.program.inputs]
    factors = [[[dim] for dim in shape] for shape in shapes]
    factors += [[[dim // 2, 2] if dim % 2 == 0 else [dim] for dim in shape] for shape in shapes]
    return {
        "stage": tuple(schedule.stages),
        "axis": tuple(sorted(axes)),
        "input": tuple(tensor.name for tensor in schedule.program.inputs),
        "factors": tuple(json.dumps(f) for f in factors),
    }


def _known_names(names: dict[str, tuple[str, ...]], role: str) -> st.SearchStrategy[Any]:
    if role == "factors":
        return st.sampled_from(names[role]).map(json.loads)
    if role == "order":
        return st.integers(1, 8).flatmap(lambda count: st.permutations(range(count)))
    if role in names:
        return st.sampled_from(names[role])
    if role in ("stages", "axes"):
        pool = names["stage" if role == "stages" else "axis"]
        return st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True)
    if role == "amount":
        return st.one_of(st.integers(1, 12), _AMOUNT)
    return _PLAUSIBLE[role]


@st.composite
def json_steps(draw: Draw, names: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """A step dict: a primitive with plausible, missing, garbage or extra arguments;
    `names` are the stage, axis and input names of the program it is meant for."""
    if draw(st.integers(0, 19)) == 0:
        kind = draw(st.sampled_from(["__init__", "apply", "_split", "stage"]) | st.text(max_size=6))
    else:
        kind = draw(st.sampled_from(STEP_KINDS))
    step: dict[str, Any] = {"kind": kind}
    for name, role in STEP_ARGUMENTS.get(kind, STEP_ARGUMENTS["split"]).items():
        choice = draw(st.integers(0, 19))
        if choice < 15:
            step[name] = draw(_known_names(names, role))
        elif choice < 18:
            step[name] = draw(_PLAUSIBLE[role])
        elif choice < 19:
            step[name] = draw(JSON_VALUES)
    if kind == "split" and draw(st.booleans()):
        step[draw(st.sampled_from(["factor", "nparts"]))] = None
    if draw(st.integers(0, 9)) == 0:
        return {draw(st.text(max_size=6)): draw(JSON_VALUES), **step}
    return step


def _replay_and_lower(name: str, steps: list[dict[str, Any]]) -> None:
    """Replay the steps (through JSON text) and lower; only ScheduleError may come out."""
    text = json.dumps({"version": 1, "steps": steps})
    try:
        schedule = Trace.from_json(json.loads(text)).replay(workloads()[name].program())
        lower(schedule)
    except ScheduleError:
        pass


@pytest.mark.parametrize("name", ["matmul", "conv2d_bias_relu"])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_random_json_steps_raise_only_schedule_errors(name: str, data: st.DataObject) -> None:
    names = program_names(workloads()[name])
    _replay_and_lower(name, data.draw(st.lists(json_steps(names), min_size=1, max_size=6)))


@st.composite
def mutated(draw: Draw, steps: list[dict[str, Any]], names: dict[str, tuple[str, ...]]) -> Any:
    """`steps` with one random edit: a value replaced, a key dropped or added, the kind
    changed, a random step inserted, or a step repeated."""
    steps = [dict(step) for step in steps]
    mutation = draw(st.sampled_from(["value", "drop", "add", "kind", "insert", "repeat"]))
    if mutation == "insert" or not steps:
        steps.insert(draw(st.integers(0, len(steps))), draw(json_steps(names)))
        return steps
    step = steps[draw(st.integers(0, len(steps) - 1))]
    keys = sorted(key for key in step if key != "kind")
    if mutation == "value" and keys:
        key = draw(st.sampled_from(keys))
        roles = STEP_ARGUMENTS.get(step["kind"], {})
        role = roles.get(key, "axis")
        step[key] = draw(st.one_of(_PLAUSIBLE[role], _known_names(names, role), JSON_VALUES))
    elif mutation == "drop" and keys:
        del step[draw(st.sampled_from(keys))]
    elif mutation == "add":
        step[draw(st.sampled_from(sorted({k for a in STEP_ARGUMENTS.values() for k in a})))] = draw(
            JSON_VALUES
        )
    elif mutation == "kind":
        step["kind"] = draw(st.sampled_from(STEP_KINDS))
    else:
        steps.append(dict(step))
    return steps


@pytest.mark.parametrize("name", ["matmul", "conv2d_bias_relu", "softmax"])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_mutated_valid_traces_are_rejected_or_compute_the_reference(
    name: str, data: st.DataObject
) -> None:
    workload = workloads()[name]
    steps = random_schedule(workload, data.draw).trace.to_json()["steps"]
    for _ in range(data.draw(st.integers(1, 3))):
        steps = data.draw(mutated(steps, program_names(workload)))
    try:
        schedule = Trace.from_json(json.loads(json.dumps({"steps": steps}))).replay(
            workload.program()
        )
    except ScheduleError:
        return
    # Whatever the schedule accepts is a valid schedule: it must compute the reference.
    check_schedule(workload, schedule)


def test_a_split_step_may_leave_out_nparts() -> None:
    steps = [{"kind": "split", "stage": "matmul", "axis": "i0", "factor": 4}]
    schedule = Trace.from_json({"steps": steps}).replay(workloads()["matmul"].program())
    assert schedule.stages["matmul"].leaves == ["i0_o", "i0_i", "i1", "k"]


def test_a_bool_split_factor_is_rejected() -> None:
    steps = [{"kind": "split", "stage": "matmul", "axis": "i0", "factor": True, "nparts": None}]
    with pytest.raises(ScheduleError, match="step 0 split"):
        lower(Trace.from_json({"steps": steps}).replay(workloads()["matmul"].program()))


def test_a_float_layout_order_is_rejected() -> None:
    steps = [
        {"kind": "layout_rewrite", "input": "p1", "factors": [[40], [36]], "order": [0.0, 1.0]}
    ]
    with pytest.raises(ScheduleError, match="step 0 layout_rewrite"):
        lower(Trace.from_json({"steps": steps}).replay(workloads()["matmul"].program()))
