"""SearchSpace: random schedules of one TE program, drawn from rules, and their mutations.

The rules are `ir.schedule.rules`, which the default schedule runs too:

Step 1. Inline elementwise/injective non-output stages (padding feeding a reduction: a
        decision between inlining and materialising it).
Step 2. A compute-heavy stage is register tiled (an output's own matrix product) or left
        to the generic rule, or multi-level tiled ("SSRSRS"), computed at the tiles of
        the output that inlines its elementwise tail (the sketch: a decision).
Step 3. An output whose producers are needed a row at a time may compute them per row;
        every other root stage gets the generic rule.

The default schedule is the point whose decisions all take their rule's preferred value
(`default_point`).

Each trace is built from `Decisions`; `mutate` rebuilds a trace with one decision
re-drawn. The decisions of every trace this space built are remembered (`decisions_of`),
so a search can mutate the traces it sampled; a trace from elsewhere is mutated through
its decisions (`mutate_decisions` and `from_decisions`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping

from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.choices import SpaceError
from ir.schedule.rules.loops import BuildContext
from ir.schedule.rules.sketch import apply_rules
from ir.schedule.schedule import LayoutRewrite, Schedule
from ir.schedule.trace import Trace
from ir.te.program import TEProgram
from tuner.space.decisions import Chooser, Decision, Decisions
from tuner.space.points import PointMemory, SpacePoint
from tuner.space.prior import column_conv_decisions

MUTATION_ATTEMPTS = 8  # decisions tried before a mutation gives up looking for a new trace

__all__ = ["SearchSpace", "SpacePoint"]


class SearchSpace:
    """The schedules the sketch rules generate for `program` on `hardware`.

    `constant_inputs` names the program inputs bound to constants (weights), which
    schedules may repack with a layout rewrite. With `required_layouts`, only schedules
    that lay the constants out as it says when they are built are in the space (a size
    bucket's kernel shares its weights with the whole range's best: `tuner.tasks.Task`);
    building any other raises SpaceError.
    """

    def __init__(
        self,
        program: TEProgram,
        hardware: HardwareParams | None = None,
        constant_inputs: Collection[str] = frozenset(),
        required_layouts: Callable[[], Mapping[str, LayoutRewrite]] | None = None,
    ) -> None:
        self.program = program
        self.hardware = hardware or HardwareParams()
        self.constant_inputs = frozenset(constant_inputs)
        self.required_layouts = required_layouts
        self._points = PointMemory()

    # -- the public API ------------------------------------------------------------------

    def sample(self, rng: random.Random) -> Trace:
        """A random schedule of the space (the same generator state gives the same one)."""
        return self.build({}, rng).trace

    def default_point(self) -> Trace:
        """The default schedule's point of the space: every decision its rule's preferred
        value (`ir.schedule.default` builds the same trace)."""
        return self._build({}, None, prefer=True)[0].trace

    def prior_points(self) -> list[Trace]:
        """The points a tuning run measures first: `default_point`, and where a conv may
        be vectorized over its output columns instead of its channels, the multi-level
        tiling with a register tile over columns (`tuner.space.prior`), so the search
        learns early how both kinds do."""
        points = [self.default_point()]
        columns = column_conv_decisions(self.program, self.hardware, self.constant_inputs)
        if columns:
            points.append(self._build(columns, random.Random(0), prefer=True)[0].trace)
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
        apply_rules(BuildContext(schedule, chooser, self.hardware, self.constant_inputs))
        if self.required_layouts is not None:
            required = dict(self.required_layouts())
            if schedule.input_layouts != required:
                raise SpaceError(
                    f"the schedule lays out {_layout_text(schedule.input_layouts)}, "
                    f"not {_layout_text(required)} as required"
                )
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


def _layout_text(layouts: Mapping[str, LayoutRewrite]) -> str:
    return ", ".join(f"{name} as {layout.factors}" for name, layout in layouts.items()) or "nothing"
