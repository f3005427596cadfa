"""Lowering and code generation reproduce the golden corpus exactly."""

from __future__ import annotations

import pytest

from tests.golden.cases import CASES, GoldenCase, golden_path, render


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_stages_are_unchanged(case: GoldenCase) -> None:
    for stage, text in render(case).items():
        path = golden_path(case, stage)
        assert path.is_file(), f"{path} is missing: run `make golden`"
        assert text == path.read_text(), f"{path.name} changed: review, then `make golden`"
