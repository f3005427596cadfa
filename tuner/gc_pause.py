"""Pausing Python's cyclic garbage collector around the tuner's hot loops.

Search rounds build and lower thousands of candidates: each allocates tens of thousands of
short-lived IR nodes, freed by reference counting (lowering and schedule building make no
reference cycles). The cyclic collector's passes over those allocations, and the full
passes over the long-lived caches and cost model that they trigger, cost about a sixth of
a search round. Cyclic garbage made meanwhile (a few objects per round) is collected once
the collector runs again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector disabled, then restore its state.

    Nested uses are fine: only the outermost one that disabled it enables it again.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
