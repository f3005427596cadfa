"""Trace text: steps whose values compare equal across types keep their own JSON text."""

from __future__ import annotations

import json

from ir.schedule.trace import Step, Trace


def _reference(trace: Trace) -> str:
    return json.dumps(trace.to_json(), sort_keys=True, separators=(",", ":"))


def test_equal_values_of_other_types_keep_their_text() -> None:
    # 1 == 1.0 == True in Python: a text remembered for one must not serve the others.
    traces = [
        Trace((Step.make("split", stage="s", axis="x", factor=value, nparts=None),))
        for value in (1, True, 1.0, 1, True, 1.0)
    ]
    texts = [trace.dumps() for trace in traces]
    assert texts == [_reference(trace) for trace in traces]
    assert len(set(texts[:3])) == 3
    nested = [
        Trace((Step.make("layout_rewrite", input="p1", factors=[[value, 2]], order=[0, 1]),))
        for value in (2, 2.0, 2)
    ]
    assert [trace.dumps() for trace in nested] == [_reference(trace) for trace in nested]


def test_text_matches_json_for_odd_steps() -> None:
    steps = (
        Step.make("compute_inline", stage="pad"),
        Step.make("reorder", stage="s", axes=["b", "a"]),
        Step("annotate", (("stage", "s"), ("axis", "x"), ("annotation", "vectorize"))),
        Step("odd", (("kind", "shadowed"),)),
        Step.make("split", stage="s\u00e9", axis="x", factor=None, nparts=3),
    )
    for count in range(len(steps) + 1):
        trace = Trace(steps[:count])
        assert trace.dumps() == _reference(trace)
        assert Trace(steps[:count]).dumps() == trace.dumps()
