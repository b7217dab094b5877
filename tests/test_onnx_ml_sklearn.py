"""scikit-learn models converted by skl2onnx (``zipmap=False``), generated at
test time on small seeded data sets, converted by xmo and compared with
onnxruntime in OpenVINO (f32) and on xmo's CPU backend: probabilities and
scores rtol 1e-4, labels exact."""

from __future__ import annotations

import numpy as np
import pytest
from ml_models import check_ml

pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")
sklearn = pytest.importorskip("sklearn")
skl2onnx = pytest.importorskip("skl2onnx")

from sklearn import ensemble, tree  # noqa: E402
from sklearn.datasets import make_classification, make_regression  # noqa: E402


def _data(n_classes: int | None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    if n_classes is None:
        x, y = make_regression(400, 10, n_informative=6, noise=0.5, random_state=seed)
    else:
        x, y = make_classification(400, 10, n_informative=6, n_classes=n_classes, random_state=seed)
    return x.astype(np.float32), y


def _onnx(model, x: np.ndarray):  # noqa: ANN001, ANN202
    from skl2onnx import to_onnx

    options = {id(model): {"zipmap": False}} if hasattr(model, "predict_proba") else None
    return to_onnx(model, x[:1], options=options, target_opset={"": 17, "ai.onnx.ml": 3})


def _check(model, n_classes: int | None, tmp_path, seed: int = 0) -> None:  # noqa: ANN001
    x, y = _data(n_classes, seed)
    model.fit(x[:300], y[:300])
    # held-out rows and training rows (these sit on thresholds' sides exactly as in training)
    check_ml(_onnx(model, x), {"X": x[150:]}, tmp_path)


CLASSIFIERS = {
    "random_forest_deep": lambda: ensemble.RandomForestClassifier(120, max_depth=12, random_state=0),
    "extra_trees": lambda: ensemble.ExtraTreesClassifier(30, max_depth=8, random_state=0),
    "gradient_boosting": lambda: ensemble.GradientBoostingClassifier(n_estimators=40, max_depth=3, random_state=0),
    "decision_tree": lambda: tree.DecisionTreeClassifier(max_depth=6, random_state=0),
}
REGRESSORS = {
    "random_forest_deep": lambda: ensemble.RandomForestRegressor(100, max_depth=12, random_state=0),
    "extra_trees": lambda: ensemble.ExtraTreesRegressor(30, max_depth=8, random_state=0),
    "gradient_boosting": lambda: ensemble.GradientBoostingRegressor(n_estimators=60, max_depth=4, random_state=0),
}


@pytest.mark.parametrize("n_classes", [2, 3], ids=["binary", "multiclass"])
@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_tree_classifier(name, n_classes, tmp_path) -> None:
    _check(CLASSIFIERS[name](), n_classes, tmp_path)


@pytest.mark.parametrize("name", list(REGRESSORS))
def test_tree_regressor(name, tmp_path) -> None:
    _check(REGRESSORS[name](), None, tmp_path)
