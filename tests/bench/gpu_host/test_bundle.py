"""The GPU bundle: what is left to the host, what is carried, and (from PyPI) that the
bundle covers every requirement of the project within the size limit."""

from __future__ import annotations

import json
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bench.gpu_host import bundle
from bench.gpu_host.bundle import (
    BUNDLE_LIMIT_BYTES,
    FROM_SOURCE,
    applies_on_host,
    host_verdict,
    make_bundle,
    project_requirements,
    requires_dist,
)


def test_a_requirement_is_left_to_the_host_only_where_the_host_is_known_to_satisfy_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bundle, "HOST_PACKAGES", {"numpy": "2.5.2", "pytest": None})
    assert host_verdict(Requirement("numpy>=2.0")) == "host"
    assert host_verdict(Requirement("numpy>=3")) == "bundle"  # the host's is too old
    assert host_verdict(Requirement("pytest")) == "host"
    assert host_verdict(Requirement("pytest>=8")) == "fallback"  # its version was not read
    assert host_verdict(Requirement("fastapi")) == "bundle"


def test_markers_are_read_for_the_host_python_and_platform() -> None:
    assert applies_on_host(Requirement("a"), set())
    assert not applies_on_host(Requirement('a; sys_platform == "win32"'), set())
    assert not applies_on_host(Requirement('a; python_version < "3.12"'), set())
    assert applies_on_host(Requirement('a; python_version >= "3.12"'), set())
    assert not applies_on_host(Requirement('a; extra == "binary"'), set())
    assert applies_on_host(Requirement('a; extra == "binary"'), {"binary"})


def test_requires_dist_reads_metadata() -> None:
    text = "Metadata-Version: 2.1\nName: x\nRequires-Dist: a>=1\nRequires-Dist: b; extra == 'c'\n"
    assert requires_dist(text) == ["a>=1", "b; extra == 'c'"]


@pytest.mark.slow
def test_the_bundle_carries_every_requirement_the_host_lacks(tmp_path: Path) -> None:
    # Downloads about 25 MB of wheels from PyPI; pycuda is carried as its sdist here (the
    # wheel build needs Python 3.12 and takes minutes: `make gpu-bundle` does it).
    out = tmp_path / "bundle"
    manifest = make_bundle(out, build=False, python=None)
    assert manifest == json.loads((out / "MANIFEST.json").read_text())
    files = {canonicalize_name(item["name"]): item for item in manifest["files"]}
    on_disk = {path.name for path in out.iterdir()} - {"MANIFEST.json"}
    assert on_disk == {item["filename"] for item in manifest["files"]}
    assert manifest["total_bytes"] == sum((out / name).stat().st_size for name in on_disk)
    assert manifest["total_bytes"] < BUNDLE_LIMIT_BYTES
    # Every runtime requirement of the project is carried, built there, or the host's.
    for text in project_requirements():
        name = canonicalize_name(Requirement(text).name)
        assert name in files or name in manifest["left_to_host"] or name in FROM_SOURCE, name
    # ... and so is every requirement of what is carried (its wheel's metadata says).
    for item in manifest["files"]:
        if item["filename"].endswith(".whl"):
            with zipfile.ZipFile(out / item["filename"]) as archive:
                (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
                needs = requires_dist(archive.read(meta).decode())
            for text in needs:
                requirement = Requirement(text)
                if applies_on_host(requirement, set()):
                    name = canonicalize_name(requirement.name)
                    assert name in files or name in manifest["left_to_host"], (item, text)
    assert files["xgboost"]["filename"].startswith("xgboost_cpu-")  # no bundled NCCL
    assert files["fastapi"]["fallback"] is False
    sdist = out / files["pycuda"]["filename"]
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/configure.py") for name in archive.getnames())
    assert any("pycuda is built on the host" in note for note in manifest["notes"])
