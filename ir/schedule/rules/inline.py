"""Inline rule: every elementwise or injective stage that is not an output is inlined into
its readers, except where inlining is a decision: a padding stage feeding a reduction
(selects in the hot loop, or materialised once at the root) and a stage computing exp,
log, erf, ... that several stages read (inlined, each computes it again).

The default keeps such a shared transcendental at the root, and a padding stage too where
it feeds a matrix-product-like stage that is not a depthwise conv (whose few
multiply-adds per input do not pay for a copy): the hot loop then has no selects.
"""

from __future__ import annotations

from ir.schedule.rules.analysis import (
    GEMM_TAGS,
    is_depthwise_conv,
    is_padding,
    is_reduction,
    recomputes_transcendentals,
)
from ir.schedule.rules.loops import BuildContext
from ir.schedule.schedule import Schedule

PLACEMENTS = ("inline", "root")


def inline_rule(context: BuildContext) -> None:
    """Inline non-output elementwise/injective stages; padding and shared transcendentals
    are a decision."""
    schedule = context.schedule
    for name in list(schedule.stages):
        stage = schedule.stages[name]
        if stage.is_output or is_reduction(stage):
            continue
        shared = recomputes_transcendentals(schedule, name)
        if shared or is_padding(schedule, name):
            preferred = "root" if shared or _pads_a_product(schedule, name) else "inline"
            choice = context.chooser.choose(f"{name}.placement", PLACEMENTS, preferred)
            if choice == "root":
                continue
        schedule.compute_inline(name)


def _pads_a_product(schedule: Schedule, name: str) -> bool:
    """Whether the padding stage `name` feeds a matrix-product-like stage that is not a
    depthwise conv."""
    return any(
        schedule.stages[reader].op.tag in GEMM_TAGS
        and not is_depthwise_conv(schedule.program, schedule.stages[reader])
        for reader in schedule.readers(name)
    )
