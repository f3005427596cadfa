"""The search space's API and rules: determinism, decisions round trips, mutation, and the
structures the sketch rules generate (no compilation here; test_traces.py runs them)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

import pytest

from codegen.llvm import host_target
from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.analysis import is_compute_heavy
from ir.schedule.rules.tiles import (
    is_perfect,
    is_row_tail,
    is_tail,
    neighbour_perfect,
    row_tail_tiles,
    sample_perfect,
    sample_vector_tile,
)
from ir.schedule.schedule import Schedule
from ir.schedule.trace import Trace
from tests.tuner.space.test_traces import check_trace
from tests.tuner.space.workloads import workloads
from tuner.space import (
    Decision,
    SearchSpace,
    SpaceError,
    decisions_from_json,
    decisions_to_json,
)

HARDWARE = host_target().hardware


def space_of(name: str, hardware: HardwareParams = HARDWARE) -> SearchSpace:
    workload = workloads()[name]
    return SearchSpace(workload.program(), hardware, workload.constants)


@pytest.mark.parametrize("name", ["conv2d", "softmax", "light_resnet50:fused_nn_max_pool2d"])
def test_the_same_seed_gives_the_same_traces(name: str) -> None:
    first, second = space_of(name), space_of(name)
    rng_a, rng_b = random.Random(3), random.Random(3)
    traces_a = [first.sample(rng_a) for _ in range(5)]
    traces_b = [second.sample(rng_b) for _ in range(5)]
    assert traces_a == traces_b
    assert first.mutate(traces_a[0], rng_a) == second.mutate(traces_b[0], rng_b)
    assert len(set(traces_a)) > 1


SQUEEZENET_CONV = "light_squeezenet:fused_nn_conv2d_nchwc_add_nn_relu:rank5"


@pytest.mark.parametrize("name", ["matmul", SQUEEZENET_CONV])
def test_decisions_rebuild_their_trace_through_json(name: str) -> None:
    space = space_of(name)
    rng = random.Random(0)
    for _ in range(10):
        trace = space.sample(rng)
        text = json.dumps(decisions_to_json(space.decisions_of(trace)))
        decisions = decisions_from_json(json.loads(text))
        assert space_of(name).from_decisions(decisions) == trace


def test_from_decisions_rejects_missing_and_invalid_decisions() -> None:
    space = space_of("matmul")
    decisions = space.decisions_of(space.sample(random.Random(0)))
    missing = dict(decisions)
    del missing["matmul.unroll"]
    with pytest.raises(SpaceError, match=r"matmul.unroll: missing"):
        space.from_decisions(missing)
    with pytest.raises(SpaceError, match=r"matmul.tile.i0: \(5, 1, 1, 1\) is not a valid"):
        space.from_decisions({**decisions, "matmul.tile.i0": (5, 1, 1, 1)})
    with pytest.raises(SpaceError, match="unknown kind"):
        decisions_from_json({"matmul.unroll": 1.5})


def test_mutation_redraws_one_decision_and_keeps_the_others() -> None:
    space = space_of("conv2d")
    rng = random.Random(5)
    single = 0
    for _ in range(40):
        trace = space.sample(rng)
        before = space.decisions_of(trace)
        mutated = space.mutate(trace, rng)
        after = space.decisions_of(mutated)
        changed = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
        assert mutated != trace and changed
        # A re-drawn decision may invalidate dependent ones (a tail tile on an axis that
        # is no longer vectorized), which are re-drawn too; most mutations change one.
        single += len(changed) == 1
    assert single >= 28


def test_decisions_can_be_mutated_without_their_trace() -> None:
    space = space_of("dense")
    decisions = space.decisions_of(space.sample(random.Random(1)))
    mutated = space.mutate_decisions(decisions, random.Random(2))
    assert mutated != decisions
    assert space_of("dense").from_decisions(mutated) != space.from_decisions(decisions)


def test_a_foreign_trace_cannot_be_mutated() -> None:
    trace = space_of("matmul").sample(random.Random(0))
    with pytest.raises(SpaceError, match="not built by this search space"):
        space_of("matmul").mutate(trace, random.Random(0))


def multi_level_sketches(space: SearchSpace) -> dict[str, Decision]:
    """Decisions that multi-level tile every compute-heavy stage of the space."""
    stages = Schedule(space.program).stages
    return {f"{name}.sketch": "multi_level" for name, s in stages.items() if is_compute_heavy(s)}


def sample_multi_level(space: SearchSpace, rng: random.Random) -> Trace:
    """A sample of the space whose compute-heavy stages are multi-level tiled."""
    return space.build(multi_level_sketches(space), rng).trace


def _decisions(name: str, count: int = 30) -> list[dict[str, object]]:
    """The decisions of `count` samples of the workload's space, compute-heavy stages
    multi-level tiled."""
    space = space_of(name)
    rng = random.Random(name)
    given = multi_level_sketches(space)
    return [dict(space.build(given, rng).decisions) for _ in range(count)]


def test_conv_tiles_are_factorizations_with_tails_only_on_the_vector_axis() -> None:
    extents = {"n": 1, "k": 32, "y": 14, "x": 14, "rc": 16, "ry": 3, "rx": 3}
    axes = ["n", "k", "y", "x"]
    vector_axes = set()
    for decisions in _decisions("conv2d", 60):
        vector = decisions["conv2d.vector_axis"]
        vector_axes.add(vector)
        for axis, extent in extents.items():
            sizes = decisions.get(f"conv2d.tile.{axis}")
            if extent == 1:
                assert sizes is None  # nothing to decide
                continue
            assert isinstance(sizes, tuple)
            assert len(sizes) == (4 if axis in axes else 2)
            if axis == vector:
                assert sizes[-1] >= 2
                assert is_perfect(sizes, extent) or is_tail(sizes, extent)
            else:
                assert math.prod(sizes) == extent
    # Output channels (the packed weight's axis) or columns (contiguous output).
    assert vector_axes == {"k", "x"}


def test_rows_without_a_divisor_draw_tail_tilings_kept_out_of_the_fused_loops() -> None:
    """A non-vector axis with no divisor from 4 to the register tile's 16 rows (37 rows)
    draws tail tilings as well as perfect ones; its outer tile loop is then a loop of its
    own (partitioned when lowered), never fused into the parallel loop; the first tail
    loop may run in parallel when no other outer loop exists. Mutation keeps tails
    valid. (Two cores whatever the host's, so that parallel loops are drawn.)"""
    space = space_of("dense_prime_rows", replace(HARDWARE, num_cores=2))
    rng = random.Random(3)
    tails = perfect = parallel_tails = 0
    for _ in range(60):
        trace = sample_multi_level(space, rng)
        for _ in range(2):
            trace = space.mutate(trace, rng)
        decisions = space.decisions_of(trace)
        if decisions["dense.sketch"] != "multi_level":
            continue  # (mutated into a register tile)
        rows = decisions["dense.tile.i0"]
        assert isinstance(rows, tuple)
        schedule = trace.replay(space.program)
        if is_row_tail(rows, 37, 16):
            tails += 1
            writer = next(stage for stage in schedule.stages.values() if stage.is_output)
            (row_loop,) = [leaf for leaf in writer.leaves if leaf.startswith("i0")][:1]
            assert "_f" not in row_loop  # not fused
            if writer.annotations.get(row_loop) == "parallel":
                parallel_tails += 1
        else:
            assert is_perfect(rows, 37)
            perfect += 1
    assert tails >= 15 and perfect >= 15 and parallel_tails >= 1


def test_column_panels_with_a_tail_may_lead_the_loop_nest() -> None:
    """A matrix product whose vector columns leave a narrower last tile may still put its
    column panels outside everything ("vector_first"): the panel loop leads, is not fused
    (it is partitioned when lowered), and is the only loop that may run in parallel. Such
    traces compute the reference."""
    workload = workloads()["matmul_wide_tail"]
    space = SearchSpace(workload.program(), replace(HARDWARE, num_cores=2), workload.constants)
    rng = random.Random(5)
    leading = parallel = 0
    for index in range(80):
        trace = sample_multi_level(space, rng)
        decisions = space.decisions_of(trace)
        columns = decisions["matmul.tile.i1"]
        assert isinstance(columns, tuple)
        if decisions["matmul.outer_order"] != "vector_first" or not is_tail(columns, 520):
            continue
        leading += 1
        writer = next(s for s in trace.replay(space.program).stages.values() if s.is_output)
        first = writer.leaves[0]
        assert first.startswith("i1") and "_f" not in first
        others = [leaf for leaf, kind in writer.annotations.items() if kind == "parallel"]
        assert others in ([], [first])
        parallel += others == [first]
        if leading <= 4:
            check_trace(workload, trace, seed=index)
    assert leading >= 5 and parallel >= 1


def test_the_rules_read_the_structure_of_fused_functions() -> None:
    space = space_of(SQUEEZENET_CONV)
    rng = random.Random(7)
    seen_pad = set()
    attached = 0
    for _ in range(20):
        trace = sample_multi_level(space, rng)
        schedule = trace.replay(space.program)
        decisions = space.decisions_of(trace)
        seen_pad.add(decisions["pad.placement"])
        # The elementwise tail is inlined into the output, which computes the conv at
        # one of its tile loops (when its outer tiles are not all of size 1).
        assert schedule.stages["add"].attach.kind == "inline"
        conv = schedule.stages["conv2d_nchwc"]  # BlockChannels made it (NCHW[b]c)
        levels = int(str(decisions["conv2d_nchwc.attach_level"])) + 1
        outer_sizes = [
            size
            for axis in ("ko", "y", "x", "kb")
            if isinstance(sizes := decisions[f"conv2d_nchwc.tile.{axis}"], tuple)
            for size in sizes[:levels]
        ]
        if all(size == 1 for size in outer_sizes):
            assert conv.attach.kind == "root"
        else:
            assert conv.attach.kind == "at" and conv.attach.stage == "relu"
            attached += 1
        expected_pad = "inline" if decisions["pad.placement"] == "inline" else "root"
        assert schedule.stages["pad"].attach.kind == expected_pad
        # The constant weight is repacked when its output-channel block axis is vectorized,
        # or when vectors over the channels within a block are narrower than the block
        # (AVX2's 8 lanes in a block of 16); a vector of the whole block reads it as it is.
        vector_axis = decisions["conv2d_nchwc.vector_axis"]
        block_tile = decisions["conv2d_nchwc.tile.kb"]
        assert isinstance(block_tile, tuple)
        (block,) = [a.extent for a in conv.op.axes if a.var.name == "kb"]
        narrower = vector_axis == "kb" and block_tile[-1] < block
        assert ("p1" in schedule.input_layouts) == (vector_axis == "ko" or narrower)
        assert "p2" not in schedule.input_layouts
    assert seen_pad == {"inline", "root"}
    assert attached >= 10


def test_reductions_without_reuse_get_the_generic_rule_or_are_computed_per_row() -> None:
    """softmax's and layer_norm's statistics are needed a row at a time: each space point
    schedules every stage on its own (the generic rule) or computes them per row of the
    output (the rows rule, with its own decisions); pooling has no such producers."""
    for name, stages in [
        ("softmax", ("softmax_maxelem", "softmax_expsum", "softmax")),
        ("layer_norm", ("layer_norm_sum", "layer_norm_sqsum", "layer_norm")),
        ("max_pool2d", ("max_pool2d",)),
    ]:
        output = stages[-1]
        seen = set()
        for decisions in _decisions(name, 12):
            assert not any(".tile." in key for key in decisions), name
            placement = decisions.get(f"{output}.by_rows", "stages")
            seen.add(placement)
            if placement == "stages":
                for stage in stages:
                    assert f"{stage}.vector" in decisions and f"{stage}.parallel" in decisions
                continue
            assert f"{output}.row_vector" in decisions
            assert not any(f"{stage}.vector" in decisions for stage in stages)
            for stage in stages[:-1]:
                assert f"{stage}.row_rfactor" in decisions
        assert seen == ({"stages"} if name == "max_pool2d" else {"stages", "rows"}), name


def test_per_row_producers_are_computed_inside_the_output_row_loop() -> None:
    """Under the rows rule every producer of softmax is computed at the output's fused
    row loop, which is its outermost (the property tests check what they compute)."""
    space = space_of("softmax", HardwareParams(vector_bytes=64, num_cores=2))
    rng = random.Random(5)
    by_rows = 0
    for _ in range(20):
        trace = space.sample(rng)
        if space.decisions_of(trace)["softmax.by_rows"] != "rows":
            continue
        by_rows += 1
        schedule = trace.replay(workloads()["softmax"].program())
        output = schedule.stages["softmax"]
        row_loop = output.leaves[0]
        producers = [s for name, s in schedule.stages.items() if name != "softmax"]
        assert producers and all(
            s.attach.kind == "inline" or (s.attach.stage, s.attach.axis) == ("softmax", row_loop)
            for s in producers
        )
    assert by_rows >= 3


def test_reductions_along_rows_may_reduce_each_row_into_partial_vectors() -> None:
    """softmax's and layer_norm's statistics (rows of 20 and 24) may be rfactored by
    half a 16-lane vector: then the trace holds the rfactor, the partial stage's vector
    loop is its innermost and the stage reduces the partials; pooling never is."""
    space = space_of("softmax", HardwareParams(vector_bytes=64, num_cores=2))
    rng = random.Random(3)
    seen = set()
    for _ in range(30):
        trace = space.sample(rng)
        decisions = space.decisions_of(trace)
        schedule = trace.replay(workloads()["softmax"].program())
        for stage in ("softmax_maxelem", "softmax_expsum"):
            length = decisions.get(f"{stage}.rfactor", decisions.get(f"{stage}.row_rfactor"))
            seen.add(length)
            assert length in (1, 8)
            partial = schedule.stages.get(f"{stage}_rf")
            if length == 1:
                assert partial is None and f"{stage}.rfactor_parallel" not in decisions
                continue
            assert partial is not None
            assert partial.annotations[partial.leaves[-1]] == "vectorize"
            assert [a.extent for a in schedule.stages[stage].op.reduce_axes] == [8]
    assert seen == {1, 8}
    assert any(".rfactor" in key for d in _decisions("layer_norm", 10) for key in d)
    assert not any(".rfactor" in key for d in _decisions("max_pool2d", 10) for key in d)


def test_reductions_of_one_vector_may_be_reduced_horizontally() -> None:
    """A statistic left without a vector loop whose innermost reduce axis fits one vector
    (a row of 20, or its 8 partials) vectorizes that axis or not, by choice; per row, the
    partials are always reduced horizontally. Pooling's window rows (3) may be too."""
    space = space_of("softmax", HardwareParams(vector_bytes=64, num_cores=2))
    program = workloads()["softmax"].program()
    rng = random.Random(7)
    seen = set()
    for _ in range(60):
        trace = space.sample(rng)
        decisions = space.decisions_of(trace)
        schedule = trace.replay(program)
        for name in ("softmax_maxelem", "softmax_expsum"):
            stage = schedule.stages[name]
            last = stage.leaves[-1]
            horizontal = stage.annotations.get(last) == "vectorize" and last in {
                axis.name for axis in stage.op.reduce_axes
            }
            choice = decisions.get(f"{name}.reduce_vector")
            if choice is not None:
                seen.add(choice)
                assert horizontal == (choice == "horizontal")
            elif decisions.get(f"{name}.row_rfactor", 1) > 1:
                assert horizontal
    assert seen == {"serial", "horizontal"}
    assert any("max_pool2d.reduce_vector" in d for d in _decisions("max_pool2d", 20))


def test_exponentials_read_twice_are_computed_once_or_inlined_by_choice() -> None:
    """softmax's exp(x - max) is read by the row sum and the output: the space chooses
    between computing it once at the root (then scheduled like any stage) and inlining it."""
    seen = set()
    for decisions in _decisions("softmax", 20):
        seen.add(decisions["softmax_exp.placement"])
        vector = "softmax_exp.vector" in decisions or "softmax_exp.row_vector" in decisions
        assert vector == (decisions["softmax_exp.placement"] == "root")
    assert seen == {"inline", "root"}


def test_one_core_never_runs_parallel_loops() -> None:
    space = space_of("matmul", HardwareParams(vector_bytes=64, num_cores=1))
    rng = random.Random(0)
    for _ in range(10):
        trace = space.sample(rng)
        assert not any(step.arguments.get("annotation") == "parallel" for step in trace)


def test_tile_sampling_helpers() -> None:
    rng = random.Random(0)
    for extent in (1, 7, 12, 56, 97, 256, 1000):
        for _ in range(20):
            sizes = sample_perfect(rng, extent, 4)
            assert is_perfect(sizes, extent)
            moved = neighbour_perfect(rng, sizes)
            assert moved is None or (is_perfect(moved, extent) and moved != sizes)
            vector = sample_vector_tile(rng, extent, lanes=16)
            if extent > 1:
                assert vector[-1] >= 2
                assert is_perfect(vector, extent) or is_tail(vector, extent)
    # Rows: a tail tiling only where no divisor from 4 to the limit exists.
    assert row_tail_tiles(197, 16) == list(range(4, 17))
    assert row_tail_tiles(11, 16) == []  # one tile of all 11 rows fits
    assert row_tail_tiles(11, 8) == list(range(4, 9))
    assert row_tail_tiles(34, 16) and not row_tail_tiles(56, 16) and not row_tail_tiles(7, 16)
    assert row_tail_tiles(3, 16) == [] and row_tail_tiles(1, 16) == []
    assert is_row_tail((25, 1, 1, 8), 197, 16) and not is_row_tail((25, 1, 1, 8), 200, 16)
    assert not is_row_tail((13, 1, 1, 16), 197, 8)  # rows beyond the limit
    # 97 is prime and longer than a vector: only a tail tiling gives it vectors.
    assert is_tail(sample_vector_tile(rng, 97, lanes=16), 97)
    assert is_tail((4, 1, 1, 16), 56) and not is_tail((4, 1, 1, 16), 64)
