"""How often each size of a symbolic model's size variables occurs, and so what share of
its runs each size bucket of a kernel takes (`tuner.tasks` weighs the buckets' tasks by
it).

A histogram maps a size variable's name to counts per size (`sequence=16:70,128:25,384:5`
on the command line: 70 runs at 16 tokens, ...). A size variable it does not name is
taken as uniform over its range. A bucket's candidates are measured at the histogram's
median size within the bucket (`representative_sizes`), where it has any.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ir.errors import AutotuneError

SizeHistogram = Mapping[str, Mapping[int, float]]


class SizeHistogramError(AutotuneError):
    """A size histogram is malformed or does not fit the model's size ranges."""


def parse_size_histogram(texts: Iterable[str]) -> dict[str, dict[int, float]]:
    """`NAME=SIZE:COUNT,SIZE:COUNT...` per text (one size variable each) as a histogram;
    SizeHistogramError naming the text where one is malformed, a size is below 1, a
    count is negative or a variable is given twice."""
    histogram: dict[str, dict[int, float]] = {}
    for text in texts:
        name, _, entries = text.partition("=")
        name = name.strip()
        if not name or not entries:
            raise SizeHistogramError(f"size histogram {text!r} must be NAME=SIZE:COUNT,...")
        if name in histogram:
            raise SizeHistogramError(f"size histogram: {name} is given twice")
        counts: dict[int, float] = {}
        for entry in entries.split(","):
            size_text, _, count_text = entry.partition(":")
            try:
                size, count = int(size_text), float(count_text or "1")
            except ValueError:
                raise SizeHistogramError(
                    f"size histogram {name}: {entry!r} is not SIZE:COUNT"
                ) from None
            if size < 1 or not count >= 0:
                raise SizeHistogramError(
                    f"size histogram {name}: size {size} count {count_text!r} (sizes are at "
                    "least 1, counts not negative)"
                )
            counts[size] = counts.get(size, 0.0) + count
        histogram[name] = counts
    return histogram


def check_size_histogram(histogram: SizeHistogram, uppers: Mapping[str, int]) -> None:
    """SizeHistogramError where `histogram` names a size variable the model does not
    have, a size outside [1, its upper bound], or counts that sum to 0."""
    for name, counts in histogram.items():
        if name not in uppers:
            known = ", ".join(sorted(uppers)) or "none"
            raise SizeHistogramError(
                f"size histogram: the model has no size variable {name!r} (it has: {known})"
            )
        outside = sorted(size for size in counts if not 1 <= size <= uppers[name])
        if outside:
            raise SizeHistogramError(
                f"size histogram {name}: sizes {outside} are outside [1, {uppers[name]}]"
            )
        if sum(counts.values()) <= 0:
            raise SizeHistogramError(f"size histogram {name}: the counts sum to 0")


def bucket_share(
    limits: Mapping[str, int], uppers: Mapping[str, int], histogram: SizeHistogram
) -> float:
    """The share of the model's runs with every size variable in `limits` at most its
    limit: the product over those variables of the histogram's share of sizes up to the
    limit (uniform over [1, upper] where the histogram does not name the variable)."""
    share = 1.0
    for name, limit in limits.items():
        counts = histogram.get(name)
        if counts:
            share *= sum(c for size, c in counts.items() if size <= limit) / sum(counts.values())
        else:
            share *= min(limit, uppers[name]) / uppers[name]
    return share


def representative_sizes(
    ranges: Mapping[str, tuple[int, int]], histogram: SizeHistogram
) -> dict[str, int]:
    """For each size variable of a bucket (`ranges`: its smallest and largest size there)
    that the histogram has counts in, the median of those counts' sizes: where the bucket's
    kernel is measured (the others are measured at their largest size)."""
    sizes: dict[str, int] = {}
    for name, (low, high) in ranges.items():
        inside = sorted((size, count) for size, count in histogram.get(name, {}).items())
        inside = [(size, count) for size, count in inside if low <= size <= high and count > 0]
        total = sum(count for _, count in inside)
        seen = 0.0
        for size, count in inside:
            seen += count
            if seen >= total / 2:
                sizes[name] = size
                break
    return sizes
