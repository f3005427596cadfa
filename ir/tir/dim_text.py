"""Symbolic dims as text and back: `parse_dim` reads what `format_expr` prints for an
integer expression of size variables (`((batch * seq) * 12)`, `(past + 1)`), so that a
dim can travel where only plain values do (an op's attributes, JSON).

The grammar: integers, names, parentheses, `min(a, b)` and `max(a, b)`, and the binary
operators `+ - * // %` with Python's precedence, left-associative.
"""

from __future__ import annotations

import re

from ir.tir.expr import Binary, IntImm, PrimExpr, Var

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(//|[-+*%(),]))")
_ADDITIVE = {"+": "add", "-": "sub"}
_MULTIPLICATIVE = {"*": "mul", "//": "floordiv", "%": "floormod"}
_FUNCTIONS = ("min", "max")


class DimTextError(ValueError):
    """Text that is not a dim expression."""


def parse_dim(text: str, dtype: str = "int64") -> PrimExpr:
    """The integer expression `text` spells (variables and constants of `dtype`);
    DimTextError saying where it stops making sense."""
    tokens = _tokenize(text)
    parser = _Parser(text, tokens, dtype)
    expr = parser.additive()
    if parser.position != len(tokens):
        raise DimTextError(f"dim {text!r}: unexpected {tokens[parser.position]!r}")
    return expr


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        if match is None:
            raise DimTextError(f"dim {text!r}: cannot read {text[position:].strip()!r}")
        tokens.append(match.group(match.lastindex or 0))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str, tokens: list[str], dtype: str) -> None:
        self.text = text
        self.tokens = tokens
        self.dtype = dtype
        self.position = 0

    def _peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> str:
        token = self._peek()
        if token is None or (expected is not None and token != expected):
            wanted = f"{expected!r}" if expected else "more"
            raise DimTextError(f"dim {self.text!r}: expected {wanted} at token {self.position}")
        self.position += 1
        return token

    def additive(self) -> PrimExpr:
        expr = self.multiplicative()
        while (token := self._peek()) in _ADDITIVE:
            self.position += 1
            expr = Binary(_ADDITIVE[str(token)], expr, self.multiplicative())
        return expr

    def multiplicative(self) -> PrimExpr:
        expr = self.atom()
        while (token := self._peek()) in _MULTIPLICATIVE:
            self.position += 1
            expr = Binary(_MULTIPLICATIVE[str(token)], expr, self.atom())
        return expr

    def atom(self) -> PrimExpr:
        token = self._take()
        if token == "(":
            expr = self.additive()
            self._take(")")
            return expr
        if token == "-":
            operand = self.atom()
            if isinstance(operand, IntImm):
                return IntImm(-operand.value, self.dtype)
            return Binary("sub", IntImm(0, self.dtype), operand)
        if token.isdigit():
            return IntImm(int(token), self.dtype)
        if token in _FUNCTIONS and self._peek() == "(":
            self._take("(")
            lhs = self.additive()
            self._take(",")
            rhs = self.additive()
            self._take(")")
            return Binary(token, lhs, rhs)
        if token[0].isalpha() or token[0] == "_":
            return Var(token, self.dtype)
        raise DimTextError(f"dim {self.text!r}: unexpected {token!r}")
