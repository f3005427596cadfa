"""Compile a model into an artifact with the best tuned records: the layer between the
tuner's records and `codegen.aot` (which may not import the tuner).

`build_artifact(model_path, target, records, out_dir)` imports and optimises the ONNX
model, then compiles it ahead of time; for each fused function the chooser looks up the
declared best `ok` record of its workload on the exact target (`tuner.records.records_chooser`,
the same choice `autotune run --records` makes) and replays its trace, or reports a miss
and lets the default schedule be used. The result lists that coverage per task.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.backends import backend_of
from codegen.prepare import prepare_for_target
from codegen.target import Target, as_target
from ir.frontend.onnx.symbolic_dims import DimBinding
from tuner.records import Record, records_chooser

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ArtifactBuild:
    """A built artifact: the .tar.gz (named by its sha256), its size, the per-task coverage
    (`{task, workload_key, record_id, hit, ...}`, first-call order) and the manifest."""

    path: Path
    sha256: str
    size_bytes: int
    coverage: list[dict[str, Any]]
    manifest: dict[str, Any]

    @property
    def hits(self) -> int:
        """Tasks compiled with a tuned record."""
        return sum(1 for task in self.coverage if task["hit"])

    @property
    def misses(self) -> int:
        """Tasks that fell back to the default schedule."""
        return len(self.coverage) - self.hits


def build_artifact(
    model_path: Path,
    target: Target | str,
    records: list[Record],
    out_dir: Path,
    shapes: Mapping[str, Sequence[DimBinding]] | None = None,
    example_shapes: Mapping[str, Sequence[int]] | None = None,
) -> ArtifactBuild:
    """Compile the ONNX model at `model_path` for `target` (e.g. `llvm`: this host; or
    `cuda -arch=sm_90`: PTX and a launch plan, built without a GPU) with the best of
    `records`, into `out_dir/<sha256>.tar.gz`. Deterministic: the same model, shapes,
    target and records give a byte-identical artifact. `example_shapes` (of the arrays a
    caller will run) bind the unknown input dims that `shapes` leaves unbound. Raises
    AutotuneError subclasses (a bad model, an unknown target, a compiler failure) with a
    clear message."""
    target = as_target(target)  # (a string: the Python API's entry point)
    model_bytes = Path(model_path).read_bytes()
    # By path, so that external tensor files next to the model load.
    prepared = prepare_for_target(Path(model_path), target, shapes, example_shapes)
    result = backend_of(target).build_artifact(
        prepared.function,
        target,
        Path(out_dir),
        records_chooser(records, str(target)),
        prepared.imported.output_names,
        hashlib.sha256(model_bytes).hexdigest(),
    )
    return ArtifactBuild(
        path=result.path,
        sha256=result.sha256,
        size_bytes=result.size_bytes,
        coverage=[task.to_json() for task in result.coverage],
        manifest=result.manifest,
    )
