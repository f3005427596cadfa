"""The float32 multiply-add throughput of this host's cores, measured: the compute roof a
kernel compiled for a target can reach.

One loop per core keeps `accumulators` vectors of the target's width in registers, each a
chain of fused multiply-adds independent of the others (enough chains to cover the FMA
pipes' latency), with no memory traffic. Every core runs it at once from its own thread,
so the rate includes whatever clock the cores keep under full vector load. A BLAS matrix
product measures less than this where its library is not tuned for the CPU (numpy's
OpenBLAS reached 346 GFLOPS on a 2-core Xeon where our own convs reached 375).
"""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np

from codegen.llvm.jit import jit_llvm_ir
from codegen.llvm.target import CpuTarget

SYMBOL = "autotune_fma_peak"
RUN_SECONDS = 0.02  # about how long one core's loop runs per timing
REPEATS = 5
# Vector registers the loop leaves to its two operands and the loop counter's spills.
FREE_REGISTERS = 4


def fma_loop_ir(lanes: int, accumulators: int) -> str:
    """LLVM IR of `void autotune_fma_peak(i64 iterations, ptr operands, ptr out)`: each
    iteration does one FMA on each of `accumulators` vectors of `lanes` floats (acc = acc
    * x + y, x and y loaded from `operands`), and `out` gets their sum."""
    vector = f"<{lanes} x float>"
    fma = f"@llvm.fma.v{lanes}f32"
    lines = [
        f"declare {vector} {fma}({vector}, {vector}, {vector})",
        f"define void @{SYMBOL}(i64 %iterations, ptr %operands, ptr %out) {{",
        "entry:",
        f"  %x = load {vector}, ptr %operands, align 4",
        f"  %y.ptr = getelementptr {vector}, ptr %operands, i64 1",
        f"  %y = load {vector}, ptr %y.ptr, align 4",
    ]
    # Distinct starting values, so that no two chains compute the same thing.
    for j in range(accumulators):
        splat = ", ".join(f"float {float(j)}" for _ in range(lanes))
        lines.append(f"  %init{j} = fadd {vector} %x, <{splat}>")
    lines += ["  br label %loop", "loop:", "  %i = phi i64 [0, %entry], [%next, %loop]"]
    for j in range(accumulators):
        lines.append(f"  %acc{j} = phi {vector} [%init{j}, %entry], [%step{j}, %loop]")
    for j in range(accumulators):
        lines.append(
            f"  %step{j} = call {vector} {fma}({vector} %acc{j}, {vector} %x, {vector} %y)"
        )
    lines += [
        "  %next = add i64 %i, 1",
        "  %done = icmp sge i64 %next, %iterations",
        "  br i1 %done, label %exit, label %loop",
        "exit:",
    ]
    total = "%step0"
    for j in range(1, accumulators):
        lines.append(f"  %sum{j} = fadd {vector} {total}, %step{j}")
        total = f"%sum{j}"
    lines += [f"  store {vector} {total}, ptr %out, align 4", "  ret void", "}"]
    return "\n".join(lines) + "\n"


def fma_peak_gflops(target: CpuTarget) -> float:
    """Float32 GFLOPS (two per multiply-add) of `target.num_cores` threads each running the
    FMA loop at once: the best of REPEATS timings of about RUN_SECONDS each."""
    lanes, cores = target.vector_lanes(4), target.num_cores
    hardware = target.hardware
    accumulators = max(hardware.core.fma_chains, hardware.registers - FREE_REGISTERS)
    engine, address = jit_llvm_ir(fma_loop_ir(lanes, accumulators), target, SYMBOL)
    loop = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)(address)
    operands = np.empty(2 * lanes, np.float32)
    operands[:lanes], operands[lanes:] = 0.5, 0.25  # the chains converge: no overflow
    outputs = np.empty((cores, lanes), np.float32)

    def run(iterations: int) -> float:
        # Each thread times its own loop, from a common start: thread creation and joins
        # stay out of the timing.
        start = threading.Barrier(cores)
        seconds = [0.0] * cores

        def one_core(core: int) -> None:
            start.wait()
            begin = time.perf_counter()
            loop(iterations, operands.ctypes.data, outputs[core].ctypes.data)
            seconds[core] = time.perf_counter() - begin

        threads = [threading.Thread(target=one_core, args=(core,)) for core in range(cores)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return max(seconds)

    probe = 1 << 20
    iterations = max(probe, int(probe * RUN_SECONDS / max(run(probe), 1e-6)))
    seconds = min(run(iterations) for _ in range(REPEATS))
    flops = 2 * lanes * accumulators * iterations * cores
    del engine  # (the machine code lived as long as its engine)
    return flops / seconds / 1e9
