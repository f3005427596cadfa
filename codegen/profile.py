"""Where a compiled model's time goes: each fused function's share of an inference, its
arithmetic rate and memory traffic, and how far it is from this host's rooflines.

The rooflines are measured on the host, not looked up in a table: the compute roof is the
better of two float32 rates, every core running a register-only loop of fused multiply-adds
compiled for the model's target (`codegen.llvm.fma_peak`) and a large matrix product
through numpy's BLAS (whose library may not know the CPU); the bandwidth roofs are the
rates of copies of a few footprints, from cache-sized to far beyond the last cache level
(a cache-aware roofline: a kernel is held to the bandwidth a copy of its footprint
reaches). Beyond the caches that is a parallel copy compiled by this code generator for
the model's target; within them, where a parallel loop's start costs as much as the copy,
the better of that and a one-core copy (numpy's) times the target's cores, since each core
has its own caches. A kernel's attainable
rate is min(compute roof, arithmetic intensity x bandwidth roof); its efficiency is the
share of that it reached. An 8-bit integer kernel's compute roof is the float one times
the multiply-adds an 8-bit dot-product instruction does per lane where an FMA does one
(4 with VNNI, 2 with AVX2's pair sums): a ratio of instruction widths, not a
measurement. A kernel's traffic counts the bytes of the arrays it reads and writes once
each: a lower bound on what it moves.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.executor import CompiledModel, KernelCall, run_observed
from codegen.llvm import CpuTarget, compile_kernel
from codegen.llvm.fma_peak import fma_peak_gflops
from codegen.runtime.aligned import aligned_empty
from ir.graph.ops.quantized import computes_on_integers
from ir.graph.summary import function_flops
from ir.lower import lower
from ir.schedule.default import default_schedule
from ir.te.program import TEProgram
from ir.te.tensor import compute, placeholder

ROOF_MATMUL_SIZE = 2048  # float32 matrix product whose rate is the compute roof
# Copies whose footprints (bytes read + written) bound the bandwidth roofs beyond a core's
# L2 (half of which bounds the first roof): within a last-level cache, and far beyond any.
ROOF_COPY_FOOTPRINTS = (1 << 23, 1 << 28)
ROOF_REPEATS = 5


@dataclass(frozen=True)
class Roofline:
    """This host's measured peak rates: float32 GFLOPS, and GB/s by footprint (bytes read
    and written by a kernel, ascending; the last one holds for any larger footprint)."""

    peak_gflops: float
    bandwidth_gbs: tuple[tuple[int, float], ...]
    # 8-bit integer kernels' compute roof, in multiply-adds counted as float ones are: the
    # float roof times the multiply-adds one 8-bit dot-product instruction does per int32
    # lane where an FMA does one (4 with VNNI's vpdpbusd, 2 with vpmaddubsw + vpmaddwd).
    integer_factor: float = 1.0

    def gbs_at(self, nbytes: int) -> float:
        """The bandwidth roof of a kernel whose arrays take `nbytes`."""
        for footprint, gbs in self.bandwidth_gbs:
            if nbytes <= footprint:
                return gbs
        return self.bandwidth_gbs[-1][1]

    @property
    def memory_gbs(self) -> float:
        """The bandwidth of data far beyond any cache (main memory)."""
        return self.bandwidth_gbs[-1][1]

    def attainable_gflops(self, flops: int, nbytes: int, integer: bool = False) -> float:
        """The roofline model's bound on a kernel of `flops` over `nbytes` of traffic (an
        8-bit `integer` kernel against the integer compute roof)."""
        peak = self.peak_gflops * (self.integer_factor if integer else 1.0)
        if nbytes <= 0:
            return peak
        return min(peak, flops / nbytes * self.gbs_at(nbytes))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "peak_gflops": self.peak_gflops,
            "peak_int8_gops": self.peak_gflops * self.integer_factor,
            "bandwidth_gbs": [{"footprint_bytes": b, "gbs": gbs} for b, gbs in self.bandwidth_gbs],
        }


def _best_seconds(run: Any, repeats: int = ROOF_REPEATS) -> float:
    run()  # warm up
    costs = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        costs.append(time.perf_counter() - start)
    return min(costs)


def _copy_gbs(target: CpuTarget, footprint: int) -> float:
    """GB/s of a parallel float32 copy compiled for `target` whose arrays take
    `footprint` bytes (read once, written once)."""
    floats = footprint // 8
    source = placeholder((floats,), "float32", "source")
    copied = compute((floats,), lambda i: source[i], name="copied")
    program = TEProgram("roofline_copy", (source,), (copied,))
    kernel = compile_kernel(lower(default_schedule(program, target.hardware)), target)
    data = aligned_empty((floats,), np.float32)
    data[:] = 1.0
    out = aligned_empty((floats,), np.float32)
    turns = max(1, (1 << 26) // footprint)  # a short copy is timed many times over

    def copies() -> None:
        for _ in range(turns):
            kernel(data, out)

    return footprint * turns / _best_seconds(copies) / 1e9


def _one_core_copy_gbs(footprint: int) -> float:
    """GB/s of numpy copying float32 arrays of `footprint` bytes (read and written) on
    one core."""
    floats = footprint // 8
    data = np.ones(floats, np.float32)
    out = np.empty_like(data)
    turns = max(1, (1 << 26) // footprint)

    def copies() -> None:
        for _ in range(turns):
            np.copyto(out, data)

    return footprint * turns / _best_seconds(copies) / 1e9


@functools.cache
def measure_roofline(target: CpuTarget) -> Roofline:
    """The compute and bandwidth roofs of this host, measured once per process (about a
    second): the better of an FMA loop compiled for `target` on each of its cores and
    numpy's BLAS on a float32 matrix product, and parallel copies compiled for `target`
    (its cores) of half a core's L2 and of each of ROOF_COPY_FOOTPRINTS."""
    # The FMA loop first: numpy's BLAS threads keep spinning for a while after a product,
    # taking cores from whatever runs next (the loop measured 200-290 GFLOPS right after
    # one on a 2-core Xeon, 390-400 before any).
    fma_gflops = fma_peak_gflops(target)
    size = ROOF_MATMUL_SIZE
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((size, size), dtype=np.float32)
    rhs = rng.standard_normal((size, size), dtype=np.float32)
    product = np.empty((size, size), np.float32)
    matmul_s = _best_seconds(lambda: np.matmul(lhs, rhs, out=product))
    *cached, beyond = (target.hardware.core.l2_bytes // 2, *ROOF_COPY_FOOTPRINTS)
    bandwidth = [
        (b, max(_copy_gbs(target, b), _one_core_copy_gbs(b) * target.num_cores)) for b in cached
    ]
    bandwidth.append((beyond, _copy_gbs(target, beyond)))
    integer_factor = 4.0 if target.dot_product_lanes else 2.0 if target.vector_bits >= 256 else 1.0
    return Roofline(
        peak_gflops=max(2 * size**3 / matmul_s / 1e9, fma_gflops),
        bandwidth_gbs=tuple(bandwidth),
        integer_factor=integer_factor,
    )


@dataclass(frozen=True)
class KernelProfile:
    """One distinct kernel's part of an inference (all its calls together)."""

    name: str  # the fused function's name
    symbol: str  # the kernel's symbol (unique in the model)
    calls: int
    seconds: float  # per inference: the sum of its calls' median times
    flops: int  # per inference
    nbytes: int  # per inference: bytes of the arrays its calls read and write
    share: float  # of the sum of every kernel's seconds
    tuned: bool  # compiled from a tuned record (else the default schedule)
    integer: bool = False  # an 8-bit integer kernel (held to the integer compute roof)

    @property
    def gflops(self) -> float:
        """Achieved float operations per second, in GFLOPS."""
        return self.flops / self.seconds / 1e9 if self.seconds > 0 else 0.0

    @property
    def gbs(self) -> float:
        """Achieved traffic (lower bound), in GB/s."""
        return self.nbytes / self.seconds / 1e9 if self.seconds > 0 else 0.0

    def efficiency(self, roofline: Roofline) -> float:
        """The share of the roofline's bound this kernel reached (of the bandwidth roof
        for a kernel without arithmetic, such as a layout transform)."""
        if self.flops == 0:
            return self.gbs / roofline.gbs_at(self.nbytes)
        return self.gflops / roofline.attainable_gflops(self.flops, self.nbytes, self.integer)

    def to_json(self, roofline: Roofline) -> dict[str, Any]:
        """Plain JSON data, with the rates and the efficiency against `roofline`."""
        return {
            "name": self.name,
            "symbol": self.symbol,
            "calls": self.calls,
            "ms": self.seconds * 1e3,
            "share": self.share,
            "flops": self.flops,
            "bytes": self.nbytes,
            "gflops": self.gflops,
            "gbs": self.gbs,
            "roofline_efficiency": self.efficiency(roofline),
            "tuned": self.tuned,
            "integer": self.integer,
        }


@dataclass(frozen=True)
class ModelProfile:
    """A model's inference, kernel by kernel, biggest share first."""

    latency_s: float  # median of whole inferences
    kernels: tuple[KernelProfile, ...]
    roofline: Roofline
    runs: int

    @property
    def kernel_seconds(self) -> float:
        """The sum of every kernel's time: the inference less what runs between kernels."""
        return sum(kernel.seconds for kernel in self.kernels)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "latency_ms": self.latency_s * 1e3,
            "kernels_ms": self.kernel_seconds * 1e3,
            "runs": self.runs,
            "roofline": self.roofline.to_json(),
            "kernels": [kernel.to_json(self.roofline) for kernel in self.kernels],
        }

    def table(self, top: int | None = None) -> list[str]:
        """The profile as text lines: a header, then a row per kernel."""
        roof = self.roofline
        lines = [
            f"inference {self.latency_s * 1e3:.3f} ms (median of {self.runs}); kernels "
            f"{self.kernel_seconds * 1e3:.3f} ms; host roofs {roof.peak_gflops:.0f} GFLOPS"
            + (
                f" ({roof.peak_gflops * roof.integer_factor:.0f} int8 GOPS), "
                if any(kernel.integer for kernel in self.kernels)
                else ", "
            )
            + ", ".join(
                f"{gbs:.0f} GB/s to {b >> 20 or b >> 10}" + ("MiB" if b >> 20 else "KiB")
                for b, gbs in roof.bandwidth_gbs
            ),
            f"{'share':>6} {'ms':>8} {'calls':>5} {'GFLOPS':>8} {'GB/s':>7} {'roof':>5}  kernel",
        ]
        for kernel in self.kernels[:top]:
            mark = (" (int8)" if kernel.integer else "") + (" (tuned)" if kernel.tuned else "")
            lines.append(
                f"{kernel.share:6.1%} {kernel.seconds * 1e3:8.3f} {kernel.calls:5d} "
                f"{kernel.gflops:8.1f} {kernel.gbs:7.1f} {kernel.efficiency(roof):5.0%}  "
                f"{kernel.name}{mark}"
            )
        left = len(self.kernels) - len(self.kernels[:top])
        if left > 0:
            lines.append(f"... and {left} more kernels")
        return lines


@dataclass(frozen=True)
class TimedCalls:
    """Every kernel call of an inference in order: its kernel's symbol, its median seconds
    and the bytes of its arrays; and the median inference (seconds, timers included)."""

    symbols: tuple[str, ...]
    call_s: tuple[float, ...]
    call_bytes: tuple[int, ...]
    inference_s: float


class _CallTimer:
    """Times each kernel call it runs; the n-th call of every inference is the same call
    (the same inputs take the same branches and iterations), recorded the first time."""

    def __init__(self) -> None:
        self.symbols: list[str] = []
        self.call_bytes: list[int] = []
        self.seconds: list[list[float]] = []
        self.position = 0  # the next call's index within this inference

    def __call__(self, call: KernelCall) -> None:
        start = time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
        if self.position == len(self.symbols):
            self.symbols.append(call.name)
            self.call_bytes.append(sum(array.nbytes for array in call.arrays))
            self.seconds.append([])
        self.seconds[self.position].append(elapsed)
        self.position += 1


def time_kernel_calls(
    model: CompiledModel, inputs: Mapping[str, np.ndarray], runs: int
) -> TimedCalls:
    """Time `runs` inferences of `model` on `inputs` (checked), after one to warm up: each
    kernel call (in branches and loop bodies too) timed in sequence, as it runs in the
    model; the median per call."""
    if runs < 1:
        raise ValueError(f"need at least one run, got {runs}")
    bound = model.bind(inputs)
    timer = _CallTimer()
    inference: list[float] = []
    for run in range(runs + 1):
        timer.position = 0
        started = time.perf_counter()
        run_observed(bound.calls, timer)
        if run:
            inference.append(time.perf_counter() - started)
    symbols, call_bytes, per_call = timer.symbols, timer.call_bytes, timer.seconds
    return TimedCalls(
        tuple(symbols),
        tuple(statistics.median(costs[1:]) for costs in per_call),
        tuple(call_bytes),
        statistics.median(inference),
    )


def profile_model(
    model: CompiledModel,
    inputs: Mapping[str, np.ndarray],
    runs: int = 20,
    roofline: Roofline | None = None,
) -> ModelProfile:
    """Profile `runs` inferences of `model` on `inputs` (checked), after one to warm up:
    each kernel call timed in sequence, as it runs in the model; the median per call."""
    if runs < 1:
        raise ValueError(f"--profile needs at least one run, got {runs}")
    roofline = roofline or measure_roofline(model.target)
    timed = time_kernel_calls(model, inputs, runs)
    sizes = model.check_inputs(inputs)  # (symbolic dims count at the inputs' sizes)
    planned = {kernel.symbol: kernel for kernel in model.plan.kernels}
    totals: dict[str, list[float]] = {}  # symbol -> [calls, seconds, flops, bytes]
    for symbol, cost, nbytes in zip(timed.symbols, timed.call_s, timed.call_bytes, strict=True):
        entry = totals.setdefault(symbol, [0, 0.0, 0, 0])
        entry[0] += 1
        entry[1] += cost
        entry[2] += function_flops(planned[symbol].function, sizes)
        entry[3] += nbytes
    whole = sum(entry[1] for entry in totals.values()) or 1.0
    kernels = [
        KernelProfile(
            name=planned[symbol].coverage.task,
            symbol=symbol,
            calls=int(calls),
            seconds=seconds,
            flops=int(flops),
            nbytes=int(nbytes),
            share=seconds / whole,
            tuned=planned[symbol].coverage.hit,
            integer=computes_on_integers(planned[symbol].function),
        )
        for symbol, (calls, seconds, flops, nbytes) in totals.items()
    ]
    kernels.sort(key=lambda kernel: -kernel.seconds)
    return ModelProfile(timed.inference_s, tuple(kernels), roofline, runs)
