"""ONNX DFT and STFT, compiled and run, against numpy's FFT: forward and inverse, real and
complex signals, one-sided spectra, dft_length cropping and padding, both opsets' axis,
STFT frames with and without a window; MelWeightMatrix against ONNX's reference; errors
that name the node."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper

from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import ModelImportError
from tests.ir.frontend.onnx_helpers import make_model

RNG = np.random.default_rng(23)


def _run(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> np.ndarray:
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    return np.asarray(compiled.run(feeds))


def _complex(array: np.ndarray) -> np.ndarray:
    """ONNX's [..., 1|2] layout as a complex array."""
    return array[..., 0] + (1j * array[..., 1] if array.shape[-1] == 2 else 0)


def _layout(values: np.ndarray, real: bool = False) -> np.ndarray:
    if real:
        return values.real[..., None]
    return np.stack([values.real, values.imag], axis=-1)


def _dft_model(
    shape: tuple[int, ...],
    axis: int,
    opset: int,
    length: int | None = None,
    **attrs: int,
) -> onnx.ModelProto:
    inputs = ["x", "dft_length" if length is not None else ""]
    consts: dict[str, np.ndarray] = {}
    if length is not None:
        consts["dft_length"] = np.array(length, np.int64)
    if opset >= 20:
        inputs.append("axis")
        consts["axis"] = np.array(axis, np.int64)
    else:
        attrs = {**attrs, "axis": axis}
    node = helper.make_node("DFT", inputs, ["y"], name="dft", **attrs)
    return make_model([node], {"x": (shape, np.float32)}, ["y"], consts, opset)


def _expected(
    x: np.ndarray, axis: int, length: int | None, inverse: bool, onesided: bool
) -> np.ndarray:
    signal = _complex(x.astype(np.float64))
    axis = axis % x.ndim
    if inverse and onesided:
        n = length if length is not None else 2 * (x.shape[axis] - 1)
        return _layout(np.fft.irfft(signal, n=n, axis=axis), real=True)
    n = length if length is not None else x.shape[axis]
    result = np.fft.ifft(signal, n=n, axis=axis) if inverse else np.fft.fft(signal, n=n, axis=axis)
    if onesided:
        result = np.take(result, np.arange(n // 2 + 1), axis=axis)
    return _layout(result)


@settings(max_examples=25, deadline=None)
@given(
    count=st.integers(1, 9),
    parts=st.sampled_from([1, 2]),
    axis_first=st.booleans(),
    length_change=st.sampled_from([None, -2, 0, 3]),
    inverse=st.booleans(),
    onesided=st.booleans(),
    opset=st.sampled_from([17, 20]),
)
def test_dft_matches_numpy_fft(
    count: int,
    parts: int,
    axis_first: bool,
    length_change: int | None,
    inverse: bool,
    onesided: bool,
    opset: int,
) -> None:
    if onesided:  # a one-sided spectrum is complex; ONNX transforms only real signals to one
        parts = 2 if inverse else 1
    shape = (count, 3, parts) if axis_first else (2, count, parts)
    axis = 0 if axis_first else (-2 if opset >= 20 else 1)
    default = 2 * (count - 1) if inverse and onesided else count
    length = None if length_change is None else max(1, default + length_change)
    if length is None and default < 1:
        length = 1
    x = RNG.standard_normal(shape).astype(np.float32)
    model = _dft_model(shape, axis, opset, length, inverse=int(inverse), onesided=int(onesided))
    actual = _run(model, {"x": x})
    expected = _expected(x, axis, length, inverse, onesided)
    assert actual.dtype == np.float32 and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_the_onnx_test_signal_transforms_to_its_spectrum_and_back() -> None:
    """The backend test's own signal: rfft, fft on another axis, and irfft back."""
    x = np.arange(100, dtype=np.float32).reshape(1, 10, 10, 1)
    rfft = _run(_dft_model((1, 10, 10, 1), 1, 20, onesided=1), {"x": x})
    np.testing.assert_allclose(_complex(rfft)[0], np.fft.rfft(x[0, ..., 0], axis=0), atol=2e-4)
    back = _run(_dft_model((1, 6, 10, 2), 1, 20, inverse=1, onesided=1), {"x": rfft})
    np.testing.assert_allclose(back, x, atol=1e-4)
    other_axis = _run(_dft_model((1, 10, 10, 1), 2, 19), {"x": x})
    np.testing.assert_allclose(_complex(other_axis)[0], np.fft.fft(x[0, ..., 0], axis=1), atol=2e-4)


def _stft_model(length: int, step: int, frame: int, window: bool) -> onnx.ModelProto:
    consts = {"frame_step": np.array(step, np.int64), "frame_length": np.array(frame, np.int64)}
    feeds: dict[str, tuple[tuple[int, ...], type]] = {"signal": ((2, length, 1), np.float32)}
    if window:
        feeds["window"] = ((frame,), np.float32)
    inputs = ["signal", "frame_step", "window" if window else "", "frame_length"]
    node = helper.make_node("STFT", inputs, ["y"], name="stft")
    return make_model([node], feeds, ["y"], consts, 17)


@pytest.mark.parametrize(("step", "frame", "window"), [(8, 16, False), (5, 16, True), (3, 7, True)])
def test_stft_transforms_each_windowed_frame(step: int, frame: int, window: bool) -> None:
    signal = RNG.standard_normal((2, 64, 1)).astype(np.float32)
    feeds = {"signal": signal}
    weights = np.ones(frame, np.float32)
    if window:
        weights = np.hanning(frame).astype(np.float32)
        feeds["window"] = weights
    actual = _run(_stft_model(64, step, frame, window), feeds)
    frames = (64 - frame) // step + 1
    cut = np.stack([signal[:, f * step : f * step + frame, 0] for f in range(frames)], axis=1)
    expected = _layout(np.fft.rfft(cut.astype(np.float64) * weights, axis=-1))
    assert actual.shape == (2, frames, frame // 2 + 1, 2)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def _unchecked_dft(shape: tuple[int, ...], axis: int) -> onnx.ModelProto:
    """A DFT model that ONNX's shape inference would refuse (so none is run on it)."""
    graph = helper.make_graph(
        [helper.make_node("DFT", ["x"], ["y"], name="dft", axis=axis)],
        "bad_dft",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [*shape[:-1], 2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 8
    return model


def test_dft_and_stft_errors_name_the_node() -> None:
    with pytest.raises(ModelImportError, match=r"'dft'.*cannot be the last one"):
        _run(_unchecked_dft((1, 4, 2), 2), {"x": np.zeros((1, 4, 2), np.float32)})
    with pytest.raises(ModelImportError, match=r"'dft'.*\(1 or 2\), got 3"):
        _run(_unchecked_dft((1, 4, 3), 1), {"x": np.zeros((1, 4, 3), np.float32)})
    with pytest.raises(ModelImportError, match=r"'stft'.*frame_length 16 do not fit a signal of 8"):
        _run(_stft_model(8, 2, 16, False), {"signal": np.zeros((2, 8, 1), np.float32)})


@pytest.mark.parametrize(
    ("bins", "dft_length", "sample_rate", "lower", "upper"),
    [(8, 16, 8192, 0.0, 4096.0), (40, 400, 16000, 20.0, 7600.0), (3, 64, 22050, 300.0, 900.0)],
)
def test_mel_weight_matrix_matches_the_onnx_reference(
    bins: int, dft_length: int, sample_rate: int, lower: float, upper: float
) -> None:
    """A log-mel front end: the spectrum (a graph input) times the constant mel filters."""
    from onnx.reference import ReferenceEvaluator

    scalars = {
        "bins": np.array(bins, np.int64),
        "length": np.array(dft_length, np.int64),
        "rate": np.array(sample_rate, np.int64),
        "lower": np.array(lower, np.float32),
        "upper": np.array(upper, np.float32),
    }
    spectrum = RNG.random((5, dft_length // 2 + 1)).astype(np.float32)
    model = make_model(
        [
            helper.make_node("MelWeightMatrix", list(scalars), ["mel"]),
            helper.make_node("MatMul", ["spectrum", "mel"], ["y"]),
        ],
        {"spectrum": spectrum},
        initializers=scalars,
        opset=17,
    )
    (expected,) = ReferenceEvaluator(model).run(None, {"spectrum": spectrum})
    np.testing.assert_allclose(_run(model, {"spectrum": spectrum}), expected, rtol=1e-5, atol=1e-6)


def test_mel_filters_past_the_spectrum_are_refused_by_name() -> None:
    scalars = {
        "bins": np.array(8, np.int64),
        "length": np.array(16, np.int64),
        "rate": np.array(8000, np.int64),
        "lower": np.array(0.0, np.float32),
        "upper": np.array(12000.0, np.float32),
    }
    model = make_model(
        [helper.make_node("MelWeightMatrix", list(scalars), ["y"], name="mel0")],
        {},
        initializers=scalars,
        outputs={"y": (np.float32, [9, 8])},
        opset=17,
    )
    with pytest.raises(ModelImportError, match=r"mel0.*past the 9 bins"):
        prepare_for_target(model, host_target())
