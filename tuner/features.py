"""Features of a lowered kernel for the cost model, read off the loop IR.

In the spirit of Ansor's per-store features (`src/auto_scheduler/feature.cc`): every
`Store` of the kernel is described by the arithmetic it does, the loops around it and the
memory it touches, each count multiplied by the store's trip count (the product of the
extents of its enclosing loops). The kernel's vector then has a fixed length:

    [ sum over stores of S | element-wise max over stores of S | S of the main store | K ]

where S is the per-store vector (`STORE_FEATURES`), the main store is the one with the
most float operations (ties: the larger trip count, then the first), and K describes the
whole kernel (`KERNEL_FEATURES`). Every entry is log-scaled as log2(1 + x) at the end;
`FEATURE_NAMES` names each position ("sum.flops", "main.vector_len", "kernel.stores"),
all of them in `tuner.feature_schema`.

Memory regions are estimated from the flattened index of each access: the index is split
into `coef * atom` terms (an atom is a loop variable, or a floordiv / floormod / other
non-linear piece whose range comes from the loop ranges), and the elements an access
touches while the loops from level L inwards run are min(product of the varying atoms'
extents, span + 1), span being the sum of |coef| x (extent - 1). That is exact for
row-major tiles and for overlapping convolution windows, and an estimate otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ir.schedule.hardware import CoreFacts
from ir.tir.arith import Interval, interval
from ir.tir.expr import (
    Binary,
    Buffer,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Load,
    PrimExpr,
    Select,
    Var,
)
from ir.tir.stmt import Allocate, For, IfThenElse, LetStmt, PrimFunc, Seq, Stmt, Store
from ir.tir.visit import expr_children
from tuner.feature_schema import (
    BUFFER_FIELDS,
    BUFFER_SLOTS,
    CACHE_LINE_BYTES,
    KERNEL_FEATURES,
    NUM_FEATURES,
    STORE_FEATURES,
    VECTOR_BYTES,
)

TYPICAL_CORE = CoreFacts()  # the caches features are measured against where none are named
_S = {name: index for index, name in enumerate(STORE_FEATURES)}
_K = {name: index for index, name in enumerate(KERNEL_FEATURES)}
_NUM_STORE = len(STORE_FEATURES)
_BUFFER_BASE = _S["buf0.bytes"]
_STRIDE_ZERO, _STRIDE_ONE, _STRIDE_OTHER = 0, 1, 2
# Store-row positions read or written per access (`_S` lookups cost a hash each).
_UNIQUE_LINES, _LOCAL_BYTES, _LOADS, _GATHER_LOADS = (
    _S[name] for name in ("unique_lines", "local_bytes", "loads", "gather_loads")
)
_BYTES_STORED, _UNIQUE_BYTES_STORED, _BYTES_LOADED, _UNIQUE_BYTES_LOADED = (
    _S[name]
    for name in ("bytes_stored", "unique_bytes_stored", "bytes_loaded", "unique_bytes_loaded")
)
_STRIDE_BYTES = tuple(_S[name] for name in ("stride0_bytes", "stride1_bytes", "strided_bytes"))
_REUSE, _ARITH_INTENSITY, _FLOPS = _S["reuse"], _S["arith_intensity"], _S["flops"]
_TRAFFIC_L1, _TRAFFIC_L2 = _S["traffic_l1"], _S["traffic_l2"]
_LANE_USE = _S["vector_lane_use"]
_REGISTER_KINDS = ("unrolled", "vectorized")
_STORE_CHAINS, _STORE_CHAINS_TILE = _S["store_chains"], _S["store_chains_tile"]
_RUN_FIELDS = (
    (("vectorized",), _S["store_run_vector"], _S["loads_per_iteration_vector"]),
    (_REGISTER_KINDS, _S["store_run_tile"], _S["loads_per_iteration_tile"]),
)
_FLOAT_OPS = {"add": "float_add", "sub": "float_add", "mul": "float_mul", "div": "float_div"}
_FLOAT_OPS.update({"min": "float_minmax", "max": "float_minmax"})
_FLOP_NAMES = (
    "float_add",
    "float_mul",
    "float_div",
    "float_minmax",
    "float_math",
    "float_select_cmp",
)
_FLOP_FIELDS = tuple(_S[name] for name in _FLOP_NAMES)
_LOOP_KIND_FIELDS = tuple(
    (kind, _S[f"{kind}_loops"], _S["vector_len" if kind == "vectorized" else f"{kind}_extent"])
    for kind in ("serial", "parallel", "vectorized", "unrolled")
)


@dataclass(slots=True)  # (not frozen: a frozen dataclass's __init__ costs twice as much)
class _Loop:
    var: Var
    extent: int
    kind: str
    sole: bool  # its body is one loop or one store (nothing runs between its iterations)


@dataclass(slots=True)
class _Access:
    """One load or store: its buffer and how its index moves with the loops."""

    buffer: Buffer
    itemsize: int
    is_store: bool
    local: bool
    footprints: list[int]  # elements touched by the loops from level L inwards, L = 0..depth
    stride_class: int
    min_stride: int  # smallest |coef| of a varying term (elements), 0 when none varies
    index_ops: int  # integer operations computing the index


class _Kernel:
    """Walks one PrimFunc and collects per-store rows and kernel totals."""

    def __init__(self, func: PrimFunc, core: CoreFacts) -> None:
        self.func = func
        self.traffic_fields = ((_TRAFFIC_L1, core.l1_bytes), (_TRAFFIC_L2, core.l2_bytes))
        # Rows and kernel totals are lists of Python floats until `assemble` (the same
        # float64 arithmetic as numpy's, without a numpy scalar per element access).
        self.rows: list[list[float]] = []
        self.kernel = [0.0] * len(KERNEL_FEATURES)
        self.loops: list[_Loop] = []
        self.ranges: dict[Var, Interval] = {}
        self.depth_of: dict[str, int] = {}  # loop variable name -> level (names are unique)
        self.local_buffers: set[str] = set()
        self.guards = 0
        # Non-linear index atoms of the current store (ranges differ between loop nests).
        self.atom_cache: dict[PrimExpr, tuple[int, int]] = {}
        # Index analyses of the current store by node identity (the node kept beside it).
        self.index_cache: dict[int, tuple[PrimExpr, list[int], int, int, int]] = {}

    # -- statements ------------------------------------------------------------------------

    def run(self) -> np.ndarray:
        kernel = self.kernel
        kernel[_K["param_bytes"]] = float(
            sum(b.size * _itemsize(b.dtype) for b in self.func.params)
        )
        self.visit(self.func.body)
        kernel[_K["stores"]] = float(len(self.rows))
        kernel[_K["loads"]] = sum(row[_S["loads"]] for row in self.rows)
        return self.assemble()

    def visit(self, stmt: Stmt) -> None:
        kind = type(stmt)
        if kind is Seq:
            assert isinstance(stmt, Seq)
            for child in stmt.stmts:
                self.visit(child)
        elif kind is For:
            assert isinstance(stmt, For)
            self.visit_for(stmt)
        elif kind is Store:
            assert isinstance(stmt, Store)
            self.rows.append(self.store_row(stmt))
        elif kind is Allocate:
            assert isinstance(stmt, Allocate)
            self.visit_allocate(stmt)
        elif kind is IfThenElse:
            assert isinstance(stmt, IfThenElse)
            self.kernel[_K["guards"]] += 1
            self.guards += 1
            self.visit(stmt.then_case)
            if stmt.else_case is not None:
                self.visit(stmt.else_case)
            self.guards -= 1
        elif kind is LetStmt:
            assert isinstance(stmt, LetStmt)
            self.kernel[_K["lets"]] += 1
            self.ranges[stmt.var] = interval(stmt.value, self.ranges, None)
            self.visit(stmt.body)
            del self.ranges[stmt.var]

    def visit_for(self, stmt: For) -> None:
        if not self.loops:
            self.kernel[_K["loop_nests"]] += 1
        bound = stmt.extent
        # (`_extent` inlined for a constant extent, which most loops have)
        extent = max(0, int(bound.value)) if type(bound) is IntImm else _extent(bound, self.ranges)  # type: ignore[attr-defined]
        self.kernel[_K["loops"]] += 1
        self.depth_of[stmt.var.name] = len(self.loops)
        body_kind = type(stmt.body)
        kind = stmt.kind
        if kind == "thread_binding":
            tag = stmt.thread_tag
            kind = (
                "block"
                if tag.startswith("blockIdx.")
                else "thread"
                if tag.startswith("threadIdx.")
                else "serial"  # a vthread runs serially inside its thread
            )
        self.loops.append(_Loop(stmt.var, extent, kind, body_kind is For or body_kind is Store))
        self.ranges[stmt.var] = (0, extent - 1 if extent > 0 else 0)
        self.visit(stmt.body)
        self.loops.pop()
        del self.ranges[stmt.var]
        del self.depth_of[stmt.var.name]

    def visit_allocate(self, stmt: Allocate) -> None:
        buffer = stmt.buffer
        size = buffer.size * _itemsize(buffer.dtype)
        kernel = self.kernel
        kernel[_K["allocations"]] += 1
        kernel[_K["max_alloc_bytes"]] = float(max(kernel[_K["max_alloc_bytes"]], size))
        if buffer.scope == "local" or self.loops:
            kernel[_K["alloc_bytes_local"]] += size
            self.local_buffers.add(buffer.name)
        else:
            kernel[_K["alloc_bytes_global"]] += size
        self.visit(stmt.body)

    # -- one store -------------------------------------------------------------------------

    def store_row(self, store: Store) -> list[float]:
        row = [0.0] * _NUM_STORE
        loops = self.loops
        trip = math.prod(loop.extent for loop in loops)
        self.atom_cache.clear()
        counts, loads = _count_ops(store.value)
        row[_S["trip"]] = float(trip)
        for name, value in counts.items():
            row[_S[name]] = float(value * trip)
        row[_S["flops"]] = sum(row[index] for index in _FLOP_FIELDS)
        self.loop_features(row, trip)
        accesses = [self.access(store.buffer, store.index, True)]
        accesses.extend(self.access(load.buffer, load.index, False) for load in loads)
        self.index_cache.clear()
        row[_S["int_ops"]] += sum(acc.index_ops for acc in accesses) * trip
        self.memory_features(row, accesses, trip)
        return row

    def loop_features(self, row: list[float], trip: int) -> None:
        loops = self.loops
        row[_S["depth"]] = float(len(loops))
        row[_S["guards"]] = float(self.guards)
        products = {
            "serial": 1,
            "parallel": 1,
            "vectorized": 1,
            "unrolled": 1,
            "block": 1,
            "thread": 1,
        }
        numbers = dict.fromkeys(products, 0)
        for loop in loops:
            kind = loop.kind if loop.kind in products else "serial"
            products[kind] *= loop.extent
            numbers[kind] += 1
        for kind, loops_field, extent_field in _LOOP_KIND_FIELDS:
            row[loops_field] = float(numbers[kind])
            row[extent_field] = float(products[kind] if numbers[kind] else 0)
        if loops:
            innermost = loops[-1]
            row[_S["innermost_extent"]] = float(innermost.extent)
            if innermost.kind == "vectorized":
                row[_S["innermost_vector_len"]] = float(innermost.extent)
        if numbers["block"]:
            row[_S["gpu_blocks"]] = float(products["block"])
        if numbers["thread"]:
            row[_S["gpu_threads"]] = float(products["thread"])
        workers = products["parallel"] * products["block"] * products["thread"]
        row[_S["work_per_thread"]] = trip / max(1, workers)

    def access(self, buffer: Buffer, index: PrimExpr, is_store: bool) -> _Access:
        # An update reads the element it stores (the same index object): analyse it once.
        movement = self.index_cache.get(id(index))
        if movement is None or movement[0] is not index:
            movement = (index, *self.index_movement(index))
            self.index_cache[id(index)] = movement
        _, footprints, stride_class, min_stride, index_ops = movement
        local = buffer.scope == "local" or buffer.name in self.local_buffers
        return _Access(
            buffer,
            _itemsize(buffer.dtype),
            is_store,
            local,
            footprints,
            stride_class,
            min_stride,
            index_ops,
        )

    def index_movement(self, index: PrimExpr) -> tuple[list[int], int, int, int]:
        """(footprints, stride class, min stride, index ops) of an index in these loops."""
        loops = self.loops
        depth = len(loops)
        terms: dict[str | PrimExpr, int] = {}
        index_ops = _linear(index, 1, terms)
        # Each varying term: (deepest loop level it moves with, extent, |coef|).
        varying: list[tuple[int, int, int]] = []
        innermost_name = loops[-1].var.name if loops else ""
        stride_class = _STRIDE_ZERO
        min_stride = 0
        depth_of = self.depth_of
        for atom, coef in terms.items():
            if coef == 0:
                continue
            if type(atom) is str:
                level = depth_of.get(atom, -1)
                extent = loops[level].extent if level >= 0 else self.let_width(atom)
            else:
                assert isinstance(atom, PrimExpr)
                level, extent = self.atom_extent(atom)
            if extent <= 1:
                continue
            magnitude = abs(coef)
            varying.append((level, extent, magnitude))
            if min_stride == 0 or magnitude < min_stride:
                min_stride = magnitude
            if level == depth - 1:
                # The term moves with the innermost loop: unit stride only as that very
                # loop variable with coefficient 1.
                if atom != innermost_name or magnitude != 1:
                    stride_class = _STRIDE_OTHER
                elif stride_class == _STRIDE_ZERO:
                    stride_class = _STRIDE_ONE
        footprints = [1] * (depth + 1)
        if varying:
            varying.sort(reverse=True)
            # Walk levels inwards-out: level L's footprint counts the terms that move with
            # loop L or deeper, so it changes only at the levels where terms start moving.
            product, span, upper = 1, 0, depth  # footprints[upper:] are final
            for level, extent, magnitude in varying:
                if level < 0:  # (a let variable's term: no loop level of its own)
                    break
                if level < upper - 1:
                    footprints[level + 1 : upper] = [min(product, span + 1)] * (upper - 1 - level)
                upper = level + 1
                product *= extent
                span += magnitude * (extent - 1)
            footprints[:upper] = [min(product, span + 1)] * upper
        return footprints, stride_class, min_stride, index_ops

    def let_width(self, name: str) -> int:
        """Values a non-loop variable (a let-bound tail index) takes; 1 when unknown."""
        for var, bounds in self.ranges.items():
            if var.name == name and var.name not in self.depth_of:
                return _width(bounds)
        return 1

    def atom_extent(self, atom: PrimExpr) -> tuple[int, int]:
        """(deepest loop level a non-linear atom depends on, number of values it takes)."""
        cached = self.atom_cache.get(atom)
        if cached is not None:
            return cached
        level = max((self.depth_of.get(var.name, -1) for var in _vars_of(atom)), default=-1)
        result = (level, _width(interval(atom, self.ranges, None)) if level >= 0 else 1)
        self.atom_cache[atom] = result
        return result

    def memory_features(self, row: list[float], accesses: list[_Access], trip: int) -> None:
        loops = self.loops
        depth = len(loops)
        vectorized_inner = bool(loops) and loops[-1].kind == "vectorized"
        working_sets = [0] * (depth + 1)
        per_buffer: dict[str, list[float]] = {}
        touched = unique = 0.0
        for acc in accesses:
            size = acc.itemsize
            footprints = acc.footprints
            unique_bytes = footprints[0] * size
            touched_bytes = trip * size
            touched += touched_bytes
            unique += unique_bytes
            working_sets = [
                total + count * size for total, count in zip(working_sets, footprints, strict=True)
            ]
            lines = _lines(footprints[0], acc.min_stride, size)
            row[_UNIQUE_LINES] += lines
            if acc.local:
                row[_LOCAL_BYTES] += touched_bytes
            if acc.is_store:
                row[_BYTES_STORED] += touched_bytes
                row[_UNIQUE_BYTES_STORED] += unique_bytes
            else:
                row[_LOADS] += 1
                row[_BYTES_LOADED] += touched_bytes
                row[_UNIQUE_BYTES_LOADED] += unique_bytes
                row[_STRIDE_BYTES[acc.stride_class]] += touched_bytes
                if vectorized_inner and acc.stride_class == _STRIDE_OTHER:
                    row[_GATHER_LOADS] += trip
            slot = per_buffer.get(acc.buffer.name)
            if slot is None:
                slot = per_buffer[acc.buffer.name] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
            slot[0] += touched_bytes
            slot[1] = max(slot[1], unique_bytes)
            slot[2] = max(slot[2], lines)
            slot[4] = max(slot[4], acc.stride_class)
            slot[5] = float(acc.local)
        row[_REUSE] = touched / max(unique, 1.0)
        row[_ARITH_INTENSITY] = row[_FLOPS] / max(unique, 1.0)
        self.registers(row, accesses)
        outer_trips = [1] * (depth + 1)
        for level in range(1, depth + 1):
            outer_trips[level] = outer_trips[level - 1] * loops[level - 1].extent
        for field_index, capacity in self.traffic_fields:
            level = next((lv for lv in range(depth + 1) if working_sets[lv] <= capacity), depth)
            row[field_index] = float(outer_trips[level] * working_sets[level])
        ranked = sorted(per_buffer.items(), key=lambda item: (-item[1][0], item[0]))
        for slot_index, (_, slot) in enumerate(ranked[:BUFFER_SLOTS]):
            slot[3] = slot[0] / max(slot[1], 1.0)
            base = _BUFFER_BASE + slot_index * len(BUFFER_FIELDS)
            row[base : base + len(BUFFER_FIELDS)] = [float(value) for value in slot]

    def registers(self, row: list[float], accesses: list[_Access]) -> None:
        """How the store's loops let registers work (see STORE_FEATURES)."""
        loops = self.loops
        if loops and loops[-1].kind == "vectorized":
            lanes = max(1, VECTOR_BYTES // accesses[0].itemsize)
            length = loops[-1].extent
            row[_LANE_USE] = length / (-(-length // lanes) * lanes)
        for inside, store_field, loads_field in _RUN_FIELDS:
            self.runs(row, accesses, inside, store_field, loads_field)
        store = accesses[0]
        footprints, vector = store.footprints, VECTOR_BYTES // store.itemsize
        level = len(loops)
        tile = -1
        while level > 0 and footprints[level - 1] != footprints[level]:
            if tile < 0 and loops[level - 1].kind not in _REGISTER_KINDS:
                tile = level
            level -= 1
        if tile < 0:
            tile = level
        row[_STORE_CHAINS] = float(-(-footprints[level] // vector))
        row[_STORE_CHAINS_TILE] = float(-(-footprints[tile] // vector))

    def runs(
        self,
        row: list[float],
        accesses: list[_Access],
        inside: tuple[str, ...],
        store_field: int,
        loads_field: int,
    ) -> None:
        """The store's run and the loads' issue rate outside the innermost loops of the
        kinds `inside` (see STORE_FEATURES)."""
        loops = self.loops
        inner = len(loops)
        while inner > 0 and loops[inner - 1].kind in inside:
            inner -= 1
        issue = 0.0
        for acc in accesses:
            footprints = acc.footprints
            run, level = 1, inner - 1
            # A loop that does not move the index leaves the footprint as it was; a loop
            # that runs other statements too (an accumulator's init or write-back) ends it.
            while level >= 0 and footprints[level] == footprints[level + 1] and loops[level].sole:
                run *= loops[level].extent
                level -= 1
            if acc.is_store:
                row[store_field] = float(run)
            else:
                issue += 1.0 / max(run, 1)
        row[loads_field] = issue

    # -- assembly ----------------------------------------------------------------------------

    def assemble(self) -> np.ndarray:
        # [ total | peak | main | kernel ], filled in place (a few numpy calls per kernel).
        size = _NUM_STORE
        raw = np.zeros(NUM_FEATURES, dtype=np.float64)
        if self.rows:
            rows = np.array(self.rows, dtype=np.float64)
            rows.sum(axis=0, out=raw[:size])
            rows.max(axis=0, out=raw[size : 2 * size])
            raw[2 * size : 3 * size] = rows[_main_row(self.rows)]
        kernel = self.kernel
        raw[3 * size :] = kernel
        raw[3 * size + _K["intensity"]] = raw[_FLOPS] / max(kernel[_K["param_bytes"]], 1.0)
        np.maximum(raw, 0.0, out=raw)
        raw += 1.0
        np.log2(raw, out=raw)
        features: np.ndarray = raw.astype(np.float32)
        return features


def _main_row(rows: Sequence[Sequence[float]]) -> int:
    """The row with the most flops, then the largest trip count, then the first."""
    flops, trip = _S["flops"], _S["trip"]
    best = rows[0]
    position = 0
    for index in range(1, len(rows)):
        row = rows[index]
        if row[flops] > best[flops] or (row[flops] == best[flops] and row[trip] > best[trip]):
            best, position = row, index
    return position


def _count_ops(value: PrimExpr) -> tuple[dict[str, int], list[Load]]:
    """Operation counts of a stored value (by STORE_FEATURES name) and its loads."""
    counts: dict[str, int] = {}
    loads: list[Load] = []
    int_ops = 0
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Binary:
            assert isinstance(node, Binary)
            dtype = node.lhs.dtype
            if dtype.startswith("float"):
                name = _FLOAT_OPS.get(node.op, "float_add")
                counts[name] = counts.get(name, 0) + 1
                if node.op in ("add", "sub") and (
                    _is_float_mul(node.lhs) or _is_float_mul(node.rhs)
                ):
                    counts["float_fma"] = counts.get("float_fma", 0) + 1
            else:
                int_ops += 1
                if node.op == "mul" and _is_byte(node.lhs) and _is_byte(node.rhs):
                    counts["int8_mul"] = counts.get("int8_mul", 0) + 1
            stack.append(node.lhs)
            stack.append(node.rhs)
        elif kind is Load:
            assert isinstance(node, Load)
            loads.append(node)  # its index is counted with the access
        elif kind is Call:
            assert isinstance(node, Call)
            counts["float_math"] = counts.get("float_math", 0) + 1
            stack.extend(node.args)
        elif kind is Select:
            assert isinstance(node, Select)
            counts["float_select_cmp"] = counts.get("float_select_cmp", 0) + 1
            stack.append(node.condition)
            stack.append(node.true_value)
            stack.append(node.false_value)
        elif kind is Compare:
            assert isinstance(node, Compare)
            if node.lhs.dtype.startswith("float"):
                counts["float_select_cmp"] = counts.get("float_select_cmp", 0) + 1
            else:
                int_ops += 1
            stack.append(node.lhs)
            stack.append(node.rhs)
        elif kind is Cast:
            assert isinstance(node, Cast)
            stack.append(node.value)
        elif kind is Var or kind is IntImm or kind is FloatImm:
            continue  # (leaves, the most common nodes: nothing to count or walk)
        else:
            # Logical and anything else: walk children generically.
            lhs = getattr(node, "lhs", None)
            rhs = getattr(node, "rhs", None)
            if lhs is not None:
                stack.append(lhs)
            if rhs is not None:
                stack.append(rhs)
    if int_ops:
        counts["int_ops"] = int_ops
    return counts, loads


def _is_byte(expr: PrimExpr) -> bool:
    """Whether `expr` is a dot-product operand: an 8-bit integer value, or an int16 one
    (a widened weight, the WORD form's), or a cast of one."""
    if type(expr) is Cast:
        expr = expr.value  # type: ignore[attr-defined]
    return expr.dtype in ("uint8", "int8", "int16")


def _is_float_mul(expr: PrimExpr) -> bool:
    return type(expr) is Binary and expr.op == "mul" and expr.dtype.startswith("float")  # type: ignore[attr-defined]


def _linear(expr: PrimExpr, scale: int, terms: dict[str | PrimExpr, int]) -> int:
    """Add `scale * expr` to `terms` as `coef * atom` (a loop variable's atom is its name;
    constants are dropped); returns the integer operations met on the way."""
    kind = type(expr)
    if kind is Var:
        name: str = expr.name  # type: ignore[attr-defined]
        terms[name] = terms.get(name, 0) + scale
        return 0
    if kind is IntImm:
        return 0
    if kind is Binary:
        op = expr.op  # type: ignore[attr-defined]
        lhs: PrimExpr = expr.lhs  # type: ignore[attr-defined]
        rhs: PrimExpr = expr.rhs  # type: ignore[attr-defined]
        if op == "add":
            return 1 + _linear(lhs, scale, terms) + _linear(rhs, scale, terms)
        if op == "sub":
            return 1 + _linear(lhs, scale, terms) + _linear(rhs, -scale, terms)
        if op == "mul":
            if type(rhs) is IntImm:
                return 1 + _linear(lhs, scale * rhs.value, terms)  # type: ignore[attr-defined]
            if type(lhs) is IntImm:
                return 1 + _linear(rhs, scale * lhs.value, terms)  # type: ignore[attr-defined]
    terms[expr] = terms.get(expr, 0) + scale
    return 1


def _vars_of(expr: PrimExpr) -> Iterable[Var]:
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is Var:
            yield node  # type: ignore[misc]
        else:
            stack.extend(expr_children(node))


def _width(bounds: Interval) -> int:
    low, high = bounds
    if math.isinf(low) or math.isinf(high):
        return 1
    return max(1, int(high - low) + 1)


def _extent(expr: PrimExpr, ranges: dict[Var, Interval]) -> int:
    if type(expr) is IntImm:
        return max(0, int(expr.value))  # type: ignore[attr-defined]
    high = interval(expr, ranges, None)[1]
    return 1 if math.isinf(high) else max(0, int(high))


def _lines(elements: int, min_stride: int, itemsize: int) -> float:
    """Cache lines covering `elements` whose closest neighbours are `min_stride` apart."""
    step_bytes = max(itemsize, min(CACHE_LINE_BYTES, max(min_stride, 1) * itemsize))
    per_line = max(1, CACHE_LINE_BYTES // step_bytes)
    return float(-(-elements // per_line))


_ITEMSIZE: dict[str, int] = {}


def _itemsize(dtype: str) -> int:
    size = _ITEMSIZE.get(dtype)
    if size is None:
        size = 1 if dtype == "bool" else int(np.dtype(dtype).itemsize)
        _ITEMSIZE[dtype] = size
    return size


def extract_features(func: PrimFunc, core: CoreFacts = TYPICAL_CORE) -> np.ndarray:
    """The fixed-length float32 feature vector of a lowered kernel (see the module doc),
    its cache traffic measured against `core`'s caches."""
    return _Kernel(func, core).run()


def extract_features_batch(funcs: Sequence[PrimFunc], core: CoreFacts = TYPICAL_CORE) -> np.ndarray:
    """Features of many kernels as one (len(funcs), NUM_FEATURES) float32 matrix."""
    if not funcs:
        return np.zeros((0, NUM_FEATURES), dtype=np.float32)
    return np.stack([extract_features(func, core) for func in funcs])
