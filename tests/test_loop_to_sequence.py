"""ov-loop-to-sequence: recurrent loops become one LSTMSequence / GRUSequence /
RNNSequence; anything else stays a loop.

* cells written by hand as ONNX Scan / Loop bodies, compared with
  onnxruntime and with the loop the pass replaced (the model converted with
  the pass disabled), on xmo's CPU backend and in OpenVINO (CPU, f32), rtol
  1e-3 / atol 1e-4; the converted model has one Sequence op and no Loop /
  TensorIterator;
* Keras layers' while loops as OpenVINO's TensorFlow frontend builds them
  (tests/rnn_loop_models.py: ``KerasLayer``), the pass run on the ov graph,
  compared with the loop on xmo's CPU backend and in OpenVINO."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
import xmo
from rnn_loop_models import Cell, KerasLayer, Wrap, keras_model, rnn_feeds, rnn_model
from xmo.backends.ir import serialize
from xmo.passes.pipeline import make_pass

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

_CORE = ov.Core()
_F32 = {"INFERENCE_PRECISION_HINT": "f32"}
_LOOPS = ("ov.Loop", "ov.TensorIterator")
_SEQUENCES = {"lstm": "ov.LSTMSequence", "gru": "ov.GRUSequence", "rnn": "ov.RNNSequence"}

#: (id, cell, wrap, both directions): cells written as exporters and users write them
RECOGNISED = [
    ("lstm", Cell("lstm"), Wrap(), False),
    ("lstm_fused_concat", Cell("lstm", fused=True), Wrap(), False),
    ("lstm_slices_bias_twice_commuted",
     Cell("lstm", split="slice", bias="twice", commuted=True), Wrap(), False),
    ("lstm_onnx_gate_order", Cell("lstm", order=("i", "o", "f", "c")), Wrap(), False),
    ("lstm_no_bias", Cell("lstm", bias="none", fused=True), Wrap(), False),
    ("lstm_batch_first", Cell("lstm"), Wrap(batch_first=True), False),
    ("lstm_reverse", Cell("lstm"), Wrap(reverse=True), False),
    ("lstm_reverse_batch_first_last", Cell("lstm"),
     Wrap(reverse=True, batch_first=True, outputs="last"), False),
    ("lstm_zero_states_sequence", Cell("lstm"), Wrap(initial=False, outputs="sequence"), False),
    ("lstm_loop", Cell("lstm"), Wrap(form="loop"), False),
    # static lengths: kept loops (not unrolled), then Sequence ops
    ("lstm_static_length", Cell("lstm"), Wrap(static=(5, 2)), False),
    ("gru_loop_static_length", Cell("gru", lbr=False), Wrap(form="loop", static=(5, 2)), False),
    ("bilstm_static_batch_first", Cell("lstm"), Wrap(static=(5, 2), batch_first=True), True),
    ("lstm_loop_batch_first_zero_states", Cell("lstm", fused=True),
     Wrap(form="loop", batch_first=True, initial=False), False),
    ("gru", Cell("gru"), Wrap(), False),
    ("gru_reset_before", Cell("gru", lbr=False), Wrap(), False),
    ("gru_reset_before_fused", Cell("gru", lbr=False, fused=True), Wrap(), False),
    ("gru_slices_commuted", Cell("gru", split="slice", commuted=True, bias="twice"), Wrap(), False),
    ("gru_loop_last", Cell("gru"), Wrap(form="loop", outputs="last"), False),
    ("rnn", Cell("rnn"), Wrap(), False),
    ("rnn_fused_loop", Cell("rnn", fused=True), Wrap(form="loop", initial=False), False),
    ("bilstm", Cell("lstm"), Wrap(), True),
    ("bigru_batch_first_zero_states", Cell("gru"), Wrap(batch_first=True, initial=False), True),
]

#: cells that are not one a Sequence op computes: they stay loops
NOT_RECOGNISED = [
    ("lstm_relu", Cell("lstm", activation="Relu"), Wrap()),
    ("lstm_relu_static_length_unrolled", Cell("lstm", activation="Relu"), Wrap(static=(3, 2))),
    ("lstm_extra_op", Cell("lstm", extra=True), Wrap()),
    ("gru_extra_op", Cell("gru", extra=True), Wrap()),
    ("gru_tanh_gates", Cell("gru", gate_activation="Tanh"), Wrap()),
    # OpenVINO's CPU plugin runs no Sequence op with a hard sigmoid
    ("lstm_hard_sigmoid", Cell("lstm", gate_activation="HardSigmoid"), Wrap()),
    ("rnn_sigmoid", Cell("rnn", activation="Sigmoid"), Wrap()),
]


def _expected(model: onnx.ModelProto, feeds: dict) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _close(got, exp) -> None:
    got = np.asarray(got)
    assert got.shape == np.shape(exp)
    np.testing.assert_allclose(got, exp, rtol=1e-3, atol=1e-4)


def _feeds(cell: Cell, wrap: Wrap) -> list[dict]:
    if wrap.static:
        steps, batch = wrap.static
        return [rnn_feeds(cell, wrap, steps=steps, batch=batch)]
    return [rnn_feeds(cell, wrap, steps=5, batch=2), rnn_feeds(cell, wrap, steps=1, batch=3, seed=2)]


def _ops(module) -> Counter:
    return Counter(op.name for op in module.walk())


def _openvino(module, tmp_path, name: str):
    path = tmp_path / f"{name}.xml"
    xmo.save_model(module, str(path))
    return _CORE.compile_model(str(path), "CPU", _F32)


def _run_openvino(compiled, feeds: dict) -> list[np.ndarray]:
    res = compiled(feeds)
    return [res[o] for o in compiled.outputs]


def _run_xmo(module, feeds: dict) -> list[np.ndarray]:
    return [np.asarray(v) for v in xmo.compile_model(module)(feeds)]


@pytest.mark.parametrize(("cell", "wrap", "both"), [c[1:] for c in RECOGNISED],
                         ids=[c[0] for c in RECOGNISED])
def test_recognised(cell: Cell, wrap: Wrap, both: bool, tmp_path) -> None:
    model = rnn_model(cell, wrap, both_directions=both)
    module = xmo.convert_model(model)
    ops = _ops(module)
    assert ops[_SEQUENCES[cell.kind]] == 1, ops
    assert not any(ops[n] for n in _LOOPS), ops
    seq = next(op for op in module.walk() if op.name == _SEQUENCES[cell.kind])
    want = "bidirectional" if both else "reverse" if wrap.reverse else "forward"
    assert seq.attr("direction") == want

    loop = xmo.convert_model(model, disable_transforms="ov-loop-to-sequence")
    assert sum(_ops(loop)[n] for n in _LOOPS) == (2 if both else 1)  # not unrolled
    compiled, compiled_loop = _openvino(module, tmp_path, "seq"), _openvino(loop, tmp_path, "loop")
    for feeds in _feeds(cell, wrap):
        expected = _expected(model, feeds)
        results = {
            "xmo cpu": _run_xmo(module, feeds),
            "openvino": _run_openvino(compiled, feeds),
        }
        references = {
            "onnxruntime": expected,
            "the loop on xmo cpu": _run_xmo(loop, feeds),
            "the loop in openvino": _run_openvino(compiled_loop, feeds),
        }
        for got in results.values():
            assert len(got) == len(expected)
            for ref in references.values():
                for g, r in zip(got, ref):
                    _close(g, r)


@pytest.mark.parametrize(("cell", "wrap"), [c[1:] for c in NOT_RECOGNISED],
                         ids=[c[0] for c in NOT_RECOGNISED])
def test_not_recognised_stays_a_loop(cell: Cell, wrap: Wrap) -> None:
    model = rnn_model(cell, wrap)
    module = xmo.convert_model(model)
    ops = _ops(module)
    # a loop, or unrolled when its length is static (as any other loop)
    assert sum(ops[n] for n in _LOOPS) == (0 if wrap.static else 1), ops
    assert not any(ops[n] for n in _SEQUENCES.values()), ops
    for feeds in _feeds(cell, wrap):
        for g, r in zip(_run_xmo(module, feeds), _expected(model, feeds)):
            _close(g, r)


def test_layer_count() -> None:
    # OpenVINO's count (layers inside bodies too): the loop and its body go
    model = rnn_model(Cell("lstm"), Wrap(batch_first=True, initial=False))
    loop = xmo.convert_model(model, disable_transforms="ov-loop-to-sequence")
    seq = xmo.convert_model(model)
    before = sum(1 for op in loop.walk() if op.name.startswith("ov."))
    after = sum(1 for op in seq.walk() if op.name.startswith("ov."))
    assert after < before
    assert not any(op.regions for op in seq.walk() if op.name.startswith("ov."))


#: (id, layers: each entry one layer or a Bidirectional pair, Sequence ops expected)
KERAS = [
    ("lstm", [[KerasLayer("lstm")]], 1),
    ("gru", [[KerasLayer("gru")]], 1),
    ("simple_rnn", [[KerasLayer("rnn", 6)]], 1),
    ("gru_return_sequences", [[KerasLayer("gru", return_sequences=True)]], 1),
    ("lstm_go_backwards", [[KerasLayer("lstm", go_backwards=True)]], 1),
    ("bidirectional_lstm", [[KerasLayer("lstm"), KerasLayer("lstm", go_backwards=True)]], 1),
    ("bidirectional_gru_sequences",
     [[KerasLayer("gru", 3, return_sequences=True),
       KerasLayer("gru", 3, return_sequences=True, go_backwards=True)]], 1),
    ("stacked_lstm", [[KerasLayer("lstm", 6, return_sequences=True)], [KerasLayer("lstm", 5)]], 2),
]


@pytest.mark.parametrize(("layers", "expected"), [c[1:] for c in KERAS], ids=[c[0] for c in KERAS])
def test_keras_while_loops(layers, expected, tmp_path) -> None:
    g = keras_model(layers)
    module = g.module()
    module.verify()
    loop = module.clone()
    make_pass("ov-loop-to-sequence").apply(g.ctx, module)
    module.verify()
    ops = _ops(module)
    assert sum(ops[n] for n in _SEQUENCES.values()) == expected, ops
    assert not any(ops[n] for n in _LOOPS), ops
    if any(len(group) > 1 for group in layers):
        seq = next(op for op in module.walk() if op.name in _SEQUENCES.values())
        assert seq.attr("direction") == "bidirectional"
    compiled = {}
    for name, m in (("seq", module), ("loop", loop)):
        serialize(m, tmp_path / f"{name}.xml")
        compiled[name] = _CORE.compile_model(str(tmp_path / f"{name}.xml"), "CPU", _F32)
    for batch in (2, 1):
        feeds = g.feeds(batch=batch)
        reference = _run_xmo(loop, feeds)
        for got in (_run_xmo(module, feeds), _run_openvino(compiled["seq"], feeds),
                    _run_openvino(compiled["loop"], feeds)):
            assert len(got) == len(reference)
            for a, b in zip(got, reference):
                _close(a, b)


# -- the Keras fixtures (tests/data/tf) once the TensorFlow frontend converts them ------
TF_DATA = Path(__file__).parent / "data" / "tf"
#: fixture -> its Sequence ops (a Bidirectional layer is one, bidirectional)
KERAS_FIXTURES = {"lstm": 1, "gru": 1, "gru_seq": 1, "simple_rnn": 1, "bilstm": 1,
                  "stacked_lstm": 2}


def _keras_fixtures() -> list[tuple[str, int, dict]]:
    """The Keras RNN fixtures (both freeze modes) xmo converts (not marked
    ``xmo_pending`` / ``xmo_load_pending`` in the manifest); numbers are
    compared with TensorFlow in tests/test_tf_models.py."""
    manifest = TF_DATA / "manifest.json"
    models = json.loads(manifest.read_text())["models"] if manifest.exists() else {}
    return [
        (name, count, models[name])
        for base, count in KERAS_FIXTURES.items()
        for name in (base, f"{base}_functional")
        if name in models
        and not models[name].get("xmo_pending") and not models[name].get("xmo_load_pending")
    ]


@pytest.mark.parametrize(("name", "count", "entry"), _keras_fixtures(),
                         ids=[f[0] for f in _keras_fixtures()])
def test_keras_fixtures_become_sequences(name, count, entry) -> None:
    module = xmo.convert_model(TF_DATA / entry["file"])
    ops = _ops(module)
    assert sum(ops[n] for n in _SEQUENCES.values()) == count, ops
    assert not any(ops[n] for n in _LOOPS), ops
    # layers as OpenVINO counts them (bodies included): fewer than its TF frontend's
    layers = sum(1 for op in module.walk() if op.name.startswith("ov."))
    assert layers < entry["openvino"]["layers"], (layers, entry["openvino"]["layers"])
