"""BlockChannels: keep CPU convolution activations in blocked-channel layout (NCHW[b]c).

A convolution over NCHW data reads one short run from each of C channel planes per output
tile and writes as many planes back: inside a network, where every activation arrives
from memory, that is more concurrent streams than the hardware prefetchers follow. In
NCHW[b]c (channels split into blocks of b, the block innermost: TVM's NCHWc, ONNX
Runtime's NCHWc) a tile reads and writes contiguous runs of b channels instead.

Step 1. Every `nn.conv2d` with a constant weight and one group becomes `nn.conv2d_nchwc`
        with a blocked output when a block size divides its output channels, or when
        zero channels pad them to a whole number of full blocks for little extra work
        (1000 classes in 63 blocks of 16: full vectors instead of half ones). Its weight
        is re-laid out once here (OIHW -> OIHW[bi]i[bo]o, padded, folded to a constant).
        Data that is not blocked is read in NCHW directly (a 3-channel image, say).
        A grouped conv whose groups are whole blocks (RegNet's groups of 8 or 16
        channels) becomes one too, with `groups`: each output block reads its own
        group's input blocks, so no transform surrounds it.
Step 2. Blocked values flow on through elementwise ops (per-channel constants such as a
        folded batch norm's scale and shift are re-laid out to match), channel
        concatenations of equally blocked inputs, 2-D pooling, and depthwise convs
        (`nn.depthwise_conv2d_nchwc`, the weight re-laid out to C[b]HWc: each block of
        channels one vector, no transform around the conv as MobileNets and
        EfficientNets had before each one of them).
Step 3. Any other consumer, and the function's result, gets the value back in NCHW
        through a transpose + reshape (+ a slice dropping padding channels), made once
        per value and fused like any other injective op. Padded values are not read
        blocked by a conv or a concatenation (whatever the padding channels hold would
        count); they get the NCHW value.
Step 4. A conv that is alone in its blocked region (NCHW in, and its blocked output
        reaches no other conv: a conv between LRNs or grouped convs) only gains a
        transform: it is left in NCHW. A padded conv whose region a conv or a
        concatenation reads would cost a transform there: it is not padded. When either
        applies, the conversion runs again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ir.graph.nodes import Call, Constant, Expr, Function, call
from ir.graph.ops import elemwise
from ir.graph.ops.quantized import DOT_WIDTH, pack_dot_weight
from ir.graph.passes.fold_constant import fold_expr
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order, with_children
from ir.graph.types import TensorType

BLOCK_SIZES = (16, 8)  # preferred first: one AVX-512 vector of float32, then one AVX2 vector
MAX_INPUT_BLOCK = 16
MAX_PADDING = 1 / 16  # at most this share of extra output channels for full blocks
_ELEMENTWISE_OPS = frozenset(op.name for op in elemwise.OPS)
_CONV_OPS = frozenset({"nn.conv2d", "qnn.conv2d"})
_POOL_OPS = frozenset(
    {"nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d", "nn.global_max_pool2d"}
)


@dataclass(frozen=True)
class _Blocked:
    """A value held as NCHW[block]c: `expr` is 5-D, `shape` its NCHW shape (without the
    padding channels that complete its last block, if any)."""

    expr: Expr
    block: int
    shape: tuple[int, ...]
    symbolic_batch: bool = False  # its batch is known at run time (shape[0] its bound)

    @staticmethod
    def of(expr: Expr, block: int, out: TensorType) -> _Blocked:
        """`expr` (blocked in `block`s) of a value of NCHW type `out`."""
        return _Blocked(expr, block, out.shape, bool(out.dims))

    @property
    def padded(self) -> bool:
        return self.shape[1] % self.block != 0


def output_block(channels: int, allow_padding: bool = True) -> int | None:
    """The block size for a conv output of `channels` channels, or None (stays NCHW).
    The widest block wins if it divides `channels`, or if padding `channels` up to whole
    blocks adds at most MAX_PADDING of them (and `allow_padding`)."""
    widest = BLOCK_SIZES[0]
    if allow_padding and -channels % widest <= MAX_PADDING * channels:
        return widest
    for block in BLOCK_SIZES:
        if channels % block == 0:
            return block
    return None


def padded_channels(channels: int, block: int) -> int:
    """`channels` rounded up to whole blocks."""
    return -(-channels // block) * block


def _pad_channels(expr: Expr, shape: tuple[int, ...], block: int, axis: int) -> Expr:
    """`expr` of `shape` with zeros appended on `axis` up to whole blocks."""
    extra = padded_channels(shape[axis], block) - shape[axis]
    if extra == 0:
        return expr
    widths = tuple((0, extra if i == axis else 0) for i in range(len(shape)))
    return call("nn.pad", expr, pad_width=widths)


def _input_block(channels: int, step: int = 1) -> int:
    """How an NCHW input's channels are grouped in the conv's reduction: the largest
    divisor of `channels` up to MAX_INPUT_BLOCK that is a multiple of `step` (all of them
    for an RGB image); 0 when there is none."""
    fitting = range(step, min(channels, MAX_INPUT_BLOCK) + 1, step)
    return max((b for b in fitting if channels % b == 0), default=0)


def _batch_entry(shape: tuple[int, ...], symbolic_batch: bool) -> tuple[int, ...]:
    """`shape` as a reshape target: a symbolic batch as -1 (the rest holds it)."""
    return (-1, *shape[1:]) if symbolic_batch else shape


def to_blocked(
    expr: Expr, shape: tuple[int, ...], block: int, symbolic_batch: bool = False
) -> Expr:
    """`expr` (NCHW, of `shape`) as NCHW[block]c, zero-padded to whole blocks; a size-1
    channel axis stays size 1. A symbolic batch (`shape[0]` its bound) stays symbolic."""
    batch, channels, height, width = _batch_entry(shape, symbolic_batch)
    if channels == 1:
        return call("reshape", expr, newshape=(batch, 1, height, width, 1))
    blocks = padded_channels(channels, block) // block
    padded = _pad_channels(expr, shape, block, axis=1)
    split = call("reshape", padded, newshape=(batch, blocks, block, height, width))
    return call("transpose", split, axes=(0, 1, 3, 4, 2))


def to_plain(expr: Expr, shape: tuple[int, ...], block: int, symbolic_batch: bool = False) -> Expr:
    """`expr` (NCHW[block]c) back in NCHW of `shape`, without padding channels (a symbolic
    batch stays symbolic)."""
    batch, channels, height, width = _batch_entry(shape, symbolic_batch)
    whole = (batch, padded_channels(channels, block), height, width)
    plain = call("reshape", call("transpose", expr, axes=(0, 1, 4, 2, 3)), newshape=whole)
    if whole[1] == channels:
        return plain
    return call("strided_slice", plain, begin=(0,), end=(channels,), axes=(1,))


def blocked_weight(weight: Expr, shape: tuple[int, ...], in_block: int, out_block: int) -> Expr:
    """An OIHW weight of `shape` as OIHW[in_block]i[out_block]o, its output channels
    zero-padded to whole blocks."""
    out_channels, in_channels, kernel_h, kernel_w = shape
    split = call(
        "reshape",
        _pad_channels(weight, shape, out_block, axis=0),
        newshape=(
            padded_channels(out_channels, out_block) // out_block,
            out_block,
            in_channels // in_block,
            in_block,
            kernel_h,
            kernel_w,
        ),
    )
    return call("transpose", split, axes=(0, 2, 4, 5, 3, 1))


def blocked_depthwise_weight(weight: Expr, shape: tuple[int, ...], block: int) -> Expr:
    """A depthwise conv's C1HW weight of `shape` as C[block]HWc, its channels
    zero-padded to whole blocks."""
    channels, _, kernel_h, kernel_w = shape
    padded = _pad_channels(weight, shape, block, axis=0)
    split = call(
        "reshape",
        padded,
        newshape=(padded_channels(channels, block) // block, block, kernel_h, kernel_w),
    )
    return call("transpose", split, axes=(0, 2, 3, 1))


def _broadcasts_in_blocks(shape: tuple[int, ...], out: tuple[int, ...]) -> bool:
    """Whether a blocked operand of NCHW `shape` broadcasts to `out` in blocked layout too:
    all its channels, and each other axis full or 1 (a squeeze-and-excitation scale)."""
    return shape[1] == out[1] and all(
        dim in (1, full) for dim, full in zip(shape, out, strict=True)
    )


def _tensor_type(expr: Expr) -> TensorType | None:
    if not expr.has_type:
        return None
    ty = expr.checked_type
    return ty if isinstance(ty, TensorType) else None


class _Converter:
    def __init__(
        self,
        plain_convs: frozenset[int] = frozenset(),
        unpadded_convs: frozenset[int] = frozenset(),
    ) -> None:
        self.plain_convs = plain_convs  # convs (by node id) to leave in NCHW
        self.unpadded_convs = unpadded_convs  # convs (by node id) not to pad
        self.plain: dict[int, Expr] = {}
        self.blocked: dict[int, _Blocked] = {}
        self.region: dict[int, int] = {}  # union-find over blocked nodes joined by edges
        self.blocked_convs: list[int] = []
        self.padded_convs: list[int] = []
        self.read_plain: list[int] = []  # padded values a conv or concatenation reads

    def _root(self, key: int) -> int:
        while self.region[key] != key:
            self.region[key] = self.region[self.region[key]]
            key = self.region[key]
        return key

    def lone_convs(self) -> frozenset[int]:
        """Blocked convs that share their blocked region with no other conv: each reads
        NCHW and its output goes back to NCHW, so blocking only adds a transform."""
        per_region: dict[int, list[int]] = {}
        for conv in self.blocked_convs:
            per_region.setdefault(self._root(conv), []).append(conv)
        return frozenset(convs[0] for convs in per_region.values() if len(convs) == 1)

    def padded_convs_read_plain(self) -> frozenset[int]:
        """Padded convs whose blocked region a conv or a concatenation reads in NCHW."""
        regions = {self._root(key) for key in self.read_plain}
        return frozenset(conv for conv in self.padded_convs if self._root(conv) in regions)

    def plain_of(self, node: Expr) -> Expr:
        known = self.plain.get(id(node))
        if known is None:
            value = self.blocked[id(node)]
            known = to_plain(value.expr, value.shape, value.block, value.symbolic_batch)
            self.plain[id(node)] = known
        return known

    def blocked_unpadded(self, node: Expr) -> _Blocked | None:
        """`node`'s blocked value, for a reader that cannot take padding channels: None
        when it is padded (or not blocked), and the reader gets the NCHW value."""
        value = self.blocked.get(id(node))
        if value is not None and value.padded:
            self.read_plain.append(id(node))
            return None
        return value

    def visit(self, node: Expr) -> None:
        if isinstance(node, Call) and isinstance(node.op, str):
            blocked = self._blocked_call(node)
            if blocked is not None:
                self.blocked[id(node)] = blocked
                self.region[id(node)] = id(node)
                for arg in node.args:  # a blocked call reads its blocked inputs as blocked
                    if id(arg) in self.blocked:
                        self.region[self._root(id(arg))] = self._root(id(node))
                if node.op in _CONV_OPS:
                    self.blocked_convs.append(id(node))
                    if blocked.padded:
                        self.padded_convs.append(id(node))
                return
        if isinstance(node, Function):
            self.plain[id(node)] = node  # nested functions are left as they are
            return
        children = tuple(self.plain_of(child) for child in node.children())
        same = all(new is old for new, old in zip(children, node.children(), strict=True))
        self.plain[id(node)] = node if same else with_children(node, children)

    def _blocked_call(self, node: Call) -> _Blocked | None:
        out = _tensor_type(node)
        if out is None or out.ndim != 4:
            return None
        if node.op in _CONV_OPS:
            return self._conv(node, out)
        if node.op in _ELEMENTWISE_OPS:
            return self._elementwise(node, out)
        if node.op == "concatenate":
            return self._concatenate(node, out)
        if node.op in _POOL_OPS:
            return self._pool(node, out)
        return None

    def _conv(self, node: Call, out: TensorType) -> _Blocked | None:
        """A conv with a constant weight as `nn.conv2d_nchwc` (`qnn.conv2d_nchwc`), or a
        depthwise one (`_depthwise`). A grouped float conv too when its groups are whole
        blocks (RegNet's groups of 8 or 16 channels): each output block reads its own
        group's input blocks. Narrower groups stay in NCHW."""
        data, weight = node.args
        weight_type = _tensor_type(weight)
        groups = int(node.attrs["groups"])
        integer = node.op == "qnn.conv2d"
        if groups != 1 and integer:
            return None
        if groups != 1 and (depthwise := self._depthwise(node, out)) is not None:
            return depthwise
        if id(node) in self.plain_convs or not isinstance(weight, Constant) or weight_type is None:
            return None
        if groups == 1:
            block = output_block(out.shape[1], id(node) not in self.unpadded_convs)
        else:  # no padding: a padded block would straddle two groups
            group_outputs = out.shape[1] // groups
            block = next((size for size in BLOCK_SIZES if group_outputs % size == 0), None)
        if block is None:
            return None
        step = DOT_WIDTH if integer else 1
        group_inputs = weight_type.shape[1]
        source = self.blocked_unpadded(data)
        if source is not None and source.block % step == 0 and group_inputs % source.block == 0:
            data_expr, in_block = source.expr, source.block
        else:
            data_expr, in_block = self.plain_of(data), _input_block(group_inputs, step)
        if in_block % step:
            return None
        data_type = _tensor_type(data)
        if integer and source is None and data_type is not None:
            # Blocked, each output channel's 4 input bytes are adjacent: one dot product.
            data_expr = to_blocked(data_expr, data_type.shape, in_block, bool(data_type.dims))
        attrs = {key: node.attrs[key] for key in ("strides", "padding", "dilation")}
        packed: Expr
        if integer:
            form = str(node.attrs["dot_form"])
            packed = Constant(pack_dot_weight(weight.data, in_block, block, form))
            conv = call(
                "qnn.conv2d_nchwc",
                data_expr,
                packed,
                span=node.span,
                pad_value=node.attrs["pad_value"],
                dot_form=form,
                **attrs,
            )
        else:
            if groups != 1:
                attrs["groups"] = groups
            packed = fold_expr(blocked_weight(weight, weight_type.shape, in_block, block))
            conv = call("nn.conv2d_nchwc", data_expr, packed, span=node.span, **attrs)
        return _Blocked.of(conv, block, out)

    def _depthwise(self, node: Call, out: TensorType) -> _Blocked | None:
        """A depthwise conv (one input channel per output channel) of blocked data, in
        the data's blocks; a padded value too (its padding channels only make padding
        channels)."""
        data, weight = node.args
        weight_type = _tensor_type(weight)
        value = self.blocked.get(id(data))
        channels = out.shape[1]
        if (
            value is None
            or not isinstance(weight, Constant)
            or weight_type is None
            or int(node.attrs["groups"]) != channels
            or weight_type.shape[:2] != (channels, 1)
            or value.shape[1] != channels
        ):
            return None
        packed = fold_expr(blocked_depthwise_weight(weight, weight_type.shape, value.block))
        attrs = {key: node.attrs[key] for key in ("strides", "padding", "dilation")}
        conv = call("nn.depthwise_conv2d_nchwc", value.expr, packed, span=node.span, **attrs)
        return _Blocked.of(conv, value.block, out)

    def _elementwise(self, node: Call, out: TensorType) -> _Blocked | None:
        assert isinstance(node.op, str)
        blocked_args = [self.blocked.get(id(arg)) for arg in node.args]
        blocks = {value.block for value in blocked_args if value is not None}
        if len(blocks) != 1:
            return None
        (block,) = blocks
        args: list[Expr] = []
        for arg, value in zip(node.args, blocked_args, strict=True):
            if value is not None:
                if not _broadcasts_in_blocks(value.shape, out.shape):
                    return None
                args.append(value.expr)
                continue
            side = self._broadcast_operand(arg, out, block)
            if side is None:
                return None
            args.append(side)
        return _Blocked.of(call(node.op, *args, span=node.span, **node.attrs), block, out)

    def _broadcast_operand(self, arg: Expr, out: TensorType, block: int) -> Expr | None:
        """A non-blocked operand of a blocked elementwise op, broadcast the same way."""
        ty = _tensor_type(arg)
        if ty is None or ty.ndim > 4:
            return None
        if ty.dims:  # a symbolic operand: the same batch as the output, or none of it
            if ty.ndim != 4 or ty.shape[1:] != out.shape[1:]:
                return None
            return to_blocked(self.plain_of(arg), ty.shape, block, symbolic_batch=True)
        shape = (1,) * (4 - ty.ndim) + ty.shape
        if any(dim not in (1, full) for dim, full in zip(shape, out.shape, strict=True)):
            return None
        if all(dim == 1 for dim in shape):
            return self.plain_of(arg)  # a scalar-like operand broadcasts in any layout
        blocked = to_blocked(call("reshape", self.plain_of(arg), newshape=shape), shape, block)
        return fold_expr(blocked) if isinstance(arg, Constant) else blocked

    def _concatenate(self, node: Call, out: TensorType) -> _Blocked | None:
        if int(node.attrs["axis"]) % 4 != 1:
            return None
        values = [self.blocked_unpadded(arg) for arg in node.args]
        if any(value is None for value in values):
            return None
        blocks = {value.block for value in values if value is not None}
        if len(blocks) != 1:
            return None
        exprs = [value.expr for value in values if value is not None]
        concat = call("concatenate", *exprs, span=node.span, axis=1)
        return _Blocked.of(concat, blocks.pop(), out)

    def _pool(self, node: Call, out: TensorType) -> _Blocked | None:
        assert isinstance(node.op, str)
        value = self.blocked.get(id(node.args[0]))
        if value is None:
            return None
        attrs = {**node.attrs, "layout": "NCHWc"}
        return _Blocked.of(call(node.op, value.expr, span=node.span, **attrs), value.block, out)


def block_channels(fn: Function) -> Function:
    """Convert the convolutions of typed `fn` and what follows them to NCHW[b]c (see the
    module docstring); inputs and results keep their layout. Returns a typed function."""
    nodes = post_order(fn.body)

    def convert(plain_convs: frozenset[int], unpadded_convs: frozenset[int]) -> _Converter:
        converter = _Converter(plain_convs, unpadded_convs)
        for node in nodes:
            converter.visit(node)
        return converter

    converter = convert(frozenset(), frozenset())
    lone, unpadded = converter.lone_convs(), converter.padded_convs_read_plain()
    if lone or unpadded:
        converter = convert(lone, unpadded)
    body = converter.plain_of(fn.body)
    if body is fn.body:
        return fn
    return infer_type(replace(fn, body=body))
