"""A BERT fused by ``onnxruntime.transformers.optimizer``
(``tests/data/ms/bert_ort_fused.onnx``, made by
``tools/make_ms_fused_bert.py``: a tiny transformers BertModel whose
embeddings became EmbedLayerNormalization, its attentions Attention (with the
mask_index the embedding computes from the padding mask), its residual
layer norms SkipLayerNormalization and its GELUs BiasGelu) matches
onnxruntime in OpenVINO (f32) and on xmo's CPU backend."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
from ml_models import check_ml

pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")

MODEL = Path(__file__).parent / "data" / "ms" / "bert_ort_fused.onnx"


def test_optimizer_fused_bert_matches_onnxruntime(tmp_path: Path) -> None:
    model = onnx.load(MODEL)
    ops = Counter(n.op_type for n in model.graph.node if n.domain == "com.microsoft")
    assert ops == {"EmbedLayerNormalization": 1, "Attention": 2, "SkipLayerNormalization": 4, "BiasGelu": 2}, ops
    rng = np.random.default_rng(3)
    feeds = {
        "input_ids": rng.integers(0, 128, (3, 9)).astype(np.int64),
        "attention_mask": np.array([[1] * 9, [1] * 6 + [0] * 3, [1] * 2 + [0] * 7], np.int64),
        "token_type_ids": np.array([[0] * 5 + [1] * 4] * 3, np.int64),
    }
    feeds = {i.name: feeds[i.name] for i in model.graph.input}
    check_ml(model, feeds, tmp_path, atol=1e-4)
