#!/usr/bin/env python3
"""Write ``tests/data/ms/bert_ort_fused.onnx``: a tiny transformers
``BertModel`` (2 layers, hidden 32, 4 heads, vocab 128, eager attention)
exported with TorchScript (opset 17) and fused by
``onnxruntime.transformers.optimizer`` (``model_type="bert"``,
``opt_level=0``: the Python fusions only) into EmbedLayerNormalization,
Attention, SkipLayerNormalization and BiasGelu (``com.microsoft``).

A developer script: it needs torch + transformers + onnx + onnxruntime +
sympy (the optimizer's symbolic shape inference), which the xmo venv does
not have; ``tests/test_onnx_microsoft_bert.py`` runs the committed model::

    /path/to/torch-venv/bin/python tools/make_ms_fused_bert.py
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "ms" / "bert_ort_fused.onnx"


def main() -> None:
    import onnx
    import torch
    from onnxruntime.transformers import optimizer
    from transformers import BertConfig, BertModel

    torch.manual_seed(17)
    cfg = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                     vocab_size=128, max_position_embeddings=64, attn_implementation="eager")  # fmt: skip
    model = BertModel(cfg).eval()
    with torch.no_grad():  # weights away from the initializer's near-zero biases
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)

    class Wrap(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state  # fmt: skip

    ids = torch.randint(0, 128, (2, 7))
    mask = torch.ones(2, 7, dtype=torch.int64)
    types = torch.zeros(2, 7, dtype=torch.int64)
    dyn = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
           "token_type_ids": {0: "batch", 1: "sequence"}}  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        raw = Path(d) / "bert.onnx"
        torch.onnx.export(Wrap(), (ids, mask, types), str(raw), input_names=list(dyn), output_names=["y"],
                          dynamic_axes=dyn, opset_version=17, dynamo=False)  # fmt: skip
        fused = optimizer.optimize_model(str(raw), model_type="bert", num_heads=4, hidden_size=32, opt_level=0)
    ops = Counter(n.op_type for n in fused.model.graph.node if n.domain == "com.microsoft")
    print(ops)
    assert ops["Attention"] == 2 and ops["EmbedLayerNormalization"] == 1, ops
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(fused.model, str(OUT))
    print(OUT, OUT.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
