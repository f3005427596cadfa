"""Tile sizes: factorizations of a loop extent into levels, sampled, checked and mutated.

A spatial axis of a multi-level tiled stage is split into 4 levels and a reduce axis into
2 (Ansor's CPU structure "SSRSRS"). Sizes are listed outermost first. A perfect tiling
multiplies to the extent. The vectorized axis may instead use a power-of-two innermost
tile that does not divide its extent ("tail tiling" `(ceil(E / T), 1, 1, T)`): the one
split leaves a partial last tile, which lowering partitions off so the vector loop of
the full tiles stays branch-free. So may another spatial axis that has no divisor from
`MIN_ROW_TAIL` to its register tile's limit (a prime extent): its rows would otherwise
be 1 or the whole extent.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

MAX_INNERMOST = 64  # largest innermost tile (Ansor's max_innermost_split_factor)
TAIL_TILES = (4, 8, 16, 32, 64)  # power-of-two innermost tiles that may leave a tail
TAIL_PROBABILITY = 0.2  # how often the vectorized axis draws a tail tiling when it can
LANE_PROBABILITY = 0.85  # how often a vector tile is a multiple of the lanes when it can be
MIN_ROW_TAIL = 4  # the fewest rows of a non-vector axis' tail tiling
ROW_TAIL_PROBABILITY = 0.5  # how often such an axis draws a tail tiling when it may


def prime_factors(extent: int) -> list[int]:
    """The prime factors of `extent` with multiplicity, smallest first."""
    factors: list[int] = []
    remaining, candidate = extent, 2
    while candidate * candidate <= remaining:
        while remaining % candidate == 0:
            factors.append(candidate)
            remaining //= candidate
        candidate += 1
    if remaining > 1:
        factors.append(remaining)
    return factors


def divisors(extent: int) -> list[int]:
    """Every divisor of `extent`, ascending."""
    return [d for d in range(1, extent + 1) if extent % d == 0]


def is_perfect(sizes: Sequence[int], extent: int, max_innermost: int = MAX_INNERMOST) -> bool:
    """Whether `sizes` are positive, multiply to `extent` and the innermost is small enough."""
    return (
        bool(sizes)
        and all(isinstance(size, int) and size >= 1 for size in sizes)
        and math.prod(sizes) == extent
        and sizes[-1] <= max(max_innermost, 1)
    )


def tail_tiles(extent: int) -> list[int]:
    """Power-of-two innermost tiles that leave a partial last tile of `extent`."""
    return [tile for tile in TAIL_TILES if tile < extent and extent % tile != 0]


def tail_sizes(extent: int, tile: int, levels: int) -> tuple[int, ...]:
    """The tail tiling of `extent` by `tile`: `(ceil(extent / tile), 1, ..., 1, tile)`."""
    return (-(-extent // tile), *([1] * (levels - 2)), tile)


def row_tail_tiles(extent: int, limit: int) -> list[int]:
    """Register-tile rows from `MIN_ROW_TAIL` to `limit` that leave a partial last tile of
    a non-vector axis of `extent`, offered only where no divisor of `extent` in that range
    exists (a prime count of rows, as ViT's 197 tokens): otherwise a perfect tiling
    already gives a register tile of several rows."""
    low = MIN_ROW_TAIL
    if any(extent % rows == 0 for rows in range(low, min(limit, extent) + 1)):
        return []
    return [rows for rows in range(low, limit + 1) if rows < extent]


def is_row_tail(sizes: Sequence[int], extent: int, limit: int) -> bool:
    """Whether `sizes` is a tail tiling of a non-vector axis of `extent` (rows up to
    `limit`)."""
    return (
        len(sizes) >= 2
        and sizes[-1] in row_tail_tiles(extent, limit)
        and tuple(sizes) == tail_sizes(extent, sizes[-1], len(sizes))
    )


def is_tail(sizes: Sequence[int], extent: int) -> bool:
    """Whether `sizes` is a tail tiling of `extent`."""
    return (
        len(sizes) >= 2
        and sizes[-1] in tail_tiles(extent)
        and tuple(sizes) == tail_sizes(extent, sizes[-1], len(sizes))
    )


def sample_perfect(
    rng: random.Random,
    extent: int,
    levels: int,
    max_innermost: int = MAX_INNERMOST,
    min_innermost: int = 1,
) -> tuple[int, ...]:
    """A random perfect tiling: each prime factor goes to a random level.

    Factors are moved out of the innermost level while it exceeds `max_innermost`, and
    the smallest factor is moved in when it is below `min_innermost` (so a vectorized
    axis gets at least two lanes whenever its extent allows).
    """
    sizes = [1] * levels
    for factor in prime_factors(extent):
        sizes[rng.randrange(levels)] *= factor
    while sizes[-1] > max_innermost:
        factor = prime_factors(sizes[-1])[0]
        sizes[-1] //= factor
        sizes[rng.randrange(levels - 1)] *= factor
    if sizes[-1] < min_innermost:
        outer_factors = sorted(
            (factor, level) for level in range(levels - 1) for factor in prime_factors(sizes[level])
        )
        for factor, level in outer_factors:
            if sizes[-1] * factor <= max_innermost:
                sizes[level] //= factor
                sizes[-1] *= factor
                break
    return tuple(sizes)


def neighbour_perfect(
    rng: random.Random,
    sizes: Sequence[int],
    max_innermost: int = MAX_INNERMOST,
    min_innermost: int = 1,
) -> tuple[int, ...] | None:
    """`sizes` with one prime factor moved to another level (MetaSchedule's tile-size
    mutation), or None when no move keeps the innermost level within bounds."""
    moves = [
        (source, factor, target)
        for source, size in enumerate(sizes)
        for factor in sorted(set(prime_factors(size)))
        for target in range(len(sizes))
        if target != source
    ]
    rng.shuffle(moves)
    for source, factor, target in moves:
        moved = list(sizes)
        moved[source] //= factor
        moved[target] *= factor
        if min_innermost <= moved[-1] <= max_innermost:
            return tuple(moved)
    return None


def sample_vector_tile(rng: random.Random, extent: int, lanes: int) -> tuple[int, ...]:
    """A 4-level tiling of the vectorized axis: its innermost tile (the vector) is a
    divisor of 2 to MAX_INNERMOST elements, preferably a multiple of the lanes (full
    vectors), or a power of two leaving a tail (mostly, when only a tail gives full
    vectors); the rest of the extent is spread over the outer levels at random."""
    small = [d for d in divisors(extent) if 2 <= d <= MAX_INNERMOST]
    full = [d for d in small if d % lanes == 0]
    tails = tail_tiles(extent)
    full_tails = [tile for tile in tails if tile % lanes == 0]
    tail_probability = TAIL_PROBABILITY if full or not full_tails else LANE_PROBABILITY
    if tails and (not small or rng.random() < tail_probability):
        pool = full_tails if full_tails and rng.random() < LANE_PROBABILITY else tails
        return tail_sizes(extent, rng.choice(pool), 4)
    if not small:  # an extent of 1 has no vector
        return (extent, 1, 1, 1)
    pool = full if full and rng.random() < LANE_PROBABILITY else small
    tile = rng.choice(pool)
    return (*sample_perfect(rng, extent // tile, 3, max_innermost=extent), tile)
