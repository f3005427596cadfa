"""GpuSearchSpace: random GPU schedules of one TE program, checked against device limits.

Step 1. Inline elementwise/injective non-output stages (gpu_rules.inline_rule).
Step 2. Tile every compute-heavy reduction SSSRRSRS (gpu_rules.tiling_rule), written by
        the output that inlines its elementwise tail when there is one.
Step 3. Every other root stage: fused spatial loops bound to blocks and threads.
Step 4. Validity: the trace is lowered and planned into CUDA kernels, and every kernel is
        checked against the device's limits (threads per block, shared memory per block,
        registers, grid). A trace over a limit is never returned by `sample` or `mutate`;
        `check` gives the reason for any trace.

The API is the CPU SearchSpace's (sample, mutate, from_decisions, decisions_of,
mutate_decisions), so the search strategies use either; `check` is new.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping

from codegen.cuda.build import check_limits
from codegen.cuda.kernels import plan_kernels
from codegen.cuda.target import CudaTarget
from codegen.errors import CodegenError
from ir.errors import AutotuneError
from ir.lower import lower
from ir.schedule.gpu import GpuParams
from ir.schedule.rules.analysis import fusion_anchor, is_compute_heavy
from ir.schedule.schedule import Schedule
from ir.schedule.trace import Trace
from ir.te.program import TEProgram
from tuner.space.decisions import Chooser, Decision, Decisions, SpaceError
from tuner.space.gpu_rules import GpuBuildContext, bind_rule, inline_rule, tiling_rule
from tuner.space.points import REMEMBERED_TRACES, PointMemory, SpacePoint

SAMPLE_ATTEMPTS = 64  # draws `sample` tries before it reports that nothing valid was found
MUTATION_ATTEMPTS = 8


def check_gpu_trace(program: TEProgram, trace: Trace, limits: GpuParams) -> str | None:
    """Why `trace` cannot run on a GPU with `limits` (it does not replay, lower or fit the
    device), or None when it can."""
    try:
        schedule = trace.replay(program)
        plan = plan_kernels(lower(schedule))
        check_limits(plan, limits)
    except (AutotuneError, CodegenError) as err:
        return str(err)
    return None


class GpuSearchSpace:
    """The GPU schedules the sketch rules generate for `program` within `target`'s limits.

    `constant_inputs` is accepted for symmetry with the CPU space (GPU schedules do not
    repack weights).
    """

    def __init__(
        self,
        program: TEProgram,
        target: CudaTarget | GpuParams | None = None,
        constant_inputs: Collection[str] = frozenset(),
    ) -> None:
        self.program = program
        if isinstance(target, CudaTarget):
            self.limits = target.limits
        else:
            self.limits = target or GpuParams()
        self.constant_inputs = frozenset(constant_inputs)
        self._points = PointMemory()
        self._reasons: dict[Trace, str | None] = {}

    # -- the public API ------------------------------------------------------------------

    def sample(self, rng: random.Random) -> Trace:
        """A random schedule within the device's limits (SpaceError if none is found)."""
        reason = "no draw"
        for _ in range(SAMPLE_ATTEMPTS):
            try:
                point = self.build({}, rng)
            except SpaceError as err:
                reason = str(err)
                continue
            found = self.check(point.trace)
            if found is None:
                self._remember(point)
                return point.trace
            reason = found
        raise SpaceError(
            f"no valid GPU schedule of {self.program.name} in {SAMPLE_ATTEMPTS} draws; "
            f"last reason: {reason}"
        )

    def mutate(self, trace: Trace, rng: random.Random) -> Trace:
        """`trace` with one decision re-drawn, within the limits (or `trace` itself)."""
        return self.mutate_point(self.point_of(trace), rng).trace

    def from_decisions(self, decisions: Mapping[str, Decision]) -> Trace:
        """The trace `decisions` describe; SpaceError if one is missing or invalid, or the
        schedule exceeds the device's limits."""
        point = self.build(decisions, None)
        reason = self.check(point.trace)
        if reason is not None:
            raise SpaceError(f"the schedule exceeds the device's limits: {reason}")
        self._remember(point)
        return point.trace

    def decisions_of(self, trace: Trace) -> Decisions:
        """The decisions a trace of this space was built from."""
        return dict(self.point_of(trace).decisions)

    def mutate_decisions(self, decisions: Mapping[str, Decision], rng: random.Random) -> Decisions:
        """`decisions` with one re-drawn (others re-drawn only where they became invalid)."""
        point = self.build(decisions, rng)
        return dict(self.mutate_point(point, rng).decisions)

    def check(self, trace: Trace) -> str | None:
        """Why `trace` cannot run within the device's limits, or None (cached)."""
        if trace not in self._reasons:
            self._reasons[trace] = check_gpu_trace(self.program, trace, self.limits)
        return self._reasons[trace]

    # -- building ------------------------------------------------------------------------

    def build(
        self,
        decisions: Mapping[str, Decision],
        rng: random.Random | None,
        resample: str | None = None,
    ) -> SpacePoint:
        """Build a schedule from `decisions` (missing or invalid ones drawn from `rng`);
        SpaceError when the drawn sizes break a joint limit (threads per block)."""
        chooser = Chooser(decisions, rng, resample)
        schedule = Schedule(self.program, undo_on_error=False)  # an error drops it
        context = GpuBuildContext(schedule, chooser, self.limits)
        # Step 1.
        inline_rule(context)
        # Step 2.
        handled: set[str] = set()
        anchors: set[str] = set()
        for name in list(schedule.stages):
            stage = schedule.stages[name]
            if name in handled or stage.attach.kind != "root" or not is_compute_heavy(stage):
                continue
            anchor = fusion_anchor(schedule, name, anchors)
            if anchor is not None:
                anchors.add(anchor)
            handled |= tiling_rule(context, name, anchor)
        # Step 3.
        for name in list(schedule.stages):
            if name not in handled and schedule.stages[name].attach.kind == "root":
                bind_rule(context, name)
        return SpacePoint(schedule.trace, dict(chooser.decisions), tuple(chooser.mutable))

    def mutate_point(self, point: SpacePoint, rng: random.Random) -> SpacePoint:
        """A valid point differing from `point` by one re-drawn decision where possible."""
        keys = list(point.mutable)
        for _ in range(MUTATION_ATTEMPTS):
            if not keys:
                break
            key = keys.pop(rng.randrange(len(keys)))
            try:
                mutated = self.build(point.decisions, rng, resample=key)
            except SpaceError:
                continue
            if mutated.trace != point.trace and self.check(mutated.trace) is None:
                self._remember(mutated)
                return mutated
        return point

    def point_of(self, trace: Trace) -> SpacePoint:
        """The remembered point of a trace this space built (SpaceError otherwise)."""
        return self._points.point_of(trace)

    def _remember(self, point: SpacePoint) -> None:
        self._points.remember(point)
        while len(self._reasons) > REMEMBERED_TRACES:
            self._reasons.pop(next(iter(self._reasons)))
