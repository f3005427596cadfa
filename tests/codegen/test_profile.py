"""The per-kernel profile of a compiled model: every kernel call accounted for once, shares
that add up, rates from the kernels' FLOPs and bytes, the roofline model's arithmetic, and
roofs measured on this host."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from onnx import helper
from onnxruntime.quantization import QuantType

from codegen.executor import compile_model
from codegen.llvm import host_target
from codegen.profile import KernelProfile, Roofline, measure_roofline, profile_model
from ir.frontend.onnx import from_onnx, import_model
from ir.frontend.onnx.symbolic_dims import DimRange
from ir.graph.nodes import Call, Function
from ir.graph.passes.pipeline import optimize
from ir.graph.summary import function_flops
from ir.graph.traversal import post_order
from tests.codegen.aot.conftest import small_conv_model
from tests.ir.frontend.onnx_helpers import make_model
from tests.support.quantized_models import model_inputs, quantized_by_onnxruntime, residual_block

# Made up, so that the tests do not depend on this host's speed.
ROOF = Roofline(peak_gflops=100.0, bandwidth_gbs=((1 << 20, 200.0), (1 << 28, 20.0)))


def test_roofline_arithmetic() -> None:
    assert ROOF.gbs_at(1000) == 200.0 and ROOF.gbs_at(1 << 20) == 200.0
    assert ROOF.gbs_at((1 << 20) + 1) == 20.0 and ROOF.gbs_at(1 << 30) == 20.0
    assert ROOF.memory_gbs == 20.0
    # 1 GFLOP over 100 MB (in main memory): 10 FLOPs a byte at 20 GB/s bounds it at 200
    # GFLOPS, above the compute roof: the compute roof binds.
    assert ROOF.attainable_gflops(10**9, 10**8) == 100.0
    # 1 MFLOP over 1 MB (beyond the small footprint): 1 FLOP a byte at 20 GB/s.
    assert ROOF.attainable_gflops(10**6, 10**6 + (1 << 20)) == pytest.approx(
        10**6 / (10**6 + (1 << 20)) * 20.0
    )
    # A kernel without arithmetic is measured against the bandwidth of its footprint.
    copy = KernelProfile("copy", "k", 1, 1e-3, 0, 10**5, 1.0, False)
    assert copy.gbs == pytest.approx(0.1) and copy.efficiency(ROOF) == pytest.approx(0.1 / 200.0)
    compute_bound = KernelProfile("mm", "k", 1, 1e-2, 5 * 10**8, 10**6, 1.0, True)
    assert compute_bound.gflops == pytest.approx(50.0)
    assert compute_bound.efficiency(ROOF) == pytest.approx(0.5)
    # An 8-bit kernel is held to the integer compute roof: the float one times the
    # multiply-adds per lane of the target's dot products.
    vnni = replace(ROOF, integer_factor=4.0)
    integer = replace(compute_bound, integer=True)
    assert integer.efficiency(vnni) == pytest.approx(50.0 / 400.0)
    assert compute_bound.efficiency(vnni) == pytest.approx(0.5)
    assert vnni.to_json()["peak_int8_gops"] == 400.0


def test_a_quantized_model_marks_its_integer_kernels(tmp_path: Path) -> None:
    model = quantized_by_onnxruntime(tmp_path, residual_block(8), QuantType.QUInt8, QuantType.QInt8)
    compiled = compile_model(optimize(import_model(model).function))
    profile = profile_model(compiled, model_inputs(model, 1, 0)[0], runs=2, roofline=ROOF)
    marked = [kernel.name for kernel in profile.kernels if kernel.integer]
    assert len(marked) == 4 and all(name.startswith("fused_qnn_") for name in marked)
    assert any("(int8)" in line for line in profile.table())


def test_profile_accounts_for_every_call_once() -> None:
    fn = optimize(from_onnx(small_conv_model()))
    model = compile_model(fn)
    x = np.random.default_rng(0).standard_normal((1, 4, 6, 6)).astype(np.float32)
    profile = profile_model(model, {"x": x}, runs=3, roofline=ROOF)
    calls = [node for node in post_order(fn.body) if isinstance(node, Call)]
    assert sum(kernel.calls for kernel in profile.kernels) == len(calls)
    assert len(profile.kernels) == model.num_kernels
    assert sum(kernel.share for kernel in profile.kernels) == pytest.approx(1.0)
    assert [k.seconds for k in profile.kernels] == sorted(
        (k.seconds for k in profile.kernels), reverse=True
    )
    flops = sum(function_flops(c.op) for c in calls if isinstance(c.op, Function))
    assert sum(kernel.flops for kernel in profile.kernels) == flops > 0
    assert all(kernel.nbytes > 0 and kernel.seconds > 0 for kernel in profile.kernels)
    assert profile.latency_s > 0 and profile.runs == 3
    report = profile.to_json()
    assert report["roofline"]["peak_gflops"] == 100.0
    assert {k["symbol"] for k in report["kernels"]} == {k.symbol for k in model.plan.kernels}
    lines = profile.table()
    assert len(lines) == 2 + len(profile.kernels)
    assert all(kernel.name in "\n".join(lines) for kernel in profile.kernels)
    assert profile.table(top=1)[-1] == f"... and {len(profile.kernels) - 1} more kernels"


def test_a_symbolic_model_counts_the_flops_of_the_shapes_it_runs() -> None:
    weight = np.random.default_rng(1).standard_normal((16, 8)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    model = make_model(nodes, {"x": (["rows", 16], np.float32)}, initializers={"w": weight})
    shape = {"x": (DimRange(1, 64), 16)}
    compiled = compile_model(optimize(import_model(model, shape=shape).function))
    for rows in (1, 5):
        x = np.ones((rows, 16), np.float32)
        profile = profile_model(compiled, {"x": x}, runs=1, roofline=ROOF)
        assert sum(kernel.flops for kernel in profile.kernels) == 2 * rows * 16 * 8


def test_profile_refuses_bad_inputs_and_no_runs() -> None:
    model = compile_model(optimize(from_onnx(small_conv_model())))
    with pytest.raises(ValueError, match="at least one run"):
        profile_model(model, {"x": np.zeros((1, 4, 6, 6), np.float32)}, runs=0, roofline=ROOF)
    with pytest.raises(Exception, match="input 'x'"):
        profile_model(model, {"x": np.zeros((1, 4, 6, 7), np.float32)}, runs=1, roofline=ROOF)


def test_the_roofs_are_measured_here() -> None:
    roof = measure_roofline(host_target())
    assert roof.peak_gflops > 1.0
    footprints = [footprint for footprint, _ in roof.bandwidth_gbs]
    assert footprints == sorted(footprints) and len(footprints) == 3
    assert all(gbs > 0.1 for _, gbs in roof.bandwidth_gbs)
    assert measure_roofline(host_target()) is roof  # measured once per process
