"""Immutable, hashable operator attributes with normalised values."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

AttrValue = Any  # int | float | str | bool | None | tuple[AttrValue, ...]


def normalize_attr_value(value: object) -> AttrValue:
    """Convert lists, numpy scalars and arrays into plain hashable Python values."""
    if isinstance(value, bool | str | None):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return normalize_attr_value(value.tolist())
    if isinstance(value, list | tuple):
        return tuple(normalize_attr_value(item) for item in value)
    raise TypeError(f"unsupported attribute value {value!r} of type {type(value).__name__}")


def is_dim_entry(value: object) -> bool:
    """Whether an attribute entry is a symbolic dim: (its text, its upper bound), as
    reshape's newshape and strided_slice's begin and end take them."""
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], int)
    )


def has_dim_entries(attrs: Mapping[str, AttrValue]) -> bool:
    """Whether any attribute holds a symbolic dim entry (see `is_dim_entry`)."""
    return any(
        is_dim_entry(value)
        or (isinstance(value, tuple) and any(is_dim_entry(item) for item in value))
        for value in attrs.values()
    )


class Attrs(Mapping[str, AttrValue]):
    """An immutable mapping of attribute names to normalised values, ordered by name."""

    __slots__ = ("_hash", "_items")

    def __init__(self, values: Mapping[str, object] | None = None) -> None:
        items = {key: normalize_attr_value(val) for key, val in (values or {}).items()}
        self._items: tuple[tuple[str, AttrValue], ...] = tuple(sorted(items.items()))
        self._hash = hash(self._items)

    def __getitem__(self, key: str) -> AttrValue:
        for name, value in self._items:
            if name == key:
                return value
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Attrs):
            return self._items == other._items
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def replace(self, **changes: object) -> Attrs:
        """Return a copy with some values changed or added."""
        merged: dict[str, object] = dict(self._items)
        merged.update(changes)
        return Attrs(merged)

    def to_json(self) -> dict[str, object]:
        """Return the attributes as a JSON-serialisable dict (tuples become lists)."""
        return {name: _to_json(value) for name, value in self._items}

    def __repr__(self) -> str:
        return f"Attrs({dict(self._items)!r})"


def _to_json(value: AttrValue) -> object:
    if isinstance(value, tuple):
        return [_to_json(item) for item in value]
    return value
