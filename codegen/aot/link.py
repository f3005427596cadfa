"""Link a model library with the system C compiler: `cc -shared` of the model's object and
the ABI object, exporting only the ABI (the weights travel beside the library).

Every file is written into a fresh directory and named relative to it, so no temporary
path reaches the library; the compiler's and linker's output is then a function of the
inputs alone (GNU ld's build id is a hash of the contents).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from codegen.aot.abi import MODEL_HEADER, export_map
from codegen.errors import CodegenError

COMPILE_TIMEOUT_S = 600


def c_compiler() -> str:
    """The system C compiler: `$CC`, else `cc`; CodegenError when there is none."""
    compiler = os.environ.get("CC", "cc")
    path = shutil.which(compiler)
    if path is None:
        raise CodegenError(
            f"no C compiler {compiler!r} on PATH; artifacts are linked with the system C "
            "compiler (install gcc or clang, or set CC)"
        )
    return compiler


@functools.cache
def c_compiler_version(compiler: str) -> str:
    """The first line of `compiler --version`."""
    try:
        completed = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return "unknown"
    return completed.stdout.splitlines()[0].strip() if completed.stdout else "unknown"


def _run(command: list[str], cwd: Path) -> None:
    try:
        completed = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=COMPILE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CodegenError(f"{' '.join(command)} failed: {err}") from None
    if completed.returncode != 0:
        raise CodegenError(
            f"{' '.join(command)} exited {completed.returncode}: {completed.stderr[-4000:]}"
        )


def link_library(model_object: bytes, abi_source: str, openmp: bool, compiler: str) -> bytes:
    """The shared library (bytes) of a model: its LLVM object and ABI source."""
    with tempfile.TemporaryDirectory(prefix="autotune-link-") as directory:
        cwd = Path(directory)
        (cwd / "model.o").write_bytes(model_object)
        (cwd / "model.h").write_text(MODEL_HEADER)
        (cwd / "model_abi.c").write_text(abi_source)
        (cwd / "exports.map").write_text(export_map())
        _run([compiler, "-c", "-O2", "-fPIC", "model_abi.c", "-o", "model_abi.o"], cwd)
        libraries = ["-lgomp"] if openmp else []
        _run(
            [
                compiler,
                "-shared",
                "-o",
                "model.so",
                "model.o",
                "model_abi.o",
                "-Wl,--version-script=exports.map",
                "-Wl,-z,noexecstack",
                "-Wl,-z,nodelete",
                *libraries,
                "-lm",
            ],
            cwd,
        )
        return (cwd / "model.so").read_bytes()
