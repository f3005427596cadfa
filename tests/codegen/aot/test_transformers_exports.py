"""A BERT encoder and a GPT-2 decoder exported from transformers with dynamic batch and
sequence axes (`tests/support/export_transformers.py`) compile once each into one
artifact that matches onnxruntime at batch 1, 2 and 4 and sequence 1, 17, 64, 128 and 384,
through the numpy-only loader and through the C ABI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from codegen.runtime.loader import ArtifactInputError, load_artifact
from ir.frontend.onnx.bindings import parse_shape_bindings
from tests.codegen.aot.conftest import build_c_example, run_c_example
from tests.ir.frontend.onnx_helpers import run_onnxruntime
from tuner.artifact_build import build_artifact

EXPORTS = Path(__file__).resolve().parents[2] / "support" / "exports"
MODELS = ("bert_tiny_dynamic", "gpt2_tiny_dynamic")
RANGE = "1..4x1..384"
BATCHES = (1, 2, 4)
SEQUENCES = (1, 17, 64, 128, 384)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("transformers")
    shapes = parse_shape_bindings([f"input_ids={RANGE}", f"attention_mask={RANGE}"])
    return {
        name: build_artifact(EXPORTS / f"{name}.onnx", "llvm", [], out, shapes).path
        for name in MODELS
    }


def _feeds(batch: int, sequence: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(batch * 1000 + sequence)
    mask = np.ones((batch, sequence), np.int64)
    mask[1:, max(1, sequence * 3 // 4) :] = 0  # rows after the first pad their last quarter
    ids = rng.integers(0, 100, (batch, sequence)).astype(np.int64)
    return {"input_ids": ids, "attention_mask": mask}


@pytest.mark.parametrize("name", MODELS)
def test_one_artifact_matches_onnxruntime_at_every_batch_and_sequence(
    artifacts: dict[str, Path], name: str
) -> None:
    model = onnx.load(str(EXPORTS / f"{name}.onnx"))
    with load_artifact(artifacts[name]) as loaded:
        assert [size["name"] for size in loaded.manifest["sizes"]] == ["batch", "sequence"]
        for batch in BATCHES:
            for sequence in SEQUENCES:
                feeds = _feeds(batch, sequence)
                (expected,) = run_onnxruntime(model, feeds)
                (actual,) = loaded.run(feeds).values()
                assert actual.shape == expected.shape
                np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)
        two_ways = r"sequence is 2 by input 'input_ids' dim 1 but 3 by input 'attention_mask'"
        with pytest.raises(ArtifactInputError, match=two_ways):
            loaded.run(
                {
                    "input_ids": np.zeros((1, 2), np.int64),
                    "attention_mask": np.zeros((1, 3), np.int64),
                }
            )


@pytest.mark.parametrize("name", MODELS)
def test_the_c_abi_runs_the_artifact_as_the_loader_does(
    artifacts: dict[str, Path], name: str, tmp_path: Path
) -> None:
    build_c_example(artifacts[name], tmp_path)
    for batch, sequence in ((1, 17), (4, 384)):
        run = run_c_example(tmp_path, batch, sequence)
        assert run.returncode == 0, run.stderr
        lines = run.stdout.splitlines()
        # The C program fills int64 inputs with zeros: token 0, every position masked.
        zeros = {
            key: np.zeros((batch, sequence), np.int64) for key in ("input_ids", "attention_mask")
        }
        with load_artifact(artifacts[name]) as loaded:
            (expected,) = loaded.run(zeros).values()
        assert lines[2] == f"output output float32 {'x'.join(map(str, expected.shape))}"
        actual = np.array([float(text) for text in lines[3:]], np.float32).reshape(expected.shape)
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)
