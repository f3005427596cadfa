"""The search space: schedules generated from a TE program's structure by sketch rules.

`SearchSpace(program, hardware, constant_inputs)` draws random valid traces (`sample`),
re-draws one decision of a trace (`mutate`) and rebuilds a trace from its recorded
`Decisions` (`from_decisions`). See space.py for the steps, and the rules it runs
(`ir.schedule.rules`, shared with the default schedule) for the structures they generate.
"""

from tuner.space.decisions import (
    Decision,
    Decisions,
    SpaceError,
    decisions_from_json,
    decisions_to_json,
)
from tuner.space.space import SearchSpace, SpacePoint

__all__ = [
    "Decision",
    "Decisions",
    "SearchSpace",
    "SpaceError",
    "SpacePoint",
    "decisions_from_json",
    "decisions_to_json",
]
