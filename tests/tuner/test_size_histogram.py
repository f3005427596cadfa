"""Size histograms: parsed from the command line, checked against a model's size ranges,
and the share of runs each size bucket takes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuner.options import TuneOptions, TuneOptionsError
from tuner.size_histogram import (
    SizeHistogramError,
    bucket_share,
    check_size_histogram,
    parse_size_histogram,
    representative_sizes,
)


def test_a_histogram_parses_per_size_variable_and_sums_repeated_sizes() -> None:
    histogram = parse_size_histogram(["seq=16:70,128:25,16:5", "batch=1:9,4"])
    assert histogram == {"seq": {16: 75.0, 128: 25.0}, "batch": {1: 9.0, 4: 1.0}}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("seq", "must be NAME=SIZE:COUNT"),
        ("=16:1", "must be NAME=SIZE:COUNT"),
        ("seq=a:1", "'a:1' is not SIZE:COUNT"),
        ("seq=16:x", "'16:x' is not SIZE:COUNT"),
        ("seq=0:1", "sizes are at least 1"),
        ("seq=4:-1", "counts not negative"),
        ("seq=4:nan", "counts not negative"),
    ],
)
def test_a_malformed_histogram_is_refused_naming_the_entry(text: str, fragment: str) -> None:
    with pytest.raises(SizeHistogramError, match=fragment):
        parse_size_histogram([text])


def test_a_size_variable_given_twice_is_refused() -> None:
    with pytest.raises(SizeHistogramError, match="seq is given twice"):
        parse_size_histogram(["seq=4:1", "seq=8:1"])


def test_a_histogram_that_does_not_fit_the_model_is_refused_by_name() -> None:
    uppers = {"batch": 4, "seq": 384}
    with pytest.raises(SizeHistogramError, match=r"no size variable 'tokens' \(it has: batch"):
        check_size_histogram({"tokens": {4: 1}}, uppers)
    with pytest.raises(SizeHistogramError, match=r"sizes \[400\] are outside \[1, 384\]"):
        check_size_histogram({"seq": {16: 1, 400: 1}}, uppers)
    with pytest.raises(SizeHistogramError, match="the counts sum to 0"):
        check_size_histogram({"seq": {16: 0}}, uppers)
    check_size_histogram({"seq": {1: 1, 384: 2}}, uppers)


def test_a_bucket_takes_the_histograms_share_of_its_sizes_and_is_uniform_elsewhere() -> None:
    uppers = {"batch": 4, "seq": 384}
    histogram = {"seq": {16: 70.0, 32: 10.0, 128: 20.0}}
    assert bucket_share({"seq": 32}, uppers, histogram) == pytest.approx(0.8)
    assert bucket_share({"seq": 32}, uppers, {}) == pytest.approx(32 / 384)
    assert bucket_share({"seq": 32, "batch": 2}, uppers, histogram) == pytest.approx(0.4)
    assert bucket_share({}, uppers, histogram) == 1.0


@given(
    counts=st.dictionaries(st.integers(1, 384), st.floats(0.0, 1e6), min_size=1),
    limit=st.integers(1, 384),
)
def test_a_bucket_share_is_a_fraction_that_grows_with_the_limit(
    counts: dict[int, float], limit: int
) -> None:
    if sum(counts.values()) == 0:
        counts = {**counts, 1: 1.0}
    uppers = {"seq": 384}
    share = bucket_share({"seq": limit}, uppers, {"seq": counts})
    assert 0.0 <= share <= 1.0 + 1e-12
    assert share <= bucket_share({"seq": min(limit + 1, 384)}, uppers, {"seq": counts}) + 1e-12
    assert bucket_share({"seq": 384}, uppers, {"seq": counts}) == pytest.approx(1.0)


def test_tuning_options_carry_a_histogram_through_json_and_refuse_a_bad_one() -> None:
    options = TuneOptions(8, size_histogram={"seq": {16: 3, 90: 1}})
    data = options.to_json()
    assert data["size_histogram"] == {"seq": {"16": 3.0, "90": 1.0}}
    assert TuneOptions.from_json(data) == options
    for histogram, fragment in (
        ({"seq": {"x": 1}}, "size 'x' is not a whole number"),
        ({"seq": {"4": -1}}, "count -1 is not a number >= 0"),
        ({"seq": {}}, "must map sizes to counts"),
        ([1, 2], "must be an object"),
    ):
        with pytest.raises(TuneOptionsError, match=fragment):
            TuneOptions(8, size_histogram=histogram)  # type: ignore[arg-type]


def test_a_bucket_is_measured_at_the_histograms_median_size_within_it() -> None:
    histogram = {"seq": {16: 70.0, 24: 10.0, 128: 15.0, 384: 20.0}, "batch": {1: 1.0}}
    small = representative_sizes({"seq": (1, 32), "batch": (1, 4), "rows": (1, 9)}, histogram)
    assert small == {"seq": 16, "batch": 1}  # (rows: no counts, measured at its largest)
    assert representative_sizes({"seq": (33, 384)}, histogram) == {"seq": 384}
    assert representative_sizes({"seq": (100, 200)}, histogram) == {"seq": 128}
    assert representative_sizes({"seq": (400, 500)}, histogram) == {}
