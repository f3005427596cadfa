"""The CUDA printer and kernel planning on hand-built loop IR and small default schedules:
bindings and launch dimensions, guards, barriers, register slices, vector copies,
intrinsics, launch metadata and the device-limit checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from codegen.cuda import CudaTarget, GpuLimitError, build_cuda, parse_cuda_target
from codegen.cuda.kernels import check_phases, plan_kernels
from codegen.errors import CodegenError
from ir.lower import lower
from ir.schedule.default_gpu import default_gpu_schedule
from ir.schedule.gpu import GpuParams
from ir.schedule.schedule import Schedule
from ir.te.program import function_to_te
from ir.tir.expr import Buffer, FloatImm, IntImm, Load, Var, binary, intrinsic
from ir.tir.stmt import Allocate, For, PrimFunc, Store, seq
from tests.codegen.cuda.support import one_op, run_interpreted

SRC = Buffer("src", (64,))
DST = Buffer("dst", (64,))
HUGE = Buffer("huge", (2**32,))  # never allocated: only its indices are printed


def _bound(name: str, extent: int, tag: str, body: Store | For | Allocate) -> For:
    return For(Var(name), IntImm(extent), "thread_binding", body, tag)


def _source(body: Store | For | Allocate, params: tuple[Buffer, ...] = (SRC, DST)) -> str:
    return build_cuda(PrimFunc("k", params, body)).source


def _matmul_module(m: int = 64, k: int = 32, n: int = 64) -> tuple[str, dict[str, object]]:
    prim, _, _ = one_op(
        "nn.matmul", [np.zeros((m, k), np.float32), np.zeros((k, n), np.float32)], {}
    )
    # min_blocks=1: the fixed tiles, not spread over more blocks for this small output.
    module = build_cuda(lower(default_gpu_schedule(function_to_te(prim), min_blocks=1)))
    return module.source, module.metadata


def test_bound_loops_become_hardware_indices_and_set_the_launch() -> None:
    block, thread = Var("b"), Var("t")
    index = binary("add", binary("mul", block, 16), thread)
    copy = Store(DST, index, Load(SRC, index))
    body = _bound("b", 4, "blockIdx.x", _bound("t", 16, "threadIdx.x", copy))
    module = build_cuda(PrimFunc("k", (SRC, DST), body))
    assert "const int b = (int)blockIdx.x;" in module.source
    assert "const int t = (int)threadIdx.x;" in module.source
    (kernel,) = module.metadata["kernels"]
    assert (kernel["grid"], kernel["block"], kernel["shared_bytes"]) == ([4, 1, 1], [16, 1, 1], 0)
    assert kernel["params"] == ["src", "dst"]
    assert "__launch_bounds__(16)" in module.source


def test_a_thread_loop_shorter_than_the_block_is_guarded() -> None:
    first = _bound("t", 8, "threadIdx.x", Store(DST, Var("t"), Load(SRC, Var("t"))))
    second = _bound("u", 4, "threadIdx.x", Store(DST, Var("u"), FloatImm(0.0)))
    source = _source(_bound("b", 2, "blockIdx.x", seq(first, second)))  # type: ignore[arg-type]
    assert "if (u < 4)" in source
    assert "if (t < 8)" not in source


def test_a_store_outside_the_thread_loops_runs_on_one_thread() -> None:
    loop = _bound("t", 8, "threadIdx.x", Store(DST, Var("t"), Load(SRC, Var("t"))))
    tail = Store(DST, IntImm(0), FloatImm(1.0))
    source = _source(_bound("b", 2, "blockIdx.x", seq(loop, tail)))  # type: ignore[arg-type]
    assert "if (threadIdx.x == 0)" in source
    assert "blockIdx.x == 0" not in source  # the block index is bound


def test_barriers_separate_the_shared_memory_copies_from_their_readers() -> None:
    source, metadata = _matmul_module()
    (kernel,) = metadata["kernels"]  # type: ignore[misc]
    body = source.split("for (int matmul_local_k_o", 1)[1]
    fetch_end = body.index("p1_shared[")
    first_sync = body.index("__syncthreads();")
    compute = body.index("matmul_local[", fetch_end)
    assert fetch_end < first_sync < compute
    assert source.count("__syncthreads();") == 2  # before the reads, at the end of the step
    assert kernel["shared_bytes"] == (16 * 2 * 8 + 8 * 16 * 4) * 4


def test_the_register_accumulator_is_a_per_thread_slice() -> None:
    source, metadata = _matmul_module()
    (kernel,) = metadata["kernels"]  # type: ignore[misc]
    assert "float matmul_local[8];" in source  # 2 x 4 outputs per thread, not 16 x 64 x 8
    assert kernel["block"] == [16, 16, 1]
    assert kernel["registers_estimate"] < 64


def test_a_thread_loop_that_writes_and_reads_shared_memory_is_rejected() -> None:
    shared = Buffer("tile", (8,), scope="shared")
    t = Var("t")
    nest = _bound(
        "t",
        8,
        "threadIdx.x",
        seq(  # type: ignore[arg-type]
            Store(shared, t, Load(SRC, t)),
            Store(DST, t, Load(shared, binary("sub", IntImm(7), t))),
        ),
    )
    with pytest.raises(CodegenError, match="tile is written and read in one thread loop"):
        check_phases(Allocate(shared, nest))


def test_a_global_buffer_inside_a_kernel_is_rejected() -> None:
    scratch = Buffer("scratch", (8,))
    body = _bound("b", 2, "blockIdx.x", Allocate(scratch, Store(DST, IntImm(0), FloatImm(0.0))))
    with pytest.raises(CodegenError, match="global buffer scratch is allocated inside a kernel"):
        plan_kernels(PrimFunc("k", (SRC, DST), body))


def _copy_loop(offset: int) -> For:
    t, v = Var("t"), Var("v")
    base = binary("add", binary("mul", t, 4), offset)
    index = binary("add", base, v)
    store = Store(DST, binary("add", binary("mul", t, 4), v), Load(SRC, index))
    inner = For(v, IntImm(4), "vectorized", store)
    return _bound("t", 15, "threadIdx.x", inner)


def test_vector_copies_only_where_alignment_is_provable() -> None:
    aligned = _source(_copy_loop(0))
    assert "*reinterpret_cast<float4*>(&dst[(t * 4)])" in aligned
    assert "reinterpret_cast<const float4*>(&src[(t * 4)])" in aligned
    misaligned = _source(_copy_loop(1))
    assert "float4" not in misaligned
    assert "#pragma unroll" in misaligned


def test_math_intrinsics_and_special_constants() -> None:
    x = Load(SRC, IntImm(0))
    value = binary(
        "add",
        binary("add", intrinsic("exp", x), intrinsic("tanh", x)),
        binary("max", intrinsic("erf", x), FloatImm(float("-inf"))),
    )
    source = _source(Store(DST, IntImm(0), value))
    for name in ("expf(", "tanhf(", "erff(", "__int_as_float(0xff800000)"):
        assert name in source
    half_in, half_out = Buffer("h", (4,), "float16"), Buffer("o", (4,), "float16")
    half = _source(
        Store(half_out, IntImm(0), intrinsic("sigmoid", Load(half_in, IntImm(0)))),
        (half_in, half_out),
    )
    assert "__float2half(at_sigmoidf(__half2float(h[0])))" in half
    assert "at_sigmoidf(float x)" in half


def test_floor_division_is_plain_c_only_for_provably_nonnegative_operands() -> None:
    t = Var("t")
    nonnegative = _bound("t", 8, "threadIdx.x", Store(DST, binary("floordiv", t, 3), FloatImm(1.0)))
    assert "(t / 3)" in _source(nonnegative)
    shifted = binary("floordiv", binary("sub", t, 4), 3)
    signed = _bound("t", 8, "threadIdx.x", Store(DST, binary("add", shifted, 4), FloatImm(1.0)))
    source = _source(signed)
    assert "at_floordiv32((t - 4), 3)" in source
    assert "int at_floordiv32(int a, int b)" in source
    wide = _bound("t", 8, "threadIdx.x", Store(HUGE, binary("add", shifted, 2**31), FloatImm(1.0)))
    source = _source(wide, (SRC, HUGE))
    assert "at_floordiv((long long)((t - 4LL)), (long long)(3LL))" in source
    assert "long long at_floordiv(long long a, long long b)" in source


def test_indices_are_32_bit_only_where_every_step_provably_fits() -> None:
    block, thread = Var("b"), Var("t")
    blocks = 2**31 // 256 + 1  # the last block's last thread is past int32

    def copy(dst: Buffer, blocks: int) -> str:
        index = binary("add", binary("mul", block, 256), thread)
        inner = _bound("t", 256, "threadIdx.x", Store(dst, index, FloatImm(0.0)))
        return _source(_bound("b", blocks, "blockIdx.x", inner), (SRC, dst))

    narrow = copy(Buffer("dst", (256 * 1024,)), 1024)
    assert "const int b = (int)blockIdx.x;" in narrow and "long long" not in narrow
    wide = copy(HUGE, blocks)
    assert "const long long b = (long long)blockIdx.x;" in wide
    assert "((b * 256LL) + t)" in wide and "const int" not in wide
    # An intermediate step past int32 makes the kernel wide even when the index fits.
    detour = binary("sub", binary("mul", thread, 2**30), binary("mul", thread, 2**30 - 1))
    loop = _bound("t", 8, "threadIdx.x", Store(DST, detour, FloatImm(0.0)))
    assert "const long long t" in _source(loop)
    # A 64-bit value read from memory has no bound: an index computed from it is wide.
    table = Buffer("table", (8,), "int64")
    gather = Store(DST, Load(table, thread), Load(SRC, thread))
    source = _source(_bound("t", 8, "threadIdx.x", gather), (table, SRC, DST))
    assert "const long long t" in source and "const long long* __restrict__ table" in source


def test_intermediate_root_buffers_are_workspace_and_each_stage_a_launch() -> None:
    logits = np.linspace(-3, 3, 30, dtype=np.float32).reshape(3, 10)
    prim, args, expected = one_op("nn.softmax", [logits], {})
    func = lower(default_gpu_schedule(function_to_te(prim)))
    module = build_cuda(func)
    metadata = json.loads(module.metadata_json)
    assert len(metadata["kernels"]) >= 3
    assert metadata["workspace"], "the softmax intermediates live in workspace buffers"
    assert metadata["outputs"][0]["shape"] == [3, 10]
    assert module.stages["cuda"] == module.source
    assert module.stages["loops"].startswith("def ")
    np.testing.assert_allclose(run_interpreted(func, args)[0], expected[0], rtol=1e-5)


def _too_many_threads() -> PrimFunc:
    prim, _, _ = one_op("nn.relu", [np.zeros((4, 2048), np.float32)], {})
    program = function_to_te(prim)
    schedule = Schedule(program)
    (name,) = list(schedule.stages)
    schedule.bind(name, "i0", "blockIdx.x")
    schedule.bind(name, "i1", "threadIdx.x")
    return lower(schedule)


def test_kernels_over_the_device_limits_are_rejected_with_the_reason() -> None:
    with pytest.raises(GpuLimitError, match="2048 threads per block exceed the limit 1024"):
        build_cuda(_too_many_threads())
    source, _ = _matmul_module()
    small = CudaTarget("sm_80", GpuParams(max_shared_memory_per_block=1024))
    lhs, rhs = np.zeros((64, 32), np.float32), np.zeros((32, 64), np.float32)
    prim, _, _ = one_op("nn.matmul", [lhs, rhs], {})
    func = lower(default_gpu_schedule(function_to_te(prim), min_blocks=1))
    with pytest.raises(GpuLimitError, match="3072 bytes of shared memory exceed the limit 1024"):
        build_cuda(func, small)
    assert build_cuda(func, small, check=False).source == source


def test_cuda_target_strings() -> None:
    target = parse_cuda_target("cuda -arch=sm_80 -max_shared_memory_per_block=101376")
    assert target.arch == "sm_80"
    assert target.compute_capability == (8, 0)
    assert target.limits.max_shared_memory_per_block == 101376
    assert str(target) == "cuda -arch=sm_80 -max_shared_memory_per_block=101376"
    assert str(parse_cuda_target("cuda")) == "cuda -arch=sm_90"


def test_a_kernel_with_symbolic_dims_is_refused_by_name() -> None:
    size = Var("n")
    source = Buffer("A", (64,), dims=(size,))
    result = Buffer("B", (64,), dims=(size,))
    loop = For(Var("i"), size, "serial", Store(result, Var("i"), Load(source, Var("i"))))
    func = PrimFunc("copy", (source, result), loop, size_params=(size,))
    with pytest.raises(CodegenError, match=r"copy has symbolic dims \(n\); CUDA kernels take"):
        plan_kernels(func)
