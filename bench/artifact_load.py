"""Loading an artifact: the standalone loader (`codegen/runtime/loader.py`, its own gzip
reader: page-aligned stored weights mapped from the file, CRCs checked on threads) against
the standard library doing the same checks (`tarfile` over `gzip`: every member inflated
through zlib and copied, its CRC checked, the library's sha256 computed), in one run.

    .venv/bin/python bench/artifact_load.py [--models light_vgg19 light_resnet50] [--rounds 7]

Each load reads a file the page cache already holds (the loaders' own work, not the
disk's), with no loader cache; the library is opened with ctypes in both. The figure is
the median of `--rounds` loads, the two loaders taking turns.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.models import _model
from codegen.runtime.aligned import aligned_bytes
from codegen.runtime.loader import load_artifact


def load_with_tarfile(path: Path, directory: Path) -> None:
    """Read every member through tarfile + gzip (CRC-checked by gzip), the weights into one
    64-byte aligned buffer, the library to a file whose sha256 is checked, then dlopen it:
    what a loader built on the standard library would do."""
    with tarfile.open(path, "r:gz") as archive:
        manifest = json.loads(archive.extractfile("manifest.json").read())  # type: ignore[union-attr]
        library = archive.extractfile(manifest["library"]["file"]).read()  # type: ignore[union-attr]
        if hashlib.sha256(library).hexdigest() != manifest["library"]["sha256"]:
            raise SystemExit("library sha256 mismatch")
        weights_info = manifest["weights"]
        weights = aligned_bytes(int(weights_info["size_bytes"]))
        member = archive.extractfile(weights_info["file"])
        assert member is not None
        view = weights.data.cast("B")
        done = 0
        while done < len(view):
            read = member.readinto(view[done:])  # type: ignore[attr-defined]
            if not read:
                break
            done += read
    directory.mkdir(parents=True, exist_ok=True)
    so = directory / "model.so"
    so.write_bytes(library)
    ctypes.CDLL(str(so))


def measure(name: str, rounds: int) -> dict[str, Any]:
    """Median load seconds of both loaders for one model's untuned artifact."""
    import onnx

    from tuner.artifact_build import build_artifact

    with tempfile.TemporaryDirectory(prefix="bench-load-") as directory:
        work = Path(directory)
        onnx.save(_model(name), str(work / "model.onnx"))
        artifact = build_artifact(work / "model.onnx", "llvm", [], work / "artifact").path
        load_artifact(artifact).close()  # (into the page cache)
        times: dict[str, list[float]] = {"loader": [], "tarfile": []}
        for index in range(rounds):
            start = time.perf_counter()
            load_artifact(artifact).close()
            times["loader"].append(time.perf_counter() - start)
            start = time.perf_counter()
            load_with_tarfile(artifact, work / f"round{index}")
            times["tarfile"].append(time.perf_counter() - start)
        return {
            "model": name,
            "artifact_mib": artifact.stat().st_size / 2**20,
            "loader_s": statistics.median(times["loader"]),
            "tarfile_s": statistics.median(times["tarfile"]),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", nargs="+", default=["light_vgg19", "light_resnet50"])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'model':<20}{'MiB':>8}{'loader ms':>11}{'tarfile ms':>12}{'ratio':>7}")
    for name in args.models:
        row = measure(name, args.rounds)
        ratio = row["tarfile_s"] / row["loader_s"]
        print(
            f"{name:<20}{row['artifact_mib']:8.1f}{row['loader_s'] * 1e3:11.1f}"
            f"{row['tarfile_s'] * 1e3:12.1f}{ratio:7.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
