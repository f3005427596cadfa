"""The loader's library cache: a second load maps the kept, checked library; a damaged
cache entry is not used."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from codegen.runtime.loader import Artifact, load_artifact
from tests.codegen.aot.conftest import CompiledCase


def _logits(model: Artifact, case: CompiledCase) -> np.ndarray:
    return model.run(case.inputs)[model.outputs[0].name]


def test_a_cached_library_is_reused(squeezenet: CompiledCase, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with load_artifact(squeezenet.artifact.path) as plain:
        expected = _logits(plain, squeezenet)
    with load_artifact(squeezenet.artifact.path, cache_dir=str(cache)) as first:
        np.testing.assert_array_equal(_logits(first, squeezenet), expected)
    sha = squeezenet.artifact.manifest["library"]["sha256"]
    kept = cache / sha / "model.so"
    assert kept.is_file() and [p.name for p in cache.iterdir()] == [sha]
    with load_artifact(squeezenet.artifact.path, cache_dir=str(cache)) as second:
        np.testing.assert_array_equal(_logits(second, squeezenet), expected)
    # A cache entry of the wrong size is ignored: the artifact is extracted and checked.
    # The damaged file replaces the entry by rename: truncating the mapped library in place
    # would make this process die of SIGBUS when it next touches the library's pages.
    damaged = tmp_path / "damaged.so"
    damaged.write_bytes(b"damaged")
    damaged.replace(kept)
    with load_artifact(squeezenet.artifact.path, cache_dir=str(cache)) as third:
        np.testing.assert_array_equal(_logits(third, squeezenet), expected)
