"""The generic rule's loop nests under the default's choices."""

from __future__ import annotations

from ir.schedule.default import default_schedule
from ir.schedule.hardware import HardwareParams
from ir.schedule.schedule import loop_extents
from ir.te.program import TEProgram
from ir.te.tensor import compute, placeholder
from ir.tir.expr import const, select


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


def _to_blocks_of_4(dtype: str) -> TEProgram:
    """NCHW [1, 3, 32, 32] -> NCHW4c [1, 1, 32, 32, 4] of `dtype`, the 4th channel zero."""
    x = placeholder((1, 3, 32, 32), dtype=dtype, name="x")
    out = compute(
        (1, 1, 32, 32, 4),
        lambda n, c, h, w, b: select(b < 3, x[n, b, h, w], const(0, dtype)),
        name="out",
    )
    return TEProgram("blocks", (x,), (out,))


def test_a_loop_of_a_few_bytes_stays_a_scalar_loop_of_its_own() -> None:
    """Four uint8 channels (4 bytes) make no vector: the default keeps them a short scalar
    loop inside the parallel pixels (vectorized, an int8 stem's input transform ran 6x
    slower); four float32 ones (16 bytes) are still a vector."""
    for dtype, annotation in (("uint8", None), ("float32", "vectorize")):
        schedule = default_schedule(_to_blocks_of_4(dtype), HardwareParams(64, 2))
        stage = schedule.stages["out"]
        extents = loop_extents(stage)[0]
        assert [extents[leaf] for leaf in stage.leaves] == [1024, 4]
        assert stage.annotations.get(stage.leaves[0]) == "parallel"
        assert stage.annotations.get(stage.leaves[-1]) == annotation
