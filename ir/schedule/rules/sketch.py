"""The order in which the rules schedule a program, the same for the default schedule and
the search space; only the choices differ (`Choices`).

Step 1. Inline elementwise and injective stages (inline.py).
Step 2. Each compute-heavy stage gets a sketch (a decision): an output that owns its
        matrix product either register-tiles it (register_tiles.py, the default) or
        multi-level tiles it (multi_level_tiling.py); any other compute-heavy stage is
        either left to the generic rule (the default) or multi-level tiled.
Step 3. An output whose producers are needed a row at a time may compute them per row
        (rows.py); every other root stage gets the generic rule (generic.py).
"""

from __future__ import annotations

from ir.schedule.rules.analysis import fusion_anchor, is_compute_heavy
from ir.schedule.rules.generic import generic_rule
from ir.schedule.rules.inline import inline_rule
from ir.schedule.rules.loops import BuildContext
from ir.schedule.rules.multi_level_tiling import multi_level_tiling
from ir.schedule.rules.register_tiles import gemm_anchor, register_tile_rule
from ir.schedule.rules.rows import rows_rule

TILED_SKETCHES = ("register_tile", "multi_level")  # an output's own matrix product
OTHER_SKETCHES = ("generic", "multi_level")  # any other compute-heavy stage


def apply_rules(context: BuildContext) -> None:
    """Schedule every stage of `context.schedule` by the rules, in the steps above."""
    schedule, chooser = context.schedule, context.chooser
    # Step 1.
    inline_rule(context)
    # Step 2.
    handled: set[str] = set()
    multi_level: set[str] = set()  # products whose output chose to multi-level tile them
    for output in [name for name, stage in schedule.stages.items() if stage.is_output]:
        anchor = gemm_anchor(schedule, output)
        if anchor is None or anchor in handled or anchor in multi_level:
            continue  # (a product another output owns: an output read by an output)
        sketch = chooser.choose_str(f"{anchor}.sketch", TILED_SKETCHES, "register_tile")
        if sketch == "register_tile":
            handled |= register_tile_rule(context, output, anchor)
        else:
            multi_level.add(anchor)
    anchors: set[str] = set()
    for name in list(schedule.stages):
        stage = schedule.stages[name]
        if name in handled or stage.attach.kind != "root" or not is_compute_heavy(stage):
            continue
        if name not in multi_level:
            sketch = chooser.choose_str(f"{name}.sketch", OTHER_SKETCHES, "generic")
            if sketch == "generic":
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
