"""Make the GPU bundle: everything the air-gapped GPU host needs to run autotune and lacks.

The GPU host (one NVIDIA H200, x86-64, Python 3.12, CUDA 13 with nvcc; see `HOST_PACKAGES`
for what its image holds) reaches no package index, and only the working tree travels
there, 64 MiB at most. This command fills an ignored folder (`.gpu-bundle/` by default)
with what it lacks:

1. the cp312 manylinux wheels of every runtime requirement of the project, of its `gpu`
   extra and of the GPU tests, and of their requirements in turn, that the host's image
   does not already satisfy (markers evaluated for the host), each at the version this
   checkout's environment runs where that version satisfies it; `xgboost` comes as
   `xgboost-cpu` (the same module without the bundled NCCL: 6 MB instead of 58);
2. the pycuda sdist (pycuda has no binary wheels) and, where this machine has Python 3.12
   and the CUDA headers, a cp312 wheel of it built here against them, with curand off and
   libcuda linked through a stub (the host's driver provides the real one), so that the
   host spends no GPU time compiling it; the check there falls back to the sdist;
3. `MANIFEST.json`: what is in the bundle, why each file is there, the versions, the
   requirements the host is trusted to satisfy, and the size against the limit.

    python bench/gpu_host/bundle.py [--out .gpu-bundle] [--no-build] [--python python3.12]

`make gpu-bundle` runs it. `bench/gpu_host/check.py` installs it there without an index.
"""

from __future__ import annotations

import argparse
import email.parser
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.gpu_host.check import cuda_root  # noqa: E402

DEFAULT_OUT = ROOT / ".gpu-bundle"

# The working tree and the bundle travel together, 64 MiB in all; the tree is about 4 MiB.
BUNDLE_LIMIT_BYTES = 56 * 1024 * 1024

HOST_PYTHON = "3.12"
HOST_PLATFORMS = (
    "manylinux_2_34_x86_64",
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_24_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux1_x86_64",
)
HOST_MARKER_ENVIRONMENT = {
    "implementation_name": "cpython",
    "implementation_version": "3.12.3",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_python_implementation": "CPython",
    "platform_system": "Linux",
    "python_full_version": "3.12.3",
    "python_version": HOST_PYTHON,
    "sys_platform": "linux",
}

# What the GPU host's image holds (the device tool's KINDS.md, read 2026-11-17), with the
# version where it was read there; None: present, version not read. A requirement on one
# of these is left to the host; check.py verifies every requirement there before it runs.
HOST_PACKAGES: dict[str, str | None] = {
    "annotated-doc": None,
    "anyio": None,
    "certifi": None,
    "charset-normalizer": None,
    "click": None,
    "coverage": None,
    "cuda-bindings": None,
    "cuda-core": None,
    "cuda-pathfinder": None,
    "cupy-cuda13x": "14.2.0",
    "execnet": None,
    "filelock": None,
    "flatbuffers": None,
    "fsspec": None,
    "h11": None,
    "httpcore": None,
    "httpx": None,
    "hypothesis": None,
    "idna": None,
    "iniconfig": None,
    "jinja2": None,
    "llvmlite": "0.50.0",  # read there by bench/results/gpu_check_h200.txt
    "markupsafe": None,
    "ml-dtypes": None,
    "mpmath": None,
    "numpy": "2.5.2",
    "onnx": "1.23.1",
    "onnxruntime": "1.30.0",
    "packaging": None,
    "pip": None,
    "pluggy": None,
    "protobuf": None,
    "psutil": None,
    "pygments": None,
    "pytest": None,
    "pytest-timeout": None,
    "pytest-xdist": None,
    "pyyaml": None,
    "requests": None,
    "rich": None,
    "scipy": None,
    "setuptools": None,
    "sortedcontainers": None,
    "sympy": None,
    "torch": "2.11.0",
    "torchvision": "0.26.0",
    "typing-extensions": None,
    "urllib3": None,
    "wheel": None,
}

# Bundled under another distribution name that installs the same module.
SUBSTITUTES = {"xgboost": "xgboost-cpu"}

# Carried as an sdist (and a wheel built here), never downloaded as a wheel: none exists.
FROM_SOURCE = {"pycuda"}

# What the GPU tests need beside the project's own requirements (the host has them all
# today; listed so that the bundle follows if it ever does not).
GPU_TEST_REQUIREMENTS = (
    "pytest>=8",
    "pytest-xdist",
    "pytest-timeout",
    "hypothesis>=6.100",
    "onnxruntime>=1.18",
)

# The pycuda release that ran on an H200 (bench/results/gpu_check_h200.txt).
PYCUDA_VERSION = "2026.1"


@dataclass
class BundledFile:
    """One file of the bundle: the distribution it carries, who requires it and how.

    A `fallback` carries a distribution the host's image holds at a version not read: the
    check there installs it only where the host's own does not satisfy `requirements`."""

    name: str
    version: str
    filename: str
    size_bytes: int
    requirements: list[str] = field(default_factory=list)
    fallback: bool = False


@dataclass
class Bundle:
    """What the resolver decided: files to carry, requirements trusted to the host."""

    files: dict[str, BundledFile] = field(default_factory=dict)
    left_to_host: dict[str, list[str]] = field(default_factory=dict)


def project_requirements(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The runtime requirements of the project and of its `gpu` extra, then the GPU tests'."""
    project = tomllib.loads(pyproject.read_text())["project"]
    return [
        *project["dependencies"],
        *project["optional-dependencies"]["gpu"],
        *GPU_TEST_REQUIREMENTS,
    ]


def applies_on_host(requirement: Requirement, extras: set[str]) -> bool:
    """Whether `requirement` (read from a distribution installed with `extras`) applies
    on the GPU host."""
    if requirement.marker is None:
        return True
    marker: Marker = requirement.marker
    return any(
        marker.evaluate({**HOST_MARKER_ENVIRONMENT, "extra": extra})
        for extra in (extras or {""}) | {""}
    )


def host_verdict(requirement: Requirement) -> str:
    """How the host's image stands to `requirement`: `host` (it satisfies it: a version
    read there satisfies it, or it has the distribution and the requirement names no
    version), `fallback` (it has the distribution at a version not read) or `bundle`."""
    name = canonicalize_name(requirement.name)
    if name not in HOST_PACKAGES:
        return "bundle"
    version = HOST_PACKAGES[name]
    if version is None:
        return "host" if not str(requirement.specifier) else "fallback"
    return "host" if requirement.specifier.contains(version, prereleases=True) else "bundle"


def local_version(name: str) -> str | None:
    """The version of distribution `name` in the environment running this command."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def requires_dist(metadata_text: str) -> list[str]:
    """The Requires-Dist lines of a METADATA or PKG-INFO text."""
    message = email.parser.Parser().parsestr(metadata_text)
    return list(message.get_all("Requires-Dist") or [])


def wheel_metadata(path: Path) -> str:
    """The METADATA text of the wheel at `path`."""
    with zipfile.ZipFile(path) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return archive.read(name).decode()


def sdist_metadata(path: Path) -> str:
    """The PKG-INFO text at the top of the sdist at `path`."""
    with tarfile.open(path) as archive:
        member = next(
            m
            for m in archive.getmembers()
            if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
        )
        handle = archive.extractfile(member)
        assert handle is not None
        return handle.read().decode()


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-6:])
        raise RuntimeError(f"{' '.join(command)} failed:\n{tail}")


def download_wheel(distribution: str, version: str | None, folder: Path) -> Path:
    """Download the host's wheel of `distribution` (at `version`, else the newest) to
    `folder`; its path."""
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        platforms = [arg for platform in HOST_PLATFORMS for arg in ("--platform", platform)]
        spec = f"{distribution}=={version}" if version else distribution
        _pip(
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            HOST_PYTHON,
            "--implementation",
            "cp",
            *platforms,
            "--dest",
            scratch,
            spec,
        )
        (path,) = Path(scratch).iterdir()
        return Path(shutil.move(path, folder / path.name))


def download_sdist(distribution: str, version: str, folder: Path) -> Path:
    """Download the sdist of `distribution` `version` to `folder`; its path."""
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        _pip(
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            distribution,
            "--dest",
            scratch,
            f"{distribution}=={version}",
        )
        (path,) = Path(scratch).iterdir()
        return Path(shutil.move(path, folder / path.name))


def resolve(roots: list[str], folder: Path, seed: dict[str, list[str]] | None = None) -> Bundle:
    """Download into `folder` the wheels of `roots` (requirement strings) and of their
    requirements, recursively, except what the host satisfies (`host_verdict`); `seed`
    adds requirement strings by the name of whoever needs them."""
    bundle = Bundle()
    queue: list[tuple[Requirement, str]] = [(Requirement(text), "autotune") for text in roots]
    for owner, texts in (seed or {}).items():
        queue += [(Requirement(text), owner) for text in texts]
    while queue:
        requirement, owner = queue.pop(0)
        name = canonicalize_name(requirement.name)
        if name in FROM_SOURCE or not applies_on_host(requirement, set()):
            continue
        verdict = host_verdict(requirement)
        if verdict == "host":
            bundle.left_to_host.setdefault(name, []).append(f"{owner}: {requirement}")
            continue
        if name in bundle.files:
            carried = bundle.files[name]
            if not requirement.specifier.contains(carried.version, prereleases=True):
                raise RuntimeError(
                    f"{owner} needs {requirement}, but {carried.filename} is bundled "
                    f"for {'; '.join(carried.requirements)}"
                )
            carried.requirements.append(f"{owner}: {requirement}")
            carried.fallback = carried.fallback and verdict == "fallback"
            continue
        version = local_version(requirement.name)
        if version is not None and not requirement.specifier.contains(version, True):
            version = None
        path = download_wheel(SUBSTITUTES.get(name, name), version, folder)
        wheel_version = path.name.split("-")[1]
        bundle.files[name] = BundledFile(
            name,
            wheel_version,
            path.name,
            path.stat().st_size,
            [f"{owner}: {requirement}"],
            fallback=verdict == "fallback",
        )
        for text in requires_dist(wheel_metadata(path)):
            nested = Requirement(text)
            if applies_on_host(nested, set(requirement.extras)):
                nested.marker = None
                queue.append((nested, f"{name} {wheel_version}"))
    return bundle


# A libcuda.so to link pycuda against where no driver is installed: it defines nothing, so
# every driver symbol stays undefined in pycuda's module and binds to the host's real
# libcuda.so.1 when the module is loaded.
_LINK_STUB_SOURCE = "void autotune_libcuda_link_stub(void) {}\n"


def build_link_stub(folder: Path) -> Path:
    """Compile the link-only libcuda.so (soname libcuda.so.1) into `folder`; its folder."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "stub.c"
    source.write_text(_LINK_STUB_SOURCE)
    subprocess.run(
        [
            "cc",
            "-shared",
            "-fPIC",
            "-Wl,-soname,libcuda.so.1",
            "-o",
            str(folder / "libcuda.so"),
            str(source),
        ],
        check=True,
    )
    return folder


def build_pycuda_wheel(sdist: Path, python: str, root: Path, folder: Path, log: Path) -> Path:
    """Build a wheel of the pycuda `sdist` for the interpreter `python` against the CUDA
    headers under `root`, curand off, linked through the stub; its path in `folder`."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        (source,) = [p for p in work.iterdir() if p.is_dir()]
        stub = build_link_stub(work / "stub")
        with log.open("w") as out:
            subprocess.run(
                [
                    python,
                    "configure.py",
                    f"--cuda-root={root}",
                    "--no-cuda-enable-curand",
                    f"--cudadrv-lib-dir={stub}",
                ],
                cwd=source,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=True,
            )
            # LDFLAGS goes before the libraries on the link line: libcuda.so.1 stays a
            # dependency though the stub defines none of the symbols it is linked for.
            subprocess.run(
                [python, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(work / "dist"), "."],
                cwd=source,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=True,
                env={**os.environ, "LDFLAGS": "-Wl,--no-as-needed"},
            )
        (wheel,) = (work / "dist").glob("pycuda-*.whl")
        return Path(shutil.move(wheel, folder / wheel.name))


def find_python(version: str = HOST_PYTHON) -> str | None:
    """An interpreter of Python `version` on this machine (for the pycuda wheel), or None."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [f"python{version}", *map(str, sorted(pyenv.glob(f"{version}.*/bin/python")))]
    for candidate in candidates:
        found = shutil.which(candidate)
        if found is None:
            continue
        done = subprocess.run(
            [found, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.stdout.strip() == version:
            return found
    return None


def _git_head() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def make_bundle(out: Path, build: bool, python: str | None) -> dict[str, Any]:
    """Fill `out` with the bundle (module docstring); the manifest written there."""
    started = time.monotonic()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    notes: list[str] = []
    sdist = download_sdist("pycuda", PYCUDA_VERSION, out)
    pycuda_requirements = requires_dist(sdist_metadata(sdist))
    bundle = resolve(project_requirements(), out, {f"pycuda {PYCUDA_VERSION}": pycuda_requirements})
    pycuda_requirement = [f"autotune: pycuda=={PYCUDA_VERSION}"]
    bundle.files["pycuda-sdist"] = BundledFile(
        "pycuda", PYCUDA_VERSION, sdist.name, sdist.stat().st_size, pycuda_requirement
    )
    if build:
        interpreter = python or find_python()
        root = cuda_root()
        if interpreter is None:
            notes.append(f"no Python {HOST_PYTHON} here: pycuda is built on the host")
        elif root is None:
            notes.append("no CUDA headers (cuda.h) here: pycuda is built on the host")
        else:
            wheel = build_pycuda_wheel(sdist, interpreter, root, out, out / "pycuda-build.log")
            bundle.files["pycuda"] = BundledFile(
                "pycuda", PYCUDA_VERSION, wheel.name, wheel.stat().st_size, pycuda_requirement
            )
            notes.append(f"pycuda wheel built with {interpreter} against {root}/include")
    else:
        notes.append("--no-build: pycuda is built on the host from the sdist")
    total = sum(path.stat().st_size for path in out.iterdir() if path.is_file())
    manifest: dict[str, Any] = {
        "made_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "commit": _git_head(),
        "host_python": HOST_PYTHON,
        "host_platforms": list(HOST_PLATFORMS),
        "pycuda_version": PYCUDA_VERSION,
        "files": [vars(item) for item in sorted(bundle.files.values(), key=lambda f: f.filename)],
        "left_to_host": bundle.left_to_host,
        "notes": notes,
        "total_bytes": total,
        "limit_bytes": BUNDLE_LIMIT_BYTES,
        "seconds": round(time.monotonic() - started, 1),
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    if total > BUNDLE_LIMIT_BYTES:
        raise RuntimeError(
            f"the bundle is {total / 2**20:.1f} MiB, over its {BUNDLE_LIMIT_BYTES / 2**20:.0f} MiB"
        )
    return manifest


def main() -> int:
    """Command line: make the bundle, print what went in."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the bundle folder")
    parser.add_argument(
        "--no-build", action="store_true", help="carry the pycuda sdist only (built there)"
    )
    parser.add_argument("--python", help=f"the Python {HOST_PYTHON} that builds pycuda's wheel")
    args = parser.parse_args()
    try:
        manifest = make_bundle(args.out, not args.no_build, args.python)
    except (RuntimeError, subprocess.CalledProcessError) as err:
        print(f"gpu bundle: {err}", file=sys.stderr)
        return 1
    for item in manifest["files"]:
        print(f"{item['filename']:<64} {item['size_bytes'] / 2**20:6.2f} MiB")
    for note in manifest["notes"]:
        print(note)
    print(
        f"{args.out}: {manifest['total_bytes'] / 2**20:.1f} MiB of "
        f"{manifest['limit_bytes'] / 2**20:.0f}, in {manifest['seconds']} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
