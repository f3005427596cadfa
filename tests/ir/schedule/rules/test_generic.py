"""The generic rule's loop nests under the default's choices."""

from __future__ import annotations

from ir.schedule.default import default_schedule
from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import loop_extents
from ir.te.program import TEProgram
from ir.te.tensor import compute, placeholder


def _scale(shape: tuple[int, ...]) -> TEProgram:
    x = placeholder(shape, name="x")
    out = compute(shape, lambda *i: x[i] * 2.0, name="out")
    return TEProgram("scale", (x,), (out,))


def test_outer_loops_are_fused_in_parallel_or_serial_and_the_last_axis_vectorized() -> None:
    for cores, annotation in ((2, "parallel"), (1, None)):
        schedule = default_schedule(_scale((8, 16, 40)), HardwareParams(64, cores))
        stage = schedule.stages["out"]
        extents = loop_extents(stage)[0]
        # 40 in vectors of 16 with a shorter last one: the vector tail loop stays its own
        # (partitioned), the rows fused into one loop
        assert [extents[leaf] for leaf in stage.leaves] == [128, 3, 16]
        assert stage.annotations.get(stage.leaves[0]) == annotation
        assert stage.annotations[stage.leaves[-1]] == "vectorize"


def test_a_small_stage_runs_serial() -> None:
    schedule = default_schedule(_scale((2, 8)), HardwareParams(64, 2))
    stage = schedule.stages["out"]
    assert "parallel" not in stage.annotations.values()
    assert stage.annotations[stage.leaves[-1]] == "vectorize"
