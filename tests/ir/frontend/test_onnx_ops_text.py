"""TfIdfVectorizer against onnxruntime: pools of several n-gram sizes, skips, the three
modes, batches, int32 and int64 tokens, through the graph reference and compiled."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from ir.errors import ModelImportError, UnsupportedOpError
from ir.frontend.onnx import import_model
from tests.ir.frontend.onnx_helpers import (
    assert_matches_onnxruntime,
    run_compiled,
    run_onnxruntime,
)


def tfidf_model(tokens: np.ndarray, width: int, **attrs: Any) -> onnx.ModelProto:
    """One TfIdfVectorizer node (opset 9) on `tokens`."""
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", **attrs)
    element = helper.np_dtype_to_tensor_dtype(tokens.dtype)
    graph = helper.make_graph(
        [node],
        "tfidf",
        [helper.make_tensor_value_info("x", element, tokens.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (*tokens.shape[:-1], width))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    model.ir_version = 8
    return model


def check(tokens: np.ndarray, width: int, **attrs: Any) -> None:
    """Our graph reference and our compiled code both give onnxruntime's output."""
    model = tfidf_model(tokens, width, **attrs)
    assert_matches_onnxruntime(model, {"x": tokens}, rtol=0, atol=0)
    expected = run_onnxruntime(model, {"x": tokens})[0]
    np.testing.assert_array_equal(run_compiled(model, {"x": tokens}), expected)


POOL = {
    # 3 unigrams, 4 bigrams, 1 trigram in the first bigram's column
    "pool_int64s": [2, 3, 5, 2, 3, 3, 5, 5, 2, 2, 5, 2, 3, 5],
    "ngram_counts": [0, 3, 11],
    "ngram_indexes": [0, 1, 2, 3, 4, 5, 6, 3],
}


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize(
    ("shortest", "longest", "skips"), [(1, 1, 0), (1, 2, 0), (2, 3, 2), (1, 3, 5)]
)
@pytest.mark.parametrize("weighted", [False, True])
def test_tfidf_matches_onnxruntime(
    mode: str, shortest: int, longest: int, skips: int, weighted: bool
) -> None:
    rng = np.random.default_rng(shortest * 10 + longest + skips)
    tokens = rng.choice(np.array([2, 3, 5, 7], np.int64), size=(3, 12))
    extra = {"weights": [0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 0.75, 9.0]} if weighted else {}
    if weighted and mode == "IDF" and longest == 3:
        # the trigram shares the first bigram's column: refused (see the test below)
        with pytest.raises(UnsupportedOpError, match=r"IDF weights of n-grams that share"):
            import_model(
                tfidf_model(
                    tokens,
                    7,
                    mode=mode,
                    min_gram_length=shortest,
                    max_gram_length=longest,
                    max_skip_count=skips,
                    **POOL,
                    **extra,
                )
            )
        return
    check(
        tokens,
        7,
        mode=mode,
        min_gram_length=shortest,
        max_gram_length=longest,
        max_skip_count=skips,
        **POOL,
        **extra,
    )


def test_one_row_of_int32_tokens_shorter_than_the_longest_gram() -> None:
    tokens = np.array([3, 5], np.int32)
    check(tokens, 7, mode="TF", min_gram_length=1, max_gram_length=3, max_skip_count=1, **POOL)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    length=st.integers(1, 16),
    longest=st.integers(1, 3),
    skips=st.integers(0, 4),
    mode=st.sampled_from(["TF", "IDF", "TFIDF"]),
    weighted=st.booleans(),
)
def test_any_pool_and_input_counts_as_onnxruntime_does(
    seed: int, length: int, longest: int, skips: int, mode: str, weighted: bool
) -> None:
    rng = np.random.default_rng(seed)
    vocabulary = np.arange(1, 5, dtype=np.int64)
    tokens = rng.choice(vocabulary, size=(2, length))
    pool: list[int] = []
    counts: list[int] = []
    grams = 0
    for size in range(1, longest + 1):
        counts.append(len(pool))
        drawn = {tuple(int(t) for t in rng.choice(vocabulary, size)) for _ in range(4)}
        number = int(rng.integers(0, len(drawn) + 1))
        pool += [token for gram in sorted(drawn)[:number] for token in gram]
        grams += number
    if grams == 0:
        pool, counts, grams = [1], [0] + [1] * (longest - 1), 1
    if mode == "IDF" and weighted:  # (columns shared by weighted IDF n-grams are refused)
        columns = [int(column) for column in rng.permutation(grams)]
    else:
        columns = [int(column) for column in rng.integers(0, grams + 1, grams)]
    shortest = int(rng.integers(1, longest + 1))
    model_attrs: dict[str, Any] = {
        "mode": mode,
        "min_gram_length": shortest,
        "max_gram_length": longest,
        "max_skip_count": skips,
        "pool_int64s": pool,
        "ngram_counts": counts,
        "ngram_indexes": columns,
    }
    if weighted:  # (quarters: every sum of products is exact in float32)
        model_attrs["weights"] = [float(w) / 4 for w in rng.integers(1, 16, grams)]
    check(tokens, max(columns) + 1, **model_attrs)


@pytest.mark.parametrize(
    ("pool", "shortest", "columns", "error", "message"),
    [
        ({"pool_strings": ["a", "b"]}, 1, [0, 1], UnsupportedOpError, r"string pools"),
        (
            {"pool_int64s": [1, 2, 3]},
            1,
            [0, 1],
            ModelImportError,
            r"ngram_indexes has 2 entries for the pool's 3",
        ),
        (
            {"pool_int64s": [1, 2, 1, 2]},
            2,
            [0, 1],
            ModelImportError,
            r"n-gram \[1, 2\] twice",
        ),
    ],
)
def test_a_bad_pool_is_refused_naming_the_node(
    pool: dict[str, list[Any]],
    shortest: int,
    columns: list[int],
    error: type[Exception],
    message: str,
) -> None:
    model = tfidf_model(
        np.array([1, 2], np.int64),
        2,
        mode="TF",
        min_gram_length=shortest,
        max_gram_length=shortest,
        max_skip_count=0,
        ngram_counts=[0] * shortest,
        ngram_indexes=columns,
        **pool,
    )
    with pytest.raises(error, match=rf"node 'tfidf' .*{message}"):
        import_model(model)
