"""Default schedules: what every fused function gets when nothing has been tuned.

The default is the rules' own point of the CPU search space: `ir.schedule.rules` run in
their order (rules/sketch.py), each decision taking the value its rule prefers
(`PreferredChoices`). In short: elementwise stages inlined (padding feeding a matrix
product and shared exponentials kept); an output that owns a matrix product or
convolution register-tiles it (rules/register_tiles.py); softmax's and layer_norm's
statistics computed per output row where the rows are long (rules/rows.py); every other
stage vectorized along its last axis and parallel over its fused outer loops, a long
reduction along rows first reduced into vectors of partials (rules/generic.py).
"""

from __future__ import annotations

from collections.abc import Collection

from ir.schedule.hardware import HardwareParams
from ir.schedule.rules.choices import PreferredChoices
from ir.schedule.rules.loops import BuildContext
from ir.schedule.rules.sketch import apply_rules
from ir.schedule.schedule import Schedule
from ir.te.program import TEProgram


def default_schedule(
    program: TEProgram,
    hardware: HardwareParams | None = None,
    constant_inputs: Collection[str] = (),
) -> Schedule:
    """The schedule a fused function gets without tuning (see the module docstring).

    `constant_inputs` names the program inputs bound to constants (weights), which the
    schedule may repack.
    """
    schedule = Schedule(program)
    context = BuildContext(
        schedule, PreferredChoices(), hardware or HardwareParams(), frozenset(constant_inputs)
    )
    apply_rules(context)
    return schedule
