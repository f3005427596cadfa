"""Index analyses: step per lane, and provable non-negativity."""

from __future__ import annotations

import pytest

from codegen.llvm.affine import is_non_negative, linear_coefficient
from ir.tir.expr import Binary, Buffer, Cast, IntImm, Load, PrimExpr, Var, maximum

LANE, ROW, STRIDE = Var("i"), Var("j"), Var("n")


@pytest.mark.parametrize(
    ("index", "step"),
    [
        (LANE, 1),
        (ROW * 64 + LANE, 1),
        (LANE * 4 + ROW, 4),
        (ROW - LANE, -1),
        (LANE * 2 + LANE * 3, 5),
        (IntImm(7), 0),
        (ROW * 64, 0),
        (Binary("mul", IntImm(3), LANE), 3),
        (Cast("int32", LANE + 1), 1),
        (LANE // 2, None),
        (LANE % 4, None),
        (LANE * STRIDE, None),
        (maximum(LANE, ROW), None),
        (Load(Buffer("idx", (8,), "int64"), LANE), None),
        (Load(Buffer("idx", (8,), "int64"), ROW), 0),
    ],
)
def test_linear_coefficient(index: PrimExpr, step: int | None) -> None:
    assert linear_coefficient(index, LANE) == step


def test_opaque_variables_are_not_affine() -> None:
    assert linear_coefficient(ROW + 1, LANE, opaque={ROW}) is None


@pytest.mark.parametrize(
    ("expr", "provable"),
    [
        (LANE * 4 + ROW, True),
        ((LANE + 3) // 2, True),
        (LANE % 8, True),
        (LANE - 1, False),
        (LANE + IntImm(-1), False),
        (STRIDE, False),
        (Cast("int64", Var("k", "int32")), False),
        (Cast("int8", LANE), False),
    ],
)
def test_is_non_negative(expr: PrimExpr, provable: bool) -> None:
    assert is_non_negative(expr, {LANE, ROW}) is provable
