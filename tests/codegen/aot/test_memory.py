"""The static memory plan: tensors live at the same time never share bytes, offsets are
64-byte aligned, and reuse makes the workspace much smaller than all tensors together."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.aot.memory import ALIGN_BYTES, Lifetime, align_up, plan_memory
from tests.codegen.aot.conftest import ArtifactCache


def _lifetimes(draw_items: list[tuple[int, int, int]]) -> list[Lifetime]:
    return [
        Lifetime(value, nbytes, first, first + length)
        for value, (nbytes, first, length) in enumerate(draw_items)
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 10_000), st.integers(0, 30), st.integers(0, 10)),
        max_size=40,
    )
)
def test_live_tensors_never_overlap(items: list[tuple[int, int, int]]) -> None:
    tensors = _lifetimes(items)
    plan = plan_memory(tensors)
    for tensor in tensors:
        offset = plan.offsets[tensor.value]
        assert offset % ALIGN_BYTES == 0
        assert offset + tensor.nbytes <= plan.workspace_bytes
    for a in tensors:
        for b in tensors:
            if a.value < b.value and a.first <= b.last and b.first <= a.last:
                a_start, b_start = plan.offsets[a.value], plan.offsets[b.value]
                assert a_start + a.nbytes <= b_start or b_start + b.nbytes <= a_start
    assert plan.workspace_bytes <= plan.total_bytes


def test_a_chain_reuses_two_buffers() -> None:
    # x0 -> x1 -> x2 -> x3: each tensor is read by the next step only.
    tensors = [Lifetime(i, 1000, i, i + 1) for i in range(4)]
    plan = plan_memory(tensors)
    assert plan.workspace_bytes == 2 * align_up(1000)
    assert plan.total_bytes == 4 * align_up(1000)


def test_resnet50_workspace_is_at_most_half_of_its_tensors(artifact_cache: ArtifactCache) -> None:
    memory = artifact_cache.get("light_resnet50").artifact.manifest["memory"]
    assert memory["workspace_bytes"] <= 0.5 * memory["intermediate_bytes"]
