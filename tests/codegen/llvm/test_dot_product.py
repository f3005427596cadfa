"""8-bit dot products: qnn.conv2d_nchwc's 4-step byte sums around an int32 channel vector
become vpdpbusd where the target has it (AVX-512 VNNI, AVX-VNNI), its pair forms
vpmaddubsw (7-bit weights) or vpmaddwd (weights widened to int16) on AVX2, and every
kernel, with or without them, computes the reference's exact integers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.executor import compile_model
from codegen.llvm.jit import optimized_llvm_ir
from codegen.llvm.target import host_target, parse_cpu_target
from ir.graph.nodes import Call, Constant, Function, Var, call
from ir.graph.ops.quantized import (
    PAIR,
    QUAD,
    WORD,
    pack_dot_weight,
    pair_sums_fit_int16,
    unpack_dot_weight,
)
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order
from ir.graph.types import TensorType
from ir.lower import lower
from ir.reference import evaluate
from ir.schedule.default import default_schedule
from ir.te.program import function_to_te


def _conv(
    data: np.ndarray,
    weight: np.ndarray,
    in_block: int,
    out_block: int,
    form: str = QUAD,
    **attrs: object,
) -> Function:
    """fn(x) = qnn.conv2d_nchwc(x, OIHW `weight` packed for dot form `form`), typed."""
    x = Var("x", TensorType(data.shape, data.dtype.name))
    packed = Constant(pack_dot_weight(weight, in_block, out_block, form))
    conv = call("qnn.conv2d_nchwc", x, packed, dot_form=form, **attrs)
    return infer_type(Function((x,), conv))


def _kernel_ir(fn: Function, target_text: str) -> str:
    target = parse_cpu_target(target_text)
    prim = next(n.op for n in post_order(fuse_ops(fn).body) if isinstance(n, Call))
    assert isinstance(prim, Function)
    schedule = default_schedule(function_to_te(prim), target.hardware, frozenset({"p1"}))
    return optimized_llvm_ir(lower(schedule), target)


def _blocked_data(rng: np.random.Generator, blocks: int, size: int, block: int) -> np.ndarray:
    return rng.integers(0, 256, (1, blocks, size, size, block)).astype(np.uint8)


@pytest.mark.parametrize(
    ("target", "out_block", "expected"),
    [
        ("llvm -mcpu=znver4", 16, True),
        ("llvm -mcpu=icelake-server", 8, True),
        ("llvm -mcpu=alderlake", 8, True),  # AVX-VNNI, 256-bit
        ("llvm -mcpu=alderlake", 16, True),  # two 8-lane instructions per 16-lane block
        ("llvm -mcpu=znver3", 8, False),
        ("llvm -mcpu=skylake-avx512", 16, False),
        ("llvm -mcpu=znver4 -mattr=-avx512vnni", 16, False),
    ],
)
def test_vpdpbusd_where_the_target_has_it(target: str, out_block: int, expected: bool) -> None:
    rng = np.random.default_rng(0)
    data = _blocked_data(rng, 2, 6, 8)
    weight = rng.integers(-127, 128, (2 * out_block, 16, 3, 3)).astype(np.int8)
    fn = _conv(data, weight, 8, out_block, padding=(1, 1, 1, 1), pad_value=3)
    assert ("vpdpbusd" in _kernel_ir(fn, target)) == expected


# A conv's window, stride, input block and zero point, and the seed of its values.
_CONV_CASES = {
    "in_block": st.sampled_from([4, 8, 16]),
    "kernel": st.sampled_from([1, 3]),
    "stride": st.integers(1, 2),
    "pad_value": st.integers(0, 255),
    "seed": st.integers(0, 2**16),
}


@settings(max_examples=25, deadline=None)
@given(
    blocks=st.integers(1, 3),
    out_blocks=st.integers(1, 2),
    out_block=st.sampled_from([4, 8, 16]),
    size=st.integers(3, 9),
    blocked=st.booleans(),
    **_CONV_CASES,
)
def test_compiled_8_bit_convs_are_exact(
    blocks: int,
    in_block: int,
    out_blocks: int,
    out_block: int,
    size: int,
    kernel: int,
    stride: int,
    pad_value: int,
    blocked: bool,
    seed: int,
) -> None:
    """Whatever the blocks, window, stride and zero point, the host's kernel (vpdpbusd
    or not) gives the reference's integers, extremes of both byte ranges included."""
    rng = np.random.default_rng(seed)
    data = _blocked_data(rng, blocks, size, in_block)
    data.flat[:2] = (0, 255)
    if not blocked:  # NCHW data, read as is
        data = np.ascontiguousarray(data.transpose(0, 1, 4, 2, 3)).reshape(
            1, blocks * in_block, size, size
        )
    weight = rng.integers(-128, 128, (out_blocks * out_block, blocks * in_block, kernel, kernel))
    weight = weight.astype(np.int8)
    weight.flat[:2] = (-128, 127)
    pad = kernel // 2
    fn = _conv(
        data, weight, in_block, out_block,
        strides=(stride, stride), padding=(pad,) * 4, pad_value=pad_value,
    )  # fmt: skip
    expected = evaluate(fn, {"x": data})
    actual = compile_model(fuse_ops(fn), host_target()).run({"x": data})
    assert np.array_equal(np.asarray(actual), np.asarray(expected))


def test_feature_names_follow_the_feature_string_then_the_cpu_name() -> None:
    assert parse_cpu_target("llvm -mcpu=znver4").has_feature("avx512vnni")
    assert not parse_cpu_target("llvm -mcpu=znver3").has_feature("avx512vnni")
    assert parse_cpu_target("llvm -mcpu=znver3 -mattr=+avxvnni").has_feature("avxvnni")
    assert not parse_cpu_target("llvm -mcpu=znver4 -mattr=-avx512vnni").has_feature("avx512vnni")
    assert not parse_cpu_target("llvm -mcpu=znver4").has_feature("no-such-feature")


def _pair_weight(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """An int8 weight whose adjacent input-channel pairs sum within 128 in magnitude
    (extremes included): what the pair form requires."""
    weight = rng.integers(-64, 65, shape).astype(np.int8)
    weight[0, 0], weight[0, 1] = 64, 64
    weight[-1, -2], weight[-1, -1] = -64, -64
    assert pair_sums_fit_int16(weight)
    return weight


@pytest.mark.parametrize(
    ("target", "out_block", "instruction"),
    [
        ("llvm -mcpu=znver3", 8, "pmadd.ub.sw"),  # AVX2
        ("llvm -mcpu=znver3", 16, "pmadd.ub.sw"),  # two 8-lane sequences per block
        ("llvm -mcpu=skylake-avx512", 16, "pmaddubs.w.512"),  # AVX-512BW, no VNNI
        ("llvm -mcpu=znver4", 16, "vpdpbusd"),  # VNNI takes the pair form too
    ],
)
def test_pair_sums_use_vpmaddubsw_without_vnni(
    target: str, out_block: int, instruction: str
) -> None:
    rng = np.random.default_rng(1)
    data = _blocked_data(rng, 2, 6, 8)
    weight = _pair_weight(rng, (2 * out_block, 16, 3, 3))
    fn = _conv(data, weight, 8, out_block, PAIR, padding=(1, 1, 1, 1), pad_value=9)
    assert instruction in _kernel_ir(fn, target)


@settings(max_examples=15, deadline=None)
@given(
    blocks=st.integers(1, 2),
    in_block=st.sampled_from([4, 8, 16]),
    out_block=st.sampled_from([8, 16]),
    size=st.integers(3, 8),
    kernel=st.sampled_from([1, 3]),
    pad_value=st.integers(0, 255),
    seed=st.integers(0, 2**16),
)
def test_pair_sum_convs_compiled_for_avx2_are_exact(
    blocks: int, in_block: int, out_block: int, size: int, kernel: int, pad_value: int, seed: int
) -> None:
    """The AVX2 kernel (this host runs it) gives the reference's integers whenever the
    weights' pair sums fit int16, extremes of the data's range included."""
    rng = np.random.default_rng(seed)
    data = _blocked_data(rng, blocks, size, in_block)
    data.flat[:4] = 255
    weight = _pair_weight(rng, (out_block, blocks * in_block, kernel, kernel))
    pad = kernel // 2
    fn = _conv(
        data, weight, in_block, out_block, PAIR, padding=(pad,) * 4, pad_value=pad_value,
    )  # fmt: skip
    avx2 = parse_cpu_target("llvm -mcpu=znver3")
    expected = evaluate(fn, {"x": data})
    actual = compile_model(fuse_ops(fn), avx2).run({"x": data})
    assert np.array_equal(np.asarray(actual), np.asarray(expected))


@pytest.mark.parametrize(
    ("target", "out_block", "instruction"),
    [
        ("llvm -mcpu=znver3", 8, "llvm.x86.avx2.pmadd.wd"),  # AVX2
        ("llvm -mcpu=znver3", 16, "llvm.x86.avx2.pmadd.wd"),  # two 8-lane chunks per block
        ("llvm -mcpu=skylake-avx512", 16, "llvm.x86.avx512.pmaddw.d.512"),  # AVX-512BW
    ],
)
def test_word_form_uses_vpmaddwd_on_widened_weights(
    target: str, out_block: int, instruction: str
) -> None:
    """Full-range weights (pairs that would saturate vpmaddubsw) take vpmaddwd on int16,
    never vpmaddubsw."""
    rng = np.random.default_rng(2)
    data = _blocked_data(rng, 2, 6, 8)
    weight = rng.integers(-128, 128, (2 * out_block, 16, 3, 3)).astype(np.int8)
    assert not pair_sums_fit_int16(weight)
    fn = _conv(data, weight, 8, out_block, WORD, padding=(1,) * 4, pad_value=7)
    text = _kernel_ir(fn, target)
    assert instruction in text and "pmadd.ub.sw" not in text and "pmaddubs" not in text


def test_word_weights_pack_and_unpack() -> None:
    rng = np.random.default_rng(3)
    weight = rng.integers(-128, 128, (12, 8, 3, 3)).astype(np.int8)
    packed = pack_dot_weight(weight, 8, 8, WORD)
    assert packed.dtype == np.int16 and packed.shape == (2, 1, 3, 3, 2, 32)
    # (o, i) = (1, 2): the second pair (i 2, 3) of output 1, first of the pair
    assert packed[0, 0, 0, 0, 0, 16 + 1 * 2] == weight[1, 2, 0, 0]
    assert np.array_equal(unpack_dot_weight(packed, WORD)[:12], weight)


def test_word_form_broadcasts_int16_data_without_shuffles() -> None:
    """Data widened to int16 by its producer: each pair of values is one broadcast, with
    no byte shuffle (uint8 data needs one per pair)."""
    rng = np.random.default_rng(4)
    weight = rng.integers(-128, 128, (16, 16, 3, 3)).astype(np.int8)
    texts = {}
    for dtype in ("uint8", "int16"):
        data = _blocked_data(rng, 2, 6, 8).astype(dtype)
        fn = _conv(data, weight, 8, 8, WORD, padding=(1,) * 4, pad_value=7)
        texts[dtype] = _kernel_ir(fn, "llvm -mcpu=znver3")
    assert all("llvm.x86.avx2.pmadd.wd" in text for text in texts.values())
    byte_shuffle = "shufflevector <32 x i8>"
    assert byte_shuffle in texts["uint8"] and byte_shuffle not in texts["int16"]


@settings(max_examples=15, deadline=None)
@given(
    blocks=st.integers(1, 2),
    out_block=st.sampled_from([8, 16]),
    size=st.integers(3, 8),
    wide_data=st.booleans(),
    **_CONV_CASES,
)
def test_word_form_convs_compiled_for_avx2_are_exact(
    blocks: int,
    in_block: int,
    out_block: int,
    size: int,
    kernel: int,
    stride: int,
    pad_value: int,
    wide_data: bool,
    seed: int,
) -> None:
    """The AVX2 word kernel (this host runs it) gives the reference's integers for any
    int8 weight, where the pair form would saturate: 255 x (-128) twice in a pair; on
    uint8 data and on the same values widened to int16 (padding included)."""
    rng = np.random.default_rng(seed)
    data = _blocked_data(rng, blocks, size, in_block)
    data.flat[:4] = 255
    if wide_data:
        data = data.astype(np.int16)
    weight = rng.integers(-128, 128, (out_block, blocks * in_block, kernel, kernel))
    weight = weight.astype(np.int8)
    weight[:, :2] = -128
    pad = kernel // 2
    fn = _conv(
        data, weight, in_block, out_block, WORD,
        strides=(stride, stride), padding=(pad,) * 4, pad_value=pad_value,
    )  # fmt: skip
    avx2 = parse_cpu_target("llvm -mcpu=znver3")
    expected = evaluate(fn, {"x": data})
    actual = compile_model(fuse_ops(fn), avx2).run({"x": data})
    assert np.array_equal(np.asarray(actual), np.asarray(expected))
