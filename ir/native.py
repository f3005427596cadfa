"""Compiled modules: which of a package's modules run as mypyc-built C extensions, and
which of those are older than their source.

`make native` (`python -m ir.native`) compiles the modules on the tuner's per-candidate
path (loop IR nodes, replay, lowering, simplification, features: `[tool.autotune]
native` in pyproject.toml) into extensions beside their sources; Python imports an
extension in preference to the `.py` next to it. An extension built before its source
was edited would silently run the old code, so packages warn of that when imported.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import tomllib
import warnings
from pathlib import Path

# The compiled modules share one C library, importable wherever the packages are (mypyc's
# default name for it is a top-level module, which only a repository-root cwd finds).
SHARED_LIBRARY_GROUP = "ir._compiled"


class StaleCompiledModuleWarning(UserWarning):
    """A compiled module is older than its source, so the old code runs."""


def compiled_modules(package_dir: Path) -> dict[Path, Path]:
    """Each `.py` under `package_dir` that has a compiled extension beside it -> that
    extension."""
    found: dict[Path, Path] = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for extension in package_dir.rglob(f"*{suffix}"):
            source = extension.with_name(extension.name[: -len(suffix)] + ".py")
            if source.exists():
                found[source] = extension
    return found


def stale_compiled_modules(package_dir: Path) -> list[Path]:
    """The sources under `package_dir` edited after their extension was built."""
    return sorted(
        source
        for source, extension in compiled_modules(package_dir).items()
        if source.stat().st_mtime > extension.stat().st_mtime
    )


def warn_of_stale_compiled_modules(package_dir: Path) -> None:
    """Warn, naming them, of sources under `package_dir` newer than their extensions."""
    stale = stale_compiled_modules(package_dir)
    if stale:
        names = ", ".join(str(path.relative_to(package_dir.parent)) for path in stale)
        warnings.warn(
            f"{names} changed after it was compiled, so the old compiled code runs: "
            "run `make native` to rebuild (or `make clean-native` to run the sources)",
            StaleCompiledModuleWarning,
            stacklevel=2,
        )


def native_sources(root: Path) -> list[str]:
    """The sources to compile (paths from `root`, the directory of pyproject.toml)."""
    with open(root / "pyproject.toml", "rb") as file:
        config = tomllib.load(file)
    return list(config["tool"]["autotune"]["native"])


def build(root: Path, build_dir: str = "build/native") -> None:
    """Compile the native sources of the project at `root` with mypyc into extensions
    beside them (needs mypy, setuptools and a C compiler)."""
    from mypyc.build import mypycify  # (a development dependency)
    from setuptools import setup

    os.chdir(root)  # (mypyc names modules by their paths from here)
    extensions = mypycify(native_sources(root), opt_level="3", group_name=SHARED_LIBRARY_GROUP)
    setup(
        name="autotune-native",
        ext_modules=extensions,
        script_args=["--quiet", "build_ext", "--inplace", "--build-temp", build_dir],
    )
    # An extension whose generated C did not change is not relinked, so it keeps an mtime
    # older than a source that was touched: it is current all the same.
    for path in native_sources(root):
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            extension = (root / path).with_suffix(suffix)
            if extension.exists():
                os.utime(extension)


if __name__ == "__main__":
    project = Path(__file__).resolve().parent.parent
    build(project)
    print(f"compiled {len(native_sources(project))} modules with mypyc", file=sys.stderr)
