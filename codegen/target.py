"""Targets: what kernels are compiled for, parsed once where a target string enters
(the command line, the REST API, a worker's registration, a record or task read back).

    llvm [-mcpu=X] [-num-cores=N] [-mattr=+a,-b] [-mtriple=T]      a CPU   (CpuTarget)
    cuda [-arch=sm_XX] [-max_threads_per_block=N] ...              a GPU   (CudaTarget)

`parse_target` gives the value; `str(target)` is its canonical string, the key records
are stored under. Below the entry points code passes the value, never the string, and
asks the backend table (`codegen.backends`) for what differs between kinds.
"""

from __future__ import annotations

from typing import TypeAlias

from codegen.cuda.target import CudaTarget, parse_cuda_target, resolve_cuda_target
from codegen.errors import TargetError
from codegen.llvm.target import CpuTarget, parse_cpu_target

Target: TypeAlias = CpuTarget | CudaTarget

KINDS = ("llvm", "cuda")


def target_kind(text: str) -> str:
    """The kind a target string names (its first word); TargetError for an unknown one."""
    words = text.split()
    if not words:
        raise TargetError("empty target string; expected e.g. 'llvm' or 'cuda -arch=sm_90'")
    if words[0] not in KINDS:
        raise TargetError(
            f"unknown target kind {words[0]!r} in {text!r}: expected llvm (a CPU, e.g. "
            "'llvm -mcpu=znver4') or cuda (a GPU, e.g. 'cuda -arch=sm_90')"
        )
    return words[0]


def parse_target(text: str, *, ask_local_gpu: bool = True) -> Target:
    """Parse a target string of either kind. Options left out of `llvm` take this host's
    values; plain `cuda` (no -arch) means the local GPU's architecture, asked through
    pycuda when `ask_local_gpu`, else refused. TargetError says what is wrong."""
    if target_kind(text) == "llvm":
        return parse_cpu_target(text)
    if ask_local_gpu:
        return resolve_cuda_target(text)
    parsed = parse_cuda_target(text)
    if not any(word.startswith("-arch=") for word in text.split()):
        raise TargetError(
            f"target {text.strip()!r} names no GPU architecture; pass one, e.g. 'cuda -arch=sm_90'"
        )
    return parsed


def as_target(target: Target | str) -> Target:
    """`target` itself, or the target a string names (`parse_target`): for the Python API's
    entry points, which take either."""
    return parse_target(target) if isinstance(target, str) else target


def canonical_target(text: str) -> str:
    """The canonical string of the target `text` names, as records are keyed (`llvm`
    becomes this host's CPU, plain `cuda` the local GPU's architecture)."""
    return str(parse_target(text))
