"""`autotune compile`: compile a model ahead of time into an artifact, printing per task
whether a tuned record was used (hit) or the default schedule (miss).

    autotune compile MODEL.onnx --target T [--records RUN.jsonl] -o OUT.tar.gz [--json]

Records come from a JSON-lines log here; `--server URL` (records from the service's
database, the artifact built and cached there) plugs into `_cmd_compile` where marked.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ir.errors import AutotuneError
from service.artifact_build import ArtifactBuild, build_artifact


class CompileError(AutotuneError):
    """A compile argument is wrong (records file, output path)."""


def register(commands: Any) -> None:
    """Add this module's subcommands to the `autotune` sub-parser collection."""
    compile_parser = commands.add_parser(
        "compile",
        help="compile a model into a deployable artifact (.tar.gz) with the best records",
    )
    compile_parser.add_argument("model", help="path to an ONNX model")
    compile_parser.add_argument(
        "--target", default="llvm", help="target (llvm = this host's CPU; default llvm)"
    )
    compile_parser.add_argument(
        "--records",
        metavar="RUN.jsonl",
        help="tuning records: each task uses its best ok record for the exact target",
    )
    compile_parser.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=DxDxD",
        help="bind a symbolic input shape (repeatable)",
    )
    compile_parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.tar.gz",
        help="where to write the artifact (a directory: <sha256>.tar.gz inside it)",
    )
    compile_parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    compile_parser.set_defaults(handler=_cmd_compile)


def compile_to(
    model: Path,
    target: str,
    records_path: Path | None,
    output: Path,
    shapes: dict[str, tuple[int, ...]],
) -> tuple[ArtifactBuild, Path]:
    """Compile `model` with the records at `records_path` (none: every task a miss) and
    write the artifact to `output`; returns the build and where the artifact went."""
    from tuner.records import load_records

    if records_path is not None and not records_path.is_file():
        raise CompileError(f"--records: no such file {records_path}")
    records = load_records(records_path) if records_path is not None else []
    with tempfile.TemporaryDirectory(prefix="autotune-compile-") as directory:
        build = build_artifact(model, target, records, Path(directory), shapes)
        destination = output / build.path.name if output.is_dir() else output
        if not destination.parent.is_dir():
            raise CompileError(f"-o {output}: directory {destination.parent} does not exist")
        shutil.move(build.path, destination)
    return build, destination


def render_coverage(build: ArtifactBuild, destination: Path) -> str:
    """Human-readable report: one line per task (hit/miss), then the artifact summary."""
    lines = [f"{'':4} {'task':<52} {'calls':>5}  schedule"]
    for task in build.coverage:
        status = "hit " if task["hit"] else "miss"
        source = f"record {task['record_id'][:16]}" if task["hit"] else "default"
        if task.get("note"):
            source += f" ({task['note']})"
        lines.append(f"{status} {task['task'][:52]:<52} {task['calls']:>5}  {source}")
    memory = build.manifest["memory"]
    lines += [
        "",
        f"coverage: {build.hits}/{len(build.coverage)} tasks tuned, {build.misses} on the "
        "default schedule",
        f"target:   {build.manifest['target']}",
        f"memory:   workspace {memory['workspace_bytes'] / 2**20:.1f} MiB for "
        f"{memory['intermediate_bytes'] / 2**20:.1f} MiB of intermediate tensors; "
        f"weights {memory['weights_bytes'] / 2**20:.1f} MiB",
        f"artifact: {destination} ({build.size_bytes} bytes, sha256 {build.sha256})",
    ]
    return "\n".join(lines)


def report_json(build: ArtifactBuild, destination: Path) -> dict[str, Any]:
    """The `--json` report: where the artifact went, its hash and size, and the coverage."""
    return {
        "path": str(destination),
        "sha256": build.sha256,
        "size_bytes": build.size_bytes,
        "target": build.manifest["target"],
        "hits": build.hits,
        "misses": build.misses,
        "coverage": build.coverage,
        "memory": build.manifest["memory"],
    }


def _cmd_compile(args: argparse.Namespace) -> int:
    from service.cli import parse_shape_bindings

    shapes = parse_shape_bindings(args.shape)
    # Hook for `--server URL`: get (build, destination) from the service instead: create
    # the artifact over HTTP, wait for it, download it to the output path, and wrap its
    # metadata (sha256, size, coverage, manifest) in an ArtifactBuild; the reports below
    # then print it the same way.
    records = Path(args.records) if args.records else None
    build, destination = compile_to(
        Path(args.model), args.target, records, Path(args.output), shapes
    )
    if args.json:
        print(json.dumps(report_json(build, destination), indent=2))
    else:
        print(render_coverage(build, destination))
    return 0
