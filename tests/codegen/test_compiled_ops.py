"""Every op, compiled with its default schedule through the model executor, equals the oracle.

Each case of the TE-compute tests (op, inputs, attributes) becomes a one-op graph whose
inputs are variables; it is typed, fused, compiled with `compile_model` and run, and the
result is compared with `ir.reference.evaluate` under `check_close`'s dtype-aware
tolerances. A second group binds the weights of dense, matmul and conv2d to constants, so
the default schedule may repack them (layout rewrites) before the kernel runs.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.executor import compile_model
from ir.graph.nodes import Call, Constant, Function, Var, call
from ir.graph.ops import OP_TABLE
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.reference import check_close, evaluate
from tests.ir.graph.ops.test_te_compute import CASES, Case, _case_id
from tests.support.guarded_memory import guarded_copy

RNG = np.random.default_rng(7)


def _single_op_graph(op: str, inputs: list[np.ndarray], attrs: dict[str, object]) -> Function:
    """`fn(x0, x1, ...) = op(x0, x1, ...)`, typed."""
    params = [
        Var(f"x{index}", TensorType(value.shape, value.dtype.name))
        for index, value in enumerate(inputs)
    ]
    attributes: dict[str, Any] = dict(attrs)
    return infer_type(Function(tuple(params), call(op, *params, **attributes)))


def _as_list(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [array for item in value for array in _as_list(item)]
    return [np.asarray(value)]


def _compile_and_check(
    fn: Function, inputs: dict[str, np.ndarray], what: str, atol: float | None = None
) -> Any:
    """Fuse and compile `fn`, run it on `inputs`, compare with the reference (`atol`: the
    dtype's default unless given); the model."""
    expected = _as_list(evaluate(fn, inputs))
    model = compile_model(fuse_ops(fn))
    actual = _as_list(model.run(inputs))
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (what, index)
        check_close(got, want, atol=atol, what=f"{what} output {index}")
    return model


def test_the_cases_cover_every_op() -> None:
    missing = sorted(set(OP_TABLE) - {op for op, _, _ in CASES})
    assert not missing, f"ops without a compiled test case: {missing}"


def _params(cases: list[Case]) -> list[Any]:
    return [pytest.param(*case, id=_case_id(case)) for case in cases]


@pytest.mark.parametrize(("op", "inputs", "attrs"), _params(CASES))
def test_compiled_op_matches_reference(
    op: str, inputs: list[np.ndarray], attrs: dict[str, object]
) -> None:
    fn = _single_op_graph(op, inputs, attrs)
    named = {f"x{index}": value for index, value in enumerate(inputs)}
    _compile_and_check(fn, named, op)


# --- constant weights: the default schedule may repack them ------------------------------


def _normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# The default schedule repacks a constant weight so its vectorized axis is contiguous:
# dense [N, K] -> [ceil(N / t), K, t], matmul [K, N] -> [ceil(N / t), K, t], conv2d
# [O, I, KH, KW] -> [ceil(O / t), I, KH, KW, t] (zero-padded when t does not divide N or O).
CONSTANT_WEIGHT_CASES: list[Case] = [
    ("nn.dense", [_normal(6, 40), _normal(64, 40)], {}),
    ("nn.dense", [_normal(2, 3, 24), _normal(32, 24)], {}),
    ("nn.dense", [_normal(5, 16), _normal(20, 16)], {}),
    ("nn.matmul", [_normal(7, 24), _normal(24, 64)], {}),
    ("nn.matmul", [_normal(2, 5, 12), _normal(12, 48)], {}),
    ("nn.conv2d", [_normal(1, 8, 10, 10), _normal(32, 8, 3, 3, scale=0.3)], {"padding": (1, 1)}),
    ("nn.conv2d", [_normal(1, 8, 10, 10), _normal(12, 8, 3, 3, scale=0.3)], {"padding": (1, 1)}),
    ("nn.conv2d", [_normal(1, 16, 7, 7), _normal(40, 16, 1, 1, scale=0.3)], {}),
    (
        "nn.conv2d",
        [_normal(2, 6, 9, 11), _normal(6, 1, 3, 3, scale=0.3)],
        {"padding": (1, 1, 1, 1), "strides": (2, 2), "groups": 6},
    ),
]


def _constant_weight_graph(op: str, data: np.ndarray, weight: np.ndarray, **attrs: Any) -> Function:
    x = Var("x", TensorType(data.shape, data.dtype.name))
    return infer_type(Function((x,), call(op, x, Constant(weight), **attrs)))


@pytest.mark.parametrize(
    ("op", "inputs", "attrs"),
    CONSTANT_WEIGHT_CASES,
    ids=[_case_id(c) for c in CONSTANT_WEIGHT_CASES],
)
def test_compiled_op_with_constant_weight_matches_reference(
    op: str, inputs: list[np.ndarray], attrs: dict[str, object]
) -> None:
    data, weight = inputs
    fn = _constant_weight_graph(op, data, weight, **attrs)
    model = _compile_and_check(fn, {"x": data}, f"{op} with a constant weight")
    calls = [n for n in post_order(model.function.body) if isinstance(n, Call)]
    assert [type(arg) for arg in calls[0].args] == [Var, Constant]


@pytest.mark.parametrize(
    ("op", "data_shape", "weight_shape"),
    [
        ("nn.dense", (4, 40), (64, 40)),
        ("nn.dense", (4, 40), (48, 40)),
        ("nn.matmul", (4, 40), (40, 64)),
        ("nn.matmul", (4, 40), (40, 48)),
        ("nn.conv2d", (1, 8, 10, 10), (32, 8, 3, 3)),
    ],
)
def test_default_schedule_repacks_a_constant_weight(
    op: str, data_shape: tuple[int, ...], weight_shape: tuple[int, ...]
) -> None:
    """The repack is exercised, not skipped (48 columns are padded to a whole tile)."""
    data = _normal(*data_shape)
    fn = _constant_weight_graph(op, data, _normal(*weight_shape))
    model = _compile_and_check(fn, {"x": data}, f"{op} repacked")
    layouts = [name for _, sch in model.kernel_schedules() for name in sch.input_layouts]
    assert layouts == ["p1"], f"{op}: the default schedule did not repack the constant weight"


def test_constant_matmul_weight_whose_repack_is_only_a_reshape() -> None:
    data = _normal(4, 40)
    fn = _constant_weight_graph("nn.matmul", data, _normal(40, 8))
    _compile_and_check(fn, {"x": data}, "matmul with a [40, 8] constant weight")


# --- out-of-bounds reads: inputs flush against a page that faults -----------------------
# Padding, pooling, LRN and concatenate read their input under a select; a kernel that
# loads the untaken side reads outside the input, which is a segmentation fault when the
# input lies next to an unmapped page (it did in `autotune run` of resnet50). The guarded
# runs happen in a subprocess so such a fault fails one test instead of killing pytest.

REPO_ROOT = Path(__file__).resolve().parents[2]
GUARDED_CASES = list(CASES)


def run_cases_guarded(cases: list[Case]) -> None:
    """Compile each case and run it with every input flush against a faulting page, first
    after its end, then before its start; print each case's index before running it."""
    for index, (op, inputs, attrs) in enumerate(cases):
        print(index, flush=True)
        fn = _single_op_graph(op, inputs, attrs)
        model = compile_model(fuse_ops(fn))
        named = {f"x{position}": value for position, value in enumerate(inputs)}
        expected = _as_list(evaluate(fn, named))
        for side in ("after", "before"):
            guarded = {name: guarded_copy(value, side) for name, value in named.items()}
            for got, want in zip(_as_list(model.run(guarded)), expected, strict=True):
                check_close(got, want, what=f"{_case_id((op, inputs, attrs))}, guard {side}")


def _in_subprocess(statement: str) -> subprocess.CompletedProcess[str]:
    """`statement` (with this module as `t`) run in a fresh interpreter, so that a memory
    fault fails one test instead of killing pytest."""
    code = (
        "import faulthandler; faulthandler.enable()\n"
        "from tests.codegen import test_compiled_ops as t\n"
        f"{statement}\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_kernels_read_only_inside_their_inputs() -> None:
    completed = _in_subprocess("t.run_cases_guarded(t.GUARDED_CASES)")
    started = completed.stdout.split()
    case = _case_id(GUARDED_CASES[int(started[-1])]) if started else "before the first case"
    faulted = completed.returncode in (-signal.SIGSEGV, -signal.SIGBUS)
    what = "memory fault (out-of-bounds access)" if faulted else "failure"
    assert completed.returncode == 0, f"{what} in {case}:\n{completed.stderr[-3000:]}"


# --- gathers at indices outside the data: no fault, the nearest end read -----------------

OUT_OF_RANGE = np.array([[0, 7, -9], [10**9, -(10**12), 2]], np.int64)


def run_out_of_range_gathers() -> None:
    """take and gather_elements at indices outside [-dim, dim), their data flush against
    a faulting page on either side: each reads the nearest end of the axis."""
    data = np.arange(15, dtype=np.float32).reshape(5, 3)

    def clipped(dim: int) -> np.ndarray:
        return np.clip(np.where(OUT_OF_RANGE < 0, OUT_OF_RANGE + dim, OUT_OF_RANGE), 0, dim - 1)

    cases = [
        ("take", np.take(data, clipped(5), axis=0), {"axis": 0}),
        ("gather_elements", np.take_along_axis(data[:2], clipped(2), axis=0), {"axis": 0}),
    ]
    for op, want, attrs in cases:
        source = data if op == "take" else data[:2].copy()
        model = compile_model(fuse_ops(_single_op_graph(op, [source, OUT_OF_RANGE], attrs)))
        for side in ("after", "before"):
            got = model.run({"x0": guarded_copy(source, side), "x1": OUT_OF_RANGE})
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{op}, guard {side}")


def test_gathers_at_indices_out_of_range_read_the_nearest_end_and_never_fault() -> None:
    completed = _in_subprocess("t.run_out_of_range_gathers()")
    assert completed.returncode == 0, completed.stderr[-3000:]
