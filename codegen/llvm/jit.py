"""Compile loop IR kernels to machine code in this process, and call them on numpy arrays.

    compile_kernel(func, target):
      loops  format_func(func)                  the loop IR, as printed
      llvm   build_module -> verify -> O3       the optimised LLVM IR
      asm    target machine                     assembly (made on first look)
      JIT    MCJIT                              callable CompiledKernel

Compiled kernels are cached for the process by the sha256 of the loop IR and the
target: compiling the same kernel twice returns the same object.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import functools
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, NoReturn

import llvmlite.binding as llvm
import numpy as np

from codegen.errors import CodegenError, KernelArgumentError
from codegen.llvm.emit import build_module
from codegen.llvm.legalize import legalize_vector_loops
from codegen.llvm.target import CpuTarget, host_target
from ir.tir.expr import Buffer, Var
from ir.tir.printer import format_func
from ir.tir.sizes import SizeBindingError, bind_sizes, given_sizes
from ir.tir.stmt import PrimFunc

CACHE_MAX_KERNELS = 512

# LLVM's global context is not thread-safe, and llvmlite releases the GIL in its calls.
_LLVM_LOCK = threading.RLock()
LLVM_LOCK = _LLVM_LOCK  # for other modules that parse or link LLVM IR (codegen.aot)
_CACHE: OrderedDict[str, CompiledKernel] = OrderedDict()


class CompiledKernel:
    """A kernel compiled to machine code; call it with numpy arrays, one per parameter.

    The arrays are passed without copying and must match the buffers exactly: shape,
    dtype and C-contiguous layout. Outputs are written in place. A kernel with symbolic
    dims takes arrays of any shape within its bounds; their shapes give its size
    variables.
    """

    def __init__(
        self,
        func: PrimFunc,
        target: CpuTarget,
        engine: Any,
        llvm_text: str,
    ) -> None:
        self.func = func
        self.target = target
        self._engine = engine  # owns the machine code; keep it alive
        self._llvm_text = llvm_text
        self._stages: dict[str, str] | None = None
        self._object_code: bytes | None = None
        self._sizes: dict[Var, int] | None = None  # (`sized`)
        address = engine.get_function_address(func.name)
        arguments = [ctypes.c_void_p] * len(func.params) + [ctypes.c_int64] * len(func.size_params)
        self._entry = ctypes.CFUNCTYPE(None, *arguments)(address)
        # (None: a symbolic shape, checked by `bind_sizes`)
        self._expected = [
            (buffer, np.dtype(buffer.dtype), None if buffer.dims else tuple(buffer.shape))
            for buffer in func.params
        ]

    @property
    def name(self) -> str:
        """The kernel's symbol name."""
        return self.func.name

    @property
    def stages(self) -> dict[str, str]:
        """The text of each compilation stage: "loops", "llvm" (optimised) and "asm" (as in
        `object_code`, which reads better than the JIT's absolute-address calls)."""
        if self._stages is None:
            with _LLVM_LOCK:
                module = llvm.parse_assembly(self._llvm_text)
                asm = _target_machine(self.target, "pic").emit_assembly(module)
            self._stages = {
                "loops": format_func(self.func),
                "llvm": self._llvm_text,
                "asm": str(asm),
            }
        return self._stages

    def object_code(self) -> bytes:
        """The kernel as a relocatable, position-independent ELF object, for linking into
        a shared library (needs libgomp and libm at link time when it uses them)."""
        if self._object_code is None:
            self._object_code = emit_object_code(self._llvm_text, self.target)
        return self._object_code

    def __call__(self, *arrays: object) -> None:
        """Run the kernel on `arrays` (inputs, then outputs): numpy arrays, checked here."""
        self._entry(*self._pointers(arrays, self._sizes))

    def sized(self, sizes: Mapping[Var, int]) -> CompiledKernel:
        """This kernel, called with its size variables at `sizes` (as `bind` takes them)
        wherever a call's arrays' shapes alone cannot bind them."""
        sized = copy.copy(self)
        sized._sizes = dict(sizes)
        return sized

    def bind(self, *arrays: object, sizes: Mapping[Var, int] | None = None) -> BoundKernel:
        """The kernel bound to `arrays` (checked as a call checks them once): a call
        without arguments that runs it on them again and again, at the cost of the bare
        machine-code call. The bound call keeps the arrays alive; they must stay where
        they are (not be resized). `sizes` gives a symbolic kernel's size variables (a
        model's, bound from its inputs) where the arrays' shapes alone cannot (a kernel
        whose dims are all products such as `batch * seq`)."""
        return BoundKernel(self._entry, self._pointers(arrays, sizes), arrays)

    def _pointers(
        self, arrays: tuple[object, ...], sizes: Mapping[Var, int] | None = None
    ) -> list[int]:
        """The data addresses of `arrays` (then the size variables' values, for a symbolic
        kernel: `sizes`', or those the shapes bind); KernelArgumentError naming the
        argument when one does not match its buffer."""
        expected = self._expected
        if len(arrays) != len(expected):
            names = ", ".join(buffer.name for buffer, _, _ in expected)
            raise KernelArgumentError(
                f"{self.name} takes {len(expected)} arrays ({names}); got {len(arrays)}"
            )
        pointers = []
        for position, array in enumerate(arrays):
            buffer, dtype, shape = expected[position]
            # One cheap test on the fast path (`carray`: C-contiguous, aligned, writable);
            # the slow path says what exactly is wrong.
            if (
                not isinstance(array, np.ndarray)
                or array.dtype != dtype
                or (shape is not None and array.shape != shape)
                or not array.flags.carray
            ):
                _raise_argument_error(self.name, position, buffer, array, dtype, shape)
            pointers.append(_data_address(array))
        if len(set(pointers)) != len(pointers):
            self._check_distinct(arrays, pointers)
        if self.func.size_params:
            shapes = [array.shape for array in arrays]  # type: ignore[attr-defined]
            try:
                if sizes is None:
                    values = bind_sizes(self.name, self.func.params, self.func.size_params, shapes)
                else:
                    values = given_sizes(self.name, self.func, sizes, shapes)
            except SizeBindingError as error:
                raise KernelArgumentError(str(error)) from None
            pointers.extend(values)
        return pointers

    def _check_distinct(self, arrays: tuple[object, ...], pointers: list[int]) -> None:
        """Reject two non-empty arguments that start at the same address: the kernel's
        parameters are `noalias`, so in-place calls would compute garbage."""
        for later, pointer in enumerate(pointers):
            earlier = pointers.index(pointer)
            if earlier != later and getattr(arrays[later], "size", 0) > 0:
                names = [buffer.name for buffer, _, _ in self._expected]
                raise KernelArgumentError(
                    f"{self.name}: arguments {earlier} ({names[earlier]}) and {later} "
                    f"({names[later]}) are the same memory; a kernel's buffers must not overlap"
                )

    def __repr__(self) -> str:
        return f"CompiledKernel({self.name}, target={self.target})"


class BoundKernel:
    """A compiled kernel bound to its checked arrays (`CompiledKernel.bind`)."""

    __slots__ = ("_arrays", "_entry", "_pointers")

    def __init__(self, entry: Any, pointers: list[int], arrays: tuple[object, ...]) -> None:
        self._entry = entry
        self._pointers = tuple(pointers)
        self._arrays = arrays  # keeps the memory the pointers point into alive

    def __call__(self) -> None:
        """Run the kernel on its arrays."""
        self._entry(*self._pointers)


def _data_address(array: np.ndarray[Any, Any]) -> int:
    # Several times cheaper than `array.ctypes.data`, which builds a ctypes object.
    if array.size == 0:
        return int(array.ctypes.data)
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))  # type: ignore[arg-type]
    except ValueError:  # ml_dtypes' types (int4, bfloat16, ...) export no buffer
        return int(array.ctypes.data)


def _raise_argument_error(
    kernel: str,
    position: int,
    buffer: Buffer,
    array: Any,
    dtype: np.dtype[Any],
    shape: tuple[int, ...] | None,
) -> NoReturn:
    where = f"{kernel}: argument {position} ({buffer.name})"
    wanted = f"{buffer.dtype}{list(shape) if shape is not None else list(buffer.dims)}"
    if not isinstance(array, np.ndarray):
        raise KernelArgumentError(
            f"{where} expects a numpy array {wanted}; got {type(array).__name__}"
        )
    got = f"{array.dtype}{list(array.shape)}"
    if array.dtype != dtype or (shape is not None and array.shape != shape):
        raise KernelArgumentError(f"{where} expects {wanted}; got {got}")
    if not array.flags.c_contiguous:
        raise KernelArgumentError(f"{where} expects a C-contiguous array; got a strided view")
    if not array.flags.aligned:
        raise KernelArgumentError(f"{where} expects an array aligned to its dtype")
    if not array.flags.writeable:
        raise KernelArgumentError(f"{where} is read-only; kernels take writable arrays")
    raise KernelArgumentError(f"{where} cannot be passed: {array.flags}")


def compile_kernel(func: PrimFunc, target: CpuTarget | None = None) -> CompiledKernel:
    """Compile `func` for `target` (default: this host) and return a callable kernel.

    Raises CodegenError when the loop IR cannot be compiled.
    """
    target = target or host_target()
    key = _cache_key(func, target)
    with _LLVM_LOCK:
        kernel = _CACHE.get(key)
        if kernel is not None:
            _CACHE.move_to_end(key)
            return kernel
        kernel = _compile(func, target)
        _CACHE[key] = kernel
        if len(_CACHE) > CACHE_MAX_KERNELS:
            _CACHE.popitem(last=False)
        return kernel


def clear_kernel_cache() -> None:
    """Forget every cached kernel (each is freed once nothing else refers to it)."""
    with _LLVM_LOCK:
        _CACHE.clear()


def _cache_key(func: PrimFunc, target: CpuTarget) -> str:
    # The printed loop IR leaves out the dtypes of variables and constants, which
    # change the code: key on the exact structure (repr) as well.
    text = f"{format_func(func)}\n{func!r}\n{target}\n{target.features}\n{target.triple}"
    return hashlib.sha256(text.encode()).hexdigest()


def optimized_llvm_ir(func: PrimFunc, target: CpuTarget | None = None) -> str:
    """The O3-optimised LLVM IR text of kernel `func` for `target` (default: this host),
    without compiling it to machine code (for ahead-of-time builds).

    Raises CodegenError when the loop IR cannot be compiled.
    """
    with _LLVM_LOCK:
        return str(_optimize(func, target or host_target()))


def emit_object_code(llvm_text: str, target: CpuTarget) -> bytes:
    """Compile LLVM IR text to a relocatable, position-independent ELF object for `target`."""
    with _LLVM_LOCK:
        initialize_llvm()
        module = llvm.parse_assembly(llvm_text)
        return bytes(_target_machine(target, "pic").emit_object(module))


def jit_llvm_ir(llvm_text: str, target: CpuTarget, symbol: str) -> tuple[Any, int]:
    """Compile hand-written LLVM IR text for `target` in this process: the execution engine
    (keep it alive while the code runs) and the address of function `symbol`."""
    with _LLVM_LOCK:
        initialize_llvm()
        module = llvm.parse_assembly(llvm_text)
        machine = _new_target_machine(target, "default")
        module.triple = machine.triple
        module.data_layout = str(machine.target_data)
        module.verify()
        engine = llvm.create_mcjit_compiler(module, machine)
        engine.finalize_object()
        return engine, engine.get_function_address(symbol)


def _compile(func: PrimFunc, target: CpuTarget) -> CompiledKernel:
    module = _optimize(func, target)
    llvm_text = str(module)
    if "GOMP_parallel" in llvm_text and not _load_libgomp():
        raise CodegenError(f"{func.name} has parallel loops, but libgomp was not found")
    # Machine code, in this process. The engine takes ownership of (and frees) the
    # target machine it is given, so it gets one of its own.
    engine = llvm.create_mcjit_compiler(module, _new_target_machine(target, "default"))
    engine.finalize_object()
    return CompiledKernel(func, target, engine, llvm_text)


def _optimize(func: PrimFunc, target: CpuTarget) -> Any:
    """Steps 1-3: the verified, O3-optimised llvmlite module of `func`."""
    initialize_llvm()
    # Step 1. Loop IR to LLVM IR. llvmlite raises TypeError/ValueError on ill-typed
    # instructions (e.g. a select whose sides have different dtypes).
    try:
        source = str(build_module(legalize_vector_loops(func), target))
    except (TypeError, ValueError) as error:
        raise CodegenError(f"{func.name}: cannot generate LLVM IR: {error}") from error
    # Step 2. Parse and verify: a failure here is a bug in the code generator.
    try:
        module = llvm.parse_assembly(source)
        module.verify()
    except RuntimeError as error:
        raise CodegenError(
            f"{func.name}: generated LLVM IR is invalid: {error}\n{source}"
        ) from error
    # Step 3. Optimise at O3 for the target's CPU.
    machine = _target_machine(target, "default")
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    tuning = llvm.create_pipeline_tuning_options(speed_level=3)
    tuning.loop_vectorization = True
    tuning.slp_vectorization = True
    pass_builder = llvm.create_pass_builder(machine, tuning)
    pass_builder.getModulePassManager().run(module, pass_builder)
    return module


@functools.cache
def initialize_llvm() -> None:
    """Make LLVM's native target, assembly printer and parser ready (once per process)."""
    # llvmlite >= 0.45 initialises the LLVM core itself (llvm.initialize() now raises).
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


@functools.cache
def _load_libgomp() -> bool:
    path = ctypes.util.find_library("gomp")
    if path is None:
        return False
    # At exit LLVM dlcloses the libraries it loaded, while libgomp's pool threads may
    # still be spinning after the last parallel region: unmapping their code crashes
    # the process on its way out. RTLD_NODELETE keeps libgomp mapped to the very end.
    ctypes.CDLL(path, mode=os.RTLD_GLOBAL | os.RTLD_NODELETE)
    llvm.load_library_permanently(path)
    return True


@functools.cache
def _target_machine(target: CpuTarget, relocation: str) -> Any:
    """A shared target machine for optimising and emitting text or objects."""
    return _new_target_machine(target, relocation)


# Features the code generator never uses, whatever the CPU has. SSE4a (AMD's EXTRQ and
# INSERTQ): for znver1-3 LLVM builds the lane masks of AVX2 masked loads with INSERTQ, and
# a depthwise conv over its inlined padding ran 5-16x slower with it on a Zen 3 host (the
# default kernel of 192 channels 28x28: 6.1 against 28.2 GFLOPS). Nothing else of SSE4a
# is worth keeping: LLVM has other ways to do all it does.
_DISABLED_FEATURES = ("-sse4a",)


def machine_features(target: CpuTarget) -> str:
    """The LLVM feature string kernels for `target` are compiled with: the target's, less
    the features the code generator avoids (`_DISABLED_FEATURES`)."""
    if not target.triple.startswith(("x86_64", "i386", "i686")):
        return target.features
    return ",".join(part for part in (target.features, *_DISABLED_FEATURES) if part)


def _new_target_machine(target: CpuTarget, relocation: str) -> Any:
    initialize_llvm()
    try:
        llvm_target = llvm.Target.from_triple(target.triple)
    except RuntimeError as error:
        raise CodegenError(f"LLVM cannot compile for triple {target.triple!r}: {error}") from None
    return llvm_target.create_target_machine(
        cpu=target.mcpu,
        features=machine_features(target),
        opt=3,
        reloc=relocation,
        codemodel="jitdefault" if relocation == "default" else "default",
    )
