"""SearchSpace: random schedules of one TE program, drawn from rules, and their mutations.

The rules are `ir.schedule.rules`, which the default schedule runs too:

Step 1. Inline elementwise/injective non-output stages (padding feeding a reduction: a
        decision between inlining and materialising it).
Step 2. Multi-level tile every compute-heavy reduction ("SSRSRS", multi_level_tiling.py),
        computed at the tiles of the output that inlines its elementwise tail.
Step 3. An output whose producers are needed a row at a time may compute them per row
        (rows.py); every other root stage gets the generic rule (generic.py).

Each trace is built from `Decisions`; `mutate` rebuilds a trace with one decision
re-drawn. The decisions of every trace this space built are remembered (`decisions_of`),
so a search can mutate the traces it sampled; a trace from elsewhere is mutated through
its decisions (`mutate_decisions` and `from_decisions`).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping

from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.analysis import fusion_anchor, is_compute_heavy
from ir.schedule.rules.generic import generic_rule
from ir.schedule.rules.inline import inline_rule
from ir.schedule.rules.loops import BuildContext
from ir.schedule.rules.multi_level_tiling import multi_level_tiling
from ir.schedule.rules.rows import rows_rule
from ir.schedule.schedule import Schedule
from ir.schedule.trace import Trace
from ir.te.program import TEProgram
from tuner.space.decisions import Chooser, Decision, Decisions
from tuner.space.points import PointMemory, SpacePoint
from tuner.space.prior import column_conv_decisions, register_tile_decisions

MUTATION_ATTEMPTS = 8  # decisions tried before a mutation gives up looking for a new trace

__all__ = ["SearchSpace", "SpacePoint"]


class SearchSpace:
    """The schedules the sketch rules generate for `program` on `hardware`.

    `constant_inputs` names the program inputs bound to constants (weights), which
    schedules may repack with a layout rewrite.
    """

    def __init__(
        self,
        program: TEProgram,
        hardware: HardwareParams | None = None,
        constant_inputs: Collection[str] = frozenset(),
    ) -> None:
        self.program = program
        self.hardware = hardware or HardwareParams()
        self.constant_inputs = frozenset(constant_inputs)
        self._points = PointMemory()

    # -- the public API ------------------------------------------------------------------

    def sample(self, rng: random.Random) -> Trace:
        """A random schedule of the space (the same generator state gives the same one)."""
        return self.build({}, rng).trace

    def default_point(self) -> Trace | None:
        """The schedule of the space nearest the default schedule: every rule's preferred
        choice (the default's), the register tiles of the stages the default tiles by hand
        rebuilt by `tuner.space.prior`, what neither fixes drawn from a fixed seed; None
        where nothing of the point would be the default's (every stage drawn)."""
        points = self.prior_points()
        return points[0] if points else None

    def prior_points(self) -> list[Trace]:
        """The points a tuning run measures first: `default_point`, and where a conv may
        be vectorized over its output columns instead of its channels, the same point with
        a register tile over columns (`tuner.space.prior.column_conv_decisions`), so the
        search learns early how both kinds do."""
        tiles = register_tile_decisions(self.program, self.hardware, self.constant_inputs)
        point, chooser = self._build(tiles, random.Random(0), prefer=True)
        if not tiles and not chooser.preferred:
            return []
        points = [point.trace]
        columns = column_conv_decisions(self.program, self.hardware, self.constant_inputs)
        if columns:
            points.append(self._build({**tiles, **columns}, random.Random(0), prefer=True)[0].trace)
        return points

    def mutate(self, trace: Trace, rng: random.Random) -> Trace:
        """`trace` with one of its decisions re-drawn (the others kept where still valid).

        The trace must come from this space (`sample`, `mutate` or `from_decisions`);
        returns the same trace when none of its decisions can change.
        """
        return self.mutate_point(self.point_of(trace), rng).trace

    def from_decisions(self, decisions: Mapping[str, Decision]) -> Trace:
        """The trace that `decisions` describe; SpaceError if one is missing or invalid."""
        return self.build(decisions, None).trace

    def decisions_of(self, trace: Trace) -> Decisions:
        """The decisions a trace of this space was built from."""
        return dict(self.point_of(trace).decisions)

    def mutate_decisions(self, decisions: Mapping[str, Decision], rng: random.Random) -> Decisions:
        """`decisions` with one re-drawn (others re-drawn only where they became invalid)."""
        point = self.build(decisions, rng)
        return dict(self.mutate_point(point, rng).decisions)

    # -- building ------------------------------------------------------------------------

    def build(
        self,
        decisions: Mapping[str, Decision],
        rng: random.Random | None,
        resample: str | None = None,
    ) -> SpacePoint:
        """Build a schedule: given decisions are replayed, missing or invalid ones drawn
        from `rng` (SpaceError without one), and the `resample` key re-drawn."""
        return self._build(decisions, rng, resample)[0]

    def _build(
        self,
        decisions: Mapping[str, Decision],
        rng: random.Random | None,
        resample: str | None = None,
        prefer: bool = False,
    ) -> tuple[SpacePoint, Chooser]:
        chooser = Chooser(decisions, rng, resample, prefer)
        schedule = Schedule(self.program, undo_on_error=False)  # an error drops it
        context = BuildContext(schedule, chooser, self.hardware, self.constant_inputs)
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
            handled |= multi_level_tiling(context, name, anchor)
        # Step 3.
        for name in [n for n, s in schedule.stages.items() if s.is_output and n not in handled]:
            handled |= rows_rule(context, name)
        for name in list(schedule.stages):
            if name not in handled and schedule.stages[name].attach.kind == "root":
                generic_rule(context, name)
        point = SpacePoint(schedule.trace, dict(chooser.decisions), tuple(chooser.mutable))
        self._points.remember(point)
        return point, chooser

    def mutate_point(self, point: SpacePoint, rng: random.Random) -> SpacePoint:
        """A point whose trace differs from `point`'s by one re-drawn decision (where
        possible; `point` itself when no decision can change)."""
        keys = list(point.mutable)
        for _ in range(MUTATION_ATTEMPTS):
            if not keys:
                break
            key = keys.pop(rng.randrange(len(keys)))
            mutated = self.build(point.decisions, rng, resample=key)
            if mutated.trace != point.trace:
                return mutated
        return point

    def point_of(self, trace: Trace) -> SpacePoint:
        """The remembered point of a trace this space built (SpaceError otherwise)."""
        return self._points.point_of(trace)
