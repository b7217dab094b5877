"""Test helpers for ``ai.onnx.ml``: hand-built tree ensembles (onnx.helper)
and the three-way check (onnxruntime, xmo's IR in OpenVINO CPU with f32
pinned, xmo's CPU backend)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx_models import assert_matches

#: thresholds and feature values are drawn from this grid, so EQ / NEQ splits
#: and ties with the threshold happen
GRID = np.array([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0], np.float32)


def random_trees(
    rng: np.random.Generator, n_trees: int, max_depth: int, n_features: int, modes: list[str],
    missing: float = 0.0, split: float = 0.8,
) -> tuple[dict[str, list], list[tuple[int, int]]]:  # fmt: skip
    """``nodes_*`` attributes of random trees (node ids depth-first from 0)
    and their (tree id, node id) leaves."""
    nodes: dict[str, list] = {k: [] for k in ("treeids", "nodeids", "featureids", "modes", "values",
                                              "truenodeids", "falsenodeids", "missing_value_tracks_true")}  # fmt: skip
    leaves: list[tuple[int, int]] = []
    for t in range(n_trees):
        counter = [0]

        def grow(depth: int, t: int = t, counter: list = counter) -> int:
            nid = counter[0]
            counter[0] += 1
            i = len(nodes["treeids"])
            for k in nodes:
                nodes[k].append(0)
            nodes["treeids"][i], nodes["nodeids"][i] = t, nid
            if depth < max_depth and (depth == 0 or rng.random() < split):
                nodes["featureids"][i] = int(rng.integers(n_features))
                nodes["modes"][i] = str(rng.choice(modes))
                jitter = rng.random() * 0.1 if rng.random() < 0.3 else 0.0
                nodes["values"][i] = float(np.float32(rng.choice(GRID) + jitter))
                nodes["missing_value_tracks_true"][i] = int(rng.random() < missing)
                nodes["truenodeids"][i] = grow(depth + 1)
                nodes["falsenodeids"][i] = grow(depth + 1)
            else:
                nodes["modes"][i] = "LEAF"
                nodes["values"][i] = 0.0
                leaves.append((t, nid))
            return nid

        grow(0)
    return nodes, leaves


def leaf_weights(
    rng: np.random.Generator, leaves: list[tuple[int, int]], ids: list[int], every: bool = True,
    positive: bool = False, scale: float = 1.0,
) -> tuple[list[int], list[int], list[int], list[float]]:  # fmt: skip
    """(tree ids, node ids, target/class ids, weights) of leaf weights for
    ``ids`` (every leaf has each when ``every``, else about 60%)."""
    tids, nids, cids, ws = [], [], [], []
    for t, n in leaves:
        for c in ids:
            if every or rng.random() < 0.6:
                tids.append(t)
                nids.append(n)
                cids.append(c)
                w = rng.random() if positive else rng.standard_normal()
                ws.append(float(np.float32(w * scale)))
    return tids, nids, cids, ws


def _ensemble_model(op: str, attrs: dict[str, Any], outputs: list, n_features: int, opset: int,
                    in_type: int) -> onnx.ModelProto:  # fmt: skip
    node = helper.make_node(op, ["X"], [o.name for o in outputs], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph(
        [node], op, [helper.make_tensor_value_info("X", in_type, [None, n_features])], outputs
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", opset)])
    m.ir_version = 8
    return m


def tree_classifier(
    nodes: dict[str, list], weights: tuple, labels: list[int], post: str = "NONE", base: list[float] | None = None,
    opset: int = 1, n_features: int = 4, in_type: int = TensorProto.FLOAT,
) -> onnx.ModelProto:  # fmt: skip
    tids, nids, cids, ws = weights
    attrs: dict[str, Any] = {f"nodes_{k}": v for k, v in nodes.items()}
    attrs.update(class_treeids=tids, class_nodeids=nids, class_ids=cids, class_weights=ws,
                 classlabels_int64s=list(labels), post_transform=post)  # fmt: skip
    if base is not None:
        attrs["base_values"] = list(base)
    outs = [helper.make_tensor_value_info("label", TensorProto.INT64, [None]),
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [None, len(labels)])]  # fmt: skip
    return _ensemble_model("TreeEnsembleClassifier", attrs, outs, n_features, opset, in_type)


def tree_regressor(
    nodes: dict[str, list], weights: tuple, n_targets: int, post: str = "NONE", base: list[float] | None = None,
    agg: str = "SUM", opset: int = 1, n_features: int = 4, in_type: int = TensorProto.FLOAT,
) -> onnx.ModelProto:  # fmt: skip
    tids, nids, cids, ws = weights
    attrs: dict[str, Any] = {f"nodes_{k}": v for k, v in nodes.items()}
    attrs.update(target_treeids=tids, target_nodeids=nids, target_ids=cids, target_weights=ws,
                 n_targets=n_targets, post_transform=post, aggregate_function=agg)  # fmt: skip
    if base is not None:
        attrs["base_values"] = list(base)
    outs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, n_targets])]
    return _ensemble_model("TreeEnsembleRegressor", attrs, outs, n_features, opset, in_type)


def grid_inputs(rng: np.random.Generator, n: int, n_features: int, nan: float = 0.1) -> np.ndarray:
    """Rows of grid values (some jittered, a fraction ``nan`` missing)."""
    x = rng.choice(GRID, size=(n, n_features)).astype(np.float32)
    jitter = (rng.random((n, n_features)) < 0.3) * rng.standard_normal((n, n_features)) * 0.3
    x = (x + jitter).astype(np.float32)
    x[rng.random((n, n_features)) < nan] = np.nan
    return x


def check_ml(model: onnx.ModelProto, feeds: dict[str, np.ndarray], tmp_path, atol: float = 1e-5,
             cpu: bool = True, openvino: bool = True) -> None:  # fmt: skip
    """xmo's IR in OpenVINO (f32) and on xmo's CPU backend against
    onnxruntime: integer outputs (labels) exact, floats rtol 1e-4."""
    import onnxruntime as ort

    import xmo

    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    import openvino as ov

    converted = xmo.convert_model(model)
    if openvino:
        xml = tmp_path / "m.xml"
        xmo.save_model(converted, xml)
        core = ov.Core()
        compiled = core.compile_model(core.read_model(str(xml)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        got = compiled(list(feeds.values()))
        _compare([got[o] for o in compiled.outputs], want, "OpenVINO", atol)
    if cpu:
        outs = xmo.compile_model(converted)(dict(feeds))
        _compare([np.asarray(o) for o in outs], want, "CPU backend", atol)


def _compare(got: list[np.ndarray], want: list[np.ndarray], where: str, atol: float) -> None:
    """Outputs in order; a label output (i64 ``[N]`` beside ``[N, C]``
    scores) is compared on the rows whose two best scores differ by more
    than 1e-5: at a tie the order of the float additions picks the label."""
    scores = next((w for w in want if w.dtype.kind == "f" and w.ndim == 2 and w.shape[1] >= 2), None)
    for i, w in enumerate(want):
        g = got[i]
        if w.dtype.kind in "iu" and w.ndim == 1 and scores is not None and len(scores) == len(w):
            top2 = np.sort(scores, axis=1)[:, -2:]
            clear = (top2[:, 1] - top2[:, 0]) > 1e-5
            assert clear.mean() > 0.9, f"{where} output {i}: too many ties to compare labels"
            g, w = np.asarray(g)[clear], w[clear]
        assert_matches(g, w, f"{where} output {i}", atol=atol)


def tree_ensemble_v5(
    nodes: dict[str, list], weights: tuple, n_targets: int, agg: int = 1, post: int = 0,
    members: dict[int, list[float]] | None = None, n_features: int = 4,
) -> onnx.ModelProto:  # fmt: skip
    """TreeEnsemble-5 of :func:`random_trees` nodes with one weight per leaf
    (``weights`` from :func:`leaf_weights` with ``every=True`` and one id);
    ``members``: interior node position -> set (its mode becomes MEMBER)."""
    codes = {"BRANCH_LEQ": 0, "BRANCH_LT": 1, "BRANCH_GTE": 2, "BRANCH_GT": 3, "BRANCH_EQ": 4, "BRANCH_NEQ": 5}
    key = list(zip(nodes["treeids"], nodes["nodeids"]))
    interior = [i for i, md in enumerate(nodes["modes"]) if md != "LEAF"]
    leaf_pos = {(t, n): k for k, (t, n) in enumerate(zip(weights[0], weights[1]))}
    node_pos = {key[i]: k for k, i in enumerate(interior)}
    members = members or {}
    attrs: dict[str, Any] = {"nodes_featureids": [], "nodes_truenodeids": [], "nodes_falsenodeids": [],
                             "nodes_trueleafs": [], "nodes_falseleafs": [], "nodes_missing_value_tracks_true": []}  # fmt: skip
    modes, splits, member_values = [], [], []
    for k, i in enumerate(interior):
        t = nodes["treeids"][i]
        modes.append(6 if k in members else codes[nodes["modes"][i]])
        if k in members:
            member_values += [*members[k], float("nan")]
        splits.append(nodes["values"][i])
        attrs["nodes_featureids"].append(nodes["featureids"][i])
        attrs["nodes_missing_value_tracks_true"].append(nodes["missing_value_tracks_true"][i])
        for side in ("true", "false"):
            child = (t, nodes[f"{side}nodeids"][i])
            is_leaf = child in leaf_pos
            attrs[f"nodes_{side}leafs"].append(int(is_leaf))
            attrs[f"nodes_{side}nodeids"].append(leaf_pos[child] if is_leaf else node_pos[child])
    roots = [node_pos[(t, 0)] for t in sorted(set(nodes["treeids"]))]
    attrs.update(
        nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [len(modes)], modes),
        nodes_splits=helper.make_tensor("s", TensorProto.FLOAT, [len(splits)], splits),
        leaf_targetids=list(weights[2]), leaf_weights=helper.make_tensor("w", TensorProto.FLOAT, [len(weights[3])], weights[3]),
        tree_roots=roots, n_targets=n_targets, aggregate_function=agg, post_transform=post,
    )  # fmt: skip
    if member_values:
        attrs["membership_values"] = helper.make_tensor("mv", TensorProto.FLOAT, [len(member_values)], member_values)
    outs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, n_targets])]
    return _ensemble_model("TreeEnsemble", attrs, outs, n_features, 5, TensorProto.FLOAT)
