"""Converters for ONNX's text featurisation op: TfIdfVectorizer over integer tokens.

The n-grams are counted as onnxruntime and ONNX's reference count them: for each n-gram
of the pool with min_gram_length <= n <= max_gram_length, the windows of n tokens spaced
`d` apart that equal it, for every spacing d in 1..max_skip_count + 1 (unigrams at d = 1
only); a pool n-gram of a counted size listed twice is refused, as onnxruntime refuses
it. The counts are weighted as onnxruntime 1.32 weighs them: TF adds each n-gram's count
into the output column its `ngram_indexes` entry names; TFIDF adds each count times the
n-gram's weight (`weights[i]` for the i-th n-gram of the pool); IDF gives a column 1
where its count is positive, or with `weights` the weight of the n-gram found there
(refused where two counted n-grams share a column: onnxruntime then keeps whichever it
found last). ONNX's reference weighs by output column instead (weights[i] for column
i), which differs only where ngram_indexes is not the identity.
"""

from __future__ import annotations

import itertools

import numpy as np

from ir.frontend.onnx.context import Converter, ConverterResult, NodeContext
from ir.graph.nodes import Constant, Expr

_MODES = ("TF", "IDF", "TFIDF")


def _pool_ngrams(ctx: NodeContext) -> list[tuple[int, ...]]:
    """The pool's n-grams in order, from pool_int64s split by ngram_counts."""
    pool = ctx.ints_attr("pool_int64s")
    if pool is None:
        if ctx.attr("pool_strings") is not None:
            raise ctx.unsupported("string pools (pool_strings): only integer tokens are")
        raise ctx.error("attribute 'pool_int64s' is required")
    starts = ctx.ints_attr("ngram_counts") or ()
    if not starts or starts[0] != 0 or any(b < a for a, b in itertools.pairwise(starts)):
        raise ctx.error(f"ngram_counts {starts} must start at 0 and never decrease")
    if starts[-1] > len(pool):
        raise ctx.error(f"ngram_counts {starts} reach past the pool's {len(pool)} tokens")
    grams: list[tuple[int, ...]] = []
    for size, start in enumerate(starts, start=1):
        end = starts[size] if size < len(starts) else len(pool)
        if (end - start) % size:
            raise ctx.error(
                f"the pool's {size}-grams (tokens {start}..{end}) are not a whole number "
                f"of {size}-grams"
            )
        grams += [tuple(pool[at : at + size]) for at in range(start, end, size)]
    return grams


def _gram_counts(ctx: NodeContext, grams: np.ndarray, skips: int) -> Expr | None:
    """Per row, the count of each of `grams` (all of one size n, shape [G, n]) among the
    windows of the node's tokens at every spacing it is counted at; None when no window
    fits."""
    tokens, size = ctx.input(0), grams.shape[1]
    axis = ctx.rank(0) - 1
    length = ctx.shape(0)[axis]
    spacings = range(1, 2) if size == 1 else range(1, skips + 2)
    total: Expr | None = None
    for spacing in spacings:
        windows = length - (size - 1) * spacing
        if windows <= 0:
            continue
        matched: Expr | None = None
        for position in range(size):
            begin = position * spacing
            part = ctx.call(
                "strided_slice", tokens, begin=(begin,), end=(begin + windows,), axes=(axis,)
            )
            wanted = Constant(grams[:, position].astype(ctx.dtype(0)))
            equal = ctx.call("equal", ctx.call("expand_dims", part, axes=(axis + 1,)), wanted)
            matched = equal if matched is None else ctx.call("logical_and", matched, equal)
        assert matched is not None
        found = ctx.call("sum", ctx.call("cast", matched, dtype="float32"), axis=(axis,))
        total = found if total is None else ctx.call("add", total, found)
    return total


def convert_tfidf_vectorizer(ctx: NodeContext) -> ConverterResult:
    """TfIdfVectorizer(X) over int32 or int64 tokens, [C] or [N, C] -> float32 [width] or
    [N, width] (module docstring)."""
    if ctx.dtype(0) not in ("int32", "int64"):
        raise ctx.unsupported(f"tokens of type {ctx.dtype(0)}: only int32 and int64 are")
    shape = ctx.shape(0)
    if len(shape) not in (1, 2):
        raise ctx.error(f"the input must be [C] or [N, C]; got shape {shape}")
    mode = ctx.choice_attr("mode", "TF", _MODES)
    shortest, longest = ctx.int_attr("min_gram_length", 1), ctx.int_attr("max_gram_length", 1)
    skips = ctx.int_attr("max_skip_count", 0)
    if not 1 <= shortest <= longest or skips < 0:
        raise ctx.error(
            f"needs 1 <= min_gram_length ({shortest}) <= max_gram_length ({longest}) and "
            f"max_skip_count ({skips}) >= 0"
        )
    grams = _pool_ngrams(ctx)
    columns = ctx.ints_attr("ngram_indexes") or ()
    if len(columns) != len(grams) or any(column < 0 for column in columns):
        raise ctx.error(
            f"ngram_indexes has {len(columns)} entries for the pool's {len(grams)} n-grams; "
            "one non-negative column each is needed"
        )
    width = max(columns) + 1
    weights = ctx.attr("weights")
    if weights is not None and len(weights) != len(columns):
        raise ctx.error(f"weights has {len(weights)} values for the pool's {len(columns)} n-grams")
    gram_weights = np.asarray(weights if weights is not None else np.ones(len(grams)), np.float32)
    counted = [p for p, gram in enumerate(grams) if shortest <= len(gram) <= longest]
    counted_grams = [grams[p] for p in counted]
    if len(set(counted_grams)) != len(counted_grams):
        twice = next(gram for gram in counted_grams if counted_grams.count(gram) > 1)
        raise ctx.error(f"the pool lists the n-gram {list(twice)} twice")
    counted_columns = [columns[p] for p in counted]
    if mode == "IDF" and weights is not None and len(set(counted_columns)) < len(counted):
        raise ctx.unsupported(
            "IDF weights of n-grams that share an output column (onnxruntime keeps the "
            "weight of whichever it finds last)"
        )
    counts: Expr | None = None
    for size in range(shortest, longest + 1):
        members = [p for p in counted if len(grams[p]) == size]
        if not members:
            continue
        found = _gram_counts(ctx, np.array([grams[p] for p in members]), skips)
        if found is None:
            continue
        if weights is not None and mode != "TF":
            found = _weighted(ctx, found, mode, gram_weights[members])
        spread = np.zeros((len(members), width), np.float32)
        spread[np.arange(len(members)), [columns[p] for p in members]] = 1.0
        placed = ctx.call("nn.matmul", found, Constant(spread))
        counts = placed if counts is None else ctx.call("add", counts, placed)
    if counts is None:
        return Constant(np.zeros((*shape[:-1], width), np.float32))
    if mode == "IDF" and weights is None:
        present = ctx.call("greater", counts, ctx.scalar(0.0, "float32"))
        return ctx.call("cast", present, dtype="float32")
    return counts


def _weighted(ctx: NodeContext, counts: Expr, mode: str, weights: np.ndarray) -> Expr:
    """Counts of n-grams weighted by `mode`, TFIDF or IDF (module docstring), one weight
    per n-gram."""
    if mode == "TFIDF":
        return ctx.call("multiply", counts, Constant(weights))
    present = ctx.call("greater", counts, ctx.scalar(0.0, "float32"))
    return ctx.call("where", present, Constant(weights), ctx.scalar(0.0, "float32"))


CONVERTERS: dict[str, Converter] = {"TfIdfVectorizer": convert_tfidf_vectorizer}
