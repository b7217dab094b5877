"""ai.onnx.ml operators other than tree ensembles, one node each (onnx.helper),
including forms skl2onnx does not emit (int64 one-hot categories, label
maps, post transforms, liblinear-mode SVMs), compared with onnxruntime in
OpenVINO (f32) and on xmo's CPU backend."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ml_models import check_ml
from onnx import TensorProto, helper

import xmo

pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")

F, D, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64
_r = np.random.default_rng(3)


def _model(op: str, inputs: dict[str, np.ndarray], outputs: list[tuple[str, int]], attrs: dict[str, Any],
           ml_opset: int = 1):  # fmt: skip
    node = helper.make_node(op, list(inputs), [o for o, _ in outputs], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph(
        [node], op,
        [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)) for k, v in inputs.items()],
        [helper.make_tensor_value_info(o, t, None) for o, t in outputs],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", ml_opset)])
    m.ir_version = 8
    return m


def _x(*shape: int) -> np.ndarray:
    return _r.standard_normal(shape).astype(np.float32)


_COEF = _x(3, 5).reshape(-1).tolist()
_SV = _x(6, 5)

CASES: list[tuple[str, str, dict, list, dict, int]] = [
    ("scaler_broadcast", "Scaler", {"X": _x(6, 4)}, [("Y", F)], {"offset": [0.5], "scale": [2.0]}, 1),
    ("scaler_int64", "Scaler", {"X": _r.integers(-5, 5, (6, 3))}, [("Y", F)],
     {"offset": [0.5, 1, -1], "scale": [2.0, 0.5, 3]}, 1),
    *[(f"normalizer_{n}", "Normalizer", {"X": np.concatenate([_x(5, 4), np.zeros((1, 4), np.float32)])},
       [("Y", F)], {"norm": n}, 1) for n in ("MAX", "L1", "L2")],
    ("binarizer", "Binarizer", {"X": _x(6, 4)}, [("Y", F)], {"threshold": 0.3}, 1),
    ("imputer_nan", "Imputer", {"X": np.where(_x(6, 4) > 0.8, np.nan, _x(6, 4)).astype(np.float32)}, [("Y", F)],
     {"imputed_value_floats": [1.0, 2.0, 3.0, 4.0], "replaced_value_float": float("nan")}, 1),
    ("imputer_int64", "Imputer", {"X": _r.integers(-2, 3, (6, 4))}, [("Y", I64)],
     {"imputed_value_int64s": [7], "replaced_value_int64": 0}, 1),
    ("array_feature_extractor", "ArrayFeatureExtractor", {"X": _x(4, 6), "Y": np.array([4, 0, 4], np.int64)},
     [("Z", F)], {}, 1),
    ("array_feature_extractor_1d", "ArrayFeatureExtractor", {"X": _x(6), "Y": np.array([[2], [5]], np.int64)},
     [("Z", F)], {}, 1),
    ("one_hot_int64", "OneHotEncoder", {"X": _r.integers(0, 6, (5, 2))}, [("Y", F)],
     {"cats_int64s": [1, 3, 5, 2], "zeros": 1}, 1),
    ("feature_vectorizer", "FeatureVectorizer", {"a": _x(4, 3), "b": _x(4, 2), "c": _x(4, 1)},
     [("Y", F)], {"inputdimensions": [3, 2, 1]}, 1),
    ("label_encoder_int_int", "LabelEncoder", {"X": _r.integers(0, 8, (7,))}, [("Y", I64)],
     {"keys_int64s": [1, 3, 5, 7], "values_int64s": [10, 30, 50, 70], "default_int64": -7}, 2),
    ("label_encoder_int_float", "LabelEncoder", {"X": _r.integers(0, 8, (3, 4))}, [("Y", F)],
     {"keys_int64s": [0, 2, 4], "values_floats": [0.5, 2.5, 4.5], "default_float": -1.0}, 2),
    ("label_encoder_float_int", "LabelEncoder", {"X": np.array([0.5, 1.5, 2.5, 9.0, np.nan], np.float32)},
     [("Y", I64)], {"keys_floats": [0.5, 2.5, float("nan")], "values_int64s": [5, 25, 99]}, 2),  # NaN: no match
    ("label_encoder_tensors", "LabelEncoder", {"X": _r.integers(0, 5, (6,))}, [("Y", I64)],
     {"keys_tensor": helper.make_tensor("k", I64, [3], [0, 1, 2]),
      "values_tensor": helper.make_tensor("v", I64, [3], [9, 8, 7]),
      "default_tensor": helper.make_tensor("d", I64, [1], [-3])}, 4),
    *[(f"linear_classifier_{p.lower()}", "LinearClassifier", {"X": _x(8, 5)}, [("Y", I64), ("Z", F)],
       {"coefficients": _COEF, "intercepts": [0.1, -0.2, 0.3], "classlabels_ints": [4, 5, 6],
        "post_transform": p}, 1)
      for p in ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO")],
    *[(f"linear_classifier_binary_one_score_{p.lower()}", "LinearClassifier", {"X": _x(8, 5)}, [("Y", I64), ("Z", F)],
       {"coefficients": _COEF[:5], "intercepts": [0.1], "classlabels_ints": [3, 9], "post_transform": p}, 1)
      for p in ("NONE", "LOGISTIC", "SOFTMAX")],
    *[(f"svm_classifier_binary_{p.lower()}", "SVMClassifier", {"X": _x(8, 5)}, [("Y", I64), ("Z", F)],
       {"coefficients": [0.7, -0.4, 0.2], "support_vectors": _SV[:3].reshape(-1).tolist(), "vectors_per_class": [1, 2],
        "rho": [0.1], "classlabels_ints": [3, 9], "kernel_type": "POLY", "kernel_params": [0.2, 0.5, 2.0],
        "post_transform": p}, 1)
      for p in ("NONE", "LOGISTIC", "SOFTMAX")],
    ("linear_regressor_targets_logistic", "LinearRegressor", {"X": _x(8, 5)}, [("Y", F)],
     {"coefficients": _COEF, "intercepts": [0.1, -0.2, 0.3], "targets": 3, "post_transform": "LOGISTIC"}, 1),
    ("svm_classifier_liblinear", "SVMClassifier", {"X": _x(8, 5)}, [("Y", I64), ("Z", F)],
     {"coefficients": _COEF, "rho": [0.2], "classlabels_ints": [0, 1, 2], "post_transform": "SOFTMAX",
      "kernel_params": [0.1, 0.0, 3.0]}, 1),
    ("svm_classifier_rbf_softmax", "SVMClassifier", {"X": _x(8, 5)}, [("Y", I64), ("Z", F)],
     {"coefficients": _x(2, 6).reshape(-1).tolist(), "support_vectors": _SV.reshape(-1).tolist(),
      "vectors_per_class": [2, 3, 1], "rho": [0.1, -0.1, 0.2], "classlabels_ints": [0, 1, 2],
      "kernel_type": "RBF", "kernel_params": [0.3, 0.0, 3.0], "post_transform": "SOFTMAX"}, 1),
    ("svm_regressor_liblinear", "SVMRegressor", {"X": _x(8, 5)}, [("Y", F)],
     {"coefficients": _COEF[:5], "rho": [0.2], "n_supports": 0, "kernel_params": [0.1, 0.0, 3.0]}, 1),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_ml_op(case, tmp_path) -> None:
    name, op, inputs, outputs, attrs, opset = case
    check_ml(_model(op, inputs, outputs, attrs, opset), inputs, tmp_path)


def test_string_input_refused() -> None:
    model = _model("LabelEncoder", {"X": np.array(["a"], object)}, [("Y", I64)],
                   {"keys_strings": ["a", "b"], "values_int64s": [1, 2]}, 2)  # fmt: skip
    with pytest.raises(xmo.ConversionError, match=r"graph input[\s\S]*X[\s\S]*string"):
        xmo.convert_model(model)


@pytest.mark.parametrize(("op", "attrs", "reason"), [
    ("CategoryMapper", {"cats_int64s": [1, 2], "cats_strings": ["a", "b"]}, "no string tensors"),
    ("LabelEncoder", {"classes_strings": ["a", "b"]}, "no string tensors"),
])  # fmt: skip
def test_string_ops_report_the_reason(op, attrs, reason) -> None:
    """ai.onnx.ml ops that only map strings (or read maps) are reported with why."""
    model = _model(op, {"X": np.array([1, 2, 3], np.int64)}, [("Y", TensorProto.STRING)], attrs)
    with pytest.raises(xmo.ConversionError, match=rf"ai.onnx.ml:{op} \(1\)[\s\S]*{reason}"):
        xmo.convert_model(model)
