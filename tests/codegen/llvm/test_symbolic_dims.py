"""Kernels with symbolic dims: one compiled kernel runs every shape within its bounds.

Each kernel is built once from TE with size variables, under no schedule, the default
schedule and hand-written ones (tiles that leave partial tiles, fuses of symbolic loops,
producers computed inside consumers, rfactors of symbolic reductions), and checked
against numpy at sizes from 1 to the upper bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.errors import KernelArgumentError
from codegen.llvm import compile_kernel
from codegen.llvm.jit import CompiledKernel
from ir.errors import IRError, ScheduleError
from ir.lower import lower
from ir.lower.dispatch import dispatch_on_sizes
from ir.reference import check_close
from ir.schedule.default import default_schedule
from ir.schedule.rules.loops import MIN_PARALLEL_WORK
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram
from ir.te.tensor import (
    Dim,
    Tensor,
    compute,
    max_reduce,
    placeholder,
    reduce_axis,
    size_var,
    sum_reduce,
)
from ir.tir.expr import binary, intrinsic
from ir.tir.interpret import interpret
from ir.tir.printer import format_func
from tests.codegen.test_schedule_properties import (
    MAX_PARALLEL_LAUNCHES,
    parallel_launches,
    random_schedule,
)

RNG = np.random.default_rng(7)


def _dense(upper: int = 200) -> TEProgram:
    m = size_var("m", upper)
    x = placeholder((m, 48), name="X")
    w = placeholder((40, 48), name="W")
    k = reduce_axis(48, "k")
    y = compute((m, 40), lambda i, j: sum_reduce(x[i, k] * w[j, k], axis=k), name="Y")
    return TEProgram("dense", (x, w), (y,))


def _softmax() -> TEProgram:
    b, s = size_var("b", 6), size_var("s", 300)
    a = placeholder((b, s), name="A")
    r1, r2 = reduce_axis(s, "r1"), reduce_axis(s, "r2")
    top = compute((b,), lambda i: max_reduce(a[i, r1], axis=r1), name="top")
    ex = compute((b, s), lambda i, j: intrinsic("exp", a[i, j] - top[i]), name="ex")
    total = compute((b,), lambda i: sum_reduce(ex[i, r2], axis=r2), name="total")
    out = compute((b, s), lambda i, j: ex[i, j] / total[i], name="out")
    return TEProgram("softmax", (a,), (out,))


def _attention_context() -> TEProgram:
    """[b, h, s, s] x [b, h, s, d] -> [b, h, s, d]: symbolic strides and a reduction
    over a symbolic axis."""
    b, s = size_var("b", 3), size_var("s", 80)
    p = placeholder((b, 2, s, s), name="P")
    v = placeholder((b, 2, s, 16), name="V")
    t = reduce_axis(s, "t")
    c = compute(
        (b, 2, s, 16),
        lambda i, h, q, e: sum_reduce(p[i, h, q, t] * v[i, h, t, e], axis=t),
        name="C",
    )
    return TEProgram("context", (p, v), (c,))


def _softmax_reference(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _tiled_dense() -> Schedule:
    """Tiles of 8 rows (a partial last tile), vectorized columns, parallel row tiles."""
    schedule = Schedule(_dense())
    io, jo, ii, ji = schedule.tile("Y", "i", "j", 8, 8)
    schedule.reorder("Y", io, jo, "k", ii, ji)
    schedule.vectorize("Y", ji)
    schedule.parallel("Y", io)
    return schedule


def _fused_tiles_dense() -> Schedule:
    """Tiles of 8 rows fused with the column tiles into one parallel loop: no loop of its
    own over the row tiles to peel, so whole tiles get a version without the row guard."""
    schedule = Schedule(_dense())
    io, jo, ii, ji = schedule.tile("Y", "i", "j", 8, 8)
    fused = schedule.fuse("Y", io, jo)
    schedule.reorder("Y", fused, "k", ii, ji)
    schedule.unroll("Y", ii)
    schedule.vectorize("Y", ji)
    schedule.parallel("Y", fused)
    return schedule


def _fused_context() -> Schedule:
    """All spatial loops but the last fused into one parallel loop over symbolic axes."""
    schedule = Schedule(_attention_context())
    fused = schedule.fuse("C", "i", "h")
    fused = schedule.fuse("C", fused, "q")
    schedule.parallel("C", fused)
    schedule.reorder("C", fused, "t", "e")
    schedule.vectorize("C", "e")
    return schedule


def _softmax_at_rows() -> Schedule:
    """The row statistics and exponentials computed inside each output row."""
    schedule = Schedule(_softmax())
    for producer in ("total", "ex", "top"):
        schedule.compute_at(producer, "out", "i")
    _, inner = schedule.split("out", "j", 16)
    schedule.vectorize("out", inner)
    return schedule


def _rfactor_softmax() -> Schedule:
    schedule = Schedule(_softmax())
    schedule.rfactor("total", "r2", 8)
    return schedule


def _local_row_tiles(program: TEProgram | None = None) -> Schedule:
    """Tiles of 6 rows (a partial last tile) by 8 vectorized columns, the tile loops fused
    into one parallel loop, each tile accumulated in a tile-sized local buffer computed
    inside it, its rows unrolled inside the reduction: the default dense rule's shape."""
    schedule = Schedule(program or _dense())
    cache = schedule.cache_write("Y", "local")
    io, jo, _, ji = schedule.tile("Y", "i", "j", 6, 8)
    fused = schedule.fuse("Y", io, jo)
    schedule.vectorize("Y", ji)
    schedule.parallel("Y", fused)
    schedule.compute_at(cache, "Y", fused)
    rows, columns = (axis.name for axis in schedule.stages[cache].op.axes)
    schedule.reorder(cache, "k", rows, columns)
    schedule.unroll(cache, rows)
    schedule.vectorize(cache, columns)
    return schedule


def _dense_inputs(rows: int) -> list[np.ndarray]:
    return [RNG.standard_normal((rows, 48), dtype=np.float32), _W]


_W = RNG.standard_normal((40, 48), dtype=np.float32)


def _softmax_inputs(rows: int) -> list[np.ndarray]:
    return [RNG.standard_normal((1 + rows % 6, rows), dtype=np.float32)]


def _context_inputs(length: int) -> list[np.ndarray]:
    batch = 1 + length % 3
    return [
        RNG.standard_normal((batch, 2, length, length), dtype=np.float32),
        RNG.standard_normal((batch, 2, length, 16), dtype=np.float32),
    ]


SCHEDULES: dict[str, tuple[Callable[[], Schedule], Callable[[int], list[np.ndarray]], int]] = {
    "dense unscheduled": (lambda: Schedule(_dense()), _dense_inputs, 200),
    "dense default": (lambda: default_schedule(_dense()), _dense_inputs, 200),
    "dense tiled": (_tiled_dense, _dense_inputs, 200),
    "softmax default": (lambda: default_schedule(_softmax()), _softmax_inputs, 300),
    "softmax at rows": (_softmax_at_rows, _softmax_inputs, 300),
    "softmax rfactor": (_rfactor_softmax, _softmax_inputs, 300),
    "context default": (lambda: default_schedule(_attention_context()), _context_inputs, 80),
    "context fused": (_fused_context, _context_inputs, 80),
    "dense fused tiles": (_fused_tiles_dense, _dense_inputs, 200),
    "dense local tiles": (_local_row_tiles, _dense_inputs, 200),
}


def _reference(name: str, inputs: list[np.ndarray]) -> np.ndarray:
    if name.startswith("dense"):
        return inputs[0] @ inputs[1].T
    if name.startswith("softmax"):
        return _softmax_reference(inputs[0])
    return inputs[0] @ inputs[1]


_KERNELS: dict[str, CompiledKernel] = {}


def _kernel(name: str) -> CompiledKernel:
    if name not in _KERNELS:
        _KERNELS[name] = compile_kernel(lower(SCHEDULES[name][0]()))
    return _KERNELS[name]


def _run(name: str, size: int) -> None:
    kernel = _kernel(name)
    inputs = SCHEDULES[name][1](size)
    expected = _reference(name, inputs)
    out = np.full(expected.shape, np.nan, dtype=np.float32)
    kernel(*inputs, out)
    np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_one_kernel_runs_every_size_up_to_its_bound(name: str) -> None:
    upper = SCHEDULES[name][2]
    for size in sorted({1, 2, 7, 17, upper // 2 + 1, upper}):
        _run(name, size)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(SCHEDULES)), fraction=st.floats(0.0, 1.0))
def test_symbolic_kernels_match_numpy_at_any_size(name: str, fraction: float) -> None:
    upper = SCHEDULES[name][2]
    _run(name, 1 + int(fraction * (upper - 1)))


def test_the_signature_names_the_size_variables_and_whole_tiles_run_unguarded() -> None:
    func = lower(_tiled_dense())
    assert [var.name for var in func.size_params] == ["m"]
    text = format_func(func)
    assert text.startswith("def dense(X: float32[m, 48], W: float32[40, 48], Y: float32[m, 40]")
    assert "m: int64" in text
    # The row tiles run to m // 8 without a guard; then the last tile, if partial, in one
    # version per remainder, its rows loop that long: no guard either.
    main, last = text.split("if ((m % 8) != 0):\n    Y_i_o = (m // 8)")
    assert "for Y_i_o in range((m // 8))  # parallel:" in main
    assert " if " not in main
    assert all(f"if ((m % 8) == {rows}):" in last for rows in range(1, 7))
    assert "for Y_i_i in range(7):" in last and "< m)" not in last


def test_whole_tiles_of_a_fused_tile_loop_run_a_version_without_the_row_guard() -> None:
    text = format_func(lower(_fused_tiles_dense()))
    whole, partial = text.split("\n    else:\n")
    # The test of a whole tile sits outside the reduction; inside, nothing is guarded.
    assert "if ((((Y_i_o_j_o_f // 5) * 8) + 7) < m):" in whole
    assert whole.count(" if ") == 1
    assert "for Y_k in range(48):" in whole
    assert "if ((((Y_i_o_j_o_f // 5) * 8) + Y_i_i) < m):" in partial


def test_a_partial_tile_leaves_memory_past_the_rows_untouched() -> None:
    kernel = _kernel("dense tiled")
    x = RNG.standard_normal((13, 48), dtype=np.float32)
    storage = np.full((14, 40), 123.0, dtype=np.float32)
    out = storage[:13]
    kernel(x, _W, out)
    np.testing.assert_allclose(out, x @ _W.T, rtol=2e-5, atol=2e-5)
    assert (storage[13] == 123.0).all()


def test_shapes_that_do_not_fit_are_refused_by_name() -> None:
    kernel = _kernel("dense default")
    x = np.zeros((5, 48), np.float32)
    with pytest.raises(KernelArgumentError, match=r"X dim 0 \(m\) is 201, outside \[1, 200\]"):
        kernel(np.zeros((201, 48), np.float32), _W, np.zeros((201, 40), np.float32))
    with pytest.raises(KernelArgumentError, match="m is 5 by X dim 0 but 6 by Y dim 0"):
        kernel(x, _W, np.zeros((6, 40), np.float32))
    with pytest.raises(KernelArgumentError, match="X has rank 2; got an array of shape"):
        kernel(np.zeros((5,), np.float32), _W, np.zeros((5, 40), np.float32))
    with pytest.raises(KernelArgumentError, match=r"expects float32\[40, 48\]"):
        kernel(x, np.zeros((41, 48), np.float32), np.zeros((5, 40), np.float32))


def test_a_dim_that_is_an_expression_is_checked_against_the_others() -> None:
    n = size_var("n", 50)
    a = placeholder((n,), name="A")
    twice = Dim(binary("mul", n.value, 2), 100)
    repeated = compute((twice,), lambda i: a[i // 2] * 2.0, name="B")
    schedule = Schedule(TEProgram("repeat", (a,), (repeated,)))
    _, inner = schedule.split("B", "i", 8)
    schedule.vectorize("B", inner)
    kernel = compile_kernel(lower(schedule))
    values = RNG.standard_normal(9, dtype=np.float32)
    out = np.zeros(18, np.float32)
    kernel(values, out)
    np.testing.assert_allclose(out, np.repeat(values, 2) * 2.0)
    with pytest.raises(KernelArgumentError, match=r"B dim 0 must be \(n \* 2\) = 18; got 19"):
        kernel(values, np.zeros(19, np.float32))


def test_a_size_only_an_expression_holds_is_solved_from_it() -> None:
    """Every parameter dim is `n + 1` (a kernel after a cache grew by one): the shapes
    bind n = size - 1, and a size that leaves n below 1 is refused by name."""
    n = size_var("n", 40)
    grown = Dim(binary("add", n.value, 1), 41)
    a = placeholder((grown, 4), name="A")
    doubled = compute((grown, 4), lambda i, j: a[i, j] * 2.0, name="B")
    kernel = compile_kernel(lower(default_schedule(TEProgram("grown", (a,), (doubled,)))))
    assert [var.name for var in kernel.func.size_params] == ["n"]
    for rows in (2, 17, 41):
        values = RNG.standard_normal((rows, 4), dtype=np.float32)
        out = np.zeros((rows, 4), np.float32)
        kernel(values, out)
        np.testing.assert_allclose(out, values * 2.0)
    with pytest.raises(KernelArgumentError, match=r"A dim 0 \(\(n \+ 1\)\) is 1, which makes n 0"):
        kernel(np.zeros((1, 4), np.float32), np.zeros((1, 4), np.float32))
    with pytest.raises(KernelArgumentError, match="n is 4 by A dim 0 but 5 by B dim 0"):
        kernel(np.zeros((5, 4), np.float32), np.zeros((6, 4), np.float32))


def test_a_tensor_of_upper_bound_size_is_what_static_analyses_see() -> None:
    program = _dense(upper=64)
    (output,) = program.outputs
    assert isinstance(output, Tensor)
    assert output.shape == (64, 40)
    assert [str(dim) for dim in output.runtime_dims] == ["m", "40"]


class _SymbolicWorkload:
    """A symbolic TE program for `random_schedule` (no weights to rewrite)."""

    weights: tuple[str, ...] = ()

    def __init__(self, name: str, build: Callable[[], TEProgram]) -> None:
        self.name = name
        self.build = build

    def program(self) -> TEProgram:
        return self.build()


RANDOM_WORKLOADS = {
    "dense": (_SymbolicWorkload("dense", lambda: _dense(upper=40)), "dense default", 40),
    "softmax": (_SymbolicWorkload("softmax", _softmax), "softmax default", 300),
    "context": (_SymbolicWorkload("context", _attention_context), "context default", 80),
}


@pytest.mark.parametrize("name", sorted(RANDOM_WORKLOADS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_schedules_of_symbolic_kernels_compute_numpy_at_any_size(
    name: str, data: st.DataObject
) -> None:
    """Any valid schedule (splits with tails, fuses, reorders, compute_at, rfactor,
    cache_read/write, vectorize, parallel, unroll), lowered once, is right at every size."""
    workload, case, upper = RANDOM_WORKLOADS[name]
    schedule = random_schedule(workload, data.draw)  # type: ignore[arg-type]
    try:
        func = lower(schedule)
    except ScheduleError:
        return
    if parallel_launches(schedule) > MAX_PARALLEL_LAUNCHES:
        return
    kernel = compile_kernel(func)
    for size in sorted({1, data.draw(st.integers(1, upper)), upper}):
        inputs = SCHEDULES[case][1](size)
        expected = _reference(case, inputs)
        out = np.full(expected.shape, np.nan, dtype=np.float32)
        kernel(*inputs, out)
        check_close(out, expected, what=f"{name} at {size} under {schedule.trace.dumps()}")


def test_a_split_of_a_fuse_over_a_symbolic_axis_keeps_the_static_axis_in_range() -> None:
    """Found by the property above: h (2) fused with q (s) runs to 2 * s, divided by s;
    split into one part of the static bound 160, the loop ran past 2 * s, so h reached 2
    and more, and the kernel wrote past its output (a segmentation fault)."""
    schedule = Schedule(_attention_context())
    fused = schedule.fuse("C", "h", "q")
    schedule.split("C", fused, nparts=1)
    kernel = compile_kernel(lower(schedule))
    for length in (1, 5, 80):
        inputs = _context_inputs(length)
        out = np.full((inputs[0].shape[0], 2, length, 16), np.nan, np.float32)
        kernel(*inputs, out)
        np.testing.assert_allclose(out, inputs[0] @ inputs[1], rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", ["dense tiled", "softmax at rows", "context fused"])
def test_the_loop_ir_itself_means_the_same_at_every_size(name: str) -> None:
    """The plain-Python interpreter runs the lowered kernel, with its size variables
    read off the arrays: the lowering is right independently of the code generator."""
    func = lower(SCHEDULES[name][0]())
    for size in (1, 3, 9):
        inputs = SCHEDULES[name][1](size)
        expected = _reference(name, inputs)
        out = np.full(expected.shape, np.nan, dtype=np.float32)
        interpret(func, [*inputs, out])
        np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-5)


def test_a_size_dispatch_runs_the_narrow_lowering_at_small_sizes_and_the_wide_one_above() -> None:
    """Two lowerings of one dense program, its rows at most 16 and at most 200, joined
    into one kernel: right at every size, the narrow body where m <= 16 (its loops fitted
    to 16 rows), the wide one above."""
    narrow, wide = lower(default_schedule(_dense(upper=16))), lower(default_schedule(_dense()))
    joined = dispatch_on_sizes(narrow, wide, {"m": 16})
    text = format_func(joined)
    assert "if (m <= 16):" in text and [p.shape for p in joined.params] == [
        p.shape for p in wide.params
    ]
    kernel = compile_kernel(joined)
    for size in (1, 5, 16, 17, 200):
        inputs = _dense_inputs(size)
        out = np.full((size, 40), np.nan, np.float32)
        kernel(*inputs, out)
        np.testing.assert_allclose(out, inputs[0] @ _W.T, rtol=2e-5, atol=2e-5)


def test_a_size_dispatch_refuses_lowerings_of_other_programs() -> None:
    dense, softmax = lower(default_schedule(_dense())), lower(default_schedule(_softmax()))
    with pytest.raises(IRError, match="do not take the same parameters"):
        dispatch_on_sizes(softmax, dense, {"m": 16})
    with pytest.raises(IRError, match=r"has no size variable\(s\) \['s'\]"):
        dispatch_on_sizes(dense, dense, {"s": 16})


def _columns_product(upper: int = 40) -> TEProgram:
    """[16, 24] x [24, n] -> [16, n]: the symbolic axis is the vectorized one."""
    n = size_var("n", upper)
    a = placeholder((16, 24), name="A")
    b = placeholder((24, n), name="B")
    k = reduce_axis(24, "k")
    c = compute((16, n), lambda i, j: sum_reduce(a[i, k] * b[k, j], axis=k), name="C")
    return TEProgram("columns", (a, b), (c,))


def test_a_partial_vector_tile_accumulates_in_registers_and_broadcasts_without_gathers() -> None:
    """Column tiles of 16 lanes over a symbolic n, the accumulators in a tile-sized local
    buffer: the last tile's lanes are masked, but its stores to the local buffer blend
    and store whole vectors, and the row value every lane shares is one load, not a
    gather. Right at every n."""
    schedule = Schedule(_columns_product())
    cache = schedule.cache_write("C", "local")
    jo, ji = schedule.split("C", "j", 16)
    schedule.vectorize("C", ji)
    schedule.compute_at(cache, "C", jo)
    inner = schedule.stages[cache].op.axes[1].name
    schedule.reorder(cache, schedule.stages[cache].op.axes[0].name, "k", inner)
    schedule.vectorize(cache, inner)
    kernel = compile_kernel(lower(schedule))
    text = kernel._llvm_text
    assert "llvm.masked.gather" not in text
    assert " alloca " not in text  # C_local's lanes all live in registers
    a = RNG.standard_normal((16, 24), dtype=np.float32)
    for n in (1, 7, 16, 17, 40):
        b = RNG.standard_normal((24, n), dtype=np.float32)
        out = np.full((16, n), np.nan, np.float32)
        kernel(a, b, out)
        np.testing.assert_allclose(out, a @ b, rtol=2e-5, atol=2e-5)


def test_a_size_dispatch_refuses_lowerings_that_lay_a_constant_out_otherwise() -> None:
    """The weight is stored once, as one lowering asks: a narrow lowering that reads it
    in blocks of another shape cannot join the wide one."""
    packed = Schedule(_dense(upper=16))
    packed.layout_rewrite("W", [[5, 8], [48]], [0, 2, 1])
    narrow, wide = lower(packed), lower(default_schedule(_dense()))
    with pytest.raises(IRError, match="parameter W of dense is not W's"):
        dispatch_on_sizes(narrow, wide, {"m": 16})


def _guarded_updates(text: str, buffer: str, loop: str) -> int:
    """How many stores into `buffer` inside loop `loop` of the printed kernel `text` sit
    under an `if` within that loop."""
    lines = text.splitlines()
    count = 0
    for number, line in enumerate(lines):
        if not line.lstrip().startswith(f"{buffer}["):
            continue
        depth, guarded = len(line) - len(line.lstrip()), False
        for above in reversed(lines[:number]):
            indent = len(above) - len(above.lstrip())
            if indent >= depth:
                continue
            depth = indent
            if above.lstrip().startswith(f"for {loop} "):
                count += guarded
                break
            guarded = guarded or above.lstrip().startswith("if ")
    return count


def test_a_partial_tile_accumulates_its_whole_tile_and_clamps_its_row_reads() -> None:
    """The last tile's accumulators fill all 6 rows, unguarded inside the reduction (a
    guard there kept them out of registers); its reads of X are clamped into X instead,
    and only the copy out to Y is guarded. Right at every size, and Y's memory past the
    rows is left untouched."""
    text = format_func(lower(_local_row_tiles()))
    assert _guarded_updates(text, "Y_local", "Y_local_k") == 0
    assert "X[min(" in text and "W[min(" not in text  # (W's reads do not depend on the rows)
    assert "if ((((Y_i_o_j_o_f // 5) * 6) + Y_i_i) < m):" in text  # (the copy out, by row)
    kernel = _kernel("dense local tiles")
    for rows in (1, 5, 6, 7, 13, 200):
        x = RNG.standard_normal((rows, 48), dtype=np.float32)
        storage = np.full((rows + 1, 40), 123.0, dtype=np.float32)
        kernel(x, _W, storage[:rows])
        np.testing.assert_allclose(storage[:rows], x @ _W.T, rtol=2e-5, atol=2e-5)
        assert (storage[rows] == 123.0).all()


def test_a_stage_dividing_integers_by_data_keeps_its_guards() -> None:
    """Past the rows a divisor read from data may be zero: such a stage stays guarded,
    and stays right."""
    m = size_var("m", 40)
    x = placeholder((m, 48), "int32", name="X")
    w = placeholder((40, 48), "int32", name="W")
    k = reduce_axis(48, "k")
    y = compute(
        (m, 40),
        lambda i, j: sum_reduce(binary("floordiv", x[i, k], w[j, k]), axis=k),
        name="Y",
    )
    func = lower(_local_row_tiles(TEProgram("quotients", (x, w), (y,))))
    assert _guarded_updates(format_func(func), "Y_local", "Y_local_k") > 0
    kernel = compile_kernel(func)
    weights = RNG.integers(1, 9, (40, 48)).astype(np.int32)
    for rows in (1, 7, 40):
        data = RNG.integers(-100, 100, (rows, 48)).astype(np.int32)
        out = np.zeros((rows, 40), np.int32)
        kernel(data, weights, out)
        expected = (data[:, None, :] // weights[None, :, :]).sum(axis=2, dtype=np.int32)
        np.testing.assert_array_equal(out, expected)


def test_a_parallel_loop_runs_on_the_calling_thread_where_the_sizes_leave_little_work() -> None:
    """The default schedule runs the dense rows in parallel (at 200 rows, 384000 steps);
    at run time, below the rules' threshold of work (`MIN_PARALLEL_WORK` steps: 2 rows
    of 40 x 48), the loop's body is called once on the calling thread instead of
    starting the threads. Right on both sides of the threshold."""
    kernel = compile_kernel(lower(default_schedule(_dense())))
    text = kernel._llvm_text
    assert re.search(rf"icmp slt i64 %[\w.]+, {MIN_PARALLEL_WORK}\b", text)
    assert re.search(r"call fastcc void @\w+_body\([^)]*, i64 0, i64 %m\)", text)
    assert "GOMP_parallel" in text
    for rows in (1, 2, 3, 200):
        x = RNG.standard_normal((rows, 48), dtype=np.float32)
        out = np.full((rows, 40), np.nan, np.float32)
        kernel(x, _W, out)
        np.testing.assert_allclose(out, x @ _W.T, rtol=2e-5, atol=2e-5)
