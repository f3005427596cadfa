"""`autotune compile`: compile a model ahead of time into an artifact, printing per task
whether a tuned record was used (hit) or the default schedule (miss); `autotune fetch`:
download an artifact the service has built.

    autotune compile MODEL.onnx --target T [--records RUN.jsonl] -o OUT.tar.gz [--json]
    autotune compile MODEL.onnx --target T --server URL -o OUT.tar.gz [--json]
    autotune fetch ARTIFACT_ID -o OUT.tar.gz [--server URL] [--json]

Without `--server`, records come from a JSON-lines log and the artifact is built here.
With it, the service builds the artifact in the background with the best records in its
database (cached: the same model, target and records give the same artifact), and the
command waits for it, downloads it and checks its sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tarfile
import tempfile
import time
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codegen.aot.build import MANIFEST_FILE
from ir.errors import AutotuneError
from ir.frontend.onnx.bindings import (
    bind_input_shapes,
    parse_shape_bindings,
    self_contained_bytes,
)
from ir.frontend.onnx.symbolic_dims import DimBinding
from service.cli.client import ResponseError, ServiceClient, resolve_server, resolve_token
from tuner.artifact_build import ArtifactBuild, build_artifact

WAIT_TIMEOUT_S = 900.0  # default for how long `compile --server` waits for the build
FIRST_POLL_S = 0.2  # polls start fast (a cached artifact is ready at once) ...
MAX_POLL_S = 2.0  # ... and back off to this


class CompileError(AutotuneError):
    """A compile argument is wrong (records file, output path), or the service could not
    give the artifact (unknown, not built, failed, a corrupt download)."""


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
    source = compile_parser.add_mutually_exclusive_group()
    source.add_argument(
        "--records",
        metavar="RUN.jsonl",
        help="tuning records: each task uses its best ok record for the exact target",
    )
    source.add_argument(
        "--server",
        metavar="URL",
        help="build on the service with the best records in its database, then download",
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
    _token_args(compile_parser)
    compile_parser.add_argument(
        "--wait-timeout",
        type=float,
        default=WAIT_TIMEOUT_S,
        metavar="S",
        help=f"with --server: how long to wait for the build (default {WAIT_TIMEOUT_S:.0f})",
    )
    compile_parser.set_defaults(handler=_cmd_compile)

    fetch = commands.add_parser("fetch", help="download an artifact the service has built")
    fetch.add_argument("artifact_id", metavar="ARTIFACT_ID", help="the artifact's id")
    fetch.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.tar.gz",
        help="where to write the artifact (a directory: <sha256>.tar.gz inside it)",
    )
    fetch.add_argument("--server", metavar="URL", help="service URL ($AUTOTUNE_SERVER)")
    _token_args(fetch)
    fetch.add_argument("--json", action="store_true", help="print machine-readable JSON")
    fetch.set_defaults(handler=_cmd_fetch)


def _token_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token", help="API token ($AUTOTUNE_TOKEN, or <data dir>/admin.token)")
    parser.add_argument("--data-dir", help="where to find admin.token ($AUTOTUNE_DATA_DIR)")


def compile_to(
    model: Path,
    target: str,
    records_path: Path | None,
    output: Path,
    shapes: Mapping[str, Sequence[DimBinding]],
) -> tuple[ArtifactBuild, Path]:
    """Compile `model` with the records at `records_path` (none: every task a miss) and
    write the artifact to `output`; returns the build and where the artifact went."""
    from tuner.records import load_records

    if records_path is not None and not records_path.is_file():
        raise CompileError(f"--records: no such file {records_path}")
    records = load_records(records_path) if records_path is not None else []
    parent = output if output.is_dir() else output.parent
    if not parent.is_dir():
        raise CompileError(f"-o {output}: directory {parent} does not exist")
    # Built beside its destination and renamed over it: a process running an older artifact
    # of that name keeps its mapping of the old file (rewriting it in place would crash it).
    with tempfile.TemporaryDirectory(prefix=".autotune-compile-", dir=parent) as directory:
        build = build_artifact(model, target, records, Path(directory), shapes)
        destination = _destination(output, build.sha256)
        os.replace(build.path, destination)
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


def _destination(output: Path, sha256: str) -> Path:
    """Where an artifact goes: `output`, or `<sha256>.tar.gz` in it when it is a directory."""
    destination = output / f"{sha256}.tar.gz" if output.is_dir() else output
    if not destination.parent.is_dir():
        raise CompileError(f"-o {output}: directory {destination.parent} does not exist")
    return destination


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest packed in the artifact at `path` (its first member)."""
    try:
        with tarfile.open(path, mode="r|gz") as tar:
            member = tar.next()
            stream = tar.extractfile(member) if member is not None else None
            if member is None or member.name != MANIFEST_FILE or stream is None:
                raise CompileError(f"artifact {path} does not start with {MANIFEST_FILE}")
            manifest = json.loads(stream.read())
    except (tarfile.TarError, EOFError, zlib.error, ValueError) as err:
        raise CompileError(f"artifact {path} is not a readable artifact: {err}") from None
    if not isinstance(manifest, dict):
        raise CompileError(f"artifact {path}: {MANIFEST_FILE} is not a JSON object")
    return manifest


def _unauthorised(client: ServiceClient) -> CompileError:
    return CompileError(
        f"{client.server} refused the token (401 unauthorised): pass --token, set "
        "AUTOTUNE_TOKEN, or point --data-dir at the service's data directory"
    )


def _unavailable(client: ServiceClient, artifact_id: str, err: ResponseError) -> CompileError:
    """A clear message for an artifact call the service refused."""
    where = client.server
    if err.status_code == 401:
        return _unauthorised(client)
    if err.status_code == 404:
        return CompileError(f"no artifact {artifact_id} on {where}")
    return CompileError(f"artifact {artifact_id} on {where}: {err}")


def _not_ready(client: ServiceClient, artifact: dict[str, Any]) -> CompileError:
    if artifact["state"] == "failed":
        return CompileError(
            f"artifact {artifact['id']} failed to build on {client.server}: {artifact['error']}"
        )
    return CompileError(
        f"artifact {artifact['id']} is not built yet on {client.server} (state "
        f"{artifact['state']}); try again later"
    )


def download_artifact(
    client: ServiceClient, artifact: dict[str, Any], output: Path
) -> tuple[ArtifactBuild, Path]:
    """Download a ready artifact to `output` (a directory: `<sha256>.tar.gz` in it) and
    check its bytes against the metadata's sha256 and size; the file is replaced only
    when they match. Returns the metadata (with the packed manifest) as an ArtifactBuild."""
    if artifact["state"] != "ready" or not artifact["sha256"]:
        raise _not_ready(client, artifact)
    destination = _destination(output, artifact["sha256"])
    partial = destination.with_name(f".{destination.name}.{os.getpid()}.partial")
    try:
        try:
            sha256, size_bytes = client.download(
                f"/v1/artifacts/{artifact['id']}/download", partial
            )
        except ResponseError as err:
            raise _unavailable(client, artifact["id"], err) from None
        if sha256 != artifact["sha256"] or size_bytes != artifact["size_bytes"]:
            raise CompileError(
                f"artifact {artifact['id']}: the download ({size_bytes} bytes, sha256 "
                f"{sha256}) does not match the service's metadata ({artifact['size_bytes']} "
                f"bytes, sha256 {artifact['sha256']}); nothing was written"
            )
        manifest = read_manifest(partial)
        os.replace(partial, destination)
    finally:
        partial.unlink(missing_ok=True)
    build = ArtifactBuild(
        path=destination,
        sha256=sha256,
        size_bytes=size_bytes,
        coverage=list(artifact["coverage"]),
        manifest=manifest,
    )
    return build, destination


def upload_model(
    client: ServiceClient, model: Path, shapes: Mapping[str, Sequence[DimBinding]] | None = None
) -> str:
    """The service's id of the ONNX model at `model` (the sha256 of its bytes, with any
    external tensors inside and `shapes` bound into them as the service binds them),
    uploading it only when the service does not have it yet."""
    if not model.is_file():
        raise CompileError(f"no such file: {model}")
    data = self_contained_bytes(model)
    if shapes:
        data = bind_input_shapes(data, shapes)
    model_id = hashlib.sha256(data).hexdigest()
    try:
        client.json("GET", f"/v1/models/{model_id}")
        return model_id
    except ResponseError as err:
        if err.status_code != 404:
            raise
    uploaded = client.json(
        "POST", "/v1/models", content=data, params={"name": model.name},
        headers={"Content-Type": "application/octet-stream"},
    )  # fmt: skip
    return str(uploaded["id"])


def wait_for_artifact(
    client: ServiceClient, artifact: dict[str, Any], timeout_s: float
) -> dict[str, Any]:
    """Poll the artifact until its build ends (ready or failed); CompileError after
    `timeout_s`. Polls start fast and back off."""
    deadline = time.monotonic() + timeout_s
    interval_s = FIRST_POLL_S
    if artifact["state"] not in ("ready", "failed"):
        print(
            f"artifact {artifact['id']}: {artifact['state']} on {client.server}, waiting",
            file=sys.stderr,
            flush=True,
        )
    while artifact["state"] not in ("ready", "failed"):
        if time.monotonic() > deadline:
            raise CompileError(
                f"artifact {artifact['id']} was still {artifact['state']} on {client.server} "
                f"after {timeout_s:.0f} s; `autotune fetch {artifact['id']}` gets it later"
            )
        time.sleep(interval_s)
        interval_s = min(interval_s * 1.5, MAX_POLL_S)
        artifact = client.json("GET", f"/v1/artifacts/{artifact['id']}")
    return artifact


def compile_on_server(
    client: ServiceClient,
    model: Path,
    target: str,
    output: Path,
    timeout_s: float,
    shapes: Mapping[str, Sequence[DimBinding]] | None = None,
) -> tuple[ArtifactBuild, Path, str]:
    """Have the service build (or reuse) the artifact of `model` (its inputs bound to
    `shapes`) for `target` with the best records in its database, wait for it and
    download it to `output`; returns the build, where it went and the artifact's id."""
    try:
        # Step 1. The model: by its sha256 if the service has it, else uploaded.
        model_id = upload_model(client, model, shapes)
        # Step 2. The artifact: created, or the cached one for these inputs.
        body = {"model_id": model_id, "target": target}
        artifact = client.json("POST", "/v1/artifacts", json=body)
        # Step 3. The build runs in the background: wait for it.
        artifact = wait_for_artifact(client, artifact, timeout_s)
    except ResponseError as err:
        if err.status_code == 401:
            raise _unauthorised(client) from None
        raise
    if artifact["state"] == "failed":
        raise _not_ready(client, artifact)
    # Step 4. Download, checked against the metadata's sha256.
    build, destination = download_artifact(client, artifact, output)
    return build, destination, str(artifact["id"])


def _cmd_compile(args: argparse.Namespace) -> int:
    shapes = parse_shape_bindings(args.shape)
    artifact_id: str | None = None
    if args.server:
        if args.wait_timeout <= 0:
            raise CompileError("--wait-timeout must be a positive number of seconds")
        client = ServiceClient(
            resolve_server(args.server), resolve_token(args.token, args.data_dir)
        )
        build, destination, artifact_id = compile_on_server(
            client, Path(args.model), args.target, Path(args.output), args.wait_timeout, shapes
        )
    else:
        records = Path(args.records) if args.records else None
        build, destination = compile_to(
            Path(args.model), args.target, records, Path(args.output), shapes
        )
    if args.json:
        report = report_json(build, destination)
        if artifact_id is not None:
            report["artifact_id"] = artifact_id
        print(json.dumps(report, indent=2))
    else:
        print(render_coverage(build, destination))
        if artifact_id is not None:
            print(f"id:       {artifact_id} (`autotune fetch {artifact_id}` downloads it again)")
    return 0


def _cmd_fetch(args: argparse.Namespace) -> int:
    client = ServiceClient(resolve_server(args.server), resolve_token(args.token, args.data_dir))
    try:
        artifact = client.json("GET", f"/v1/artifacts/{args.artifact_id}")
    except ResponseError as err:
        raise _unavailable(client, args.artifact_id, err) from None
    build, destination = download_artifact(client, artifact, Path(args.output))
    if args.json:
        print(json.dumps({**report_json(build, destination), "artifact_id": artifact["id"]}))
    else:
        print(f"artifact: {destination}")
        print(f"size:     {build.size_bytes} bytes")
        print(f"sha256:   {build.sha256} (checked)")
        print(f"coverage: {build.hits}/{len(build.coverage)} tasks tuned")
    return 0
