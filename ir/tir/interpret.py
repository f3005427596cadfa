"""A plain-Python interpreter of loop IR: the executable definition of what a kernel means.

Slow (one Python operation per scalar), so tests use it on small shapes to check lowering
independently of any code generator.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ir.tir.expr import (
    Binary,
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
)
from ir.tir.intrinsic_names import INTEGER_INTRINSICS
from ir.tir.sizes import bind_sizes
from ir.tir.stmt import (
    Allocate,
    Barrier,
    For,
    IfThenElse,
    LetStmt,
    PrimFunc,
    Seq,
    Stmt,
    Store,
)


def _numpy_math(function: Callable[[Any], Any]) -> Callable[[float], float]:
    """A numpy ufunc on one float: NaN outside its domain, as libm gives, without a warning."""

    def apply(value: float) -> float:
        with np.errstate(all="ignore"):
            return float(function(np.float64(value)))

    return apply


def _erf(value: float) -> float:
    return math.erf(value)


def _sigmoid(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


_INTRINSICS: dict[str, Callable[..., float]] = {
    "exp": lambda x: math.exp(x) if x < 709 else math.inf,
    "log": lambda x: math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan),
    "tanh": math.tanh,
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else math.nan,
    "rsqrt": lambda x: 1.0 / math.sqrt(x) if x > 0 else (math.inf if x == 0 else math.nan),
    "erf": _erf,
    "pow": lambda x, y: float(np.power(np.float64(x), np.float64(y))),
    "sigmoid": _sigmoid,
    "fabs": abs,
    "floor": _numpy_math(np.floor),
    "ceil": _numpy_math(np.ceil),
    "round": lambda x: float(np.round(x)),
    "trunc": _numpy_math(np.trunc),
    "sin": lambda x: math.sin(x) if math.isfinite(x) else math.nan,
    "cos": lambda x: math.cos(x) if math.isfinite(x) else math.nan,
    "tan": _numpy_math(np.tan),
    "asin": _numpy_math(np.arcsin),
    "acos": _numpy_math(np.arccos),
    "atan": _numpy_math(np.arctan),
    "sinh": _numpy_math(np.sinh),
    "cosh": _numpy_math(np.cosh),
    "asinh": _numpy_math(np.arcsinh),
    "acosh": _numpy_math(np.arccosh),
    "atanh": _numpy_math(np.arctanh),
}


# The bitwise intrinsics in numpy (on typed scalars here, on arrays in ir/te/evaluate.py).
# casts to them wrap integers and give 0 for floats out of their range (ml_dtypes >= 0.7)
SUB_BYTE_DTYPES = frozenset({"int4", "uint4", "int2", "uint2"})

INTEGER_INTRINSIC_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "bitwise_not": np.invert,
    "shift_left": np.left_shift,
    "shift_right": np.right_shift,
}


class _Interpreter:
    def __init__(self, arrays: Mapping[str, np.ndarray], reverse_threads: bool = False) -> None:
        self.memory: dict[str, np.ndarray] = dict(arrays)
        self.env: dict[str, Any] = {}
        self.reverse_threads = reverse_threads

    def value(self, expr: PrimExpr) -> Any:
        if isinstance(expr, IntImm):
            return bool(expr.value) if expr.dtype == "bool" else expr.value
        if isinstance(expr, FloatImm):
            return np.dtype(expr.dtype).type(expr.value)
        if isinstance(expr, Var):
            return self.env[expr.name]
        if isinstance(expr, Binary):
            lhs, rhs = self.value(expr.lhs), self.value(expr.rhs)
            op = expr.op
            if op == "add":
                return lhs + rhs
            if op == "sub":
                return lhs - rhs
            if op == "mul":
                return lhs * rhs
            if op == "div":
                with np.errstate(all="ignore"):
                    return np.divide(lhs, rhs)
            if op == "floordiv":
                return lhs // rhs
            if op == "floormod":
                return lhs % rhs
            if isinstance(lhs, float | np.floating) or isinstance(rhs, float | np.floating):
                # numpy's: NaN in, NaN out (Python's min / max keep NaN only in front)
                return np.minimum(lhs, rhs) if op == "min" else np.maximum(lhs, rhs)
            if op == "min":
                return min(lhs, rhs)
            return max(lhs, rhs)
        if isinstance(expr, Compare):
            lhs, rhs = self.value(expr.lhs), self.value(expr.rhs)
            return {
                "lt": lhs < rhs,
                "le": lhs <= rhs,
                "gt": lhs > rhs,
                "ge": lhs >= rhs,
                "eq": lhs == rhs,
                "ne": lhs != rhs,
            }[expr.op]
        if isinstance(expr, Logical):
            if expr.op == "not":
                return not self.value(expr.lhs)
            assert expr.rhs is not None
            if expr.op == "and":
                return bool(self.value(expr.lhs)) and bool(self.value(expr.rhs))
            return bool(self.value(expr.lhs)) or bool(self.value(expr.rhs))
        if isinstance(expr, Select):
            # Only the side taken is evaluated: a select may guard out-of-bounds loads.
            return self.value(expr.true_value if self.value(expr.condition) else expr.false_value)
        if isinstance(expr, Cast):
            inner = self.value(expr.value)
            if expr.dtype == "bool":
                return bool(inner)
            if expr.dtype in SUB_BYTE_DTYPES:  # ml_dtypes' scalars refuse out-of-range values
                with np.errstate(invalid="ignore"):
                    return np.asarray(inner).astype(expr.dtype)[()]
            return np.dtype(expr.dtype).type(inner)
        if isinstance(expr, Call) and expr.name == "reinterpret":
            (arg,) = expr.args
            bits = np.asarray(self.value(arg), dtype=arg.dtype)
            return bits.view(np.dtype(expr.dtype))[()]
        if isinstance(expr, Call) and expr.name in INTEGER_INTRINSICS:
            kind = np.dtype(expr.dtype).type
            values = [kind(self.value(arg)) for arg in expr.args]
            return kind(INTEGER_INTRINSIC_FUNCTIONS[expr.name](*values))
        if isinstance(expr, Call):
            args = [float(self.value(arg)) for arg in expr.args]
            with np.errstate(all="ignore"):
                result = _INTRINSICS[expr.name](*args)
            return np.dtype(expr.dtype).type(result)
        if isinstance(expr, Load):
            array = self.memory[expr.buffer.name]
            index = int(self.value(expr.index))
            if not 0 <= index < array.size:
                raise IndexError(f"load {expr.buffer.name}[{index}] out of bounds ({array.size})")
            return array.reshape(-1)[index]
        raise TypeError(f"cannot interpret {type(expr).__name__}")

    def run(self, stmt: Stmt) -> None:
        if isinstance(stmt, For):
            extent = int(self.value(stmt.extent))
            name = stmt.var.name
            indices = range(extent)
            if self.reverse_threads and stmt.kind == "thread_binding":
                indices = range(extent - 1, -1, -1)
            for index in indices:
                self.env[name] = index
                self.run(stmt.body)
            self.env.pop(name, None)
        elif isinstance(stmt, Store):
            array = self.memory[stmt.buffer.name]
            index = int(self.value(stmt.index))
            if not 0 <= index < array.size:
                raise IndexError(f"store {stmt.buffer.name}[{index}] out of bounds ({array.size})")
            with np.errstate(all="ignore"):
                array.reshape(-1)[index] = self.value(stmt.value)
        elif isinstance(stmt, Allocate):
            buffer = stmt.buffer
            saved = self.memory.get(buffer.name)
            # Fresh allocations hold garbage: NaN makes reads of unwritten elements visible.
            fill = np.nan if buffer.dtype.startswith("float") else 0
            self.memory[buffer.name] = np.full(buffer.shape, fill, dtype=buffer.dtype)
            self.run(stmt.body)
            if saved is not None:
                self.memory[buffer.name] = saved
            else:
                del self.memory[buffer.name]
        elif isinstance(stmt, IfThenElse):
            if self.value(stmt.condition):
                self.run(stmt.then_case)
            elif stmt.else_case is not None:
                self.run(stmt.else_case)
        elif isinstance(stmt, Seq):
            for inner in stmt.stmts:
                self.run(inner)
        elif isinstance(stmt, LetStmt):
            self.env[stmt.var.name] = self.value(stmt.value)
            self.run(stmt.body)
            self.env.pop(stmt.var.name, None)
        elif isinstance(stmt, Barrier):
            pass
        else:
            raise TypeError(f"cannot interpret {type(stmt).__name__}")


def interpret(func: PrimFunc, arrays: Sequence[np.ndarray], reverse_threads: bool = False) -> None:
    """Run `func` on numpy arrays (inputs then outputs); outputs are written in place.

    Loops bound to GPU blocks and threads run one iteration after another; with
    `reverse_threads` they run last index first, which changes the result only when
    the iterations of a thread loop depend on each other's order (a race on a GPU).
    A kernel with symbolic dims takes its size variables from the arrays' shapes.
    """
    if len(arrays) != len(func.params):
        raise ValueError(f"{func.name} takes {len(func.params)} buffers, got {len(arrays)}")
    memory: dict[str, np.ndarray] = {}
    for buffer, array in zip(func.params, arrays, strict=True):
        wrong_shape = not buffer.dims and array.shape != buffer.shape
        if wrong_shape or array.dtype.name != buffer.dtype:
            raise ValueError(
                f"{func.name}: buffer {buffer.name} expects {buffer.shape} {buffer.dtype}, "
                f"got {array.shape} {array.dtype.name}"
            )
        memory[buffer.name] = array
    interpreter = _Interpreter(memory, reverse_threads)
    if func.size_params:
        shapes = [array.shape for array in arrays]
        sizes = bind_sizes(func.name, func.params, func.size_params, shapes)
        bound = zip(func.size_params, sizes, strict=True)
        interpreter.env.update({var.name: size for var, size in bound})
    interpreter.run(func.body)
