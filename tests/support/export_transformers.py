"""Regenerate the transformers exports the symbolic-shape tests compile (needs torch and
transformers, as the zoo's venv has them; the tests themselves need neither):

    .zoo-venv/bin/python tests/support/export_transformers.py

Writes `exports/bert_tiny_dynamic.onnx` and `exports/gpt2_tiny_dynamic.onnx`: a BERT
encoder (its last hidden state) and a GPT-2 decoder (its logits) with small configs and
seeded random weights, exported by torch.onnx with dynamic batch and sequence axes on
input_ids and attention_mask, as a user exports them for serving.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

EXPORTS = Path(__file__).resolve().parent / "exports"
MAX_POSITIONS = 384


def _models() -> dict[str, Any]:
    import torch
    import transformers

    torch.manual_seed(0)
    bert_config = transformers.BertConfig(
        vocab_size=100,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=MAX_POSITIONS,
    )
    gpt2_config = transformers.GPT2Config(
        vocab_size=100, n_positions=MAX_POSITIONS, n_embd=32, n_layer=2, n_head=4
    )
    for config in (bert_config, gpt2_config):
        config._attn_implementation = "eager"  # (plain ops, as most exports have)
    bert = transformers.BertModel(bert_config, add_pooling_layer=False).eval()
    gpt2 = transformers.GPT2LMHeadModel(gpt2_config).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    class Decoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gpt2 = gpt2

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            output = self.gpt2(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)
            return output.logits

    return {"bert_tiny_dynamic": Encoder().eval(), "gpt2_tiny_dynamic": Decoder().eval()}


def main() -> None:
    """Export both models (module docstring)."""
    import torch

    EXPORTS.mkdir(exist_ok=True)
    ids = torch.randint(0, 100, (2, 17))
    mask = torch.ones(2, 17, dtype=torch.int64)
    axes = {0: "batch", 1: "sequence"}
    for name, model in _models().items():
        torch.onnx.export(
            model,
            (ids, mask),
            str(EXPORTS / f"{name}.onnx"),
            input_names=["input_ids", "attention_mask"],
            output_names=["output"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "output": axes},
            opset_version=17,
            dynamo=False,
        )
        print(f"wrote {EXPORTS / name}.onnx")


if __name__ == "__main__":
    main()
