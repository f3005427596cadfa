"""A C-style printer of loop IR, shared by every backend that emits C-like source.

`CStyleWalker` prints expressions and statements as C. A backend subclasses it and
changes tables (`TYPE_NAMES`, `FLOAT32_INTRINSICS`, ...) and overrides a few hooks:
`emit_for` (loop kinds such as GPU thread bindings), `emit_allocate` (storage scopes),
`emit_store` (guards), `emit_barrier`, `float_literal` (infinities and NaN) and
`intrinsic_call` (math functions per dtype). The walker keeps the inclusive ranges of
the loop variables in scope, so hooks can prove facts about indices (`self.ranges`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import ClassVar

from codegen.errors import CodegenError
from ir.graph.types import integer_limits
from ir.tir.arith import bound
from ir.tir.expr import (
    Binary,
    Buffer,
    Call,
    Cast,
    Compare,
    FloatImm,
    IntImm,
    Load,
    Logical,
    PrimExpr,
    Select,
    Var,
    is_float,
)
from ir.tir.stmt import Allocate, Barrier, For, IfThenElse, LetStmt, Seq, Stmt, Store

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}

# Identifiers a buffer or variable may not take (C/C++ keywords, the math functions and
# helpers the walkers call); such a name gets a `_v` suffix.
_RESERVED_TEXT = """
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while bool true false half class new delete this template
typename namespace operator private public protected virtual exp expf log logf tanh tanhf
sqrt sqrtf rsqrt rsqrtf erf erff pow powf fabs fabsf floor floorf ceil ceilf rint rintf
trunc truncf sin sinf cos cosf min max abs
"""
RESERVED_NAMES = frozenset(_RESERVED_TEXT.split())

# Helper functions every C-like module may call; a backend prefixes them with its
# function qualifiers (`static inline`, `static __device__ __forceinline__`).
HELPERS = {
    "at_floordiv": (
        "long long at_floordiv(long long a, long long b) "
        "{ long long q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }"
    ),
    "at_floormod": (
        "long long at_floormod(long long a, long long b) "
        "{ long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }"
    ),
    "at_floordiv32": (
        "int at_floordiv32(int a, int b) "
        "{ int q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }"
    ),
    "at_floormod32": (
        "int at_floormod32(int a, int b) "
        "{ int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }"
    ),
    "at_sigmoidf": "float at_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }",
    "at_sigmoid": "double at_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }",
}


# Bitwise intrinsics as C operators (a right shift of an unsigned type is logical).
_BITWISE_OPERATORS = {
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_not": "~",
    "shift_left": "<<",
    "shift_right": ">>",
}


# The 4- and 2-bit integers take a byte each that holds only their bits, as ml_dtypes
# stores them: a load sign- or zero-extends, a store and a cast keep the low bits.
NARROW_BITS: Mapping[str, int] = {"int4": 4, "uint4": 4, "int2": 2, "uint2": 2}


class CStyleWalker:
    """Prints loop IR as C; backends change the tables and override the hooks."""

    TYPE_NAMES: ClassVar[Mapping[str, str]] = {
        "float32": "float",
        "float64": "double",
        "int8": "signed char",
        "int16": "short",
        "int32": "int",
        "int64": "long long",
        "uint8": "unsigned char",
        "uint16": "unsigned short",
        "uint32": "unsigned int",
        "uint64": "unsigned long long",
        "bool": "bool",
        "int4": "signed char",
        "uint4": "unsigned char",
        "int2": "signed char",
        "uint2": "unsigned char",
    }
    FLOAT32_INTRINSICS: ClassVar[Mapping[str, str]] = {
        "exp": "expf",
        "log": "logf",
        "tanh": "tanhf",
        "sqrt": "sqrtf",
        "erf": "erff",
        "pow": "powf",
        "sigmoid": "at_sigmoidf",
        "fabs": "fabsf",
        "floor": "floorf",
        "ceil": "ceilf",
        "round": "rintf",  # numpy rounds halves to even, as rint does
        "trunc": "truncf",
        "sin": "sinf",
        "cos": "cosf",
        "tan": "tanf",
        "asin": "asinf",
        "acos": "acosf",
        "atan": "atanf",
        "sinh": "sinhf",
        "cosh": "coshf",
        "asinh": "asinhf",
        "acosh": "acoshf",
        "atanh": "atanhf",
    }
    FLOAT64_INTRINSICS: ClassVar[Mapping[str, str]] = {
        "exp": "exp",
        "log": "log",
        "tanh": "tanh",
        "sqrt": "sqrt",
        "erf": "erf",
        "pow": "pow",
        "sigmoid": "at_sigmoid",
        "fabs": "fabs",
        "floor": "floor",
        "ceil": "ceil",
        "round": "rint",
        "trunc": "trunc",
        "sin": "sin",
        "cos": "cos",
        "tan": "tan",
        "asin": "asin",
        "acos": "acos",
        "atan": "atan",
        "sinh": "sinh",
        "cosh": "cosh",
        "asinh": "asinh",
        "acosh": "acosh",
        "atanh": "atanh",
    }
    INDENT = "  "

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.ranges: dict[Var, tuple[int, int]] = {}
        self.helpers_used: set[str] = set()

    # -- output ------------------------------------------------------------------------

    def line(self, text: str) -> None:
        """Append one line at the current indentation."""
        self.lines.append(f"{self.INDENT * self.depth}{text}")

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        """`header {` ... `}` with the lines inside indented."""
        self.line(f"{header} {{" if header else "{")
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.line("}")

    @contextmanager
    def var_range(self, var: Var, low: int, high: int) -> Iterator[None]:
        """Declare that `var` lies in [low, high] while emitting inside."""
        saved = self.ranges.get(var)
        self.ranges[var] = (low, high)
        try:
            yield
        finally:
            if saved is None:
                del self.ranges[var]
            else:
                self.ranges[var] = saved

    # -- names and types ---------------------------------------------------------------

    @staticmethod
    def identifier(name: str) -> str:
        """A C identifier for an IR name (reserved words get a suffix)."""
        return f"{name}_v" if name in RESERVED_NAMES else name

    def type_name(self, dtype: str) -> str:
        """The C type of an element of `dtype`."""
        try:
            return self.TYPE_NAMES[dtype]
        except KeyError:
            raise CodegenError(f"dtype {dtype} has no C type in this backend") from None

    def var_type(self, dtype: str) -> str:
        """The C type of a scalar variable (a loop or let variable) of `dtype` (hook: a
        backend may print index variables narrower than their IR type)."""
        return self.type_name(dtype)

    def buffer_name(self, buffer: Buffer) -> str:
        """The identifier of a buffer."""
        return self.identifier(buffer.name)

    # -- expressions -------------------------------------------------------------------

    def float_literal(self, value: float, dtype: str) -> str:
        """A floating-point constant (hook: infinities and NaN differ between backends)."""
        if math.isnan(value):
            return "NAN" if dtype != "float64" else "(double)NAN"
        if math.isinf(value):
            text = "INFINITY" if dtype != "float64" else "(double)INFINITY"
            return text if value > 0 else f"(-{text})"
        literal = repr(float(value))
        if "e" not in literal and "." not in literal:
            literal += ".0"
        return f"{literal}f" if dtype == "float32" else literal

    def int_literal(self, value: int, dtype: str) -> str:
        """An integer constant of `dtype`."""
        if dtype == "bool":
            return "true" if value else "false"
        if dtype == "int64":
            return f"{value}LL" if value >= 0 else f"({value}LL)"
        return str(value) if value >= 0 else f"({value})"

    def intrinsic_call(self, name: str, args: list[str], dtype: str) -> str:
        """A math intrinsic applied to printed arguments (hook: per-dtype tables)."""
        if name in _BITWISE_OPERATORS:
            if dtype.startswith("float"):
                raise CodegenError(f"bitwise intrinsic {name} on {dtype}")
            operator = _BITWISE_OPERATORS[name]
            if name == "bitwise_not":
                return f"(({self.TYPE_NAMES[dtype]})~{args[0]})"
            return f"(({self.TYPE_NAMES[dtype]})({args[0]} {operator} {args[1]}))"
        table = self.FLOAT64_INTRINSICS if dtype == "float64" else self.FLOAT32_INTRINSICS
        if name == "rsqrt":
            one = "1.0" if dtype == "float64" else "1.0f"
            return f"({one} / {table['sqrt']}({args[0]}))"
        function = table.get(name)
        if function is None or dtype not in ("float32", "float64"):
            raise CodegenError(f"intrinsic {name} on {dtype} has no C function in this backend")
        if function.startswith("at_"):
            self.helpers_used.add(function)
        return f"{function}({', '.join(args)})"

    def reinterpret(self, value: str, source: str, dtype: str) -> str:
        """The bits of a printed `source` value read as `dtype`, of the same width (hook:
        this base prints the integer-to-integer case only)."""
        if source.startswith("float") or dtype.startswith("float"):
            raise CodegenError(f"reinterpret from {source} to {dtype} has no C form here")
        return f"(({self.type_name(dtype)})({value}))"

    def cast(self, dtype: str, value: PrimExpr) -> str:
        """Convert a printed value to `dtype` (hook); to a sub-byte integer through int,
        as numpy's astype with ml_dtypes: integers wrap, floats out of range give 0."""
        inner = self.expr(value)
        if dtype == "bool":
            return f"(({inner}) != 0)"
        if dtype in NARROW_BITS:
            wrapped = self.narrow_value(dtype, f"(int)({inner})")
            if not value.dtype.startswith(("float", "bfloat")):
                return wrapped
            low, high = integer_limits(dtype)
            number = f"((float)({inner}))"
            inside = f"({number} > {low - 1}.0f && {number} < {high + 1}.0f)"
            return f"({inside} ? {wrapped} : (({self.type_name(dtype)})0))"
        return f"(({self.type_name(dtype)})({inner}))"

    def narrow_value(self, dtype: str, printed: str) -> str:
        """The printed integer as sub-byte `dtype`'s value: its low bits, sign-extended
        for the signed types."""
        bits = NARROW_BITS[dtype]
        low = f"(({printed}) & {(1 << bits) - 1})"
        if dtype.startswith("uint"):
            return f"(({self.type_name(dtype)}){low})"
        sign = 1 << (bits - 1)
        return f"(({self.type_name(dtype)})(({low} ^ {sign}) - {sign}))"

    def nonnegative(self, expr: PrimExpr) -> bool:
        """Whether the integer `expr` is provably >= 0 with the loop ranges in scope."""
        low, _ = bound(expr, self.ranges)
        return low is not None and low >= 0

    def binary(self, expr: Binary) -> str:
        """Print an arithmetic operation (floor division needs care in C)."""
        lhs, rhs = self.expr(expr.lhs), self.expr(expr.rhs)
        op = expr.op
        if op in _INFIX:
            return f"({lhs} {_INFIX[op]} {rhs})"
        if op in ("min", "max"):
            compare = "<" if op == "min" else ">"
            if is_float(expr.dtype):  # NaN in, NaN out, as numpy's (and the CPU kernels')
                picks_rhs = f"({rhs}) != ({rhs}) || ({rhs}) {compare} ({lhs})"
                return f"(({picks_rhs}) ? ({rhs}) : ({lhs}))"
            return f"(({lhs}) {compare} ({rhs}) ? ({lhs}) : ({rhs}))"
        if is_float(expr.dtype):
            floor = "floor" if expr.dtype == "float64" else "floorf"
            if op == "floordiv":
                return f"{floor}({lhs} / {rhs})"
            return f"({lhs} - {floor}({lhs} / {rhs}) * {rhs})"
        if self.nonnegative(expr.lhs) and self.nonnegative(expr.rhs):
            return f"({lhs} {'/' if op == 'floordiv' else '%'} {rhs})"
        helper = "at_floordiv" if op == "floordiv" else "at_floormod"
        if expr.dtype == "int64" and self.var_type("int64") == "int":  # 32-bit indices
            self.helpers_used.add(f"{helper}32")
            return f"{helper}32({lhs}, {rhs})"
        self.helpers_used.add(helper)
        result = f"{helper}((long long)({lhs}), (long long)({rhs}))"
        return result if expr.dtype == "int64" else f"(({self.type_name(expr.dtype)}){result})"

    def expr(self, expr: PrimExpr) -> str:
        """Print an expression as C."""
        if isinstance(expr, IntImm):
            return self.int_literal(expr.value, expr.dtype)
        if isinstance(expr, FloatImm):
            return self.float_literal(expr.value, expr.dtype)
        if isinstance(expr, Var):
            return self.identifier(expr.name)
        if isinstance(expr, Binary):
            return self.binary(expr)
        if isinstance(expr, Compare):
            return f"({self.expr(expr.lhs)} {_COMPARE[expr.op]} {self.expr(expr.rhs)})"
        if isinstance(expr, Logical):
            if expr.op == "not" or expr.rhs is None:
                return f"(!{self.expr(expr.lhs)})"
            word = "&&" if expr.op == "and" else "||"
            return f"({self.expr(expr.lhs)} {word} {self.expr(expr.rhs)})"
        if isinstance(expr, Select):
            # C evaluates only the side taken: a select may guard out-of-bounds loads.
            return (
                f"({self.expr(expr.condition)} ? {self.expr(expr.true_value)} : "
                f"{self.expr(expr.false_value)})"
            )
        if isinstance(expr, Cast):
            return self.cast(expr.dtype, expr.value)
        if isinstance(expr, Call) and expr.name == "reinterpret":
            (source,) = expr.args
            return self.reinterpret(self.expr(source), source.dtype, expr.dtype)
        if isinstance(expr, Call):
            return self.intrinsic_call(expr.name, [self.expr(a) for a in expr.args], expr.dtype)
        if isinstance(expr, Load):
            return self.load(expr)
        raise CodegenError(f"cannot print {type(expr).__name__} as C")

    def load(self, load: Load) -> str:
        """Read one element of a buffer."""
        element = f"{self.buffer_name(load.buffer)}[{self.expr(load.index)}]"
        if load.buffer.dtype in NARROW_BITS:
            return self.narrow_value(load.buffer.dtype, element)
        return element

    # -- statements --------------------------------------------------------------------

    def stmt(self, stmt: Stmt) -> None:
        """Print a statement."""
        if isinstance(stmt, For):
            self.emit_for(stmt)
        elif isinstance(stmt, Store):
            self.emit_store(stmt)
        elif isinstance(stmt, Allocate):
            self.emit_allocate(stmt)
        elif isinstance(stmt, IfThenElse):
            with self.block(f"if ({self.expr(stmt.condition)})"):
                self.stmt(stmt.then_case)
            if stmt.else_case is not None:
                with self.block("else"):
                    self.stmt(stmt.else_case)
        elif isinstance(stmt, Seq):
            for inner in stmt.stmts:
                self.stmt(inner)
        elif isinstance(stmt, LetStmt):
            self.emit_let(stmt)
        elif isinstance(stmt, Barrier):
            self.emit_barrier(stmt)
        else:
            raise CodegenError(f"cannot print {type(stmt).__name__} as C")

    def emit_let(self, stmt: LetStmt) -> None:
        """`{ const T var = value; body }` (a scope of its own: names may repeat)."""
        value = self.expr(stmt.value)
        with self.block(""):
            var_type, name = self.var_type(stmt.var.dtype), self.identifier(stmt.var.name)
            self.line(f"const {var_type} {name} = {value};")
            low, high = (None, None) if is_float(stmt.var.dtype) else bound(stmt.value, self.ranges)
            if low is not None and high is not None:
                with self.var_range(stmt.var, low, high):
                    self.stmt(stmt.body)
            else:
                self.stmt(stmt.body)

    def loop_pragma(self, stmt: For) -> str | None:
        """A pragma line before a loop (hook): unrolled loops are unrolled fully."""
        if stmt.kind in ("unrolled", "vectorized"):
            return "#pragma unroll"
        return None

    def emit_serial_for(self, stmt: For) -> None:
        """A plain counted loop."""
        pragma = self.loop_pragma(stmt)
        if pragma is not None:
            self.lines.append(pragma)
        extent = self.expr(stmt.extent)
        name = self.identifier(stmt.var.name)
        var_type = self.var_type(stmt.var.dtype)
        high = stmt.extent.value - 1 if isinstance(stmt.extent, IntImm) else None
        with self.block(f"for ({var_type} {name} = 0; {name} < {extent}; ++{name})"):
            if high is not None:
                with self.var_range(stmt.var, 0, high):
                    self.stmt(stmt.body)
            else:
                self.stmt(stmt.body)

    def emit_for(self, stmt: For) -> None:
        """A loop of any kind (hook: the base walker runs every kind serially)."""
        self.emit_serial_for(stmt)

    def emit_store(self, stmt: Store) -> None:
        """`buffer[index] = value;` (hook); a sub-byte integer stores only its bits."""
        value = self.expr(stmt.value)
        bits = NARROW_BITS.get(stmt.buffer.dtype)
        if bits is not None:
            value = f"(({self.type_name(stmt.buffer.dtype)})(({value}) & {(1 << bits) - 1}))"
        self.line(f"{self.buffer_name(stmt.buffer)}[{self.expr(stmt.index)}] = {value};")

    def emit_allocate(self, stmt: Allocate) -> None:
        """A local array for the body (hook: scopes)."""
        buffer = stmt.buffer
        self.line(f"{self.type_name(buffer.dtype)} {self.buffer_name(buffer)}[{buffer.size}];")
        self.stmt(stmt.body)

    def emit_barrier(self, stmt: Barrier) -> None:
        """A barrier (hook: a no-op in single-threaded C)."""
        del stmt

    def helper_definitions(self, qualifier: str) -> list[str]:
        """The helper functions the printed code calls, each prefixed by `qualifier`."""
        lines = []
        for name in sorted(self.helpers_used):
            # Guarded, so several printed modules can share one translation unit.
            guard = f"AUTOTUNE_{name.upper()}"
            lines += [
                f"#ifndef {guard}",
                f"#define {guard}",
                f"{qualifier} {HELPERS[name]}",
                "#endif",
            ]
        return lines
