"""Load and run an autotune artifact (`<sha256>.tar.gz`) with numpy arrays.

This package (`codegen/runtime/`) imports nothing else from autotune: numpy, ctypes and
the standard library are all it needs, so the folder can be copied next to an artifact or
into a fresh virtual environment, under any name (here `runtime`):

    from runtime.loader import load_artifact
    with load_artifact("3f2a....tar.gz") as model:
        outputs = model.run({"data_0": image})      # {output name: numpy array}

An artifact holds the model's library (model.so: kernels and the C ABI) and its weights
(weights.bin) side by side. Loading checks everything before any code runs: the CRC-32 and
length of every gzip member, the manifest's format and ABI version, the library's sha256
and the weights' size against the manifest, and the library's own metadata against the
manifest. Large weights are packed page-aligned (see PAGE_BYTES): they are then mapped
from the artifact file, segment after segment, into one contiguous read-only range, shared
with the page cache and with every process running the same file, and their CRCs are
checked by threads as the segments are mapped. Otherwise the CRC runs on a second thread
while the tarball is read, and stored blocks go from the file straight into one 64-byte
aligned buffer. A corrupt or truncated artifact raises ArtifactError saying so. (The whole
file's sha256, which names it, is what `autotune fetch` checks on a download; at 1-2 GB/s
it would dominate loading a large model.) Replace an artifact file by renaming a new one
over it, never by rewriting it in place: a process that maps it would fault. `run` refuses
an input of the wrong shape or dtype, naming the input and the shape it expects. A model
compiled for a range of shapes (its manifest's `sizes`) runs any shape within it: the
input arrays bind its size variables (a dim outside its bounds, or one size bound two
ways, is refused naming the input and the dim) and the library gives the outputs'
shapes for them (ABI 3's `autotune_output_shape_at`, `autotune_run_sized`). With
`cache_dir`, a checked library and weights are kept there, and later loads only read the
manifest and map the kept files; without it, on Linux, the library is written to an
in-memory file (memfd) and mapped from there.

Also a command (`runtime.command`):

    python -m runtime.loader ART.tar.gz --input NAME=FILE.npy ... [--output OUT.npz]
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import mmap
import os
import re
import shutil
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .aligned import aligned_bytes, aligned_empty
from .command import run_command
from .gzip_stream import InflatedStream, TruncatedError, copy_to_file, read_blob
from .input_check import shape_difference

ARTIFACT_FORMAT = "autotune-artifact"
FORMAT_VERSION = 2
ABI_VERSION = 3
MANIFEST_FILE = "manifest.json"
_HASH_NAME = re.compile(r"^([0-9a-f]{64})\.tar\.gz$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


_OUTPUT_SHAPES_KEPT = 1024  # sizes whose output shapes a loaded artifact remembers


class ArtifactError(Exception):
    """An artifact cannot be loaded: missing, corrupt, truncated or incompatible."""


class ArtifactInputError(ArtifactError, ValueError):
    """A run input is missing, unknown, or has the wrong shape or dtype."""


@dataclass(frozen=True)
class TensorInfo:
    """A model input or output: name, shape (the upper bounds where symbolic) and numpy
    dtype name; for a symbolic one, the text of each dim (a size variable's name, a size,
    or for an output an expression of them)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    dims: tuple[str, ...] = field(default=(), compare=False)


def _tensor_infos(manifest: Mapping[str, Any], key: str) -> list[TensorInfo]:
    try:
        return [
            TensorInfo(
                str(item["name"]),
                tuple(int(d) for d in item["shape"]),
                str(item["dtype"]),
                tuple(str(d) for d in item.get("dims", ())),
            )
            for item in manifest[key]
        ]
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise ArtifactError(f"manifest.json: malformed {key!r}: {err}") from None


def _size_uppers(manifest: Mapping[str, Any]) -> dict[str, int]:
    """Each size variable's upper bound, by name, in the ABI's order."""
    try:
        return {str(item["name"]): int(item["upper"]) for item in manifest.get("sizes", ())}
    except (KeyError, TypeError, ValueError) as err:
        raise ArtifactError(f"manifest.json: malformed 'sizes': {err}") from None


def _dtype_text(dtype: np.dtype[Any]) -> str:
    """numpy's name of a dtype, with the byte order when it is not the native one."""
    return dtype.name if dtype.isnative else dtype.str


@dataclass
class _Contents:
    """What a pass over an artifact found: the manifest's bytes; per shared library (a
    plain file name ending in .so) the file it was written to and its sha256; per blob (a
    plain file name ending in .bin) its bytes, 64-byte aligned, and their sha256 when
    asked for."""

    manifest: bytes | None = None
    libraries: dict[str, tuple[str, str]] = field(default_factory=dict)
    blobs: dict[str, tuple[np.ndarray, str | None]] = field(default_factory=dict)


def _extract(path: Path, place: Callable[[str], str], hash_blobs: bool) -> _Contents:
    """Stream the tarball once: the manifest, each library written to the file
    `place(name)` gives, and each blob read into memory (see _Contents)."""
    contents = _Contents()
    try:
        with open(path, "rb", buffering=0) as raw:
            stream = InflatedStream(raw)
            try:
                while True:
                    header = stream.read(tarfile.BLOCKSIZE)
                    if header.count(0) == tarfile.BLOCKSIZE:
                        break  # the end-of-archive marker
                    member = tarfile.TarInfo.frombuf(header, "utf-8", "surrogateescape")
                    padding = -member.size % tarfile.BLOCKSIZE
                    plain = member.isfile() and member.name == os.path.basename(member.name)
                    if plain and member.name == MANIFEST_FILE:
                        contents.manifest = stream.read(member.size)
                    elif plain and member.name.endswith(".so"):
                        file = place(member.name)
                        digest = copy_to_file(stream.chunks(member.size), file)
                        contents.libraries[member.name] = (file, digest)
                    elif plain and member.name.endswith(".bin"):
                        contents.blobs[member.name] = read_blob(stream, member.size, hash_blobs)
                    else:
                        padding += member.size
                    stream.skip(padding)
                stream.drain()
            finally:
                stream.close()  # no CRC thread outlives a failed load
    except FileNotFoundError as err:
        raise ArtifactError(f"cannot read artifact {path}: {err}") from None
    except (TruncatedError, tarfile.TarError, zlib.error, OSError) as err:
        raise ArtifactError(
            f"artifact {path} is corrupt or truncated (not a readable .tar.gz): {err}"
        ) from None
    return contents


def _check_manifest(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None:
        raise ArtifactError(f"artifact {path} has no {MANIFEST_FILE}; is it an autotune artifact?")
    try:
        manifest = json.loads(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise ArtifactError(f"artifact {path}: {MANIFEST_FILE} is not valid JSON: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != ARTIFACT_FORMAT:
        raise ArtifactError(f"artifact {path}: {MANIFEST_FILE} is not an autotune manifest")
    if manifest.get("device", "cpu") != "cpu":
        raise ArtifactError(
            f"artifact {path} is built for a {manifest['device']!r} device, not this CPU: "
            "load it with cuda_loader.load_cuda_artifact (needs pycuda) or `autotune run`"
        )
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(
            f"artifact {path} has format version {manifest.get('format_version')!r}; "
            f"this loader reads version {FORMAT_VERSION} (compile the model again, or run "
            "it with the loader that came with it)"
        )
    if manifest.get("abi_version") != ABI_VERSION:
        raise ArtifactError(
            f"artifact {path} has ABI version {manifest.get('abi_version')!r}; "
            f"this loader speaks version {ABI_VERSION} (compile the model again, or run it "
            "with the loader that came with it)"
        )
    return manifest


def _described(path: Path, manifest: Mapping[str, Any], key: str) -> tuple[str, str, int]:
    """The file name, sha256 and size the manifest gives for its `key` entry."""
    entry = manifest.get(key)
    try:
        assert isinstance(entry, dict)
        name, digest, size = str(entry["file"]), str(entry["sha256"]), int(entry["size_bytes"])
    except (AssertionError, KeyError, TypeError, ValueError):
        raise ArtifactError(f"artifact {path}: the manifest does not describe its {key}") from None
    if name != os.path.basename(name) or not _HEX64.match(digest) or size < 0:
        raise ArtifactError(f"artifact {path}: the manifest does not describe its {key}")
    return name, digest, size


def _checked_library(path: Path, contents: _Contents, manifest: Mapping[str, Any]) -> str:
    """The file holding the manifest's library, once its hash is checked."""
    name, digest, _ = _described(path, manifest, "library")
    if name not in contents.libraries:
        raise ArtifactError(f"artifact {path} is missing its library {name}")
    file, actual = contents.libraries[name]
    if actual != digest:
        raise ArtifactError(
            f"artifact {path} is corrupt: {name} does not match the sha256 in its manifest"
        )
    return file


def _checked_weights(path: Path, contents: _Contents, manifest: Mapping[str, Any]) -> np.ndarray:
    """The manifest's weights, once their size (and hash, when it was computed) is checked.
    (Without a hash, the gzip CRC-32 of every member vouches for the bytes.)"""
    name, digest, size = _described(path, manifest, "weights")
    if name not in contents.blobs:
        raise ArtifactError(f"artifact {path} is missing its weights {name}")
    blob, actual = contents.blobs[name]
    if blob.nbytes != size:
        raise ArtifactError(
            f"artifact {path} is corrupt: {name} holds {blob.nbytes} bytes, "
            f"its manifest says {size}"
        )
    if actual is not None and actual != digest:
        raise ArtifactError(
            f"artifact {path} is corrupt: {name} does not match the sha256 in its manifest"
        )
    return blob


def _declare(lib: ctypes.CDLL) -> None:
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "autotune_abi_version": (ctypes.c_int32, []),
        "autotune_workspace_bytes": (ctypes.c_int64, []),
        "autotune_weights_bytes": (ctypes.c_int64, []),
        "autotune_create": (ctypes.c_void_p, [ctypes.c_void_p]),
        "autotune_run_sized": (ctypes.c_int32, [ctypes.c_void_p] * 4),
        "autotune_num_sizes": (ctypes.c_int32, []),
        "autotune_size_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "autotune_size_upper": (ctypes.c_int64, [ctypes.c_int32]),
        "autotune_output_shape_at": (
            ctypes.c_int32,
            [ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p],
        ),
        "autotune_destroy": (None, [ctypes.c_void_p]),
    }
    for side in ("input", "output"):
        signatures[f"autotune_num_{side}s"] = (ctypes.c_int32, [])
        signatures[f"autotune_{side}_name"] = (ctypes.c_char_p, [ctypes.c_int32])
        signatures[f"autotune_{side}_dtype"] = (ctypes.c_char_p, [ctypes.c_int32])
        signatures[f"autotune_{side}_ndim"] = (ctypes.c_int32, [ctypes.c_int32])
        signatures[f"autotune_{side}_shape"] = (
            ctypes.POINTER(ctypes.c_int64),
            [ctypes.c_int32],
        )
    for name, (restype, argtypes) in signatures.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise ArtifactError(f"the model library does not export {name}") from None
        function.restype = restype
        function.argtypes = argtypes


def _library_infos(lib: ctypes.CDLL, side: str) -> list[TensorInfo]:
    infos = []
    for index in range(getattr(lib, f"autotune_num_{side}s")()):
        ndim = getattr(lib, f"autotune_{side}_ndim")(index)
        shape = getattr(lib, f"autotune_{side}_shape")(index)
        infos.append(
            TensorInfo(
                getattr(lib, f"autotune_{side}_name")(index).decode(),
                tuple(int(shape[i]) for i in range(ndim)),
                getattr(lib, f"autotune_{side}_dtype")(index).decode(),
            )
        )
    return infos


def _library_sizes(lib: ctypes.CDLL) -> dict[str, int]:
    count = lib.autotune_num_sizes()
    return {
        lib.autotune_size_name(i).decode(): int(lib.autotune_size_upper(i)) for i in range(count)
    }


def _expected(info: TensorInfo) -> str:
    if not info.dims:
        return f"shape {list(info.shape)} {info.dtype}"
    bounds = ", ".join(
        f"{dim} <= {upper}"
        for dim, upper in zip(info.dims, info.shape, strict=True)
        if not dim.isdigit()
    )
    return f"shape [{', '.join(info.dims)}] {info.dtype} ({bounds})"


@dataclass
class _Loaded:
    """A checked artifact: its manifest, its library (mapped) and its weights."""

    manifest: dict[str, Any]
    library: ctypes.CDLL
    weights: np.ndarray


def _open_library(path: Path, file: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(file)
    except OSError as err:
        raise ArtifactError(f"artifact {path}: the model library does not load: {err}") from None


def _load(path: Path, cache_dir: str | None) -> _Loaded:
    """Check the artifact, dlopen its library and read its weights.

    Without `cache_dir` the library goes to an in-memory file where the system has them,
    else to a private temporary directory, removed once the library is mapped. With it,
    the checked library and weights are kept in `cache_dir/<key>/` (the key: both their
    hashes); a later load of an artifact with the same library and weights reads only the
    manifest (the tarball's first member) and maps the kept files.
    """
    if cache_dir is not None:
        cached = _cached(path, Path(cache_dir))
        if cached is not None:
            return cached
    elif _IN_MEMORY_FILES:
        return _load_in_memory(path)
    if cache_dir is not None:
        os.makedirs(cache_dir, exist_ok=True)
    directory = tempfile.mkdtemp(prefix=".autotune-artifact-", dir=cache_dir)
    try:
        # The cache is keyed by the manifest's hashes, so what goes in is always hashed.
        contents = _extract(path, lambda name: os.path.join(directory, name), cache_dir is not None)
        manifest = _check_manifest(path, contents.manifest)
        library_path = _checked_library(path, contents, manifest)
        weights = _checked_weights(path, contents, manifest)
        if cache_dir is not None:
            weights_name, _, _ = _described(path, manifest, "weights")
            with open(os.path.join(directory, weights_name), "wb") as handle:
                handle.write(weights.data)
            kept = os.path.join(cache_dir, _cache_key(manifest))
            try:
                os.rename(directory, kept)
            except OSError:
                pass  # another process kept the same files first: use this copy
            else:
                directory = kept
                library_path = os.path.join(kept, os.path.basename(library_path))
        return _Loaded(manifest, _open_library(path, library_path), weights)
    finally:
        if cache_dir is None or os.path.basename(directory).startswith("."):
            shutil.rmtree(directory, ignore_errors=True)


def _cache_key(manifest: Mapping[str, Any]) -> str:
    """The cache entry of a checked manifest's library and weights."""
    both = f"{manifest['library']['sha256']}:{manifest['weights']['sha256']}"
    return hashlib.sha256(both.encode()).hexdigest()


# Linux: a library can be written to an anonymous in-memory file and mapped from there.
_IN_MEMORY_FILES = hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")
# Their descriptors stay open for the life of the process: dlopen knows a library by its
# path (/proc/self/fd/N), so a number reused by a later load would get this library back.
_LIBRARY_DESCRIPTORS: list[int] = []


def _load_in_memory(path: Path) -> _Loaded:
    """`_load` without a cache: each library is written to an in-memory file, which, unlike
    a file on disk, never waits for other writes to reach the disk."""
    created: list[int] = []

    def place(name: str) -> str:
        created.append(os.memfd_create(name, os.MFD_CLOEXEC))
        return f"/proc/self/fd/{created[-1]}"

    try:
        contents = _extract(path, place, False)
        manifest = _check_manifest(path, contents.manifest)
        library_path = _checked_library(path, contents, manifest)
        weights = _checked_weights(path, contents, manifest)
        library = _open_library(path, library_path)
    except BaseException:
        for descriptor in created:
            os.close(descriptor)
        raise
    _LIBRARY_DESCRIPTORS.extend(created)
    return _Loaded(manifest, library, weights)


def _cached(path: Path, cache_dir: Path) -> _Loaded | None:
    """The checked manifest, library and weights of `path` when `cache_dir` keeps them."""
    manifest_data = None
    try:
        with tarfile.open(path, mode="r|gz") as tar:
            member = tar.next()  # the manifest comes first in every artifact we pack
            if member is not None and member.name == MANIFEST_FILE and member.isfile():
                stream = tar.extractfile(member)
                manifest_data = stream.read() if stream is not None else None
    except (tarfile.TarError, EOFError, zlib.error, OSError):
        return None  # the full load says what is wrong
    if manifest_data is None:
        return None
    manifest = _check_manifest(path, manifest_data)
    try:
        library_name, _, library_size = _described(path, manifest, "library")
        weights_name, _, weights_size = _described(path, manifest, "weights")
    except ArtifactError:
        return None
    entry = cache_dir / _cache_key(manifest)
    library_file, weights_file = entry / library_name, entry / weights_name
    try:
        if library_file.stat().st_size != library_size:
            return None
        with open(weights_file, "rb") as handle:
            if os.fstat(handle.fileno()).st_size != weights_size:
                return None
            # Mapped read-only and private: the kept file is never written again (a damaged
            # entry is replaced by rename, which leaves this mapping intact).
            mapped = (
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if weights_size else None
            )
        library = ctypes.CDLL(str(library_file))
    except (OSError, ValueError):
        return None
    weights = np.frombuffer(mapped, np.uint8) if mapped is not None else aligned_bytes(0)
    return _Loaded(manifest, library, weights)


class Artifact:
    """A loaded model: `inputs`, `outputs` (TensorInfo lists), `manifest`; call `run`.

    One model handle (with its workspace) serves every call; calls are serialised. Use one
    Artifact per thread to run in parallel.
    """

    def __init__(self, path: str | os.PathLike[str], cache_dir: str | None = None) -> None:
        started = time.perf_counter()
        self.path = Path(path)
        loaded = _load(self.path, cache_dir)
        self.manifest, self._lib, self._weights = loaded.manifest, loaded.library, loaded.weights
        self.inputs = _tensor_infos(self.manifest, "inputs")
        self.outputs = _tensor_infos(self.manifest, "outputs")
        self.sizes = _size_uppers(self.manifest)  # size variable -> its upper bound
        _declare(self._lib)
        if self._lib.autotune_abi_version() != ABI_VERSION:
            raise ArtifactError(f"artifact {self.path}: the library speaks another ABI version")
        if _library_sizes(self._lib) != self.sizes:
            raise ArtifactError(
                f"artifact {self.path}: the library's size variables differ from the manifest's"
            )
        if (
            _library_infos(self._lib, "input") != self.inputs
            or _library_infos(self._lib, "output") != self.outputs
        ):
            raise ArtifactError(
                f"artifact {self.path}: the library's inputs/outputs differ from the manifest's"
            )
        if self._lib.autotune_weights_bytes() != self._weights.nbytes:
            raise ArtifactError(
                f"artifact {self.path}: the library expects {self._lib.autotune_weights_bytes()} "
                f"bytes of weights, the artifact holds {self._weights.nbytes}"
            )
        handle = self._lib.autotune_create(self._weights.ctypes.data)
        if not handle:
            raise ArtifactError(
                f"artifact {self.path}: cannot allocate the model's workspace "
                f"({self._lib.autotune_workspace_bytes()} bytes)"
            )
        self._handle: int | None = handle
        self._lock = threading.Lock()
        # The output shapes at each sizes run so far (a serving loop meets a few again).
        self._output_shapes: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        self.load_s = time.perf_counter() - started

    @property
    def workspace_bytes(self) -> int:
        """The size of the model's workspace (intermediate tensors), bytes."""
        return int(self._lib.autotune_workspace_bytes())

    def check_inputs(self, inputs: Mapping[str, Any]) -> list[np.ndarray]:
        """The inputs as C-contiguous arrays in the model's order; ArtifactInputError naming
        the input (and the dim) when one is missing, unknown, or of the wrong shape or
        dtype, or breaks a size variable's bounds or binds it two ways."""
        return self._checked(inputs)[0]

    def _checked(self, inputs: Mapping[str, Any]) -> tuple[list[np.ndarray], list[int]]:
        """The checked input arrays, and the value of each size variable they bind."""
        names = [info.name for info in self.inputs]
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise ArtifactInputError(f"unknown input(s) {unknown}; the model's inputs are {names}")
        arrays = []
        sizes: dict[str, tuple[int, str]] = {}
        for info in self.inputs:
            expected = _expected(info)
            if info.name not in inputs:
                raise ArtifactInputError(f"missing input {info.name!r} (expected {expected})")
            value = inputs[info.name]
            if not isinstance(value, np.ndarray):
                value = np.asarray(value)
            symbolic = bool(info.dims) and value.ndim == len(info.dims)
            if value.dtype != np.dtype(info.dtype) or not (symbolic or value.shape == info.shape):
                raise ArtifactInputError(
                    f"input {info.name!r}: expected {expected}, "
                    f"got shape {list(value.shape)} {_dtype_text(value.dtype)}"
                    + ("" if info.dims else shape_difference(info.shape, value.shape))
                )
            if symbolic:
                self._bind_sizes(info, value.shape, sizes)
            arrays.append(np.ascontiguousarray(value))
        return arrays, [sizes[name][0] for name in self.sizes]

    def _bind_sizes(
        self, info: TensorInfo, shape: tuple[int, ...], sizes: dict[str, tuple[int, str]]
    ) -> None:
        """Record in `sizes` the size variables input `info` of `shape` binds, each with
        where; ArtifactInputError naming the input and dim that breaks a bound, binds one
        two ways or differs from a fixed dim."""
        for axis, (dim, size) in enumerate(zip(info.dims, shape, strict=True)):
            where = f"input {info.name!r} dim {axis}"
            if dim not in self.sizes:
                if int(dim) != size:
                    raise ArtifactInputError(f"{where} must be {dim}; got {size}")
                continue
            if not 1 <= size <= self.sizes[dim]:
                raise ArtifactInputError(
                    f"{where} ({dim}) is {size}, outside [1, {self.sizes[dim]}]"
                )
            known, origin = sizes.setdefault(dim, (size, where))
            if known != size:
                raise ArtifactInputError(f"{dim} is {known} by {origin} but {size} by {where}")

    def _output_shape(self, index: int, sizes: list[int]) -> tuple[int, ...]:
        info = self.outputs[index]
        if not sizes:
            return info.shape
        values = (ctypes.c_int64 * len(sizes))(*sizes)
        shape = (ctypes.c_int64 * max(1, len(info.shape)))()
        status = self._lib.autotune_output_shape_at(index, values, shape)
        if status != 0:
            raise ArtifactError(
                f"artifact {self.path}: autotune_output_shape_at({index}) failed with status "
                f"{status}"
            )
        return tuple(int(shape[axis]) for axis in range(len(info.shape)))

    def run(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Run the model on named input arrays; returns the outputs by name (new arrays)."""
        arrays, sizes = self._checked(inputs)
        shapes = self._output_shapes.get(tuple(sizes))
        if shapes is None:
            shapes = [self._output_shape(index, sizes) for index in range(len(self.outputs))]
            if len(self._output_shapes) >= _OUTPUT_SHAPES_KEPT:
                self._output_shapes.clear()
            self._output_shapes[tuple(sizes)] = shapes
        outputs = [
            aligned_empty(shape, info.dtype)
            for shape, info in zip(shapes, self.outputs, strict=True)
        ]
        input_pointers = (ctypes.c_void_p * max(1, len(arrays)))(
            *(array.ctypes.data for array in arrays)
        )
        output_pointers = (ctypes.c_void_p * max(1, len(outputs)))(
            *(array.ctypes.data for array in outputs)
        )
        with self._lock:
            if self._handle is None:
                raise ArtifactError(f"artifact {self.path} is closed")
            values = (ctypes.c_int64 * max(1, len(sizes)))(*sizes)
            status = self._lib.autotune_run_sized(
                self._handle, values, input_pointers, output_pointers
            )
        if status != 0:
            raise ArtifactError(
                f"artifact {self.path}: autotune_run_sized failed with status {status}"
            )
        return {info.name: array for info, array in zip(self.outputs, outputs, strict=True)}

    def close(self) -> None:
        """Free the model's workspace and weights (the library stays mapped until the
        process exits)."""
        with self._lock:
            if self._handle is not None:
                self._lib.autotune_destroy(self._handle)
                self._handle = None
                self._weights = aligned_bytes(0)

    def __enter__(self) -> Artifact:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None:
            self._lib.autotune_destroy(handle)
            self._handle = None


def load_artifact(path: str | os.PathLike[str], cache_dir: str | None = None) -> Artifact:
    """Open the artifact at `path` (checked; ArtifactError when it cannot be used).

    `cache_dir`, when given, keeps each checked library there by its sha256, so loading the
    same artifact again skips extracting and hashing it (its manifest is still checked)."""
    return Artifact(path, cache_dir)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run an artifact on .npy inputs, print output shapes, save an .npz."""
    return run_command(
        argv,
        "Run an autotune artifact with numpy.",
        load_artifact,
        ArtifactError,
        ArtifactInputError,
    )


if __name__ == "__main__":
    sys.exit(main())
