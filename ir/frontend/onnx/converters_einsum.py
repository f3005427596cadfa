"""The Einsum converter: an equation becomes sums, transposes, reshapes and matrix products.

Operands are contracted left to right. Before each pairwise step, a letter that only one
side holds and that nothing later needs is summed away; the step is then a (batched)
matrix product over the shared letters nothing later needs, or a broadcast multiply when
there are none. A final transpose puts the letters in the output's order. Ellipses stand
for the broadcast dimensions, aligned from the right as in numpy. A letter repeated within
one operand takes that operand's diagonal first (its two dimensions merged, every (n +
1)-th element kept), so the letter appears once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Expr

ELLIPSIS = "..."


@dataclass(frozen=True)
class Operand:
    """A value and the letter of each of its dimensions."""

    value: Expr
    letters: str
    shape: tuple[int, ...]


def _ellipsis_letters(count: int) -> str:
    # Letters outside ONNX's [a-zA-Z] alphabet, so they never meet the equation's own.
    return "".join(chr(0x100 + index) for index in range(count))


def parse_equation(
    ctx: NodeContext, equation: str, shapes: Sequence[tuple[int, ...]]
) -> tuple[list[str], str]:
    """Per-operand letters and the output letters, with ellipses expanded."""
    text = equation.replace(" ", "")
    inputs_text, arrow, output_text = text.partition("->")
    terms = inputs_text.split(",")
    if len(terms) != len(shapes):
        raise ctx.error(f"equation {equation!r} names {len(terms)} operands, got {len(shapes)}")
    broadcast = 0
    for term, shape in zip(terms, shapes, strict=True):
        if ELLIPSIS in term:
            broadcast = max(broadcast, len(shape) - (len(term) - len(ELLIPSIS)))
    wide = _ellipsis_letters(broadcast)
    letters: list[str] = []
    for written, shape in zip(terms, shapes, strict=True):
        named = written.replace(ELLIPSIS, "")
        term = written
        if ELLIPSIS in written:
            covered = len(shape) - len(named)
            term = written.replace(ELLIPSIS, wide[broadcast - covered :] if covered else "")
        if len(term) != len(shape) or not all(c.isalpha() for c in named):
            raise ctx.error(f"term {written!r} of {equation!r} does not fit operand shape {shape}")
        for letter in set(term):
            sizes = {size for c, size in zip(term, shape, strict=True) if c == letter}
            if len(sizes) > 1:
                raise ctx.error(
                    f"letter {letter!r} repeats in {written!r} over dimensions of sizes "
                    f"{sorted(sizes)}: a diagonal needs one size"
                )
        letters.append(term)
    if arrow:
        output = output_text.replace(ELLIPSIS, wide)
        if len(set(output)) != len(output) or not set(output) <= set("".join(letters)):
            raise ctx.error(f"output {output_text!r} of {equation!r} is not a set of input letters")
    else:
        counts = {c: "".join(letters).count(c) for c in set("".join(letters))}
        output = wide + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in wide))
    return letters, output


def _diagonal(ctx: NodeContext, operand: Operand) -> Operand:
    """`operand` with each letter it repeats kept once, on its diagonal: the two dimensions
    move last and merge, and every (n + 1)-th element of the merged one stays."""
    while True:
        repeated = next((c for c in operand.letters if operand.letters.count(c) > 1), None)
        if repeated is None:
            return operand
        first = operand.letters.index(repeated)
        second = operand.letters.index(repeated, first + 1)
        others = [i for i in range(len(operand.letters)) if i not in (first, second)]
        order = (*others, first, second)
        value = operand.value
        if order != tuple(range(len(order))):
            value = ctx.call("transpose", value, axes=order)
        size = operand.shape[first]
        kept = tuple(operand.shape[i] for i in others)
        value = _reshaped(ctx, value, (*kept, size * size))
        value = ctx.call(
            "strided_slice",
            value,
            begin=(0,),
            end=(size * size,),
            strides=(size + 1,),
            axes=(len(kept),),
        )
        letters = "".join(operand.letters[i] for i in others) + repeated
        operand = Operand(value, letters, (*kept, size))


def _sizes(ctx: NodeContext, operands: Sequence[Operand]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for operand in operands:
        for letter, size in zip(operand.letters, operand.shape, strict=True):
            known = sizes.get(letter, 1)
            if size != 1 and known != 1 and size != known:
                raise ctx.error(f"letter {letter!r} has sizes {known} and {size}")
            sizes[letter] = max(known, size)
    return sizes


def _summed(ctx: NodeContext, operand: Operand, keep: set[str]) -> Operand:
    """`operand` with its letters outside `keep` summed away."""
    axes = tuple(i for i, letter in enumerate(operand.letters) if letter not in keep)
    if not axes:
        return operand
    value = ctx.call("sum", operand.value, axis=axes, keepdims=False)
    kept = "".join(letter for letter in operand.letters if letter in keep)
    return Operand(value, kept, tuple(s for i, s in enumerate(operand.shape) if i not in axes))


def _arranged(ctx: NodeContext, operand: Operand, order: str, sizes: dict[str, int]) -> Expr:
    """`operand` transposed to `order`, its size-1 (broadcast) dimensions expanded."""
    axes = tuple(operand.letters.index(letter) for letter in order)
    value = operand.value
    if axes != tuple(range(len(axes))):
        value = ctx.call("transpose", value, axes=axes)
    shape = tuple(operand.shape[axis] for axis in axes)
    full = tuple(sizes[letter] for letter in order)
    if full != shape:
        value = ctx.call("broadcast_to", value, shape=full)
    return value


def _reshaped(ctx: NodeContext, value: Expr, shape: tuple[int, ...]) -> Expr:
    return ctx.call("reshape", value, newshape=shape)


def contract(
    ctx: NodeContext, left: Operand, right: Operand, keep: set[str], sizes: dict[str, int]
) -> Operand:
    """The product of two operands summed over their shared letters outside `keep`."""
    left = _summed(ctx, left, keep | set(right.letters))
    right = _summed(ctx, right, keep | set(left.letters))
    batch = "".join(c for c in left.letters if c in right.letters and c in keep)
    reduced = "".join(c for c in left.letters if c in right.letters and c not in keep)
    rows = "".join(c for c in left.letters if c not in right.letters)
    cols = "".join(c for c in right.letters if c not in left.letters)

    def size(letters: str) -> int:
        return math.prod(sizes[c] for c in letters)

    lhs = _arranged(ctx, left, batch + rows + reduced, sizes)
    rhs = _arranged(ctx, right, batch + reduced + cols, sizes)
    out_shape = tuple(sizes[c] for c in batch + rows + cols)
    if not reduced:
        # No shared letter to sum: a broadcast multiply over (batch, rows, cols).
        lhs = _reshaped(ctx, lhs, tuple(sizes[c] for c in batch + rows) + (1,) * len(cols))
        rhs = _reshaped(
            ctx,
            rhs,
            tuple(sizes[c] for c in batch) + (1,) * len(rows) + tuple(sizes[c] for c in cols),
        )
        return Operand(ctx.call("multiply", lhs, rhs), batch + rows + cols, out_shape)
    if not batch:
        lhs = _reshaped(ctx, lhs, (size(rows), size(reduced)))
        rhs = _reshaped(ctx, rhs, (size(reduced), size(cols)))
        product = ctx.call("nn.matmul", lhs, rhs)
    else:
        lhs = _reshaped(ctx, lhs, (size(batch), size(rows), size(reduced)))
        rhs = _reshaped(ctx, rhs, (size(batch), size(reduced), size(cols)))
        product = ctx.call("nn.batch_matmul", lhs, rhs)
    return Operand(_reshaped(ctx, product, out_shape), batch + rows + cols, out_shape)


def convert_einsum(ctx: NodeContext) -> ConverterResult:
    """Einsum(equation) -> sums, transposes, reshapes, matmuls and multiplies."""
    equation = ctx.attr("equation")
    if not isinstance(equation, str | bytes):
        raise ctx.error("attribute equation is required")
    equation = equation.decode() if isinstance(equation, bytes) else equation
    shapes = [ctx.shape(index) for index in range(len(ctx.inputs))]
    letters, output = parse_equation(ctx, equation, shapes)
    operands = [
        _diagonal(ctx, Operand(ctx.input(index), term, shape))
        for index, (term, shape) in enumerate(zip(letters, shapes, strict=True))
    ]
    sizes = _sizes(ctx, operands)
    result = operands[0]
    for position, operand in enumerate(operands[1:], start=1):
        later = set(output).union(*(o.letters for o in operands[position + 1 :]))
        result = contract(ctx, result, operand, later, sizes)
    result = _summed(ctx, result, set(output))
    return _arranged(ctx, result, output, sizes)


CONVERTERS: dict[str, Converter] = {"Einsum": convert_einsum}
