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

# skl2onnx reads SVC's probA_ / probB_, deprecated in scikit-learn 1.9
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
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


# -- linear models, SVMs, pipelines ---------------------------------------------------------

from sklearn import decomposition, impute, linear_model, pipeline, preprocessing, svm  # noqa: E402

OTHER = {
    # name: (model factory, n_classes (None: regression), atol)
    "logistic_regression_binary": (lambda: linear_model.LogisticRegression(), 2, 1e-5),
    "logistic_regression_multiclass": (lambda: linear_model.LogisticRegression(max_iter=500), 3, 1e-5),
    "linear_svc": (lambda: svm.LinearSVC(), 3, 1e-5),
    "linear_svc_binary": (lambda: svm.LinearSVC(), 2, 1e-5),
    "svc_rbf": (lambda: svm.SVC(), 3, 1e-5),
    "svc_rbf_binary": (lambda: svm.SVC(), 2, 1e-5),
    "svc_poly": (lambda: svm.SVC(kernel="poly", degree=3), 3, 1e-4),
    "svc_sigmoid": (lambda: svm.SVC(kernel="sigmoid", gamma=0.05), 3, 1e-5),
    # decision values sum thousands of +-kernel terms: onnxruntime's own float rounding is ~1e-4
    "svc_linear_binary": (lambda: svm.SVC(kernel="linear"), 2, 1e-3),
    "svr_rbf": (lambda: svm.SVR(), None, 1e-4),
    "svr_poly": (lambda: svm.SVR(kernel="poly"), None, 1e-3),
    "one_class_svm": (lambda: svm.OneClassSVM(), None, 1e-5),
    "linear_regression": (lambda: linear_model.LinearRegression(), None, 1e-3),
    "scaler_logistic_regression": (
        lambda: pipeline.make_pipeline(preprocessing.StandardScaler(), linear_model.LogisticRegression()), 3, 1e-5),
    "pca_svc": (lambda: pipeline.make_pipeline(decomposition.PCA(4), svm.SVC()), 3, 1e-5),
    "minmax_normalizer_logreg": (lambda: pipeline.make_pipeline(
        preprocessing.MinMaxScaler(), preprocessing.Normalizer(), linear_model.LogisticRegression()), 3, 1e-5),
    "imputer_binarizer_logreg": (lambda: pipeline.make_pipeline(
        impute.SimpleImputer(), preprocessing.Binarizer(), linear_model.LogisticRegression()), 3, 1e-5),
}  # fmt: skip


def _onnx_any(model, x: np.ndarray):  # noqa: ANN001, ANN202
    """skl2onnx's model with ``zipmap=False`` where the converter has the option."""
    from skl2onnx import to_onnx

    try:
        return to_onnx(model, x[:1], options={id(model): {"zipmap": False}}, target_opset={"": 17, "ai.onnx.ml": 3})
    except (NameError, ValueError):  # no zipmap option (LinearSVC, regressors)
        return to_onnx(model, x[:1], target_opset={"": 17, "ai.onnx.ml": 3})


@pytest.mark.parametrize("name", list(OTHER))
def test_linear_svm_pipeline(name, tmp_path) -> None:
    factory, n_classes, atol = OTHER[name]
    x, y = _data(n_classes, seed=1)
    model = factory()
    rows = x[150:]
    if name == "one_class_svm":
        model.fit(x[:300])
        rows = x[300:]  # the training rows on the boundary (decision 0) have no sign to compare
    else:
        model.fit(x[:300], y[:300])
    check_ml(_onnx_any(model, x), {"X": rows}, tmp_path, atol=atol)


def test_zipmap_error_names_the_option() -> None:
    import xmo
    from skl2onnx import to_onnx

    x, y = _data(3)
    model = linear_model.LogisticRegression(max_iter=300).fit(x, y)
    with pytest.raises(xmo.ConversionError, match=r"ZipMap[\s\S]*'zipmap': False"):
        xmo.convert_model(to_onnx(model, x[:1], target_opset={"": 17, "ai.onnx.ml": 3}))
