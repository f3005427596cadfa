"""Load and run a CUDA autotune artifact (`<sha256>.tar.gz` built for `cuda -arch=sm_XX`).

Like `loader.py`, it imports nothing from autotune outside its folder (`codegen/runtime/`):
numpy, pycuda (`pip install pycuda`) and the standard library are all it needs, so the
folder can be copied next to an artifact, under any name (here `runtime`).

    from runtime.cuda_loader import load_cuda_artifact
    with load_cuda_artifact("3f2a....tar.gz") as model:
        outputs = model.run({"data_0": image})      # {output name: numpy array}

The interface is `loader.load_artifact`'s. Loading checks the tarball's hash against its
name (when it is named by its hash), the manifest's format, device and launch plan
version, and the sha256 of the PTX and of the weights against the manifest, before
anything reaches the GPU. The PTX is then JIT-compiled by the driver for the device,
the weights uploaded once and the workspace allocated once. `run` copies the inputs in,
launches every kernel of the manifest's launch plan in order (grid, block, argument
buffers: a model input/output, or a byte offset into the weights or the workspace), makes
the plan's copies and copies the outputs back.

Also a command (`runtime.command`):

    python -m runtime.cuda_loader ART.tar.gz --input NAME=FILE.npy ... [--output OUT.npz]

Its GPU test (tests/codegen/aot/test_cuda_artifact.py, marked `gpu`) passed on an H200.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import re
import sys
import tarfile
import threading
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .command import run_command
from .input_check import shape_difference

ARTIFACT_FORMAT = "autotune-artifact"
FORMAT_VERSION = 1
LAUNCH_PLAN_VERSION = 1
DEVICE = "cuda"
MANIFEST_FILE = "manifest.json"
_HASH_NAME = re.compile(r"^([0-9a-f]{64})\.tar\.gz$")
PYCUDA_MISSING = (
    "pycuda is not installed: pip install autotune[gpu] (from a checkout: pip install '.[gpu]')"
)


class CudaArtifactError(Exception):
    """A CUDA artifact cannot be loaded or run: corrupt, incompatible, or no GPU/pycuda."""


class CudaArtifactInputError(CudaArtifactError, ValueError):
    """A run input is missing, unknown, or has the wrong shape or dtype."""


@dataclass(frozen=True)
class TensorInfo:
    """A model input or output: name, shape and numpy dtype name."""

    name: str
    shape: tuple[int, ...]
    dtype: str


def _tensor_infos(manifest: Mapping[str, Any], key: str) -> list[TensorInfo]:
    try:
        return [
            TensorInfo(str(item["name"]), tuple(int(d) for d in item["shape"]), str(item["dtype"]))
            for item in manifest[key]
        ]
    except (KeyError, TypeError, ValueError) as err:
        raise CudaArtifactError(f"manifest.json: malformed {key!r}: {err}") from None


def read_members(path: Path) -> dict[str, bytes]:
    """Every plain file of the tarball by name; its bytes must hash to the sha256 in its
    name when it is named `<sha256>.tar.gz`."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CudaArtifactError(f"cannot read artifact {path}: {err}") from None
    match = _HASH_NAME.match(path.name)
    if match is not None and hashlib.sha256(data).hexdigest() != match.group(1):
        raise CudaArtifactError(
            f"artifact {path} is corrupt or truncated: its content does not hash to the "
            "sha256 in its name"
        )
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar:
                stream = tar.extractfile(member) if member.isfile() else None
                if stream is not None and member.name == os.path.basename(member.name):
                    members[member.name] = stream.read()
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise CudaArtifactError(
            f"artifact {path} is corrupt or truncated (not a readable .tar.gz): {err}"
        ) from None
    return members


def check_manifest(path: Path, members: Mapping[str, bytes]) -> dict[str, Any]:
    """The manifest, once its format, device and version and the hashes of the PTX and the
    weights are checked."""
    if MANIFEST_FILE not in members:
        raise CudaArtifactError(f"artifact {path} has no {MANIFEST_FILE}")
    try:
        manifest = json.loads(members[MANIFEST_FILE])
    except (ValueError, UnicodeDecodeError) as err:
        raise CudaArtifactError(f"artifact {path}: {MANIFEST_FILE} is not JSON: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARTIFACT_FORMAT:
        raise CudaArtifactError(f"artifact {path}: {MANIFEST_FILE} is not an autotune manifest")
    if manifest.get("device") != DEVICE:
        raise CudaArtifactError(
            f"artifact {path} is not a CUDA artifact (target {manifest.get('target')!r}); "
            "load it with loader.load_artifact"
        )
    if manifest.get("format_version") != FORMAT_VERSION or (
        manifest.get("launch_plan_version") != LAUNCH_PLAN_VERSION
    ):
        raise CudaArtifactError(
            f"artifact {path} has format {manifest.get('format_version')!r} / launch plan "
            f"{manifest.get('launch_plan_version')!r}; this loader reads "
            f"{FORMAT_VERSION} / {LAUNCH_PLAN_VERSION}"
        )
    for key in ("ptx", "weights"):
        entry = manifest.get(key)
        if not isinstance(entry, dict) or str(entry.get("file")) not in members:
            raise CudaArtifactError(f"artifact {path} is missing its {key} file")
        if hashlib.sha256(members[str(entry["file"])]).hexdigest() != entry.get("sha256"):
            raise CudaArtifactError(
                f"artifact {path} is corrupt: {entry['file']} does not match the sha256 in "
                "its manifest"
            )
    return manifest


def is_cuda_artifact(path: str | os.PathLike[str]) -> bool:
    """Whether the artifact at `path` was built for a GPU (its manifest, the first member,
    says `"device": "cuda"`); False for a CPU artifact or anything unreadable."""
    try:
        with tarfile.open(path, mode="r|gz") as tar:
            member = tar.next()
            if member is None or member.name != MANIFEST_FILE or not member.isfile():
                return False
            stream = tar.extractfile(member)
            manifest = json.loads(stream.read()) if stream is not None else None
    except (tarfile.TarError, EOFError, zlib.error, OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("device") == DEVICE


def _pycuda_driver() -> Any:
    if importlib.util.find_spec("pycuda") is None:
        raise CudaArtifactError(PYCUDA_MISSING)
    try:
        import pycuda.driver as driver
    except ImportError as err:  # installed but broken, e.g. built against another CUDA
        raise CudaArtifactError(f"pycuda does not import ({err}); {PYCUDA_MISSING}") from None

    try:
        driver.init()
        if driver.Device.count() == 0:
            raise CudaArtifactError("no CUDA device: the driver sees no GPU")
    except driver.Error as err:
        raise CudaArtifactError(f"no CUDA device: {err}") from None
    return driver


class CudaArtifact:
    """A loaded CUDA model: `inputs`, `outputs` (TensorInfo lists), `manifest`; call `run`.

    One workspace on the device serves every call; calls are serialised. `cache_dir` is
    accepted for `load_artifact`'s interface and unused: the driver caches JIT-compiled PTX.
    """

    def __init__(
        self, path: str | os.PathLike[str], cache_dir: str | None = None, device_index: int = 0
    ) -> None:
        del cache_dir
        started = time.perf_counter()
        self.path = Path(path)
        members = read_members(self.path)
        self.manifest = check_manifest(self.path, members)
        self.inputs = _tensor_infos(self.manifest, "inputs")
        self.outputs = _tensor_infos(self.manifest, "outputs")
        plan = self.manifest.get("launch")
        if not isinstance(plan, dict) or not isinstance(plan.get("launches"), list):
            raise CudaArtifactError(f"artifact {self.path}: the manifest has no launch plan")
        self._plan = plan
        self._kernels = {str(kernel["name"]): kernel for kernel in plan.get("kernels", [])}
        self._lock = threading.Lock()
        self._closed = False
        driver = self._driver = _pycuda_driver()
        try:
            device = driver.Device(device_index)
            self._context = device.retain_primary_context()
            self._context.push()
        except driver.Error as err:
            raise CudaArtifactError(f"no CUDA device {device_index}: {err}") from None
        try:
            self._load(members)
        except driver.Error as err:
            raise CudaArtifactError(
                f"artifact {self.path} does not load on the GPU: {err}"
            ) from None
        finally:
            self._context.pop()
        self.load_s = time.perf_counter() - started

    def _load(self, members: Mapping[str, bytes]) -> None:
        driver = self._driver
        ptx = members[str(self.manifest["ptx"]["file"])]
        self._module = driver.module_from_buffer(ptx)
        self._functions = {name: self._module.get_function(name) for name in self._kernels}
        weights = members[str(self.manifest["weights"]["file"])]
        self._weights = driver.mem_alloc(max(1, len(weights)))
        driver.memcpy_htod(self._weights, weights)
        self._workspace = driver.mem_alloc(max(1, int(self.workspace_bytes)))
        self._input_buffers = [driver.mem_alloc(max(1, _nbytes(info))) for info in self.inputs]
        self._output_buffers = [driver.mem_alloc(max(1, _nbytes(info))) for info in self.outputs]

    @property
    def workspace_bytes(self) -> int:
        """The size of the model's device workspace (intermediate tensors), bytes."""
        return int(self.manifest["memory"]["workspace_bytes"])

    def check_inputs(self, inputs: Mapping[str, Any]) -> list[np.ndarray]:
        """The inputs as C-contiguous arrays in the model's order; CudaArtifactInputError
        naming the input when one is missing, unknown, or of the wrong shape or dtype."""
        names = [info.name for info in self.inputs]
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise CudaArtifactInputError(
                f"unknown input(s) {unknown}; the model's inputs are {names}"
            )
        arrays = []
        for info in self.inputs:
            expected = f"shape {list(info.shape)} {info.dtype}"
            if info.name not in inputs:
                raise CudaArtifactInputError(f"missing input {info.name!r} (expected {expected})")
            value = np.asarray(inputs[info.name])
            if value.shape != info.shape or value.dtype != np.dtype(info.dtype):
                raise CudaArtifactInputError(
                    f"input {info.name!r}: expected {expected}, "
                    f"got shape {list(value.shape)} {value.dtype.name}"
                    + shape_difference(info.shape, value.shape)
                )
            arrays.append(np.ascontiguousarray(value))
        return arrays

    def _address(self, argument: Mapping[str, Any]) -> int:
        kind = argument["kind"]
        if kind == "input":
            return int(self._input_buffers[int(argument["index"])])
        if kind == "output":
            return int(self._output_buffers[int(argument["index"])])
        base = self._weights if kind == "weight" else self._workspace
        return int(base) + int(argument["offset"])

    def run(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Run the model on named input arrays; returns the outputs by name (new arrays)."""
        arrays = self.check_inputs(inputs)
        outputs = [np.empty(info.shape, np.dtype(info.dtype)) for info in self.outputs]
        driver = self._driver
        with self._lock:
            if self._closed:
                raise CudaArtifactError(f"artifact {self.path} is closed")
            self._context.push()
            try:
                for buffer, array in zip(self._input_buffers, arrays, strict=True):
                    driver.memcpy_htod(buffer, array)
                for launch in self._plan["launches"]:
                    self._launch(launch)
                for copy in self._plan.get("copies", []):
                    destination = int(self._output_buffers[int(copy["output"])])
                    driver.memcpy_dtod(destination, self._address(copy["source"]), copy["nbytes"])
                driver.Context.synchronize()
                for buffer, array in zip(self._output_buffers, outputs, strict=True):
                    driver.memcpy_dtoh(array, buffer)
            except driver.Error as err:
                raise CudaArtifactError(f"artifact {self.path} failed on the GPU: {err}") from None
            finally:
                self._context.pop()
        return {info.name: array for info, array in zip(self.outputs, outputs, strict=True)}

    def _launch(self, launch: Mapping[str, Any]) -> None:
        kernel = self._kernels[launch["kernel"]]
        self._functions[launch["kernel"]](
            *(np.uintp(self._address(argument)) for argument in launch["args"]),
            block=tuple(kernel["block"]),
            grid=tuple(kernel["grid"]),
        )

    def time_launches(self, inputs: Mapping[str, Any], repeats: int = 20) -> list[dict[str, Any]]:
        """Each launch of the plan, in order: its kernel, grid, block and mean milliseconds
        over `repeats` back-to-back launches (CUDA events), after one run of the whole plan
        on `inputs` so that every launch reads the values it reads in a run."""
        if repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {repeats}")
        self.run(inputs)
        driver = self._driver
        timings = []
        with self._lock:
            self._context.push()
            try:
                start, end = driver.Event(), driver.Event()
                for launch in self._plan["launches"]:
                    self._launch(launch)
                    start.record()
                    for _ in range(repeats):
                        self._launch(launch)
                    end.record()
                    end.synchronize()
                    kernel = self._kernels[launch["kernel"]]
                    timings.append(
                        {
                            "kernel": str(launch["kernel"]),
                            "grid": list(kernel["grid"]),
                            "block": list(kernel["block"]),
                            "ms": end.time_since(start) / repeats,
                        }
                    )
            except driver.Error as err:
                raise CudaArtifactError(f"artifact {self.path} failed on the GPU: {err}") from None
            finally:
                self._context.pop()
        return timings

    def close(self) -> None:
        """Free the device memory of the model."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._context.push()
            try:
                for buffer in (
                    self._weights,
                    self._workspace,
                    *self._input_buffers,
                    *self._output_buffers,
                ):
                    buffer.free()
            finally:
                self._context.pop()
                self._context.detach()

    def __enter__(self) -> CudaArtifact:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _nbytes(info: TensorInfo) -> int:
    count = 1
    for extent in info.shape:
        count *= extent
    return count * int(np.dtype(info.dtype).itemsize)


def load_cuda_artifact(
    path: str | os.PathLike[str], cache_dir: str | None = None, device_index: int = 0
) -> CudaArtifact:
    """Open the CUDA artifact at `path` on GPU `device_index` (checked; CudaArtifactError
    when it cannot be used, pycuda is missing or there is no GPU). `cache_dir` is accepted
    for `load_artifact`'s interface (unused)."""
    return CudaArtifact(path, cache_dir, device_index)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run a CUDA artifact on .npy inputs, print output shapes, save an .npz."""
    return run_command(
        argv,
        "Run a CUDA autotune artifact with numpy.",
        load_cuda_artifact,
        CudaArtifactError,
        CudaArtifactInputError,
    )


if __name__ == "__main__":
    sys.exit(main())
