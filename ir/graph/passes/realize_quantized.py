"""RealizeQuantized: convolutions between dequantized 8-bit values run on the integers.

A QDQ model (what onnxruntime's quantize_static and `autotune quantize` write) computes
each quantized convolution in float: DequantizeLinear of the 8-bit activation and of the
8-bit weight, a float conv, then a QuantizeLinear. The frontend reads that as

    conv2d(multiply(subtract(cast(xq, float32), zx), sx),
           multiply(cast(wq, float32), sw))          # wq constant int8, sw per channel

which is sx * sw[k] * sum (xq - zx) * wq[k]: an exact integer sum scaled once. Here it
becomes

    multiply(cast(subtract(qnn.conv2d(xq, wq, pad_value=zx), zx * sum wq[k]), float32),
             sx * sw[k])

(the data padded with its zero point, so a padded position contributes nothing, as a
dequantized zero would; the zero point's share taken off once per output channel), and
the bias, the activation and the QuantizeLinear that follow stay as they are, fused as
the integer conv's epilogue. Where a per-channel int32 bias dequantized by sx * sw[k]
and then a QuantizeLinear by sy follow (what onnxruntime's quantize_static writes), the
requantization is onnxruntime's integer kernels' own: float32(sum + bias) times one
multiplier per channel, float32(sx * sw[k]) / sy, then rounded. The sums are exact where
the float conv rounded, so a result can differ from the float graph's by one
quantization step where it lies on a rounding boundary.

Applies where the integer kernel pays: one group (input channels padded to a multiple
of 4, the dot-product width, where they are not), a uint8 or int8 activation with one
scale and zero point, a constant int8 weight with zero points 0 (symmetric, one scale or
one per output channel), float32 scales, and windows small enough that no int32 sum can
overflow. An int8 activation is shifted to uint8 (x + 128, its zero point too), the
operand order 8-bit dot-product instructions want.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from ir.graph.nodes import Call, Constant, Expr, Function, call
from ir.graph.ops.quantized import (
    DOT_WIDTH,
    PAIR,
    QUAD,
    WORD,
    pack_dot_weight,
    pair_sums_fit_int16,
)
from ir.graph.passes.block_channels import output_block, padded_channels
from ir.graph.passes.fold_constant import fold_expr
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import count_uses, free_vars, post_order, with_children
from ir.graph.types import TensorType

_PRODUCT_BOUND = 255 * 128  # the largest |uint8 x int8| product
_INT32_MAX = 2**31 - 1
# Which int32 convs pay on a target (`realize_quantized`; CpuTarget.integer_products).
DOT4 = "dot4"  # every one: 8-bit dot products of 4 bytes (vpdpbusd)
PAIRS = "pairs"  # every one: pair sums in int16 (vpmaddubsw) or int32 (vpmaddwd)
NONE = "none"  # none
_FLOAT_EXACT = 2**24  # float32 holds every integer below this exactly


@dataclass(frozen=True)
class _Dequantized:
    """`(value - zero_point) * scale` of an 8-bit `value`."""

    value: Expr
    dtype: str
    zero_point: np.ndarray
    scale: np.ndarray


def _constant(expr: Expr) -> np.ndarray | None:
    """The value of `expr` when it is computed from constants alone."""
    if isinstance(expr, Constant):
        return expr.data
    if not isinstance(expr, Call) or free_vars(expr):
        return None
    folded = fold_expr(expr)
    return folded.data if isinstance(folded, Constant) else None


def _call_of(expr: Expr, op: str) -> Call | None:
    return expr if isinstance(expr, Call) and expr.op == op else None


def _dequantized(expr: Expr, dtypes: tuple[str, ...] = ("uint8", "int8")) -> _Dequantized | None:
    """`expr` as a DequantizeLinear into float32 of a value of one of `dtypes`, or None."""
    product = _call_of(expr, "multiply")
    if product is None:
        return None
    shifted, scale_expr = product.args
    scale = _constant(scale_expr)
    if scale is None or scale.dtype != np.float32:
        return None
    zero_point = np.zeros((), np.float32)
    difference = _call_of(shifted, "subtract")
    if difference is not None:
        shifted, zero_expr = difference.args
        found = _constant(zero_expr)
        if found is None:
            return None
        zero_point = found
    cast = _call_of(shifted, "cast")
    if cast is None or cast.attrs["dtype"] != "float32":
        return None
    value = cast.args[0]
    ty = value.checked_type if value.has_type else None
    if not isinstance(ty, TensorType) or ty.dtype not in dtypes:
        return None
    return _Dequantized(value, ty.dtype, zero_point, scale)


def _per_channel(array: np.ndarray, channels: int) -> np.ndarray | None:
    """A scalar or a per-output-channel array (one axis of K, the others 1: (K,),
    (K, 1, 1), (1, K), ...) as (K,), or None when it is neither."""
    if array.size == 1:
        return np.full(channels, array.reshape(()), array.dtype)
    if array.size == channels and channels in array.shape:
        return array.reshape(channels)
    return None


@dataclass(frozen=True)
class _IntegerConv:
    """A conv as the exact sum `products` (shape N x K x H x W, int32, or float32 holding
    integers) of its 8-bit operands, less per-channel `offsets` (its data zero point's
    share, (K,)), times the float32 per-channel `scales` (K,); `bound` bounds |products|."""

    products: Expr
    offsets: np.ndarray
    scales: np.ndarray
    dtype: str
    bound: int
    channel_shape: tuple[int, ...] = (-1, 1, 1)  # per-channel constants broadcast so

    def total(self, bias: np.ndarray | None = None) -> Expr | None:
        """The sum less the offsets, plus an int32 per-channel `bias`: one add; None when
        a float32 sum could no longer hold the result exactly."""
        shift = -self.offsets if bias is None else bias.astype(np.int64) - self.offsets
        if self.dtype == "float32" and self.bound + int(np.abs(shift).max()) >= _FLOAT_EXACT:
            return None
        if not np.any(shift):
            return self.products
        constant = Constant(shift.astype(self.dtype).reshape(self.channel_shape))
        return call("add", self.products, constant)

    def scaled(self, total: Expr, scales: np.ndarray, span: str) -> Expr:
        """float32(`total`) times per-channel `scales`."""
        factors = Constant(scales.astype(np.float32).reshape(self.channel_shape))
        if self.dtype != "float32":
            total = call("cast", total, dtype="float32", span=span)
        return call("multiply", total, factors, span=span)


def dot_product_conv(
    value: Expr,
    dtype: str,
    zero_point: int,
    weight: np.ndarray,
    attrs: Mapping[str, object],
    products: str = DOT4,
    span: str = "",
    make: Callable[..., Expr] = call,
) -> tuple[Expr, np.ndarray] | None:
    """The int32 sum of a one-group conv (`attrs`: strides, padding, dilation) of the
    8-bit `value` (of `dtype`, with `zero_point`) by the constant OIHW int8 `weight`:
    `qnn.conv2d` of the data as uint8 (int8 data shifted by 128) padded with its zero
    point, and the per-channel offsets (zero point x weight sums, int64) still to take
    off. Input channels are padded to a multiple of 4 with zero weights (an image's 3
    channels take 4 channels' dot products: ResNet-50's stem ran in a third of the time
    of its float-exact kernel on Zen 4).
    None where the dot-product kernel does not apply (sums that could leave int32) or
    does not pay on the target (`products`).
    `make` builds each call (the ONNX frontend's builds typed ones)."""
    missing = -weight.shape[1] % DOT_WIDTH
    padded = np.pad(weight, ((0, 0), (0, missing), (0, 0), (0, 0))) if missing else weight
    form = _dot_form(padded, products)
    if form is None:
        return None
    value, zero_point = _dot_data(value, dtype, zero_point, form, make)
    if missing:  # (an image's 3 channels): zero weights for the extra channels
        widths = ((0, 0), (0, missing), (0, 0), (0, 0))
        value = make("nn.pad", value, pad_width=widths, pad_value=float(zero_point))
    integer_sum = make(
        "qnn.conv2d",
        value,
        Constant(padded),
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=1,
        pad_value=zero_point,
        dot_form=form,
        **({"span": span} if span else {}),
    )
    return integer_sum, _offsets(weight, zero_point)


def _dot_form(weight: np.ndarray, products: str) -> str | None:
    """The dot form (ir.graph.ops.quantized) the OIHW int8 `weight` takes on the
    dot-product kernel: QUAD where `products` is DOT4, whatever the weights (one 4-byte
    dot product does twice a pair's work); where it is PAIRS, PAIR for weights whose pair
    sums fit int16, else WORD. None where that kernel does not apply or pay."""
    window = int(np.prod(weight.shape[1:]))
    if (
        weight.dtype != np.int8
        or weight.shape[1] % DOT_WIDTH
        or window * _PRODUCT_BOUND > _INT32_MAX
        or products not in (DOT4, PAIRS)
    ):
        return None
    if products == DOT4:
        return QUAD
    return PAIR if pair_sums_fit_int16(weight) else WORD


def unsigned_data(
    value: Expr, dtype: str, zero_point: int, make: Callable[..., Expr] = call
) -> tuple[Expr, int]:
    """8-bit data and its zero point as uint8, the operand dot products want: int8 data
    128 higher, its zero point too."""
    if dtype != "int8":
        return value, zero_point
    widened = make("add", make("cast", value, dtype="int16"), Constant(np.array(128, np.int16)))
    return make("cast", widened, dtype="uint8"), zero_point + 128


def _dot_data(
    value: Expr, dtype: str, zero_point: int, form: str, make: Callable[..., Expr]
) -> tuple[Expr, int]:
    """8-bit data and its zero point as dot form `form` reads them: uint8 (`unsigned_data`),
    then, for WORD, widened to int16, a cast its producer's epilogue writes (each pair of
    values is then one 4-byte broadcast, where uint8 pairs needed a shuffle each)."""
    value, zero_point = unsigned_data(value, dtype, zero_point, make)
    if form == WORD:
        value = make("cast", value, dtype="int16")
    return value, zero_point


def _offsets(weight: np.ndarray, zero_point: int) -> np.ndarray:
    """Per output channel, the data zero point's share of the sum (int64)."""
    sums: np.ndarray = weight.astype(np.int64).reshape(weight.shape[0], -1).sum(axis=1)
    return sums * zero_point


def _quantized_operands(
    node: Call,
) -> tuple[_Dequantized, _Dequantized, np.ndarray, TensorType] | None:
    """A typed float32 product `node`'s dequantized 8-bit data, its dequantized constant
    symmetric int8 weight, that weight's values and the node's type; None otherwise."""
    out = node.checked_type if node.has_type else None
    data = _dequantized(node.args[0])
    weight = _dequantized(node.args[1])
    if not isinstance(out, TensorType) or out.dtype != "float32" or data is None or weight is None:
        return None
    values = _constant(weight.value)
    if values is None or values.dtype != np.int8 or np.any(weight.zero_point):
        return None
    return data, weight, values, out


def _integer_conv(conv: Expr, rewritten: Mapping[int, Expr], products: str) -> _IntegerConv | None:
    """The integer form of typed `conv` (module docstring), its operands taken from
    `rewritten` (by id of the original node), or None where it does not apply; int32
    `qnn.conv2d` as `products` allows (`realize_quantized`)."""
    if not isinstance(conv, Call) or conv.op != "nn.conv2d":
        return None
    operands = _quantized_operands(conv)
    if operands is None:
        return None
    data, weight, weight_values, _ = operands
    channels, window = weight_values.shape[0], int(np.prod(weight_values.shape[1:]))
    weight_scale = _per_channel(weight.scale, channels)
    if weight_scale is None or data.scale.size != 1 or data.zero_point.size != 1:
        return None
    bound = window * _PRODUCT_BOUND
    groups = int(conv.attrs["groups"])
    attrs = {key: conv.attrs[key] for key in ("strides", "padding", "dilation")}
    scales = (np.float32(data.scale.reshape(())) * weight_scale).astype(np.float32)
    value, zero_point = rewritten[id(data.value)], int(data.zero_point.reshape(()))
    if groups == 1:
        found = dot_product_conv(
            value, data.dtype, zero_point, weight_values, attrs, products, conv.span
        )
        if found is not None:
            integer_sum, offsets = found
            return _IntegerConv(integer_sum, offsets, scales, "int32", bound)
    if bound >= _FLOAT_EXACT:
        return None
    # Depthwise or grouped convs: the float kernel, on the centred 8-bit values
    # and the int8 weights, sums integers below 2**24, which float32 holds exactly.
    centred = call(
        "subtract",
        call("cast", value, dtype="float32", span=conv.span),
        Constant(np.array(zero_point, np.float32)),
        span=conv.span,
    )
    float_sum = call(
        "nn.conv2d",
        centred,
        Constant(weight_values.astype(np.float32)),
        span=conv.span,
        groups=groups,
        **attrs,
    )
    return _IntegerConv(float_sum, np.zeros(channels, np.int64), scales, "float32", bound)


_PRODUCT_OPS = frozenset({"nn.conv2d", "nn.dense", "nn.matmul"})
MAX_DENSE_COLUMNS = 8  # rows of a dense product per register tile (the conv's columns)


def _integer_product(
    node: Expr, rewritten: Mapping[int, Expr], products: str
) -> _IntegerConv | None:
    """The integer form of a conv, dense or matmul `node`, or None."""
    if isinstance(node, Call) and node.op in ("nn.dense", "nn.matmul"):
        return _integer_dense(node, rewritten, products)
    return _integer_conv(node, rewritten, products)


def _integer_dense(node: Call, rewritten: Mapping[int, Expr], products: str) -> _IntegerConv | None:
    """A dense (x [..., K] by weight [N, K]) or matmul (by weight [K, N]) between
    dequantized 8-bit values on the dot-product kernel (`dot_product_dense`), or None
    where it does not apply or pay (`products`)."""
    operands = _quantized_operands(node)
    if operands is None or operands[2].ndim != 2:
        return None
    data, weight, values, out = operands
    matrix = values if node.op == "nn.dense" else values.T  # [N, K]
    outputs, depth = matrix.shape
    weight_scale = _per_channel(weight.scale, outputs)
    if weight_scale is None or data.scale.size != 1 or data.zero_point.size != 1:
        return None
    value, zero_point = rewritten[id(data.value)], int(data.zero_point.reshape(()))
    found = dot_product_dense(value, data.dtype, zero_point, matrix, out.shape, products)
    if found is None:
        return None
    total, offsets = found
    scales = (np.float32(data.scale.reshape(())) * weight_scale).astype(np.float32)
    bound = depth * _PRODUCT_BOUND
    return _IntegerConv(total, offsets, scales, "int32", bound, (-1,))


def dot_product_dense(
    value: Expr,
    dtype: str,
    zero_point: int,
    matrix: np.ndarray,
    out_shape: tuple[int, ...],
    products: str = DOT4,
    make: Callable[..., Expr] = call,
) -> tuple[Expr, np.ndarray] | None:
    """The int32 product of the 8-bit `value` [..., K] (of `dtype`, with `zero_point`)
    by the constant int8 `matrix` [N, K] transposed, shaped `out_shape` [..., N], on the
    dot-product kernel: a 1x1 qnn.conv2d_nchwc whose pixels are the M rows of `value`
    (M / W rows of W columns, W up to 8: one register tile), its K columns the input
    channels of one block, the N outputs blocks of channels (padded to whole ones), back
    to [..., N] by a transpose; and the per-output offsets (zero point x row sums) still
    to take off. None where the kernel does not apply or pay (`products`). `make` builds
    each call."""
    outputs, depth = matrix.shape
    rows = int(np.prod(out_shape[:-1]))
    if rows == 0:
        return None
    # Output blocks as a conv's, padded whatever the waste (a classifier of 10 outputs).
    block = output_block(outputs) or (8 if outputs <= 8 else 16)
    padded = padded_channels(outputs, block)
    kernel = matrix.reshape(outputs, depth, 1, 1)
    form = _dot_form(kernel, products)
    if form is None:
        return None
    value, zero_point = _dot_data(value, dtype, zero_point, form, make)
    # [..., K] is [H, W, K] in memory: NCHW[K]c with one block of all K channels.
    columns = max(w for w in range(1, MAX_DENSE_COLUMNS + 1) if rows % w == 0)
    pixels = make("reshape", value, newshape=(1, 1, rows // columns, columns, depth))
    blocked = make(
        "qnn.conv2d_nchwc",
        pixels,
        Constant(pack_dot_weight(kernel, depth, block, form)),
        pad_value=zero_point,
        dot_form=form,
    )
    plain = make("transpose", blocked, axes=(0, 2, 3, 1, 4))
    total: Expr = make("reshape", plain, newshape=(rows, padded))
    if padded != outputs:
        total = make("strided_slice", total, begin=(0,), end=(outputs,), axes=(1,))
    total = make("reshape", total, newshape=tuple(out_shape))
    return total, _offsets(kernel, zero_point)


def _integer_bias(expr: Expr, scales: np.ndarray) -> np.ndarray | None:
    """`expr` as a per-channel int32 bias dequantized by `scales` (how onnxruntime's
    quantizer stores a conv's bias), its int32 values; else None."""
    expanded = _call_of(expr, "expand_dims")
    bias = _dequantized(expanded.args[0] if expanded else expr, ("int32",))
    if bias is None or np.any(bias.zero_point):
        return None
    values = _constant(bias.value)
    channels = scales.shape[0]
    bias_scale = _per_channel(bias.scale, channels)
    if values is None or values.size != channels or bias_scale is None:
        return None
    if not np.array_equal(bias_scale.astype(np.float32), scales):
        return None
    return values.reshape(channels).astype(np.int32)


def _requantized(
    node: Call, rewritten: Mapping[int, Expr], uses: Mapping[int, int], products: str
) -> Expr | None:
    """`divide(relu?(conv + bias), output_scale)` (a QuantizeLinear's first step after
    an integer conv with an int32 bias) as onnxruntime's integer kernels compute it:
    float32(sum + bias) * (input scale * weight scale / output scale), one multiplier per
    channel; None where the pattern does not hold."""
    value, divisor = node.args
    output_scale = _constant(divisor)
    if output_scale is None or output_scale.size != 1 or output_scale.dtype != np.float32:
        return None
    chain, relu = value, _call_of(value, "nn.relu")
    if relu is not None:
        chain = relu.args[0]
    add = _call_of(chain, "add")
    if add is None or uses.get(id(chain), 0) != 1 or uses.get(id(value), 0) != 1:
        return None
    for conv, bias_expr in (add.args, add.args[::-1]):
        single = uses.get(id(conv), 0) == 1
        integer = _integer_product(conv, rewritten, products) if single else None
        if integer is None:
            continue
        bias = _integer_bias(bias_expr, integer.scales)
        if bias is None:
            return None
        total = integer.total(bias)
        if total is None:
            return None
        multipliers = integer.scales / np.float32(output_scale.reshape(()))
        scaled = integer.scaled(total, multipliers.astype(np.float32), add.span)
        return call("nn.relu", scaled, span=relu.span) if relu is not None else scaled
    return None


def realize_quantized(fn: Function, products: str = DOT4) -> Function:
    """Turn every float conv between dequantized 8-bit values of typed `fn` into an
    integer conv scaled once (module docstring). `products` says which int32 convs pay
    on the target: DOT4 every one (8-bit dot-product instructions), PAIRS every one too
    (AVX2's vpmaddubsw where the weights' pair sums fit int16, its vpmaddwd on weights
    widened to int16 elsewhere), NONE none (int32 kernels would run slower than float
    ones); where an int32 conv does not pay, only the convs whose sums
    float32 holds exactly are realized, on their float kernels, and the others stay as
    they are. Returns a typed function."""
    if products not in (DOT4, PAIRS, NONE):
        raise ValueError(f"products must be {DOT4!r}, {PAIRS!r} or {NONE!r}; got {products!r}")
    rewritten: dict[int, Expr] = {}
    uses = count_uses(fn.body)
    changed = False
    for node in post_order(fn.body):
        children = tuple(rewritten[id(child)] for child in node.children())
        new = with_children(node, children)
        realized: Expr | None = None
        if isinstance(node, Call) and node.op in _PRODUCT_OPS:
            integer = _integer_product(node, rewritten, products)
            total = None if integer is None else integer.total()
            if integer is not None and total is not None:
                realized = integer.scaled(total, integer.scales, node.span)
        elif isinstance(node, Call) and node.op == "divide":
            realized = _requantized(node, rewritten, uses, products)
        if realized is not None:
            new, changed = realized, True
        rewritten[id(node)] = new
    if not changed:
        return fn
    return infer_type(replace(fn, body=rewritten[id(fn.body)]))
