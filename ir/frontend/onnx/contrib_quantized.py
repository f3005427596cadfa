"""ONNX Runtime's quantized operators (domain com.microsoft: what its quantizer writes in
QOperator form beside the standard QLinearConv and QLinearMatMul, and the integer
matmuls its graph optimizer saves) rewritten before import into standard ops:
DequantizeLinear, the float op, QuantizeLinear; MatMulInteger scaled to float.

That is the form onnxruntime's QDQ quantizer writes, so RealizeQuantized turns it into
the same integer kernels (QGemm's product into `dot_product_dense`, QLinearAdd's sum into
the epilogue of the conv before it), and the dynamic quantizer's (MatMulInteger on the
dot-product kernel). Each rewritten node's name prefixes its new nodes' names, so an
error about one of them still names it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ir.errors import ModelImportError, UnsupportedOpError

CONTRIB_DOMAIN = "com.microsoft"
_PER_AXIS_OPSET = 13  # DequantizeLinear's `axis` (a per-channel scale) is opset 13's


class _Rewriter:
    """Builds the standard nodes that replace one contrib node."""

    def __init__(
        self,
        node: onnx.NodeProto,
        opset: int,
        names: Iterator[int],
        initializers: Mapping[str, onnx.TensorProto],
    ) -> None:
        self.node = node
        self.opset = opset
        self.initializers = initializers
        self.prefix = node.name or node.op_type
        self.names = names
        self.nodes: list[onnx.NodeProto] = []
        self.attrs = {attr.name: helper.get_attribute_value(attr) for attr in node.attribute}

    def input(self, index: int) -> str:
        """Input `index`'s name ("" when absent)."""
        return self.node.input[index] if index < len(self.node.input) else ""

    def required(self, index: int, what: str) -> str:
        name = self.input(index)
        if not name:
            raise UnsupportedOpError(
                f"ONNX node {self.prefix!r} ({self.node.op_type}): input {index} ({what}) "
                "is required"
            )
        return name

    def emit(self, op_type: str, inputs: list[str], output: str = "", **attrs: object) -> str:
        """A new node of `op_type` writing `output` (a new name when ""); that name."""
        name = f"{self.prefix}__{op_type.lower()}_{next(self.names)}"
        output = output or name
        node = helper.make_node(op_type, inputs, [output], name=name)
        node.attribute.extend(helper.make_attribute(key, value) for key, value in attrs.items())
        self.nodes.append(node)
        return output

    def size(self, name: str) -> int:
        """The elements of initializer `name`; 0 when it is not one."""
        found = self.initializers.get(name)
        return 0 if found is None else int(math.prod(found.dims))

    def scalar(self, index: int, default: float | None = None) -> float | None:
        """Input `index`'s value when it is an initializer of one value (`default` when
        the input is absent); None otherwise."""
        name = self.input(index)
        if not name:
            return default
        found = self.initializers.get(name)
        if found is None or int(math.prod(found.dims)) != 1:
            return None
        return float(numpy_helper.to_array(found).reshape(()))

    def constant(self, value: np.ndarray | np.generic) -> str:
        """A Constant node of `value`; its output's name."""
        tensor = numpy_helper.from_array(np.asarray(value))
        return self.emit("Constant", [], value=tensor)

    def dequantized(self, data: int, scale: int, zero: int, axis: int | None = None) -> str:
        """DequantizeLinear of input `data` by inputs `scale` and `zero` (absent: 0), along
        `axis` where the scale is not one value."""
        inputs = [self.required(data, "data"), self.required(scale, "scale")]
        if self.input(zero):
            inputs.append(self.input(zero))
        return self.dequantized_names(inputs, axis)

    def dequantized_names(self, inputs: list[str], axis: int | None) -> str:
        """DequantizeLinear of `inputs` (data, scale[, zero point]), along `axis` unless
        the scale is an initializer of one value."""
        if axis is None or self.size(inputs[1]) == 1:
            return self.emit("DequantizeLinear", inputs)
        if self.opset < _PER_AXIS_OPSET:
            raise UnsupportedOpError(
                f"ONNX node {self.prefix!r} ({self.node.op_type}): a per-channel scale needs "
                f"opset {_PER_AXIS_OPSET} or newer, the model's is {self.opset}"
            )
        return self.emit("DequantizeLinear", inputs, axis=axis)

    def quantized(self, value: str, scale: int, zero: int) -> None:
        """QuantizeLinear of `value` by inputs `scale` and `zero` into the node's output."""
        inputs = [value, self.required(scale, "output scale")]
        if self.input(zero):
            inputs.append(self.input(zero))
        self.emit("QuantizeLinear", inputs, self.node.output[0])


def _binary(op_type: str) -> Callable[[_Rewriter], None]:
    """QLinearAdd / QLinearMul(A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp)."""

    def rewrite(r: _Rewriter) -> None:
        left, right = r.dequantized(0, 1, 2), r.dequantized(3, 4, 5)
        r.quantized(r.emit(op_type, [left, right]), 6, 7)

    return rewrite


def _constant_parameters(r: _Rewriter) -> tuple[list[np.float32], list[np.float32]] | None:
    """The scales and zero points of a QLinearAdd or QLinearMul (inputs 1, 4, 6 and 2, 5,
    7) as float32 values, when every one is a constant of one value (an absent zero
    point is 0); None otherwise. A scale that is not positive and finite is an error
    naming the node."""
    given = [r.scalar(index) for index in (1, 4, 6)]
    zeros = [r.scalar(index, 0.0) for index in (2, 5, 7)]
    scales = [value for value in given if value is not None]
    points = [value for value in zeros if value is not None]
    if len(scales) < len(given) or len(points) < len(zeros):
        return None
    for index, value in zip((1, 4, 6), scales, strict=True):
        if not (math.isfinite(value) and value > 0):
            raise ModelImportError(
                f"ONNX node {r.prefix!r} ({r.node.op_type}): scale (input {index}) must be "
                f"positive and finite; got {value}"
            )
    return [np.float32(value) for value in scales], [np.float32(value) for value in points]


def _saturated(r: _Rewriter, value: str) -> None:
    """The node's output: float `value` rounded half to even and saturated to the type of
    its output zero point (input 7; uint8 without one)."""
    zero_point = r.input(7)
    dtype = r.initializers[zero_point].data_type if zero_point else onnx.TensorProto.UINT8
    zero_of_type = np.zeros((), helper.tensor_dtype_to_np_dtype(dtype))
    inputs = [value, r.constant(np.float32(1.0)), r.constant(zero_of_type)]
    r.emit("QuantizeLinear", inputs, r.node.output[0])


def _cast(r: _Rewriter, index: int, to: int) -> str:
    """Input `index` cast to the ONNX element type `to`."""
    return r.emit("Cast", [r.required(index, "data")], to=to)


def _add(r: _Rewriter) -> None:
    """QLinearAdd as onnxruntime computes it, where every scale and zero point is a
    constant of one value: A * (A_scale / C_scale) + B * (B_scale / C_scale) + (C_zp -
    the zero points' share), in float32, rounded half to even and saturated. That is
    dequantizing, adding and quantizing but for float32's rounding, which differs
    between the two orders by a step now and then, and a deep residual network
    compounds those steps. Otherwise DequantizeLinear, Add, QuantizeLinear."""
    parameters = _constant_parameters(r)
    if parameters is None:
        _binary("Add")(r)
        return
    (scale_a, scale_b, scale_c), (zero_a, zero_b, zero_c) = parameters
    ratio_a, ratio_b = scale_a / scale_c, scale_b / scale_c
    fixed = zero_c - (ratio_a * zero_a + ratio_b * zero_b)
    shares = [
        r.emit("Mul", [_cast(r, index, onnx.TensorProto.FLOAT), r.constant(ratio)])
        for index, ratio in ((0, ratio_a), (3, ratio_b))
    ]
    # Associated as onnxruntime's kernel: A's share added last.
    fixed_name = r.constant(np.float32(fixed))
    _saturated(r, r.emit("Add", [shares[0], r.emit("Add", [shares[1], fixed_name])]))


def _mul(r: _Rewriter) -> None:
    """QLinearMul as onnxruntime computes it, where every scale and zero point is a
    constant of one value: (A - A_zp) x (B - B_zp) exactly in int32, then in float32 times
    A_scale x B_scale / C_scale plus C_zp, rounded half to even and saturated.
    Otherwise DequantizeLinear, Mul, QuantizeLinear."""
    parameters = _constant_parameters(r)
    if parameters is None:
        _binary("Mul")(r)
        return
    (scale_a, scale_b, scale_c), (zero_a, zero_b, zero_c) = parameters
    centred = [
        r.emit("Sub", [_cast(r, index, onnx.TensorProto.INT32), r.constant(np.int32(zero))])
        for index, zero in ((0, zero_a), (3, zero_b))
    ]
    product = r.emit("Cast", [r.emit("Mul", centred)], to=onnx.TensorProto.FLOAT)
    scaled = r.emit("Mul", [product, r.constant(np.float32(scale_a * scale_b / scale_c))])
    _saturated(r, r.emit("Add", [scaled, r.constant(np.float32(zero_c))]))


def _unary(op_type: str, *attr_names: str) -> Callable[[_Rewriter], None]:
    """QLinearSigmoid / QLinearLeakyRelu / QLinearSoftmax(X, X_scale, X_zp, Y_scale, Y_zp)
    with the attributes the float op takes."""

    def rewrite(r: _Rewriter) -> None:
        attrs = {name: r.attrs[name] for name in attr_names if name in r.attrs}
        value = r.emit(op_type, [r.dequantized(0, 1, 2)], **attrs)
        r.quantized(value, 3, 4)

    return rewrite


def _channels_first(r: _Rewriter, value: str, rank: int) -> str:
    """`value` in NCHW when the node says its data is channels-last (NHWC)."""
    if not r.attrs.get("channels_last", 0):
        return value
    return r.emit("Transpose", [value], perm=[0, rank - 1, *range(1, rank - 1)])


def _channels_back(r: _Rewriter, value: str, rank: int) -> str:
    if not r.attrs.get("channels_last", 0):
        return value
    return r.emit("Transpose", [value], perm=[0, *range(2, rank), 1])


def _pool(op_type: str, *attr_names: str) -> Callable[[_Rewriter], None]:
    """QLinearGlobalAveragePool / QLinearAveragePool(X, x_scale, x_zp, y_scale, y_zp),
    NCHW or (`channels_last`) NHWC."""

    def rewrite(r: _Rewriter) -> None:
        rank = 2 + len(r.attrs.get("kernel_shape", (1, 1)))
        value = _channels_first(r, r.dequantized(0, 1, 2), rank)
        attrs = {name: r.attrs[name] for name in attr_names if name in r.attrs}
        pooled = _channels_back(r, r.emit(op_type, [value], **attrs), rank)
        r.quantized(pooled, 3, 4)

    return rewrite


def _concat(r: _Rewriter) -> None:
    """QLinearConcat(Y_scale, Y_zp, X0, X0_scale, X0_zp, X1, ...; axis)."""
    count = len(r.node.input) - 2
    if count < 3 or count % 3:
        raise UnsupportedOpError(
            f"ONNX node {r.prefix!r} (QLinearConcat): expected (tensor, scale, zero point) "
            f"triples after Y_scale and Y_zero_point, got {count} more inputs"
        )
    parts = [r.dequantized(start, start + 1, start + 2) for start in range(2, count + 2, 3)]
    joined = r.emit("Concat", parts, axis=r.attrs.get("axis", 0))
    r.quantized(joined, 0, 1)


def _gemm(r: _Rewriter) -> None:
    """QGemm(A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp; alpha, transA, transB):
    alpha * A' B' + C, C int32 with scale alpha * a_scale * b_scale; quantized by y_scale
    and y_zp when given, else the float result."""
    alpha = float(r.attrs.get("alpha", 1.0))
    trans_b = int(r.attrs.get("transB", 0))
    per_column = 0 if trans_b else 1  # B's output-channel axis
    left = r.dequantized(0, 1, 2)
    right = r.dequantized(3, 4, 5, axis=per_column)
    inputs = [left, right]
    if r.input(6):
        bias_scale = r.emit("Mul", [r.required(1, "a_scale"), r.required(4, "b_scale")])
        if alpha != 1.0:
            bias_scale = r.emit("Mul", [bias_scale, r.constant(np.float32(alpha))])
        per_channel = r.size(r.input(4)) != 1
        inputs.append(r.dequantized_names([r.input(6), bias_scale], 0 if per_channel else None))
    trans_a = int(r.attrs.get("transA", 0))
    output = "" if r.input(7) else r.node.output[0]  # a float result is the node's output
    product = r.emit("Gemm", inputs, output, alpha=alpha, transA=trans_a, transB=trans_b)
    if r.input(7):
        r.quantized(product, 7, 8)


def _integer_product_to_float(
    r: _Rewriter, data: str, data_zero: str, data_scale: str, weight: tuple[int, int, int, int]
) -> None:
    """The node's output: MatMulInteger of `data` (its zero point `data_zero`, "" for
    none) by the weight, in float, times `data_scale` x the weight's scale, plus the
    bias if given; `weight`: the node's inputs of the weight, its scale, its zero point
    and the bias."""
    zero, bias = r.input(weight[2]), r.input(weight[3])
    inputs = [data, r.required(weight[0], "B"), data_zero, zero]
    while not inputs[-1]:
        inputs.pop()
    product = r.emit("Cast", [r.emit("MatMulInteger", inputs)], to=onnx.TensorProto.FLOAT)
    scales = r.emit("Mul", [data_scale, r.required(weight[1], "b_scale")])
    scaled = r.emit("Mul", [product, scales], "" if bias else r.node.output[0])
    if bias:
        r.emit("Add", [scaled, bias], r.node.output[0])


def _matmul_integer_to_float(r: _Rewriter) -> None:
    """MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zp, b_zp, bias): (A - a_zp)(B - b_zp)
    in int32, times a_scale x b_scale (b_scale one value or one per column), plus bias."""
    _integer_product_to_float(
        r, r.required(0, "A"), r.input(4), r.required(2, "a_scale"), (1, 3, 5, 6)
    )


def _dynamic_quantize_matmul(r: _Rewriter) -> None:
    """DynamicQuantizeMatMul(A, B, b_scale, b_zp, bias): A quantized to uint8 at run time
    (DynamicQuantizeLinear), then as MatMulIntegerToFloat."""
    output = f"{r.prefix}__dynamicquantizelinear_{next(r.names)}"
    names = [output, f"{output}_scale", f"{output}_zero_point"]
    r.nodes.append(
        helper.make_node("DynamicQuantizeLinear", [r.required(0, "A")], names, name=output)
    )
    _integer_product_to_float(r, names[0], names[2], names[1], (1, 2, 3, 4))


REWRITES: dict[str, Callable[[_Rewriter], None]] = {
    "MatMulIntegerToFloat": _matmul_integer_to_float,
    "DynamicQuantizeMatMul": _dynamic_quantize_matmul,
    "QLinearAdd": _add,
    "QLinearMul": _mul,
    "QLinearSigmoid": _unary("Sigmoid"),
    "QLinearLeakyRelu": _unary("LeakyRelu", "alpha"),
    "QLinearSoftmax": _unary("Softmax", "axis"),
    "QLinearGlobalAveragePool": _pool("GlobalAveragePool"),
    "QLinearAveragePool": _pool(
        "AveragePool",
        "auto_pad",
        "ceil_mode",
        "count_include_pad",
        "kernel_shape",
        "pads",
        "strides",
    ),
    "QLinearConcat": _concat,
    "QGemm": _gemm,
}


def _subgraphs(node: onnx.NodeProto) -> Iterator[onnx.GraphProto]:
    """The graphs held by `node`'s attributes (If's branches, Loop's body...)."""
    for attr in node.attribute:
        yield from [attr.g] if attr.HasField("g") else attr.graphs


def _rewrite_graph(graph: onnx.GraphProto, opset: int, names: Iterator[int]) -> None:
    """Rewrite `graph`'s contrib nodes (and its subgraphs') in place."""
    initializers = {init.name: init for init in graph.initializer}
    rewritten = False
    nodes: list[onnx.NodeProto] = []
    for node in graph.node:
        for subgraph in _subgraphs(node):
            _rewrite_graph(subgraph, opset, names)
        rewrite = REWRITES.get(node.op_type) if node.domain == CONTRIB_DOMAIN else None
        if rewrite is None:
            nodes.append(node)
            continue
        rewriter = _Rewriter(node, opset, names, initializers)
        rewrite(rewriter)
        nodes.extend(rewriter.nodes)
        rewritten = True
    if rewritten:
        kept = [onnx.NodeProto.FromString(node.SerializeToString()) for node in nodes]
        del graph.node[:]
        graph.node.extend(kept)


def expand_contrib_quantized(proto: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """`proto` with ONNX Runtime's quantized contrib ops (`REWRITES`) in standard form
    (module docstring); `proto` itself when it has none. Other contrib ops stay, and the
    importer refuses them by name."""
    if not any(
        node.domain == CONTRIB_DOMAIN and node.op_type in REWRITES
        for node in _all_nodes(proto.graph)
    ):
        return proto
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(proto)
    _rewrite_graph(rewritten.graph, opset, itertools.count())
    return rewritten


def _all_nodes(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    for node in graph.node:
        yield node
        for subgraph in _subgraphs(node):
            yield from _all_nodes(subgraph)
