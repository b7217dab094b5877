"""``ai.onnx.ml`` operators other than tree ensembles (:mod:`.ml_trees`) as ov
ops, matching onnxruntime's CPU kernels: linear models, SVMs, the
preprocessing operators of scikit-learn pipelines, and the one error for
what an IR cannot hold (ZipMap's sequence of maps, string tensors).

onnxruntime computes these in float whatever the input type (the input is
cast to float first); so do the converters.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.families._ml import (
    ML,
    ZIPMAP_HINT,
    features,
    first_argmax,
    greater,
    logistic,
    post_transform,
    probit,
    reject_strings,
)
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode


def _floats(node: ConverterNode, name: str) -> np.ndarray:
    return np.asarray(node.attr(name, None) or (), dtype=np.float32)


def _ints(node: ConverterNode, name: str) -> np.ndarray:
    return np.asarray(node.attr(name, None) or (), dtype=np.int64)


def _f32(b: Builder, values) -> SSAValue:  # noqa: ANN001
    return b.const(np.asarray(values, dtype=np.float32), "f32")


def _matmul_t(b: Builder, x: SSAValue, w: np.ndarray) -> SSAValue:
    """``x @ w.T`` for a constant ``w`` ``[K, F]``."""
    return b.out("MatMul", [x, _f32(b, w)], {"transpose_a": False, "transpose_b": True})


def _two_columns(b: Builder, s: SSAValue, kind: str) -> SSAValue:
    """One binary score ``[N, 1]`` written as two columns, as onnxruntime's
    ``batched_update_scores_inplace`` does: ``(1 - s, s)`` for a
    probability, ``(-s, s)`` for a margin (``(logistic(-s), logistic(s))``
    under LOGISTIC)."""
    if kind == "logistic":
        return b.concat([logistic(b, b.out("Negative", [s])), logistic(b, s)], 1)
    if kind == "probability":
        return b.concat([b.out("Subtract", [b.scalar_like(1.0, s), s]), s], 1)
    return b.concat([b.out("Negative", [s]), s], 1)


def _scores_1(node: ConverterNode, b: Builder, s: SSAValue, post: str) -> SSAValue:
    """The post transform of one score per row: onnxruntime applies PROBIT only."""
    return probit(b, s) if post == "PROBIT" else s


# -- linear models --------------------------------------------------------------------


@converter("LinearClassifier", domain=ML)
def linear_classifier(node: ConverterNode, b: Builder):
    reject_strings(node, "classlabels_strings")
    labels = _ints(node, "classlabels_ints")
    intercepts = _floats(node, "intercepts")
    n = len(intercepts)
    coef = _floats(node, "coefficients")
    if n == 0 or coef.size % n:
        raise node.unsupported(f"{coef.size} coefficients for {n} intercepts")
    x = features(node, b, "f32")
    s = b.out("Add", [_matmul_t(b, x, coef.reshape(n, -1)), _f32(b, intercepts)])
    post = node.str_attr("post_transform", "NONE") or "NONE"
    if n == 1:
        pos, neg = (int(labels[1]), int(labels[0])) if len(labels) == 2 else (1, 0)
        label = b.out("Select", [greater(b, s, b.scalar_like(0.0, s)), b.i64(pos), b.i64(neg)])
        label = b.reshape(label, [-1])
        if len(labels) == 2:  # a second column: (1 - s, s); of the transforms only LOGISTIC applies
            if post == "PROBIT":
                raise node.unsupported("PROBIT of a single binary score (onnxruntime writes one of two columns)")
            return [label, _two_columns(b, s, "logistic" if post == "LOGISTIC" else "probability")]
        return [label, _scores_1(node, b, s, post)]
    if len(labels) != n:
        raise node.unsupported(f"{len(labels)} class labels for {n} scores")
    label = b.gather(b.i64(labels), first_argmax(b, s), 0)
    return [label, post_transform(node, b, s, post)]


@converter("LinearRegressor", domain=ML)
def linear_regressor(node: ConverterNode, b: Builder):
    targets = int(node.attr("targets", 1) or 1)
    coef = _floats(node, "coefficients")
    if coef.size % targets:
        raise node.unsupported(f"{coef.size} coefficients for {targets} targets")
    x = features(node, b, "f32")
    s = _matmul_t(b, x, coef.reshape(targets, -1))
    intercepts = _floats(node, "intercepts")
    if len(intercepts):
        s = b.out("Add", [s, _f32(b, intercepts)])
    post = node.str_attr("post_transform", "NONE") or "NONE"
    return _scores_1(node, b, s, post) if targets == 1 else post_transform(node, b, s, post)


# -- SVMs ---------------------------------------------------------------------------------


def _kernel(node: ConverterNode, b: Builder, x: SSAValue, vectors: np.ndarray, kind: str) -> SSAValue:
    """``[N, V]`` kernel of the rows of ``x`` with the support vectors."""
    params = _floats(node, "kernel_params")
    gamma, coef0, degree = (float(params[0]), float(params[1]), float(params[2])) if len(params) >= 3 else (0.0, 0.0, 0.0)
    if kind == "RBF":
        # ||x - v||^2 = |x|^2 - 2 x.v + |v|^2
        xx = b.out("ReduceSum", [b.out("Multiply", [x, x]), b.i64([1])], {"keep_dims": True})
        vv = _f32(b, (vectors.astype(np.float64) ** 2).sum(1).astype(np.float32))
        xv = _matmul_t(b, x, vectors)
        d = b.out("Add", [b.out("Subtract", [xx, b.out("Multiply", [xv, b.scalar_like(2.0, xv)])]), vv])
        d = b.out("Maximum", [d, b.scalar_like(0.0, d)])
        return b.out("Exp", [b.out("Multiply", [d, b.scalar_like(-gamma, d)])])
    dot = _matmul_t(b, x, vectors)
    if kind == "LINEAR":
        return dot
    z = b.out("Add", [b.out("Multiply", [dot, b.scalar_like(gamma, dot)]), b.scalar_like(coef0, dot)])
    if kind == "POLY":
        if degree == 2:
            return b.out("Multiply", [z, z])
        if degree == 3:
            return b.out("Multiply", [b.out("Multiply", [z, z]), z])
        return b.out("Power", [z, b.scalar_like(degree, z)])
    if kind == "SIGMOID":
        return b.out("Tanh", [z])
    raise node.unsupported(f"kernel_type {kind}")


@converter("SVMRegressor", domain=ML)
def svm_regressor(node: ConverterNode, b: Builder):
    n_supports = int(node.attr("n_supports", 0) or 0)
    coef = _floats(node, "coefficients")
    rho = _floats(node, "rho")
    x = features(node, b, "f32")
    if n_supports > 0:
        vectors = _floats(node, "support_vectors").reshape(n_supports, -1)
        k = _kernel(node, b, x, vectors, node.str_attr("kernel_type", "LINEAR") or "LINEAR")
        s = _matmul_t(b, k, coef.reshape(1, -1))
    else:
        s = _matmul_t(b, x, coef.reshape(1, -1))
    s = b.out("Add", [s, _f32(b, rho[:1])])
    if node.attr("one_class", 0):
        s = b.out("Select", [greater(b, s, b.scalar_like(0.0, s)), b.scalar_like(1.0, s), b.scalar_like(-1.0, s)])
    return s


@converter("SVMClassifier", domain=ML)
def svm_classifier(node: ConverterNode, b: Builder):
    reject_strings(node, "classlabels_strings")
    labels = _ints(node, "classlabels_ints")
    c = len(labels)
    per_class = _ints(node, "vectors_per_class")
    coef = _floats(node, "coefficients")
    rho = _floats(node, "rho")
    prob_a, prob_b = _floats(node, "prob_a"), _floats(node, "prob_b")
    post = node.str_attr("post_transform", "NONE") or "NONE"
    x = features(node, b, "f32")
    n_vectors = int(per_class.sum()) if len(per_class) else 0
    if n_vectors == 0:
        return _svm_linear(node, b, x, labels, coef, rho, post)
    if len(per_class) != c or c < 2:
        raise node.unsupported(f"{len(per_class)} vectors_per_class for {c} class labels")
    vectors = _floats(node, "support_vectors").reshape(n_vectors, -1)
    k = _kernel(node, b, x, vectors, node.str_attr("kernel_type", "LINEAR") or "LINEAR")
    # one-vs-one decision values: classifier (i, j) weighs class i's vectors by
    # coefficient row j - 1 and class j's by row i, plus rho
    start = np.concatenate([[0], np.cumsum(per_class)[:-1]])
    coef = coef.reshape(c - 1, n_vectors)
    pairs = [(i, j) for i in range(c - 1) for j in range(i + 1, c)]
    w = np.zeros((len(pairs), n_vectors), np.float32)
    for p, (i, j) in enumerate(pairs):
        si, sj = slice(start[i], start[i] + per_class[i]), slice(start[j], start[j] + per_class[j])
        w[p, si] = coef[j - 1, si]
        w[p, sj] = coef[i, sj]
    scores = b.out("Add", [_matmul_t(b, k, w), _f32(b, rho[: len(pairs)])])  # [N, P]
    # votes: classifier (i, j) votes i when its score is > 0, else j
    win_i = np.zeros((len(pairs), c), np.float32)
    win_j = np.zeros((len(pairs), c), np.float32)
    for p, (i, j) in enumerate(pairs):
        win_i[p, i] = 1
        win_j[p, j] = 1
    pos = b.convert(greater(b, scores, b.scalar_like(0.0, scores)), "f32")
    neg = b.out("Subtract", [b.scalar_like(1.0, pos), pos])
    votes = b.out("Add", [b.out("MatMul", [pos, _f32(b, win_i)]), b.out("MatMul", [neg, _f32(b, win_j)])])
    label = b.gather(b.i64(labels), first_argmax(b, votes), 0)
    if len(prob_a):
        raise node.unsupported(
            "probabilities (prob_a / prob_b: libsvm's iterative pairwise coupling) are not converted; "
            "convert an SVC trained with probability=False (decision values)"
        )
    if c > 2:
        return [label, post_transform(node, b, scores, post)]
    if post == "PROBIT":
        raise node.unsupported("PROBIT of a single binary score (onnxruntime writes one of two columns)")
    # one score: (-s, s) without a post transform, logistic columns under
    # LOGISTIC, else (1 - s, s) untransformed
    kind = {"NONE": "margin", "LOGISTIC": "logistic"}.get(post, "probability")
    return [label, _two_columns(b, scores, kind)]


def _svm_linear(node, b, x, labels, coef, rho, post):  # noqa: ANN001, ANN202
    """liblinear mode (no support vectors): one score per class."""
    c = len(labels)
    if c == 0 or coef.size % c:
        raise node.unsupported(f"{coef.size} coefficients for {c} class labels")
    s = b.out("Add", [_matmul_t(b, x, coef.reshape(c, -1)), _f32(b, rho[:1])])
    idx = first_argmax(b, s)
    label = b.gather(b.i64(labels), idx, 0)
    if c == 2:
        best = b.out("ReduceMax", [s, b.i64([1])], {"keep_dims": False})
        cut = 0.5 if bool((coef >= 0).all()) else 0.0
        hit = greater(b, best, b.scalar_like(cut, best), or_equal=cut > 0)
        label = b.out("Select", [hit, b.gather(b.i64(labels), [1], 0), label])
    return [label, post_transform(node, b, s, post) if c > 1 else _scores_1(node, b, s, post)]


# -- preprocessing -----------------------------------------------------------------------


@converter("Scaler", domain=ML)
def scaler(node: ConverterNode, b: Builder):
    x = b.convert(node.input(0), "f32")
    offset, scale = _floats(node, "offset"), _floats(node, "scale")
    y = b.out("Subtract", [x, _f32(b, offset)]) if len(offset) else x
    return b.out("Multiply", [y, _f32(b, scale)]) if len(scale) else y


@converter("Normalizer", domain=ML)
def normalizer(node: ConverterNode, b: Builder):
    x = b.convert(node.input(0), "f32")
    axis = b.i64([-1])
    norm = node.str_attr("norm", "MAX") or "MAX"
    if norm == "MAX":
        d = b.out("ReduceMax", [x, axis], {"keep_dims": True})
    elif norm == "L1":
        d = b.out("ReduceSum", [b.out("Abs", [x]), axis], {"keep_dims": True})
    elif norm == "L2":
        d = b.out("Sqrt", [b.out("ReduceSum", [b.out("Multiply", [x, x]), axis], {"keep_dims": True})])
    else:
        raise node.unsupported(f"norm {norm}")
    # a zero norm leaves the row as it is
    zero = b.out("Equal", [d, b.scalar_like(0.0, d)])
    return b.out("Divide", [x, b.out("Select", [zero, b.scalar_like(1.0, d), d])])


@converter("Binarizer", domain=ML)
def binarizer(node: ConverterNode, b: Builder):
    x = node.input(0)
    hit = greater(b, x, b.scalar_like(float(node.attr("threshold", 0.0)), x))
    return b.out("Select", [hit, b.scalar_like(1.0, x), b.scalar_like(0.0, x)])


@converter("Imputer", domain=ML)
def imputer(node: ConverterNode, b: Builder):
    x = node.input(0)
    if node.etype(0) in ("f32", "f64"):
        values = _floats(node, "imputed_value_floats")
        replaced = float(node.attr("replaced_value_float", 0.0))
        hit = b.out("IsNaN", [x]) if np.isnan(replaced) else b.out("Equal", [x, b.scalar_like(replaced, x)])
        fill = b.convert(_f32(b, values), node.etype(0))
    else:
        values = _ints(node, "imputed_value_int64s")
        hit = b.out("Equal", [x, b.scalar_like(int(node.attr("replaced_value_int64", 0)), x)])
        fill = b.convert(b.i64(values), node.etype(0))
    if len(values) == 0:
        raise node.unsupported("no imputed values")
    return b.out("Select", [hit, fill, x])


@converter("ArrayFeatureExtractor", domain=ML)
def array_feature_extractor(node: ConverterNode, b: Builder):
    x = node.input(0)
    idx = b.reshape(b.convert(node.input(1), "i64"), [-1])
    if node.rank(0) == 1:
        return b.unsqueeze(b.gather(x, idx, 0), [0])
    return b.gather(x, idx, -1)


@converter("OneHotEncoder", domain=ML)
def one_hot_encoder(node: ConverterNode, b: Builder):
    reject_strings(node, "cats_strings")
    cats = _ints(node, "cats_int64s")
    if len(cats) == 0:
        raise node.unsupported("no cats_int64s")
    x = node.input(0)
    if node.etype(0) in ("f32", "f64"):
        cats_v = b.convert(_f32(b, cats.astype(np.float32)), node.etype(0))
    else:
        cats_v = b.convert(b.i64(cats), node.etype(0))
    hit = b.out("Equal", [b.unsqueeze(x, [-1]), cats_v])
    return b.convert(hit, "f32")


@converter("FeatureVectorizer", domain=ML)
def feature_vectorizer(node: ConverterNode, b: Builder):
    dims = [int(d) for d in (node.attr("inputdimensions", None) or ())]
    if len(dims) != node.num_inputs:
        raise node.unsupported(f"{len(dims)} inputdimensions for {node.num_inputs} inputs")
    parts = []
    for i, d in enumerate(dims):
        v = b.convert(node.input(i), "f32")
        if node.rank(i) == 1:
            v = b.unsqueeze(v, [0])
        v = b.reshape(v, [0, -1], special_zero=True)
        have = (node.shape(i) or [-1])[-1] if node.rank(i) and node.rank(i) <= 2 else -1
        if have != d:
            # take d columns, padding with zeros
            pad = b.out("Pad", [v, b.i64([0, 0]), b.i64([0, d]), b.scalar_like(0.0, v)], {"pad_mode": "constant"})
            v = b.out("Slice", [pad, b.i64([0]), b.i64([d]), b.i64([1]), b.i64([1])])
        parts.append(v)
    return parts[0] if len(parts) == 1 else b.concat(parts, 1)


def _label_map(node: ConverterNode) -> tuple[np.ndarray, np.ndarray, object]:
    """(keys, values, default) of a LabelEncoder (v2 attributes or v4 tensors)."""
    keys = node.tensor_attr("keys_tensor")
    values = node.tensor_attr("values_tensor")
    default = node.tensor_attr("default_tensor")
    reject_strings(node, "keys_strings", "values_strings")
    if keys is None:
        ki, kf = node.attr("keys_int64s", None), node.attr("keys_floats", None)
        keys = np.asarray(ki, np.int64) if ki else np.asarray(kf or (), np.float32)
    if values is None:
        vi, vf = node.attr("values_int64s", None), node.attr("values_floats", None)
        values = np.asarray(vi, np.int64) if vi else np.asarray(vf or (), np.float32)
    if keys.dtype.kind in "OUS" or values.dtype.kind in "OUS":
        raise node.unsupported(f"string keys or values: OpenVINO IR has no string tensors; {ZIPMAP_HINT}")
    if default is None:
        default = node.attr("default_int64", -1) if values.dtype.kind in "iu" else node.attr("default_float", -0.0)
    else:
        default = np.asarray(default).reshape(-1)[0]
    return np.asarray(keys).reshape(-1), np.asarray(values).reshape(-1), default


@converter("LabelEncoder", domain=ML, min_version=2)
def label_encoder(node: ConverterNode, b: Builder):
    keys, values, default = _label_map(node)
    if len(keys) != len(values) or len(keys) == 0:
        raise node.unsupported(f"{len(keys)} keys for {len(values)} values")
    x = node.input(0)
    kt = node.etype(0)
    key_c = b.convert(b.const(keys, "i64") if keys.dtype.kind in "iu" else _f32(b, keys), kt)
    hit = b.out("Equal", [b.unsqueeze(x, [-1]), key_c])  # [..., K]
    found = b.out("ReduceLogicalOr", [hit, b.i64([-1])], {"keep_dims": False})
    # the first matching key (duplicates: onnxruntime keeps the first)
    order = b.const(np.arange(len(keys), 0, -1, dtype=np.int64), "i64")
    rank = b.out("Multiply", [b.convert(hit, "i64"), order])
    first = b.out("Subtract", [b.i64(len(keys)), b.out("ReduceMax", [rank, b.i64([-1])], {"keep_dims": False})])
    first = b.out("Minimum", [first, b.i64(len(keys) - 1)])
    vt = "i64" if values.dtype.kind in "iu" else "f32"
    val = b.gather(b.const(values.astype(np.int64 if vt == "i64" else np.float32), vt), first, 0)
    fill = b.const(np.asarray(default, dtype=np.int64 if vt == "i64" else np.float32), vt)
    return b.out("Select", [found, val, fill])


@converter("CastMap", "DictVectorizer", domain=ML)
def map_input(node: ConverterNode, b: Builder):
    raise node.unsupported(f"{node.type} reads a map, which OpenVINO IR cannot hold; {ZIPMAP_HINT}")


@converter("CategoryMapper", domain=ML)
@converter("LabelEncoder", domain=ML, max_version=1)
def string_mapper(node: ConverterNode, b: Builder):
    raise node.unsupported(
        f"{node.type} maps strings and integers, and OpenVINO IR has no string tensors; {ZIPMAP_HINT}"
    )


@converter("ZipMap", domain=ML)
def zip_map(node: ConverterNode, b: Builder):
    raise node.unsupported(f"ZipMap outputs a sequence of maps, which OpenVINO IR cannot hold; {ZIPMAP_HINT}")
