"""Statements: guards, lets, allocations, unrolling limits, parallel regions, and the
cases a vectorized loop must fall back to a serial one to keep its meaning (reductions
into one element: test_horizontal_reductions.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from codegen.errors import CodegenError
from codegen.llvm import compile_kernel, host_target
from codegen.llvm.emit import build_module
from codegen.llvm.target import CpuTarget
from codegen.llvm.vectorize import vectorize_blocker
from ir.tir.expr import Buffer, FloatImm, IntImm, Load, Select, Var, cast, intrinsic
from ir.tir.stmt import Allocate, Barrier, For, IfThenElse, LetStmt, PrimFunc, Seq, Store, seq
from tests.codegen.llvm.kernels import random_array, run


def _unoptimised(func: PrimFunc) -> str:
    return str(build_module(func, host_target()))


@pytest.mark.parametrize("inner", ["serial", "vectorized", "unrolled"])
def test_if_guard_handles_a_tail(inner: str) -> None:
    # 61 elements in chunks of 8: the last chunk is guarded.
    size, lanes = 61, 8
    source, result = Buffer("A", (size,)), Buffer("B", (size,))
    jo, ji = Var("jo"), Var("ji")
    index = jo * lanes + ji
    guarded = IfThenElse(index < size, Store(result, index, Load(source, index) * FloatImm(3.0)))
    loops = For(jo, IntImm(-(-size // lanes)), "serial", For(ji, IntImm(lanes), inner, guarded))
    func = PrimFunc(f"tail_{inner}", (source, result), loops)
    data = random_array((size,))
    np.testing.assert_array_equal(run(func, data), data * 3)
    if inner == "vectorized":  # vector code, its loads and stores masked by the guard
        text = _unoptimised(func)
        assert "llvm.masked.store" in text and "llvm.masked.load" in text
        assert "llvm.loop.vectorize.enable" not in text


def test_if_then_else_takes_both_branches() -> None:
    source, result = Buffer("A", (32,)), Buffer("B", (32,))
    k = Var("k")
    branch = IfThenElse(
        Load(source, k) > FloatImm(0.0),
        Store(result, k, intrinsic("sqrt", Load(source, k))),
        Store(result, k, FloatImm(-1.0)),
    )
    func = PrimFunc("branches", (source, result), For(k, IntImm(32), "serial", branch))
    data = random_array((32,))
    expected = np.where(data > 0, np.sqrt(np.abs(data)), -1).astype(np.float32)
    np.testing.assert_array_equal(run(func, data), expected)


def test_let_binds_a_row_offset_and_a_lane_dependent_index() -> None:
    rows, cols = 4, 32
    source, result = Buffer("A", (rows, cols)), Buffer("B", (rows, cols))
    i, j, row, col = Var("i"), Var("j"), Var("row"), Var("col")
    inner_body = LetStmt(col, row + j, Store(result, col, Load(source, col) + FloatImm(1.0)))
    body = LetStmt(row, i * cols, For(j, IntImm(cols), "vectorized", inner_body))
    func = PrimFunc("lets", (source, result), For(i, IntImm(rows), "serial", body))
    data = random_array((rows, cols))
    np.testing.assert_array_equal(run(func, data), data + 1)
    # The let inside the vector body is seen through: still one contiguous access.
    text = _unoptimised(func)
    assert "load <32 x float>" in text and "store <32 x float>" in text


def test_let_bound_to_a_load_makes_the_index_a_gather() -> None:
    source, indices, result = Buffer("A", (16,)), Buffer("I", (16,), "int64"), Buffer("B", (16,))
    j, position = Var("j"), Var("position")
    body = LetStmt(position, Load(indices, j), Store(result, j, Load(source, position)))
    func = PrimFunc("let_gather", (source, indices, result), For(j, IntImm(16), "vectorized", body))
    data, picks = random_array((16,)), np.arange(16)[::-1].copy()
    np.testing.assert_array_equal(run(func, data, picks), data[::-1])
    assert "llvm.masked.gather" in _unoptimised(func)


@pytest.mark.parametrize(("size", "place"), [(1024, "alloca"), (40_000, "aligned_alloc")])
def test_allocate_on_stack_or_heap(size: int, place: str) -> None:
    # B = 2 * A through a temporary of `size` floats (160 KB for the large one).
    source, result = Buffer("A", (size,)), Buffer("B", (size,))
    scratch = Buffer("T", (size,), "float32", "global")
    k = Var("k")
    fill = For(k, IntImm(size), "vectorized", Store(scratch, k, Load(source, k) * FloatImm(2.0)))
    copy = For(Var("m"), IntImm(size), "serial", Store(result, Var("m"), Load(scratch, Var("m"))))
    func = PrimFunc(f"scratch_{size}", (source, result), Allocate(scratch, seq(fill, copy)))
    data = random_array((size,))
    np.testing.assert_array_equal(run(func, data), data * 2)
    text = _unoptimised(func)
    assert place in text
    if place == "aligned_alloc":
        assert re.search(r'call void @"?free"?\(', text)


def test_local_buffer_inside_a_parallel_loop_is_private_to_each_thread() -> None:
    rows, cols = 16, 64
    source, result = Buffer("A", (rows, cols)), Buffer("B", (rows, cols))
    row_copy = Buffer("R", (cols,), "float32", "local")
    i, j, m = Var("i"), Var("j"), Var("m")
    stage = For(j, IntImm(cols), "vectorized", Store(row_copy, j, Load(source, i * cols + j)))
    reverse = For(
        m, IntImm(cols), "serial", Store(result, i * cols + m, Load(row_copy, cols - 1 - m))
    )
    func = PrimFunc(
        "reverse_rows",
        (source, result),
        For(i, IntImm(rows), "parallel", Allocate(row_copy, seq(stage, reverse))),
    )
    data = random_array((rows, cols))
    np.testing.assert_array_equal(run(func, data), data[:, ::-1])


def test_nested_parallel_loops_make_one_parallel_region() -> None:
    rows, cols = 6, 10
    source, result = Buffer("A", (rows, cols)), Buffer("B", (rows, cols))
    i, j = Var("i"), Var("j")
    body = Store(result, i * cols + j, Load(source, i * cols + j) + cast("float32", i * j))
    func = PrimFunc(
        "nested_parallel",
        (source, result),
        For(i, IntImm(rows), "parallel", For(j, IntImm(cols), "parallel", body)),
    )
    data = random_array((rows, cols))
    expected = data + np.outer(np.arange(rows), np.arange(cols)).astype(np.float32)
    np.testing.assert_array_equal(run(func, data), expected)
    assert len(re.findall(r'call void @"?GOMP_parallel"?\(', _unoptimised(func))) == 1


@pytest.mark.parametrize("extent", [1, 2, 7, 33])
def test_parallel_loop_captures_outer_variables(extent: int) -> None:
    # for t in serial(3): let base = t * extent: for p in parallel(extent): B[base + p] = A[...] + t
    source, result = Buffer("A", (3 * extent,)), Buffer("B", (3 * extent,))
    t, p, base = Var("t"), Var("p"), Var("base")
    store = Store(result, base + p, Load(source, base + p) + cast("float32", t))
    body = LetStmt(base, t * extent, For(p, IntImm(extent), "parallel", store))
    func = PrimFunc(f"captures_{extent}", (source, result), For(t, IntImm(3), "serial", body))
    data = random_array((3 * extent,))
    expected = data + np.repeat(np.arange(3), extent).astype(np.float32)
    np.testing.assert_array_equal(run(func, data), expected)


def test_parallel_loop_on_a_single_core_target_is_serial() -> None:
    host = host_target()
    single = CpuTarget(host.kind, host.mcpu, 1, host.features, host.triple)
    source, result = Buffer("A", (8,)), Buffer("B", (8,))
    k = Var("k")
    func = PrimFunc(
        "one_core",
        (source, result),
        For(k, IntImm(8), "parallel", Store(result, k, Load(source, k))),
    )
    data = random_array((8,))
    np.testing.assert_array_equal(run(func, data, target=single), data)
    assert "GOMP_parallel" not in str(build_module(func, single))


def test_long_unrolled_loop_is_left_to_llvm_with_metadata() -> None:
    source, result = Buffer("A", (100,)), Buffer("B", (100,))
    k = Var("k")
    func = PrimFunc(
        "long_unroll",
        (source, result),
        For(k, IntImm(100), "unrolled", Store(result, k, Load(source, k) + FloatImm(1.0))),
    )
    data = random_array((100,))
    np.testing.assert_array_equal(run(func, data), data + 1)
    assert "llvm.loop.unroll.full" in _unoptimised(func)


def test_short_unrolled_loop_is_written_out() -> None:
    source, result = Buffer("A", (4,)), Buffer("B", (4,))
    k = Var("k")
    func = PrimFunc(
        "short_unroll",
        (source, result),
        For(k, IntImm(4), "unrolled", Store(result, k, Load(source, k))),
    )
    text = _unoptimised(func)
    assert "phi" not in text
    assert text.count("store float") == 4


def test_vectorized_recurrence_keeps_serial_meaning() -> None:
    # X[k + 1] = X[k] * 2: each iteration reads what the previous one wrote.
    state = Buffer("X", (17,))
    k = Var("k")
    body = Store(state, k + 1, Load(state, k) * FloatImm(2.0))
    func = PrimFunc("recurrence", (state,), For(k, IntImm(16), "vectorized", body))
    assert vectorize_blocker(body, k) is not None
    values = np.ones(17, np.float32)
    compile_kernel(func)(values)
    np.testing.assert_array_equal(values, 2.0 ** np.arange(17, dtype=np.float32))


def test_vectorized_reduction_into_one_element_sums_every_element() -> None:
    # Lanes are not independent here: the loop is one horizontal reduction
    # (test_horizontal_reductions.py), not a vector of stores.
    source, total = Buffer("A", (32,)), Buffer("S", (1,))
    k = Var("k")
    body = Store(total, IntImm(0), Load(total, IntImm(0)) + Load(source, k))
    func = PrimFunc("vector_sum", (source, total), For(k, IntImm(32), "vectorized", body))
    assert vectorize_blocker(body, k) is not None
    data = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(run(func, data), [data.sum()])


def test_vectorize_blocker_accepts_independent_lanes() -> None:
    source, result = Buffer("A", (16,)), Buffer("B", (16,))
    k = Var("k")
    in_place = Store(result, k, Load(result, k) + Load(source, k))
    assert vectorize_blocker(in_place, k) is None
    shifted_read = Seq((Store(result, k, Load(source, k)), Store(source, k, Load(result, k + 1))))
    assert vectorize_blocker(shifted_read, k) is not None
    assert vectorize_blocker(For(Var("m"), IntImm(2), "serial", in_place), k) is not None


def test_in_place_update_vectorizes() -> None:
    source, result = Buffer("A", (16,)), Buffer("B", (16,))
    k = Var("k")
    func = PrimFunc(
        "accumulate",
        (source, result),
        For(k, IntImm(16), "vectorized", Store(result, k, Load(result, k) + Load(source, k))),
    )
    data, acc = random_array((16,)), random_array((16,), seed=5)
    expected = acc + data
    compile_kernel(func)(data, acc)
    np.testing.assert_array_equal(acc, expected)


def test_degenerate_extents_and_barrier() -> None:
    source, result = Buffer("A", (4,)), Buffer("B", (4,))
    k, unused = Var("k"), Var("unused")
    body = seq(
        For(k, IntImm(1), "vectorized", Store(result, k, Load(source, k))),
        For(unused, IntImm(0), "vectorized", Store(result, unused, FloatImm(9.0))),
        For(Var("z"), IntImm(0), "serial", Store(result, IntImm(1), FloatImm(9.0))),
        Barrier(),
    )
    data = random_array((4,))
    np.testing.assert_array_equal(
        run(PrimFunc("degenerate", (source, result), body), data), [data[0], 0, 0, 0]
    )


def test_thread_binding_is_rejected_with_a_clear_error() -> None:
    source, result = Buffer("A", (4,)), Buffer("B", (4,))
    k = Var("k")
    loop = For(
        k, IntImm(4), "thread_binding", Store(result, k, Load(source, k)), thread_tag="threadIdx.x"
    )
    with pytest.raises(CodegenError, match=r"threadIdx\.x.*GPU"):
        compile_kernel(PrimFunc("gpu_only", (source, result), loop))


def test_unbound_variable_and_unknown_buffer_are_reported() -> None:
    source, result, stray = Buffer("A", (4,)), Buffer("B", (4,)), Buffer("C", (4,))
    with pytest.raises(CodegenError, match="variable 'q'"):
        compile_kernel(
            PrimFunc("unbound", (source, result), Store(result, IntImm(0), Load(source, Var("q"))))
        )
    with pytest.raises(CodegenError, match="buffer 'C'"):
        compile_kernel(
            PrimFunc("stray", (source, result), Store(result, IntImm(0), Load(stray, IntImm(0))))
        )


@pytest.mark.parametrize("kind", ["serial", "unrolled", "vectorized", "parallel"])
def test_symbolic_extents(kind: str) -> None:
    # let zero = 0; let count = 13 + zero: for k in range(count) (a count not folded away)
    source, result = Buffer("A", (16,)), Buffer("B", (16,))
    k, count, zero = Var("k"), Var("count"), Var("zero")
    loop = For(k, count, kind, Store(result, k, Load(source, k) + FloatImm(1.0)))
    body = LetStmt(zero, IntImm(0), LetStmt(count, IntImm(13) + zero, loop))
    data = random_array((16,))
    expected = np.concatenate([data[:13] + 1, np.zeros(3, np.float32)])
    np.testing.assert_array_equal(
        run(PrimFunc(f"symbolic_{kind}", (source, result), body), data), expected
    )


def test_ill_typed_ir_is_a_codegen_error() -> None:
    source, result = Buffer("A", (4,)), Buffer("B", (4,))
    k = Var("k")
    mixed = Select(Load(source, k) > FloatImm(0.0), Load(source, k), FloatImm(1.0, "float64"))
    with pytest.raises(CodegenError, match="select needs a bool condition and sides of one dtype"):
        compile_kernel(
            PrimFunc(
                "ill_typed", (source, result), For(k, IntImm(4), "serial", Store(result, k, mixed))
            )
        )
    with pytest.raises(CodegenError, match="store of a float64 value into float32 buffer B"):
        compile_kernel(
            PrimFunc(
                "bad_store", (source, result), Store(result, IntImm(0), FloatImm(1.0, "float64"))
            )
        )
