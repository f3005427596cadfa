"""State shared while one kernel is emitted: the module, and per function the builder,
variable bindings, buffer pointers and the vector lane count in effect."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import llvmlite.ir as ir

from codegen.errors import CodegenError
from codegen.llvm.target import CpuTarget
from ir.tir.arith import IntervalCache
from ir.tir.expr import Buffer, PrimExpr, Var

ALLOCA_ALIGN_BYTES = 64


@dataclass
class ModuleContext:
    """The module being built and names handed out in it."""

    module: ir.Module
    target: CpuTarget
    kernel_name: str
    # The kernel's integer variables' ranges (`codegen.llvm.value_ranges`), and the
    # intervals of expressions worked out from them.
    var_ranges: dict[Var, tuple[int, int]] = field(default_factory=dict)
    interval_cache: IntervalCache = field(default_factory=dict)
    _name_counts: dict[str, int] = field(default_factory=dict)

    def unique_name(self, suffix: str) -> str:
        """A fresh function name `<kernel>_<suffix><n>`."""
        count = self._name_counts.get(suffix, 0)
        self._name_counts[suffix] = count + 1
        return f"{self.kernel_name}_{suffix}{count}"

    def declare(self, name: str, function_type: Any) -> Any:
        """The function `name` of the module, declared with `function_type` if new."""
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        return ir.Function(self.module, function_type, name)


@dataclass
class FunctionContext:
    """Where code goes now and what the loop IR names mean there.

    `lanes` > 1 while the body of a vectorized loop is emitted: `vector_var` is then
    bound to the lane vector <0, 1, ..., lanes-1>. `vector_lets` holds let-bound
    values that depend on it (kept symbolic so index analysis can look through
    them); `opaque_vars` holds those it cannot look through. `mask`, when set, is the
    <lanes x i1> vector of lanes whose values are wanted: the side of a select that
    other lanes take must not touch memory (or divide) for them.
    """

    module_ctx: ModuleContext
    function: Any
    builder: ir.IRBuilder
    entry_builder: ir.IRBuilder
    in_parallel: bool = False
    env: dict[Var, Any] = field(default_factory=dict)
    buffers: dict[Buffer, Any] = field(default_factory=dict)
    non_negative: set[Var] = field(default_factory=set)
    lanes: int = 1
    vector_var: Var | None = None
    vector_lets: dict[Var, PrimExpr] = field(default_factory=dict)
    opaque_vars: set[Var] = field(default_factory=set)
    mask: Any = None
    # Buffers allocated on this thread's stack: a masked store to one whose lanes all lie
    # in it may write every lane (the others' old values), which keeps it in registers.
    stack_buffers: set[Buffer] = field(default_factory=set)
    _free_allocas: dict[tuple[str, int], list[Any]] = field(default_factory=dict)

    @property
    def target(self) -> CpuTarget:
        """The target being compiled for."""
        return self.module_ctx.target

    def lookup(self, var: Var) -> Any:
        """The LLVM value bound to `var`."""
        try:
            return self.env[var]
        except KeyError:
            raise CodegenError(
                f"variable {var.name!r} is used outside the loop or let that binds it"
            ) from None

    def pointer(self, buffer: Buffer) -> Any:
        """The base pointer of `buffer`."""
        try:
            return self.buffers[buffer]
        except KeyError:
            raise CodegenError(
                f"buffer {buffer.name!r} is neither a kernel parameter nor allocated here"
            ) from None

    @contextmanager
    def bind(self, var: Var, value: Any, non_negative: bool = False) -> Iterator[None]:
        """Bind `var` to `value` for the duration of the block (shadowing, then restoring)."""
        saved = self.env.get(var)
        was_non_negative = var in self.non_negative
        self.env[var] = value
        if non_negative:
            self.non_negative.add(var)
        else:
            self.non_negative.discard(var)
        try:
            yield
        finally:
            if saved is None:
                del self.env[var]
            else:
                self.env[var] = saved
            if was_non_negative:
                self.non_negative.add(var)
            else:
                self.non_negative.discard(var)

    @contextmanager
    def bind_buffer(self, buffer: Buffer, pointer: Any) -> Iterator[None]:
        """Make `buffer` live at `pointer` for the duration of the block."""
        saved = self.buffers.get(buffer)
        self.buffers[buffer] = pointer
        try:
            yield
        finally:
            if saved is None:
                del self.buffers[buffer]
            else:
                self.buffers[buffer] = saved

    @contextmanager
    def stack_array(self, element_type: Any, count: int) -> Iterator[Any]:
        """A 64-byte aligned stack array, allocated once in the entry block and reused by
        allocations whose lifetimes do not overlap (unrolled copies, sibling scopes)."""
        key = (str(element_type), count)
        pool = self._free_allocas.setdefault(key, [])
        if pool:
            pointer = pool.pop()
        else:
            pointer = self.entry_builder.alloca(ir.ArrayType(element_type, count))
            pointer.align = ALLOCA_ALIGN_BYTES
            pointer.type = ir.PointerType()  # opaque pointers, as LLVM prints them
        try:
            yield pointer
        finally:
            pool.append(pointer)

    def entry_alloca(self, type_: Any) -> Any:
        """A fresh stack slot of `type_` in the entry block (not pooled)."""
        pointer = self.entry_builder.alloca(type_)
        pointer.type = ir.PointerType()
        return pointer


def new_function_context(
    module_ctx: ModuleContext, function: Any, in_parallel: bool = False
) -> FunctionContext:
    """A context for emitting `function`'s body: an `entry` block for stack slots that
    falls through to `body`, where the builder starts. Call `finish_function` at the end."""
    entry = function.append_basic_block("entry")
    body = function.append_basic_block("body")
    return FunctionContext(
        module_ctx=module_ctx,
        function=function,
        builder=ir.IRBuilder(body),
        entry_builder=ir.IRBuilder(entry),
        in_parallel=in_parallel,
    )


def finish_function(ctx: FunctionContext) -> None:
    """Close the entry block (branch to the body) and return from the current block."""
    ctx.entry_builder.branch(ctx.function.basic_blocks[1])
    ctx.builder.ret_void()
