"""Evict arrays from every level of the CPU caches, on every core (x86 `clflush`).

A kernel inside a network finds its weights where the previous inference left them, long
evicted; timed alone, call after call, it finds everything hot, which flatters schedules
that win only while their data stay in cache. `clflush` evicts a line from the whole
coherence domain, so the caches of a kernel's worker threads are emptied too, which
writing a big buffer from the timing thread does not do (the other cores keep their L2).
"""

from __future__ import annotations

import ctypes
import functools
import platform
from collections.abc import Callable, Sequence
from typing import Any

import llvmlite.binding as llvm
import numpy as np

from codegen.llvm.jit import initialize_llvm

CACHE_LINE_BYTES = 64

# evict(base, bytes): clflush every cache line of [base, base + bytes), then mfence so the
# evictions are done before the kernel's first load.
_EVICT_IR = f"""
declare void @llvm.x86.sse2.clflush(ptr)
declare void @llvm.x86.sse2.mfence()

define void @evict(ptr %base, i64 %bytes) {{
entry:
  %start = ptrtoint ptr %base to i64
  %first = and i64 %start, -{CACHE_LINE_BYTES}
  %end = add i64 %start, %bytes
  br label %check
check:
  %address = phi i64 [ %first, %entry ], [ %next, %body ]
  %more = icmp ult i64 %address, %end
  br i1 %more, label %body, label %done
body:
  %line = inttoptr i64 %address to ptr
  call void @llvm.x86.sse2.clflush(ptr %line)
  %next = add i64 %address, {CACHE_LINE_BYTES}
  br label %check
done:
  call void @llvm.x86.sse2.mfence()
  ret void
}}
"""

_Evict = Callable[[int, int], None]


@functools.cache
def _evict_function() -> tuple[Any, _Evict] | None:
    """The JIT-compiled `evict` (with the engine that keeps it alive); None off x86."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    initialize_llvm()
    module = llvm.parse_assembly(_EVICT_IR)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    address = engine.get_function_address("evict")
    function = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)(address)
    return engine, function


def can_evict() -> bool:
    """Whether `evict_arrays` works on this machine (x86: it has `clflush`)."""
    return _evict_function() is not None


def evict_arrays(arrays: Sequence[np.ndarray[Any, Any]]) -> None:
    """Evict every byte of `arrays` (each one contiguous block) from all caches of all
    cores (x86 only; see `can_evict`). The arrays' contents are unchanged."""
    compiled = _evict_function()
    if compiled is None:
        raise RuntimeError(f"cache eviction needs x86 clflush; this is {platform.machine()}")
    _, evict = compiled
    for array in arrays:
        if not (array.flags.c_contiguous or array.flags.f_contiguous):
            raise ValueError(f"cannot evict a non-contiguous array (strides {array.strides})")
        if array.nbytes:
            evict(array.ctypes.data, array.nbytes)
