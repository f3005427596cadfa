"""The central property for the search space: every trace it samples or mutates replays
from its JSON on a fresh program, lowers, compiles and computes the reference's numbers.

For each workload a seeded generator draws traces with `sample` and derives more with
`mutate`; each is checked on random inputs (constant inputs in the schedule's layout).
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.llvm import compile_kernel, host_target
from ir.lower import lower
from ir.reference import check_close
from ir.schedule import Trace
from tests.tuner.space.workloads import Workload, workloads
from tuner.space import SearchSpace

SAMPLED = 12
MUTATED = 8
# A conv sums up to 144 products in another order than numpy: the absolute tolerance
# scales with the output's largest magnitude.
RTOL, ATOL = 1e-4, 1e-5


def check_trace(workload: Workload, trace: Trace, seed: int) -> None:
    """Replay `trace` (through JSON) on a fresh program, run it and compare."""
    schedule = Trace.from_json(trace.dumps()).replay(workload.program())
    func = lower(schedule)
    kernel = compile_kernel(func, host_target())
    rng = np.random.default_rng(seed)
    inputs = workload.inputs(rng)
    arrays = []
    for tensor, value in zip(schedule.program.inputs, inputs, strict=True):
        layout = schedule.input_layouts.get(tensor.name)
        arrays.append(np.require(layout.apply(value) if layout else value, requirements=["C"]))
    expected = workload.reference(inputs)
    # Outputs filled with NaN (an integer output, in turn with its least and its greatest
    # value): an element the kernel does not write fails the comparison.
    for fill in ("least", "greatest"):
        outputs = [_filled(buffer.shape, buffer.dtype, fill) for buffer in func.outputs]
        kernel(*arrays, *outputs)
        for got, want in zip(outputs, expected, strict=True):
            scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
            what = f"{workload.name} under {trace.dumps()}"
            check_close(got, want, RTOL, ATOL * scale, what=what)
        if all(np.dtype(buffer.dtype).kind == "f" for buffer in func.outputs):
            return


def _filled(shape: tuple[int, ...], dtype: str, fill: str) -> np.ndarray:
    """An array of NaN, or for an integer dtype of its least or greatest value."""
    if np.dtype(dtype).kind == "f":
        return np.full(shape, np.nan, dtype)
    limits = np.iinfo(dtype)
    return np.full(shape, limits.min if fill == "least" else limits.max, dtype)


@pytest.mark.parametrize("name", sorted(workloads()))
def test_sampled_and_mutated_traces_compute_the_reference(name: str) -> None:
    workload = workloads()[name]
    # (At least two cores, as CI's machines have: a one-core host draws no parallel loops,
    # and an elementwise function's space is then too small to test the distinct traces.)
    hardware = host_target().hardware
    hardware = replace(hardware, num_cores=max(2, hardware.num_cores))
    space = SearchSpace(workload.program(), hardware, workload.constants)
    rng = random.Random(name)
    traces = [space.sample(rng) for _ in range(SAMPLED)]
    for _ in range(MUTATED):
        traces.append(space.mutate(rng.choice(traces), rng))
    assert len(set(traces)) >= SAMPLED // 2, f"{name}: the space draws too few distinct traces"
    for index, trace in enumerate(traces):
        check_trace(workload, trace, seed=index)


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(workloads())), seed=st.integers(0, 2**32), steps=st.integers(0, 3)
)
def test_any_seed_gives_traces_that_replay_and_lower(name: str, seed: int, steps: int) -> None:
    """Many more seeds than the compiled runs above, and chains of mutations: every trace
    replays from JSON on a fresh program and lowers (no compilation, so it is quick)."""
    workload = workloads()[name]
    space = SearchSpace(workload.program(), host_target().hardware, workload.constants)
    rng = random.Random(seed)
    trace = space.sample(rng)
    for _ in range(steps):
        trace = space.mutate(trace, rng)
    schedule = Trace.from_json(trace.dumps()).replay(workload.program())
    lower(schedule)
    assert space.from_decisions(space.decisions_of(trace)) == trace
