"""The math and bit intrinsics a loop IR `Call` may name (every backend implements each
one), and which of them take integers."""

from __future__ import annotations

INTRINSICS = (
    "exp",
    "log",
    "tanh",
    "sqrt",
    "rsqrt",
    "erf",
    "pow",
    "sigmoid",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "shift_left",
    "shift_right",
)

# Intrinsics on integers (the rest take floats): bits as stored; shifts by less than the
# width (a right shift of a signed value keeps its sign).
INTEGER_INTRINSICS = frozenset(
    {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right"}
)
