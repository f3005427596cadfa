"""Offline compilation of generated CUDA with the machine's `nvcc` (no GPU needed).

`compile_source` turns one translation unit into PTX (fast, checks the code fully) or a
cubin for an architecture. Given a cache folder it first looks there for the output of the
same source, architecture and flags, and leaves its own output there; `compile_sources`
fills such a folder for many sources at once, one nvcc process per core. Measuring a batch
of GPU candidates uses the two: nvcc takes about half a second a kernel on one core, so the
batch's cubins are compiled side by side before its candidates are timed one by one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codegen.errors import CodegenError
from codegen.llvm.target import host_cores

NVCC_TIMEOUT_S = 300.0
NVCC_FLAGS = ("-O3", "-diag-suppress", "177")


def nvcc_path() -> str | None:
    """The nvcc executable on PATH, or None."""
    return shutil.which("nvcc")


def compile_source(
    source: str,
    arch: str = "sm_90",
    output: str = "ptx",
    *,
    cache_dir: str | Path | None = None,
    timeout_s: float = NVCC_TIMEOUT_S,
) -> bytes:
    """Compile CUDA C with nvcc to `output` ("ptx" or "cubin") for `arch`; CodegenError
    carries nvcc's diagnostics when it fails. With `cache_dir`, the output of an earlier
    compile of the same source, architecture and flags is read from there instead, and a
    new output is left there."""
    if output not in ("ptx", "cubin"):
        raise CodegenError(f"nvcc output must be ptx or cubin, not {output!r}")
    cached = None if cache_dir is None else cache_path(cache_dir, source, arch, output)
    if cached is not None and cached.is_file():
        return cached.read_bytes()
    nvcc = nvcc_path()
    if nvcc is None:
        raise CodegenError("nvcc is not on PATH; install the CUDA toolkit to compile kernels")
    with tempfile.TemporaryDirectory(prefix="autotune-nvcc-") as directory:
        path = Path(directory) / "kernels.cu"
        path.write_text(source)
        result_path = path.with_suffix(f".{output}")
        command = [nvcc, f"-arch={arch}", f"--{output}", *NVCC_FLAGS]
        command += ["-o", str(result_path), str(path)]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout_s, check=False
            )
        except subprocess.TimeoutExpired:
            raise CodegenError(f"nvcc took longer than {timeout_s:g} s") from None
        if done.returncode != 0:
            raise CodegenError(f"nvcc failed ({done.returncode}):\n{done.stderr.strip()}")
        result = result_path.read_bytes()
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.part")
        partial.write_bytes(result)
        partial.replace(cached)  # (atomic: a reader never sees half a file)
    return result


def cache_path(cache_dir: str | Path, source: str, arch: str, output: str) -> Path:
    """Where `compile_source` keeps the output of `source` for `arch` in `cache_dir`."""
    key = hashlib.sha256("\0".join((arch, output, *NVCC_FLAGS, source)).encode()).hexdigest()
    return Path(cache_dir) / f"{key}.{output}"


def compile_sources(
    sources: Iterable[tuple[str, str]],
    cache_dir: str | Path,
    output: str = "cubin",
    *,
    workers: int | None = None,
    timeout_s: float = NVCC_TIMEOUT_S,
) -> dict[tuple[str, str], CodegenError | None]:
    """Compile each distinct (source, arch) into `cache_dir` (as `compile_source` with that
    cache), `workers` nvcc processes at a time (default: one per core this process may
    use). Returns each pair's error, None when it compiled; nothing is raised for one."""
    pairs = list(dict.fromkeys(sources))
    if workers is None:
        workers = host_cores()

    def one(pair: tuple[str, str]) -> CodegenError | None:
        try:
            compile_source(pair[0], pair[1], output, cache_dir=cache_dir, timeout_s=timeout_s)
        except CodegenError as err:
            return err
        except OSError as err:  # (nvcc cannot start, the folder cannot be written)
            return CodegenError(f"nvcc could not run: {err}")
        return None

    if not pairs:
        return {}
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(pairs)))) as pool:
        return dict(zip(pairs, pool.map(one, pairs), strict=True))


def nvcc_version() -> str:
    """nvcc's release line (e.g. "Cuda compilation tools, release 13.0, V13.0.48"), or
    "unknown"."""
    nvcc = nvcc_path()
    if nvcc is None:
        return "unknown"
    try:
        done = subprocess.run(
            [nvcc, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    lines = [line for line in done.stdout.splitlines() if "release" in line]
    return lines[-1].strip() if lines else "unknown"
