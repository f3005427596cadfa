"""Rehearse the GPU check on a CPU machine before spending GPU time on it.

It makes a stand-in for the GPU host (a Python 3.12 virtual environment holding the host
image's packages that matter here, at the versions read there, without PyTorch), a
stand-in for its driver (a `libcuda.so.1` whose every entry point pycuda binds answers
"no device"), and runs `check.py` there on the bundle, with no package index:

    python bench/gpu_host/rehearse.py [--bundle .gpu-bundle] [--full]

What it shows: the bundle installs without an index and every requirement is met, the
prebuilt pycuda wheel imports and reaches the driver (or the sdist builds), the GPU tests
pass or skip for want of a GPU, and every GPU stage fails with a clear error rather than
a hang or a lost summary. Results land in `build/gpu-rehearsal/out`. `make gpu-rehearsal`
runs it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.gpu_host.bundle import DEFAULT_OUT, HOST_PACKAGES, find_python  # noqa: E402

FOLDER = ROOT / "build" / "gpu-rehearsal"

# Not installed in the stand-in: too large to fetch for a rehearsal, or GPU-only. The
# stages that need them (PyTorch baselines, torchvision exports) then fail, as they should.
LEFT_OUT = {
    "torch", "torchvision", "cupy-cuda13x", "cuda-bindings", "cuda-core", "cuda-pathfinder",
    "pip", "coverage", "sympy", "mpmath", "jinja2", "fsspec", "filelock", "psutil",
}  # fmt: skip


def stand_in_host(folder: Path) -> Path:
    """The stand-in host's Python (made once): a venv with the host's packages."""
    python = folder / "host" / "bin" / "python"
    if python.exists():
        return python
    interpreter = find_python()
    if interpreter is None:
        raise SystemExit("rehearse: needs a Python 3.12 on this machine (pyenv install 3.12)")
    subprocess.run([interpreter, "-m", "venv", str(folder / "host")], check=True)
    wanted = [
        name if version is None else f"{name}=={version}"
        for name, version in sorted(HOST_PACKAGES.items())
        if name not in LEFT_OUT
    ]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *wanted], check=True)
    return python


def no_device_driver(bundle: Path, folder: Path) -> Path:
    """A folder with a `libcuda.so.1` defining every driver symbol the bundle's pycuda
    wheel binds, each answering CUDA_ERROR_NO_DEVICE (error strings say so)."""
    wheels = sorted(bundle.glob("pycuda-*.whl"))
    if not wheels:
        raise SystemExit("rehearse: the bundle has no pycuda wheel (make it with Python 3.12)")
    driver = folder / "driver"
    driver.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheels[-1]) as archive:
        (member,) = [n for n in archive.namelist() if "/_driver." in n and n.endswith(".so")]
        (driver / "_driver.so").write_bytes(archive.read(member))
    listing = subprocess.run(
        ["nm", "-D", "--undefined-only", str(driver / "_driver.so")],
        capture_output=True,
        text=True,
        check=True,
    )
    symbols = sorted(
        {line.split()[-1].split("@")[0] for line in listing.stdout.splitlines() if " cu" in line}
    )
    lines = ["/* autotune's no-device stand-in for the CUDA driver (rehearsals only) */"]
    for symbol in symbols:
        if symbol in ("cuGetErrorString", "cuGetErrorName"):
            lines.append(
                f"int {symbol}(int code, const char** text) "
                '{ *text = "CUDA_ERROR_NO_DEVICE (no-device stand-in)"; return 0; }'
            )
        else:
            lines.append(f"int {symbol}(void) {{ return 100; }}")
    (driver / "stub.c").write_text("\n".join(lines) + "\n")
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o",
         str(driver / "libcuda.so.1"), str(driver / "stub.c")],
        check=True,
    )  # fmt: skip
    return driver


def main() -> int:
    """Command line (module docstring); the check's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--full", action="store_true", help="the full stages, not --quick")
    args = parser.parse_args()
    python = stand_in_host(FOLDER)
    driver = no_device_driver(args.bundle, FOLDER)
    env = {
        **os.environ,
        "OUT": str(FOLDER / "out"),
        "LD_LIBRARY_PATH": os.pathsep.join(
            filter(None, [str(driver), os.environ.get("LD_LIBRARY_PATH")])
        ),
        "PIP_NO_INDEX": "1",
    }
    command = [str(python), str(ROOT / "bench/gpu_host/check.py"), "--bundle", str(args.bundle)]
    command += [] if args.full else ["--quick"]
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
