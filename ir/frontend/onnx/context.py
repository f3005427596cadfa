"""What a converter sees of one ONNX node: typed inputs, parsed attributes and helpers.

A converter is a small function `NodeContext -> Expr | list[Expr]`. The context builds typed
calls (`ctx.call`), reads attributes with defaults, turns inputs that our ops take as
attributes into Python values (`ctx.static_ints`), and formats errors that name the node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx

from ir.errors import ModelImportError, UnsupportedOpError, ValueDependentError
from ir.frontend.onnx.symbolic_dims import DimRange, size_var
from ir.graph.nodes import Constant, Expr, TupleGetItem, Var, call
from ir.graph.passes.infer_type import infer_call
from ir.graph.shape_values import shape_value
from ir.graph.traversal import free_vars
from ir.graph.types import DTYPES, STORAGE_DTYPES, TensorType, TupleType
from ir.tir.arith import bound
from ir.tir.expr import IntImm, PrimExpr
from ir.tir.printer import format_expr

ConverterResult = Expr | Sequence[Expr]

# Graph IR ops that move or select elements without computing with them: the ones a
# tensor of a bits-only type (ir.graph.types.STORAGE_DTYPES) may go through.
BITS_ONLY_OPS = frozenset(
    {
        "reinterpret", "copy", "broadcast_to", "where", "concatenate", "expand_dims",
        "flatten", "gather_elements", "reshape", "split", "squeeze", "strided_slice",
        "take", "tile", "transpose", "shape_of",
    }
)  # fmt: skip
Converter = Callable[["NodeContext"], ConverterResult]


def _dtype_of(value: Expr) -> str | None:
    ty = value.checked_type
    return ty.dtype if isinstance(ty, TensorType) else None


def onnx_dtype_name(elem_type: int, where: str) -> str:
    """The IR dtype name of an ONNX TensorProto element type, or UnsupportedOpError."""
    try:
        name = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)).name
    except (KeyError, TypeError, ValueError):
        name = ""
    if name not in DTYPES:
        raise UnsupportedOpError(
            f"{where}: element type {onnx_type_name(elem_type)} is not supported; "
            f"supported: {sorted(DTYPES)}"
        )
    return name


def onnx_type_name(elem_type: int) -> str:
    """The TensorProto name of an element type (e.g. "FLOAT"), or the number if unknown."""
    try:
        return str(onnx.TensorProto.DataType.Name(elem_type))
    except ValueError:
        return str(elem_type)


def tensor_to_array(tensor: onnx.TensorProto, where: str) -> np.ndarray:
    """A TensorProto as a numpy array with an IR dtype, or a ModelImportError naming `where`."""
    onnx_dtype_name(tensor.data_type, where)
    try:
        return np.asarray(onnx.numpy_helper.to_array(tensor))
    except (OSError, ValueError, TypeError) as err:
        raise ModelImportError(f"{where}: cannot read tensor {tensor.name!r}: {err}") from err


def parse_attributes(node: onnx.NodeProto, where: str) -> dict[str, Any]:
    """A node's attributes as Python values: strings decoded, lists as tuples, tensors as arrays."""
    attrs: dict[str, Any] = {}
    kinds = onnx.AttributeProto
    for attr in node.attribute:
        value = onnx.helper.get_attribute_value(attr)
        if attr.type == kinds.STRING:
            value = value.decode("utf-8")
        elif attr.type == kinds.STRINGS:
            value = tuple(item.decode("utf-8") for item in value)
        elif attr.type == kinds.TENSOR:
            value = tensor_to_array(value, f"{where}: attribute {attr.name!r}")
        elif attr.type in (kinds.INTS, kinds.FLOATS):
            value = tuple(value)
        attrs[attr.name] = value
    return attrs


Captures = dict[str, tuple[Var, Expr]]  # ONNX name -> (a closure's Var, the outer value)


@dataclass
class NodeContext:
    """One ONNX node being converted: its typed inputs (None where omitted) and attributes."""

    node: onnx.NodeProto
    index: int
    opset: int
    inputs: tuple[Expr | None, ...]
    attrs: dict[str, Any]
    fold: Callable[[Expr], Expr]
    # Converts a subgraph (an If branch, a Loop or Scan body) with its inputs bound to the
    # given values and the enclosing graphs' values in scope; returns its outputs.
    subgraph: Callable[[onnx.GraphProto, Sequence[Expr]], list[Expr]] | None = None
    # Converts a subgraph as a closed function body (see `convert_closure`).
    closure: Callable[[onnx.GraphProto, Sequence[Expr], Captures], list[Expr]] | None = None
    # The range of each size variable of the model's symbolic input dims, by name.
    dim_ranges: Mapping[str, DimRange] = field(default_factory=dict)

    @property
    def op_type(self) -> str:
        """The ONNX op type, e.g. "Conv"."""
        return str(self.node.op_type)

    @property
    def name(self) -> str:
        """The node's name, or `<op_type>_<index>` for an unnamed node; used as the span."""
        return str(self.node.name) or f"{self.op_type}_{self.index}"

    @property
    def where(self) -> str:
        """The node's location for messages."""
        return f"ONNX node {self.name!r} ({self.op_type}, opset {self.opset})"

    # Inputs ------------------------------------------------------------------------------

    def input(self, index: int) -> Expr:
        """The `index`-th input, which the op requires."""
        value = self.optional_input(index)
        if value is None:
            raise ModelImportError(f"{self.where}: required input {index} is missing")
        return value

    def optional_input(self, index: int) -> Expr | None:
        """The `index`-th input, or None when it is absent or given as the empty name."""
        return self.inputs[index] if index < len(self.inputs) else None

    def tensor_type(self, index: int) -> TensorType:
        """The tensor type of the `index`-th input."""
        ty = self.input(index).checked_type
        if not isinstance(ty, TensorType):
            raise ModelImportError(f"{self.where}: input {index} must be a tensor, got {ty}")
        return ty

    def shape(self, index: int) -> tuple[int, ...]:
        """The static shape of the `index`-th input; UnsupportedOpError when it has
        symbolic dims (a converter that takes them reads `rank` or the type's dims)."""
        ty = self.tensor_type(index)
        if ty.dims:
            raise self.unsupported(
                f"input {index} has symbolic dims {ty}; {self.op_type} does not take "
                "symbolic dims yet (bind them to sizes with --shape NAME=DxD...)"
            )
        return ty.shape

    def static_dims(self, index: int, first: int) -> tuple[int, ...]:
        """The sizes of the `index`-th input's axes from `first` on, which must be static
        (a window's rows and columns; the batch before them may be symbolic)."""
        ty = self.tensor_type(index)
        if any(not isinstance(dim, IntImm) for dim in ty.dims[first:]):
            raise self.unsupported(
                f"input {index} is {ty}: {self.op_type} takes a symbolic batch, but its axes "
                f"from {first} on must be static (bind them with --shape NAME=DxD...)"
            )
        return ty.shape[first:]

    def rank(self, index: int) -> int:
        """The rank of the `index`-th input (static or symbolic)."""
        return self.tensor_type(index).ndim

    def dtype(self, index: int) -> str:
        """The dtype of the `index`-th input."""
        return self.tensor_type(index).dtype

    def static_value(self, index: int, what: str) -> np.ndarray:
        """The value of an input our op needs at compile time, folded to a numpy array.

        Shapes are static after binding, so Shape -> Gather -> Concat chains fold away; a
        value computed from the data of a graph input cannot, and raises
        ValueDependentError naming those inputs (binding their values specialises the
        model to them).
        """
        folded = self.fold(self.input(index))
        if isinstance(folded, Constant):
            return folded.data
        runtime = tuple(sorted({var.name for var in free_vars(folded)}))
        raise ValueDependentError(
            f"{self.where}: input {index} ({what}) must be a compile-time constant, but it "
            f"depends on the runtime value of graph input(s) {list(runtime)}; only values "
            "computed from constants and input shapes compile for any value (bind symbolic "
            "input dimensions with --shape NAME=DxD... so that shape computations fold; "
            "`autotune run` and prepare_for_inputs specialise the model to the values of "
            "those inputs they are given)",
            runtime,
        )

    def symbolic_ints(self, index: int, what: str) -> tuple[PrimExpr, ...]:
        """An integer input computed from constants and the shapes of symbolic tensors
        (a Reshape target from Shape -> Gather -> Concat), as dim expressions: constants
        where it folds; ValueDependentError (as `static_value`) where it depends on other
        run-time values."""
        folded = self.fold(self.input(index))
        if isinstance(folded, Constant):
            return tuple(IntImm(int(item), "int64") for item in folded.data.reshape(-1))
        value = shape_value(folded)
        if value is None:
            self.static_value(index, what)  # raises, naming the run-time inputs
            raise self.error(f"input {index} ({what}) does not fold")  # (not reached)
        return value

    def dim_entry(self, dim: PrimExpr) -> int | tuple[str, int]:
        """A dim expression as an op attribute entry: its value where constant, else its
        text and upper bound (how reshape and strided_slice take symbolic operands)."""
        if isinstance(dim, IntImm):
            return dim.value
        return format_expr(dim), self.upper_bound(dim)

    def upper_bound(self, dim: PrimExpr) -> int:
        """The largest value a dim expression of the model's size variables takes over
        their ranges; ModelImportError when it has none."""
        ranges = {
            size_var(name): (dim_range.low, dim_range.high)
            for name, dim_range in self.dim_ranges.items()
        }
        _, high = bound(dim, ranges)
        if high is None:
            raise self.error(f"dim {format_expr(dim)} has no upper bound over the input ranges")
        return high

    def static_ints(self, index: int, what: str) -> tuple[int, ...]:
        """A static integer input as a tuple of ints (a scalar becomes a 1-tuple)."""
        return tuple(int(item) for item in self.static_value(index, what).reshape(-1))

    def static_scalar(self, index: int, what: str) -> int | float | bool:
        """A static one-element input as a Python scalar."""
        value = self.static_value(index, what)
        if value.size != 1:
            raise ModelImportError(
                f"{self.where}: input {index} ({what}) must hold one value, got shape {value.shape}"
            )
        item: int | float | bool = value.reshape(-1)[0].item()
        return item

    # Attributes ---------------------------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        """An attribute's value, or `default` when the node does not set it."""
        return self.attrs.get(name, default)

    def int_attr(self, name: str, default: int) -> int:
        """An integer attribute."""
        return int(self.attrs.get(name, default))

    def axis(self, axis: int, rank: int) -> int:
        """`axis` in [0, rank) (negative counts from the end), or ModelImportError naming it."""
        if not -rank <= axis < rank:
            raise self.error(f"axis {axis} is out of range for rank {rank}")
        return axis % rank

    def float_attr(self, name: str, default: float) -> float:
        """A float attribute."""
        return float(self.attrs.get(name, default))

    def ints_attr(self, name: str) -> tuple[int, ...] | None:
        """An integer-list attribute as a tuple, or None when absent."""
        value = self.attrs.get(name)
        return None if value is None else tuple(int(item) for item in value)

    def choice_attr(self, name: str, default: str, allowed: Sequence[str]) -> str:
        """A string attribute restricted to `allowed`, or UnsupportedOpError naming it."""
        value = str(self.attrs.get(name, default))
        if value not in allowed:
            raise self.unsupported_attr(name, value, allowed)
        return value

    # Building ------------------------------------------------------------------------------

    def convert_subgraph(self, graph: onnx.GraphProto, inputs: Sequence[Expr]) -> list[Expr]:
        """The outputs of `graph` (a GRAPH attribute of this node) with its inputs bound to
        `inputs`; the values of the enclosing graphs are in scope."""
        if self.subgraph is None:
            raise self.unsupported("subgraphs are not supported here")
        if len(inputs) != len(graph.input):
            raise self.error(
                f"subgraph {graph.name!r} takes {len(graph.input)} inputs, given {len(inputs)}"
            )
        return self.subgraph(graph, inputs)

    def convert_closure(
        self, graph: onnx.GraphProto, params: Sequence[Expr], captures: Captures
    ) -> list[Expr]:
        """The outputs of `graph` with its inputs bound to `params` (the closed function's
        parameters, or values computed from them), as the body of a closed function: each
        value it reads from the enclosing graphs that is not a constant becomes a Var,
        recorded in `captures` (ONNX name -> (the Var, the outer value)); one `captures`
        shared by several subgraphs gives them one set of parameters."""
        if self.closure is None:
            raise self.unsupported("subgraphs are not supported here")
        if len(params) != len(graph.input):
            raise self.error(
                f"subgraph {graph.name!r} takes {len(graph.input)} inputs, given {len(params)}"
            )
        return self.closure(graph, params, captures)

    def call(self, op: str, *args: Expr, **attrs: object) -> Expr:
        """A typed call of a graph IR op, spanned with this node's name.

        An op that computes with bfloat16 tensors computes in float32 on their values,
        and a float32 result is rounded back to bfloat16, as each op of a bfloat16 model
        rounds its result; the other bits-only types (float8, float4) only convert
        (bit_floats) and move, and UnsupportedOpError says so.
        """
        if op in BITS_ONLY_OPS:
            return infer_call(call(op, *args, span=self.name, **attrs))
        dtypes = {dtype for arg in args if (dtype := _dtype_of(arg)) is not None}
        for dtype in sorted(dtypes & STORAGE_DTYPES - {"bfloat16"}):
            raise self.unsupported(
                f"{op} of a {dtype} tensor: {dtype} values are converted (Cast, "
                "QuantizeLinear, DequantizeLinear) and moved, not computed with"
            )
        if "bfloat16" not in dtypes:
            return infer_call(call(op, *args, span=self.name, **attrs))
        from ir.frontend.onnx import bit_floats

        widened = [
            bit_floats.decode(self, arg) if _dtype_of(arg) == "bfloat16" else arg for arg in args
        ]
        result = infer_call(call(op, *widened, span=self.name, **attrs))
        if _dtype_of(result) == "float32":
            return bit_floats.convert(self, result, "bfloat16")
        return result

    def first_output(self, value: Expr) -> Expr:
        """`value`, or its first field when the op returns a tuple (e.g. batch_norm)."""
        ty = value.checked_type
        if isinstance(ty, TupleType):
            return TupleGetItem(value, 0, ty=ty.fields[0])
        return value

    def scalar(self, value: float | int | bool, dtype: str) -> Constant:
        """A scalar constant of `dtype`."""
        return Constant(np.asarray(value, dtype=dtype))

    # Errors -------------------------------------------------------------------------------

    def unsupported(self, message: str) -> UnsupportedOpError:
        """An UnsupportedOpError located at this node."""
        return UnsupportedOpError(f"{self.where}: {message}")

    def unsupported_attr(
        self, name: str, value: object, allowed: Sequence[str] | None = None
    ) -> UnsupportedOpError:
        """An UnsupportedOpError naming this node, the attribute and its value."""
        message = f"attribute {name}={value!r} is not supported"
        if allowed is not None:
            message += f"; supported: {', '.join(repr(item) for item in allowed)}"
        return self.unsupported(message)

    def error(self, message: str) -> ModelImportError:
        """A ModelImportError located at this node."""
        return ModelImportError(f"{self.where}: {message}")
