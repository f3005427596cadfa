"""Offline compilation of generated CUDA with the machine's `nvcc` (no GPU needed).

Used by tests and by a worker that prefers nvcc over NVRTC: `compile_source` turns one
translation unit into PTX (fast, checks the code fully) or a cubin for an architecture.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from codegen.errors import CodegenError

NVCC_TIMEOUT_S = 300


def nvcc_path() -> str | None:
    """The nvcc executable on PATH, or None."""
    return shutil.which("nvcc")


def compile_source(source: str, arch: str = "sm_90", output: str = "ptx") -> bytes:
    """Compile CUDA C with nvcc to `output` ("ptx" or "cubin") for `arch`; CodegenError
    carries nvcc's diagnostics when it fails."""
    nvcc = nvcc_path()
    if nvcc is None:
        raise CodegenError("nvcc is not on PATH; install the CUDA toolkit to compile kernels")
    if output not in ("ptx", "cubin"):
        raise CodegenError(f"nvcc output must be ptx or cubin, not {output!r}")
    with tempfile.TemporaryDirectory(prefix="autotune-nvcc-") as directory:
        path = Path(directory) / "kernels.cu"
        path.write_text(source)
        result_path = path.with_suffix(f".{output}")
        command = [nvcc, f"-arch={arch}", f"--{output}", "-O3", "-diag-suppress", "177"]
        command += ["-o", str(result_path), str(path)]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=NVCC_TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired:
            raise CodegenError(f"nvcc took longer than {NVCC_TIMEOUT_S} s") from None
        if done.returncode != 0:
            raise CodegenError(f"nvcc failed ({done.returncode}):\n{done.stderr.strip()}")
        return result_path.read_bytes()


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
