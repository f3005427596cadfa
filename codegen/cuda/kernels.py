"""Split a lowered kernel into CUDA kernels and prepare each for printing.

Step 1. Peel the root allocations of global scope: they become workspace buffers the
        launcher allocates. Every remaining top-level statement is one kernel launch
        (stages run one after another; a launch boundary is a grid-wide barrier).
Step 2. Read each kernel's launch configuration off its loops bound to blockIdx.* and
        threadIdx.* (a dimension is the longest loop bound to it; shorter loops are
        guarded when printed). A tag bound inside a loop bound to the same tag, or a
        global buffer allocated inside a kernel, is an error.
Step 3. Check the phase property: no loop nest over thread indices both writes and reads
        one shared buffer, and no barrier sits inside a thread loop. Then serial
        execution of the thread loops (the loop-IR interpreter) is exact.
Step 4. Insert barriers at block level: before a statement that reads shared memory
        written since the last barrier (or writes memory read since then), and at the
        end of a block-level loop whose body both writes and reads a shared buffer.
Step 5. Compact register ("local") buffers allocated outside the thread loops: when
        every access is `thread part + rest` with the same thread strides and the rest
        fits below the smallest stride, each thread keeps only its `rest` slice.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from codegen.errors import CodegenError
from ir.tir.arith import bound, linear_form
from ir.tir.expr import Buffer, IntImm, Load, PrimExpr, Var
from ir.tir.simplify import simplify
from ir.tir.stmt import Allocate, Barrier, For, IfThenElse, LetStmt, PrimFunc, Seq, Stmt, Store
from ir.tir.visit import map_expr, substitute, walk_expr, walk_stmt

BLOCK_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z")
THREAD_TAGS = ("threadIdx.x", "threadIdx.y", "threadIdx.z")


@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """Grid and block dimensions (x, y, z) of one kernel launch."""

    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)

    def extent(self, tag: str) -> int:
        """The launch extent of a blockIdx.* or threadIdx.* tag."""
        if tag in BLOCK_TAGS:
            return self.grid[BLOCK_TAGS.index(tag)]
        return self.block[THREAD_TAGS.index(tag)]

    @property
    def threads(self) -> int:
        """Threads per block."""
        return self.block[0] * self.block[1] * self.block[2]


@dataclass(frozen=True)
class DeviceKernel:
    """One kernel launch: its body, launch configuration and the buffers it takes."""

    name: str
    body: Stmt
    launch: LaunchConfig
    params: tuple[Buffer, ...]
    shared_bytes: int
    local_bytes: int  # per thread, after compaction
    compacted: tuple[str, ...] = ()  # local buffers reduced to a per-thread slice


@dataclass(frozen=True)
class KernelPlan:
    """A lowered function as a sequence of kernel launches over its buffers."""

    func: PrimFunc
    workspace: tuple[Buffer, ...]
    kernels: tuple[DeviceKernel, ...]


def _itemsize(dtype: str) -> int:
    return 1 if dtype == "bool" else np.dtype(dtype).itemsize


def _is_thread_loop(stmt: Stmt) -> bool:
    return (
        isinstance(stmt, For) and stmt.kind == "thread_binding" and stmt.thread_tag in THREAD_TAGS
    )


def _buffers_accessed(stmt: Stmt) -> tuple[set[str], set[str]]:
    """Names of buffers read and written under `stmt`."""
    reads: set[str] = set()
    writes: set[str] = set()
    for node in walk_stmt(stmt):
        for expr in _own_exprs(node):
            reads |= {n.buffer.name for n in walk_expr(expr) if isinstance(n, Load)}
        if isinstance(node, Store):
            writes.add(node.buffer.name)
    return reads, writes


def _own_exprs(stmt: Stmt) -> tuple[PrimExpr, ...]:
    if isinstance(stmt, For):
        return (stmt.extent,)
    if isinstance(stmt, Store):
        return (stmt.index, stmt.value)
    if isinstance(stmt, IfThenElse):
        return (stmt.condition,)
    if isinstance(stmt, LetStmt):
        return (stmt.value,)
    return ()


def _shared_names(stmt: Stmt) -> set[str]:
    return {
        node.buffer.name
        for node in walk_stmt(stmt)
        if isinstance(node, Allocate) and node.buffer.scope == "shared"
    }


# Step 2 ---------------------------------------------------------------------------------


def launch_config(kernel: Stmt) -> LaunchConfig:
    """The grid and block dimensions of a kernel body (module docstring, Step 2)."""
    extents: dict[str, int] = {}

    def visit(stmt: Stmt, bound_tags: frozenset[str]) -> None:
        if isinstance(stmt, Allocate) and stmt.buffer.scope == "global":
            raise CodegenError(
                f"global buffer {stmt.buffer.name} is allocated inside a kernel; "
                "compute it at the root or give it shared or local scope"
            )
        if isinstance(stmt, For) and stmt.kind == "thread_binding" and stmt.thread_tag != "vthread":
            tag = stmt.thread_tag
            if tag in bound_tags:
                raise CodegenError(f"a loop bound to {tag} is nested in another loop bound to it")
            if not isinstance(stmt.extent, IntImm):
                raise CodegenError(f"the loop bound to {tag} has a non-constant extent")
            extents[tag] = max(extents.get(tag, 1), stmt.extent.value)
            bound_tags = bound_tags | {tag}
        for child in _children(stmt):
            visit(child, bound_tags)

    visit(kernel, frozenset())
    grid = tuple(extents.get(tag, 1) for tag in BLOCK_TAGS)
    block = tuple(extents.get(tag, 1) for tag in THREAD_TAGS)
    return LaunchConfig(grid, block)  # type: ignore[arg-type]


def _children(stmt: Stmt) -> tuple[Stmt, ...]:
    if isinstance(stmt, For | Allocate | LetStmt):
        return (stmt.body,)
    if isinstance(stmt, IfThenElse):
        return (stmt.then_case,) if stmt.else_case is None else (stmt.then_case, stmt.else_case)
    if isinstance(stmt, Seq):
        return stmt.stmts
    return ()


def _thread_nests(stmt: Stmt) -> Iterator[For]:
    """The outermost loops bound to a thread index under `stmt`."""
    if _is_thread_loop(stmt):
        assert isinstance(stmt, For)
        yield stmt
        return
    for child in _children(stmt):
        yield from _thread_nests(child)


# Step 3 ---------------------------------------------------------------------------------


def check_phases(kernel: Stmt) -> None:
    """Raise CodegenError when a thread loop nest both writes and reads a shared buffer,
    or holds a barrier: serial execution of the threads would then differ from the GPU."""
    shared = _shared_names(kernel)
    for nest in _thread_nests(kernel):
        if any(isinstance(node, Barrier) for node in walk_stmt(nest)):
            raise CodegenError(f"a barrier inside the thread loop {nest.var.name}")
        reads, writes = _buffers_accessed(nest)
        both = sorted(reads & writes & shared)
        if both:
            raise CodegenError(
                f"shared buffer {both[0]} is written and read in one thread loop nest "
                f"({nest.var.name}); other threads' writes would not be visible"
            )


# Step 4 ---------------------------------------------------------------------------------


@dataclass
class _SyncState:
    written: set[str] = field(default_factory=set)
    read: set[str] = field(default_factory=set)


class _BarrierInserter:
    def __init__(self, shared: set[str]) -> None:
        self.shared = shared

    def leaf(self, stmt: Stmt, state: _SyncState) -> list[Stmt]:
        reads, writes = _buffers_accessed(stmt)
        reads &= self.shared
        writes &= self.shared
        out: list[Stmt] = []
        if reads & state.written or writes & state.read:
            out.append(Barrier())
            state.written.clear()
            state.read.clear()
        state.written |= writes
        state.read |= reads
        out.append(stmt)
        return out

    def run(self, stmt: Stmt, state: _SyncState) -> list[Stmt]:
        if _is_thread_loop(stmt) or isinstance(stmt, Store):
            return self.leaf(stmt, state)
        if isinstance(stmt, Seq):
            out: list[Stmt] = []
            for child in stmt.stmts:
                out.extend(self.run(child, state))
            return out
        if isinstance(stmt, Allocate | LetStmt):
            return [replace(stmt, body=_seq(self.run(stmt.body, state)))]
        if isinstance(stmt, IfThenElse):
            else_state = _SyncState(set(state.written), set(state.read))
            then_case = _seq(self.run(stmt.then_case, state))
            else_case = None
            if stmt.else_case is not None:
                else_case = _seq(self.run(stmt.else_case, else_state))
            state.written |= else_state.written
            state.read |= else_state.read
            return [replace(stmt, then_case=then_case, else_case=else_case)]
        if isinstance(stmt, For):
            body = self.run(stmt.body, state)
            reads, writes = _buffers_accessed(stmt.body)
            if reads & writes & self.shared and stmt.kind != "thread_binding":
                # The next iteration overwrites what this one read.
                body.append(Barrier())
                state.written.clear()
                state.read.clear()
            return [replace(stmt, body=_seq(body))]
        return [stmt]


def _seq(stmts: list[Stmt]) -> Stmt:
    return stmts[0] if len(stmts) == 1 else Seq(tuple(stmts))


def insert_barriers(kernel: Stmt) -> Stmt:
    """The kernel with barriers between phases that share memory (docstring, Step 4)."""
    shared = _shared_names(kernel)
    if not shared:
        return kernel
    return _seq(_BarrierInserter(shared).run(kernel, _SyncState()))


# Step 5 ---------------------------------------------------------------------------------


@dataclass
class _Access:
    index: PrimExpr
    threads: dict[Var, str]
    ranges: dict[Var, tuple[int, int]]


def _collect_accesses(
    stmt: Stmt,
    name: str,
    threads: dict[Var, str],
    ranges: dict[Var, tuple[int, int]],
    out: list[_Access],
) -> None:
    for expr in _own_exprs(stmt):
        for node in walk_expr(expr):
            if isinstance(node, Load) and node.buffer.name == name:
                out.append(_Access(node.index, dict(threads), dict(ranges)))
    if isinstance(stmt, Store) and stmt.buffer.name == name:
        out.append(_Access(stmt.index, dict(threads), dict(ranges)))
    if isinstance(stmt, For):
        inner_ranges = dict(ranges)
        if isinstance(stmt.extent, IntImm):
            inner_ranges[stmt.var] = (0, stmt.extent.value - 1)
        inner_threads = threads
        if _is_thread_loop(stmt):
            inner_threads = {**threads, stmt.var: stmt.thread_tag}
        _collect_accesses(stmt.body, name, inner_threads, inner_ranges, out)
        return
    if isinstance(stmt, LetStmt) and isinstance(stmt.value, IntImm):
        value = stmt.value.value
        _collect_accesses(stmt.body, name, threads, {**ranges, stmt.var: (value, value)}, out)
        return
    for child in _children(stmt):
        _collect_accesses(child, name, threads, ranges, out)


def _slice_size(accesses: list[_Access], launch: LaunchConfig) -> int | None:
    """The per-thread slice of a local buffer, or None when it cannot be proven private."""
    strides: dict[str, int] | None = None
    size = 0
    for access in accesses:
        form = linear_form(access.index)
        if form is None:
            return None
        terms, _ = form
        mine: dict[str, int] = {}
        for atom, coef in terms.items():
            if isinstance(atom, Var) and atom in access.threads:
                mine[access.threads[atom]] = coef
            elif any(isinstance(v, Var) and v in access.threads for v in walk_expr(atom)):
                return None
        if strides is None:
            strides = mine
        elif strides != mine:
            return None
        rest = substitute(access.index, {var: IntImm(0) for var in access.threads})
        low, high = bound(rest, access.ranges)
        if low is None or high is None or low < 0:
            return None
        size = max(size, high + 1)
    if not strides:
        return None
    # Thread parts must not overlap: strides ascending, each past the last one's reach.
    reach = size
    for tag, stride in sorted(strides.items(), key=lambda item: item[1]):
        if stride < reach:
            return None
        reach = stride * launch.extent(tag)
    return size


def _rewrite_local(stmt: Stmt, old: Buffer, new: Buffer, thread_vars: set[Var]) -> Stmt:
    zeros: Mapping[Var, PrimExpr] = {var: IntImm(0) for var in thread_vars}

    def fix_expr(expr: PrimExpr) -> PrimExpr:
        def visit(node: PrimExpr) -> PrimExpr | None:
            if isinstance(node, Load) and node.buffer == old:
                return Load(new, simplify(substitute(map_expr(node.index, visit), zeros)))
            return None

        return map_expr(expr, visit)

    def walk(node: Stmt) -> Stmt:
        if isinstance(node, Store):
            index, value = fix_expr(node.index), fix_expr(node.value)
            if node.buffer == old:
                return Store(new, simplify(substitute(index, zeros)), value)
            return Store(node.buffer, index, value)
        if isinstance(node, For):
            return replace(node, extent=fix_expr(node.extent), body=walk(node.body))
        if isinstance(node, Allocate):
            return replace(node, body=walk(node.body))
        if isinstance(node, LetStmt):
            return replace(node, value=fix_expr(node.value), body=walk(node.body))
        if isinstance(node, IfThenElse):
            else_case = walk(node.else_case) if node.else_case is not None else None
            return replace(
                node,
                condition=fix_expr(node.condition),
                then_case=walk(node.then_case),
                else_case=else_case,
            )
        if isinstance(node, Seq):
            return Seq(tuple(walk(child) for child in node.stmts))
        return node

    return walk(stmt)


def compact_locals(kernel: Stmt, launch: LaunchConfig) -> tuple[Stmt, list[str]]:
    """Shrink block-level local buffers to per-thread slices (docstring, Step 5); the new
    kernel and the names of the buffers compacted."""
    if launch.threads == 1:
        return kernel, []
    compacted: list[str] = []

    def visit(stmt: Stmt) -> Stmt:
        if _is_thread_loop(stmt):
            return stmt
        if isinstance(stmt, Allocate):
            body = visit(stmt.body)
            if stmt.buffer.scope != "local":
                return replace(stmt, body=body)
            accesses: list[_Access] = []
            _collect_accesses(body, stmt.buffer.name, {}, {}, accesses)
            size = _slice_size(accesses, launch)
            if size is None or size >= stmt.buffer.size:
                return replace(stmt, body=body)
            new = Buffer(stmt.buffer.name, (size,), stmt.buffer.dtype, "local")
            thread_vars = {var for access in accesses for var in access.threads}
            compacted.append(stmt.buffer.name)
            return Allocate(new, _rewrite_local(body, stmt.buffer, new, thread_vars))
        if isinstance(stmt, For | LetStmt):
            return replace(stmt, body=visit(stmt.body))
        if isinstance(stmt, IfThenElse):
            else_case = visit(stmt.else_case) if stmt.else_case is not None else None
            return replace(stmt, then_case=visit(stmt.then_case), else_case=else_case)
        if isinstance(stmt, Seq):
            return Seq(tuple(visit(child) for child in stmt.stmts))
        return stmt

    return visit(kernel), compacted


# The pipeline -----------------------------------------------------------------------------


def _scope_bytes(kernel: Stmt, scope: str) -> int:
    return sum(
        node.buffer.size * _itemsize(node.buffer.dtype)
        for node in walk_stmt(kernel)
        if isinstance(node, Allocate) and node.buffer.scope == scope
    )


def _used_params(kernel: Stmt, candidates: tuple[Buffer, ...]) -> tuple[Buffer, ...]:
    reads, writes = _buffers_accessed(kernel)
    used = reads | writes
    return tuple(buffer for buffer in candidates if buffer.name in used)


def plan_kernels(func: PrimFunc) -> KernelPlan:
    """Split `func` into kernel launches ready for printing (the module docstring)."""
    if func.size_params:
        symbolic = ", ".join(var.name for var in func.size_params)
        raise CodegenError(
            f"{func.name} has symbolic dims ({symbolic}); CUDA kernels take static shapes only"
        )
    # Step 1.
    body = func.body
    workspace: list[Buffer] = []
    while isinstance(body, Allocate) and body.buffer.scope == "global":
        workspace.append(body.buffer)
        body = body.body
    items = body.stmts if isinstance(body, Seq) else (body,)
    buffers = (*func.params, *workspace)
    kernels: list[DeviceKernel] = []
    for index, item in enumerate(items):
        # Steps 2 to 5.
        launch = launch_config(item)
        check_phases(item)
        synced = insert_barriers(item)
        compact, names = compact_locals(synced, launch)
        kernels.append(
            DeviceKernel(
                name=f"{func.name}_kernel{index}",
                body=compact,
                launch=launch,
                params=_used_params(compact, buffers),
                shared_bytes=_scope_bytes(compact, "shared"),
                local_bytes=_scope_bytes(compact, "local"),
                compacted=tuple(names),
            )
        )
    return KernelPlan(func, tuple(workspace), tuple(kernels))
