"""ai.onnx.ml tree ensembles built by hand (onnx.helper): every node mode,
missing-value tracking, aggregate function, post transform and onnxruntime's
two-class rules, compared with onnxruntime in OpenVINO (f32) and on xmo's CPU
backend. scikit-learn's own models: test_onnx_ml_sklearn.py."""

from __future__ import annotations

import numpy as np
import pytest
from ml_models import check_ml, grid_inputs, leaf_weights, random_trees, tree_classifier, tree_regressor
from onnx import TensorProto, helper

import xmo

pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")

ALL_MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def _forest(seed: int, modes: list[str], missing: float, n_trees: int = 5, depth: int = 4):
    rng = np.random.default_rng(seed)
    nodes, leaves = random_trees(rng, n_trees, depth, 4, modes, missing)
    return rng, nodes, leaves


@pytest.mark.parametrize("modes", [["BRANCH_LEQ"], ["BRANCH_NEQ"], ["BRANCH_EQ"], ["BRANCH_GT"], ALL_MODES],
                         ids=lambda m: "mixed" if len(m) > 1 else m[0])  # fmt: skip
@pytest.mark.parametrize("missing", [0.0, 0.5], ids=["no_missing", "missing"])
def test_modes_classifier(modes, missing, tmp_path) -> None:
    rng, nodes, leaves = _forest(1, modes, missing)
    weights = leaf_weights(rng, leaves, [0, 1, 2], every=False)
    model = tree_classifier(nodes, weights, [5, 7, 9], "SOFTMAX", base=[0.1, 0.2, -0.3])
    check_ml(model, {"X": grid_inputs(rng, 64, 4)}, tmp_path)


@pytest.mark.parametrize(
    ("agg", "post"),
    [("SUM", "NONE"), ("SUM", "SOFTMAX"), ("AVERAGE", "LOGISTIC"), ("AVERAGE", "SOFTMAX_ZERO"),
     ("MIN", "NONE"), ("MIN", "SOFTMAX"), ("MAX", "LOGISTIC"), ("MAX", "SOFTMAX_ZERO")],
)  # fmt: skip
def test_aggregates_post_transforms(agg, post, tmp_path) -> None:
    rng, nodes, leaves = _forest(2, ALL_MODES, 0.3)
    # some leaves lack some targets: onnxruntime writes 0 for a target no reached leaf scored
    weights = leaf_weights(rng, leaves, [0, 1, 2], every=agg == "SUM")
    model = tree_regressor(nodes, weights, 3, post, base=[0.1, -0.2, 0.3], agg=agg)
    check_ml(model, {"X": grid_inputs(rng, 64, 4)}, tmp_path)


@pytest.mark.parametrize("agg", ["AVERAGE", "MIN", "MAX"])
def test_single_target(agg, tmp_path) -> None:
    """One target: the base value counts even where no weight was reached,
    and only PROBIT of the post transforms applies (onnxruntime's 1-target path)."""
    rng, nodes, leaves = _forest(3, ["BRANCH_LEQ", "BRANCH_GT"], 0.3)
    feeds = {"X": grid_inputs(rng, 64, 4)}
    partial = leaf_weights(rng, leaves, [0], every=False)
    check_ml(tree_regressor(nodes, partial, 1, "LOGISTIC", base=[0.3], agg=agg), feeds, tmp_path)
    probs = leaf_weights(rng, leaves, [0], positive=True)
    # onnxruntime's erfinv approximation cancels near 0.5: a few 1e-5 off exact
    check_ml(tree_regressor(nodes, probs, 1, "PROBIT", agg=agg), feeds, tmp_path, atol=1e-4)


_BINARY = [
    (ids, base, positive, post)
    for k, (ids, base, positive) in enumerate(
        (ids, base, positive) for ids in ([0], [1], [0, 1]) for base in (None, [0.2], [0.2, -0.1]) for positive in (True, False)
    )
    for post in [("NONE", "LOGISTIC", "SOFTMAX")[k % 3]]
]  # fmt: skip


@pytest.mark.parametrize(("ids", "base", "positive", "post"), _BINARY,
                         ids=[f"ids{i}-base{len(b or ())}-{'proba' if p else 'margin'}-{t}" for i, b, p, t in _BINARY])  # fmt: skip
def test_binary_rules(ids, base, positive, post, tmp_path) -> None:
    """Two classes: one score or two, the label threshold (0.5 for positive
    weights of one class, else 0) and how one score becomes two columns."""
    rng, nodes, leaves = _forest(4, ["BRANCH_LEQ"], 0.2, n_trees=4, depth=3)
    weights = leaf_weights(rng, leaves, ids, positive=positive, scale=0.3)
    check_ml(tree_classifier(nodes, weights, [3, 8], post, base=base), {"X": grid_inputs(rng, 64, 4)}, tmp_path)


@pytest.mark.parametrize("in_type", [TensorProto.DOUBLE, TensorProto.INT64, TensorProto.INT32])
def test_input_types(in_type, tmp_path) -> None:
    rng, nodes, leaves = _forest(5, ["BRANCH_LEQ", "BRANCH_LT"], 0.0)
    weights = leaf_weights(rng, leaves, [0, 1, 2])
    model = tree_classifier(nodes, weights, [0, 1, 2], "NONE", in_type=in_type)
    x = grid_inputs(rng, 64, 4, nan=0.0 if in_type != TensorProto.DOUBLE else 0.1)
    dtype = helper.tensor_dtype_to_np_dtype(in_type)
    x = (x * 4).astype(dtype) if in_type != TensorProto.DOUBLE else x.astype(dtype)
    check_ml(model, {"X": x}, tmp_path)


def test_v3_double_thresholds(tmp_path) -> None:
    """nodes_values_as_tensor in double with double features (onnxruntime
    takes double thresholds only with double inputs): compared in f64."""
    rng, nodes, leaves = _forest(6, ["BRANCH_LEQ"], 0.0, n_trees=3, depth=3)
    weights = leaf_weights(rng, leaves, [0])
    model = tree_regressor(nodes, weights, 1, opset=3, in_type=TensorProto.DOUBLE)
    node = model.graph.node[0]
    values = np.asarray(nodes["values"], np.float64) + 1e-9  # between two floats
    del node.attribute[[a.name for a in node.attribute].index("nodes_values")]
    node.attribute.append(helper.make_attribute("nodes_values_as_tensor", helper.make_tensor(
        "v", TensorProto.DOUBLE, [len(values)], values.tolist())))  # fmt: skip
    x = grid_inputs(rng, 64, 4, nan=0.0).astype(np.float64)
    check_ml(model, {"X": x}, tmp_path)
    x[::2] += 2e-9  # above the thresholds in f64, on them in f32
    # OpenVINO's CPU plugin runs f64 ops in f32: only xmo's CPU backend sees the difference
    check_ml(model, {"X": x}, tmp_path, openvino=False)


def test_deep_forest_op_count() -> None:
    """The ops grow with the depth, not with the number of nodes."""
    rng, nodes, leaves = _forest(7, ["BRANCH_LEQ"], 0.0, n_trees=60, depth=10)
    model = tree_classifier(nodes, leaf_weights(rng, leaves, [0, 1, 2]), [0, 1, 2])
    module = xmo.convert_model(model)
    n_ops = sum(1 for _ in module.walk())
    assert len(nodes["nodeids"]) > 2000
    assert n_ops < 150, n_ops


def test_string_labels_refused() -> None:
    rng, nodes, leaves = _forest(8, ["BRANCH_LEQ"], 0.0)
    model = tree_classifier(nodes, leaf_weights(rng, leaves, [0, 1]), [0, 1])
    node = model.graph.node[0]
    del node.attribute[[a.name for a in node.attribute].index("classlabels_int64s")]
    node.attribute.append(helper.make_attribute("classlabels_strings", [b"a", b"b"]))
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.STRING
    with pytest.raises(xmo.ConversionError, match=r"TreeEnsembleClassifier[\s\S]*classlabels_strings[\s\S]*zipmap"):
        xmo.convert_model(model)


@pytest.mark.parametrize(("agg", "post"), [(1, 0), (0, 2), (2, 0), (3, 1)], ids=["sum", "average_logistic", "min", "max_softmax"])
def test_tree_ensemble_v5(agg, post, tmp_path) -> None:
    """TreeEnsemble-5 (interior nodes and leaves apart) against onnxruntime."""
    from ml_models import tree_ensemble_v5

    rng, nodes, leaves = _forest(9, ["BRANCH_LEQ", "BRANCH_GT", "BRANCH_NEQ"], 0.3)
    # one weight per leaf, its target drawn at random
    tids, nids, _, ws = leaf_weights(rng, leaves, [0])
    cids = [int(c) for c in rng.integers(0, 2, len(tids))]
    model = tree_ensemble_v5(nodes, (tids, nids, cids, ws), 2, agg=agg, post=post)
    check_ml(model, {"X": grid_inputs(rng, 64, 4)}, tmp_path)


def test_tree_ensemble_v5_membership(tmp_path) -> None:
    """BRANCH_MEMBER (a chain of EQ nodes), against ONNX's reference
    implementation: onnxruntime 1.32 assigns the sets of several member
    nodes differently (it agrees with one member node), and takes only
    integer members; the reference stops a set at a member 0.0, so the sets
    here have none."""
    import openvino as ov
    from ml_models import tree_ensemble_v5
    from onnx.reference import ReferenceEvaluator
    from onnx_models import assert_matches

    rng, nodes, leaves = _forest(9, ["BRANCH_LEQ", "BRANCH_GT"], 0.3)
    tids, nids, _, ws = leaf_weights(rng, leaves, [0])
    cids = [int(c) for c in rng.integers(0, 2, len(tids))]
    model = tree_ensemble_v5(nodes, (tids, nids, cids, ws), 2, members={0: [1.0, -1.0], 3: [0.5, 0.25, 1.0]})
    x = grid_inputs(rng, 64, 4)
    want = ReferenceEvaluator(model).run(None, {"X": x})[0]
    module = xmo.convert_model(model)
    assert_matches(np.asarray(xmo.compile_model(module)({"X": x})[0]), want, "CPU backend")
    xmo.save_model(module, tmp_path / "m.xml")
    compiled = ov.Core().compile_model(str(tmp_path / "m.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    assert_matches(compiled([x])[0], want, "OpenVINO")
