"""convert-tf-to-ov, the ops frozen graphs hold beyond the basic set: Atan2,
Cumprod, Roll, scatters, segment reductions, MatrixBandPart, Bucketize,
NonMaxSuppression*, CropAndResize, ResizeBicubic, TF1 Switch / Merge and
PlaceholderWithDefault as an input.

Small GraphDefs built with xmo's schema, converted with xmo, run in OpenVINO
and on xmo's CPU backend, compared with OpenVINO's TF frontend where it
converts the op correctly, else with numpy references of TensorFlow's kernels
(the fixtures ``more_ops`` and ``cond`` of tests/data/tf hold TensorFlow's own
outputs)."""

from __future__ import annotations

import numpy as np
import pytest
from tf_graphs import Graph, Shape, check_tf, run_on_cpu_backend, xmo_module

pytest.importorskip("openvino")

rng = np.random.default_rng(11)


def _r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# -- Atan2 ------------------------------------------------------------------------------


def test_atan2_quadrants_and_signed_zeros(tmp_path):
    g = Graph()
    y = g.placeholder("y", np.float32, [-1])
    x = g.placeholder("x", np.float32, [-1])
    g.node("Atan2", "a", [y, x])
    edge = [0.0, -0.0, -1.5, 0.75, 3.0, -2.0]
    pairs = np.array([(a, c) for a in edge for c in edge], np.float32)
    yv = np.concatenate([pairs[:, 0], _r(20)])
    xv = np.concatenate([pairs[:, 1], _r(20)])
    want = np.arctan2(yv, xv)  # C's atan2, as TensorFlow's kernel
    module = check_tf(g, {"y": yv, "x": xv}, tmp_path, want=[want])
    # the quadrant of x = +-0 / y = +-0 is exact (+-pi, +-pi/2, +-0)
    v = run_on_cpu_backend(module, {"y": yv, "x": xv})[0][1]
    np.testing.assert_array_equal(np.signbit(v[: len(pairs)]), np.signbit(want[: len(pairs)]))


# -- Cumprod ----------------------------------------------------------------------------


def _cumprod(x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    y = np.cumprod(x, axis=axis)
    if exclusive:
        y = np.concatenate([np.ones_like(np.take(y, [0], axis)), np.delete(y, -1, axis)], axis)
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [1, -1])
def test_cumprod(exclusive, reverse, axis, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [-1, 5, 4])
    g.node("Cumprod", "c", [x, g.const("axis", np.int32(axis))], exclusive=exclusive,
           reverse=reverse, Tidx=np.int32)
    xv = (1 + 0.3 * _r(2, 5, 4)).astype(np.float32)
    xv[0, 2, 1] = 0.0  # a zero stops the product
    # OpenVINO's TF frontend has no Cumprod: numpy is the reference
    check_tf(g, {"x": xv}, tmp_path, want=[_cumprod(xv, axis, exclusive, reverse)])


def test_cumprod_int_runtime_axis(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.int32, [3, 4])
    a = g.placeholder("axis", np.int32, [])
    g.node("Cumprod", "c", [x, a], exclusive=True, reverse=True, Tidx=np.int32)
    xv = rng.integers(-3, 4, (3, 4)).astype(np.int32)
    for axis in (0, 1, -1):
        check_tf(g, {"x": xv, "axis": np.int32(axis)}, tmp_path,
                 want=[_cumprod(xv, axis, True, True)])


# -- Roll, scatters ---------------------------------------------------------------------------


def test_roll(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 5, 6])
    g.node("Roll", "r", [x, g.const("shift", np.int32([2, -3, 1])), g.const("axis", np.int32([1, 2, 1]))],
           Tshift=np.int32, Taxis=np.int32)
    xv = _r(2, 5, 6)
    # a repeated axis adds its shifts up
    check_tf(g, {"x": xv}, tmp_path, want=[np.roll(xv, (3, -3), (1, 2))])
    check_tf(g, {"x": xv}, tmp_path)


def test_scatter_nd_adds_duplicates(tmp_path):
    g = Graph()
    u = g.placeholder("u", np.float32, [4, 3])
    idx = g.const("idx", np.int32([[1], [3], [1], [0]]))
    g.node("ScatterNd", "s", [idx, u, g.const("shape", np.int32([5, 3]))], T=np.float32, Tindices=np.int32)
    uv = _r(4, 3)
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, [1, 3, 1, 0], uv)
    # (OpenVINO's TF frontend keeps one of the duplicates: numpy is the reference)
    check_tf(g, {"u": uv}, tmp_path, want=[want])


@pytest.mark.parametrize("op", ["TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                                "TensorScatterMax", "TensorScatterMin"])
def test_tensor_scatter(op, tmp_path):
    g = Graph()
    t = g.placeholder("t", np.float32, [3, 4, 2])
    u = g.placeholder("u", np.float32, [3, 2])
    dup = op != "TensorScatterUpdate"  # Update's order on duplicates is unspecified
    idx = np.int32([[0, 1], [2, 3], [0, 1] if dup else [1, 0]])
    g.node(op, "s", [t, g.const("idx", idx), u], Tindices=np.int32)
    tv, uv = _r(3, 4, 2), _r(3, 2)
    want = tv.copy()
    fn = {"TensorScatterAdd": np.add, "TensorScatterSub": np.subtract,
          "TensorScatterMax": np.maximum, "TensorScatterMin": np.minimum}.get(op)
    if fn is None:
        want[tuple(idx.T)] = uv
    else:
        fn.at(want, tuple(idx.T), uv)
    check_tf(g, {"t": tv, "u": uv}, tmp_path, want=[want])


# -- segment reductions --------------------------------------------------------------------


def test_segment_sum(tmp_path):
    g = Graph()
    d = g.placeholder("d", np.float32, [-1, 3])
    ids = g.placeholder("ids", np.int32, [-1])
    g.node("SegmentSum", "s", [d, ids], Tindices=np.int32)
    dv, iv = _r(7, 3), np.int32([0, 0, 2, 2, 2, 3, 5])  # segments 1 and 4 empty
    want = np.zeros((6, 3), np.float32)
    np.add.at(want, iv, dv)
    check_tf(g, {"d": dv, "ids": iv}, tmp_path, want=[want])
    check_tf(g, {"d": dv, "ids": iv}, tmp_path)


@pytest.mark.parametrize("kind", ["Sum", "Prod", "Max", "Min"])
def test_unsorted_segment(kind, tmp_path):
    g = Graph()
    d = g.placeholder("d", np.float32, [2, 4, 3])
    ids = g.placeholder("ids", np.int32, [2, 4])
    g.node(f"UnsortedSegment{kind}", "s", [d, ids, g.const("n", np.int32(5))],
           Tindices=np.int32, Tnumsegments=np.int32)
    dv = _r(2, 4, 3)
    iv = np.int32([[3, -1, 0, 3], [1, 0, -1, 3]])  # -1 drops; segments 2 and 4 empty
    f32 = np.finfo(np.float32)
    fill, fn = {"Sum": (0, np.add), "Prod": (1, np.multiply), "Max": (f32.min, np.maximum),
                "Min": (f32.max, np.minimum)}[kind]
    want = np.full((5, 3), fill, np.float32)
    keep = iv >= 0
    fn.at(want, iv[keep], dv[keep])
    check_tf(g, {"d": dv, "ids": iv}, tmp_path, want=[want])


# -- MatrixBandPart, Bucketize ------------------------------------------------------------------


@pytest.mark.parametrize("lower,upper", [(1, -1), (-1, 0), (0, 0), (2, 1), (-1, -1)])
def test_matrix_band_part(lower, upper, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 4, 5])
    g.node("MatrixBandPart", "b", [x, g.const("lo", np.int64(lower)), g.const("up", np.int64(upper))],
           Tindex=np.int64)
    xv = _r(2, 4, 5)
    i, j = np.indices((4, 5))
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    check_tf(g, {"x": xv}, tmp_path, want=[np.where(keep, xv, 0)])
    check_tf(g, {"x": xv}, tmp_path)


def test_matrix_band_part_runtime_bounds(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [-1, -1])
    lo = g.placeholder("lo", np.int32, [])
    up = g.placeholder("up", np.int32, [])
    g.node("MatrixBandPart", "b", [x, lo, up], Tindex=np.int32)
    xv = _r(5, 4)
    i, j = np.indices(xv.shape)
    for lower, upper in ((1, -1), (-1, 2), (0, 1)):
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        check_tf(g, {"x": xv, "lo": np.int32(lower), "up": np.int32(upper)}, tmp_path,
                 want=[np.where(keep, xv, 0)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_bucketize(dtype, tmp_path):
    g = Graph()
    x = g.placeholder("x", dtype, [12])
    g.node("Bucketize", "b", [x], boundaries=[-1.0, 0.0, 0.5, 2.0])
    xv = np.array([-3, -1, -0.5, 0, 0.25, 0.5, 1, 2, 2.5, -1, 0, 5], dtype)
    # TF: bucket i holds boundaries[i-1] <= x < boundaries[i] (a boundary goes up)
    want = np.searchsorted(np.float32([-1.0, 0.0, 0.5, 2.0]), xv.astype(np.float32),
                           side="right").astype(np.int32)
    check_tf(g, {"x": xv}, tmp_path, want=[want])


def test_bucketize_no_boundaries(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    g.node("Bucketize", "b", [x], boundaries=[])
    check_tf(g, {"x": _r(2, 3)}, tmp_path, want=[np.zeros((2, 3), np.int32)])


# -- NonMaxSuppression ----------------------------------------------------------------------

_BOXES = np.float32([[0, 0, 1, 1], [0, 0, 1, 2], [5, 5, 6, 6], [1, 1, 0, 0.1],
                     [5.1, 5, 6.1, 6], [0, 0.5, 1, 1.5]])
_SCORES = np.float32([0.9, 0.8, 0.5, 0.7, 0.6, 0.3])


def test_nms_iou_equal_to_threshold_is_kept(tmp_path):
    """TF suppresses when IoU > iou_threshold: boxes 0 and 1 have IoU 0.5."""
    g = Graph()
    b = g.placeholder("b", np.float32, [-1, 4])
    s = g.placeholder("s", np.float32, [-1])
    g.node("NonMaxSuppressionV3", "n", [b, s, g.const("m", np.int32(10)), g.const("iou", np.float32(0.5)),
                                        g.const("st", np.float32(0.0))], T=np.float32)
    bv, sv = _BOXES[:3], _SCORES[:3]
    check_tf(g, {"b": bv, "s": sv}, tmp_path, want=[np.int32([0, 1, 2])])


def test_nms_v2_runtime_threshold_and_v1_attr(tmp_path):
    g = Graph()
    b = g.placeholder("b", np.float32, [-1, 4])
    s = g.placeholder("s", np.float32, [-1])
    iou = g.placeholder("iou", np.float32, [])
    g.node("NonMaxSuppressionV2", "v2", [b, s, g.const("m", np.int32(4)), iou], T=np.float32)
    g.node("NonMaxSuppression", "v1", [b, s, g.const("m1", np.int32(3))], iou_threshold=0.4)
    feeds = {"b": _BOXES, "s": _SCORES, "iou": np.float32(0.5)}
    # v2 (0.5): box 1 stays (IoU 0.5 is not above), 3 and 2 go (IoU 0.9 with
    # 0, 0.82 with 4), 5 stays (IoU 1/3 with 0, 0.5 with 1); v1 (0.4): 1 goes
    check_tf(g, feeds, tmp_path, want=[np.int32([0, 1, 4, 5]), np.int32([0, 4, 5])])


def test_nms_v4_padded_and_v5_soft(tmp_path):
    g = Graph()
    b = g.placeholder("b", np.float32, [-1, 4])
    s = g.placeholder("s", np.float32, [-1])
    m, iou, st = g.const("m", np.int32(8)), g.const("iou", np.float32(0.45)), g.const("st", np.float32(0.35))
    g.node("NonMaxSuppressionV4", "v4", [b, s, m, iou, st], T=np.float32, T_threshold=np.float32,
           pad_to_max_output_size=True)
    g.node("NonMaxSuppressionV5", "v5", [b, s, m, iou, st, g.const("sigma", np.float32(0.5))],
           T=np.float32, pad_to_max_output_size=False)
    outputs = ["v4", "v4:1", "v5", "v5:1", "v5:2"]
    feeds = {"b": _BOXES, "s": _SCORES}
    # v4: 0, then 1 goes (IoU 0.5), 3 (0.9 with 0) and 2 (0.82 with 4) too
    # v5 (soft): 1 decays to 0.8 exp(-0.25) and comes back after 3, whose
    # decayed score 0.7 exp(-0.81) falls under the score threshold, as 2's
    soft1 = np.float32(0.8 * np.exp(-0.25))
    want = [np.int32([0, 4, 0, 0, 0, 0, 0, 0]), np.int32(2), np.int32([0, 1, 4]),
            np.float32([0.9, soft1, 0.6]), np.int32(3)]
    check_tf(g, feeds, tmp_path, outputs=outputs, want=want)
    # OpenVINO's TF frontend agrees away from IoU ties
    check_tf(g, feeds, tmp_path, outputs=outputs)


# -- CropAndResize, ResizeBicubic ------------------------------------------------------------------


def _crop_and_resize(img, boxes, ind, size, method, extrapolation):
    """numpy transcription of TF's CropAndResizePerBox (float32 arithmetic)."""
    f = np.float32
    _, h, w, c = img.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, c), np.float32)
    for n, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float32)):
        hs = (y2 - y1) * f(h - 1) / f(ch - 1) if ch > 1 else f(0)
        ws = (x2 - x1) * f(w - 1) / f(cw - 1) if cw > 1 else f(0)
        for yy in range(ch):
            iy = y1 * f(h - 1) + f(yy) * hs if ch > 1 else f(0.5) * (y1 + y2) * f(h - 1)
            for xx in range(cw):
                ix = x1 * f(w - 1) + f(xx) * ws if cw > 1 else f(0.5) * (x1 + x2) * f(w - 1)
                if not (0 <= iy <= h - 1 and 0 <= ix <= w - 1):
                    out[n, yy, xx] = extrapolation
                    continue
                im = img[ind[n]]
                if method == "nearest":
                    out[n, yy, xx] = im[int(np.floor(iy + f(0.5))), int(np.floor(ix + f(0.5)))]
                    continue
                t, bo, le, ri = int(np.floor(iy)), int(np.ceil(iy)), int(np.floor(ix)), int(np.ceil(ix))
                yl, xl = iy - f(t), ix - f(le)
                top = im[t, le] + (im[t, ri] - im[t, le]) * xl
                bot = im[bo, le] + (im[bo, ri] - im[bo, le]) * xl
                out[n, yy, xx] = top + (bot - top) * yl
    return out


@pytest.mark.parametrize("method,size", [("bilinear", (4, 5)), ("bilinear", (1, 3)), ("nearest", (3, 1))])
def test_crop_and_resize_runtime_boxes(method, size, tmp_path):
    g = Graph()
    img = g.placeholder("img", np.float32, [2, 6, 7, 3])
    bx = g.placeholder("boxes", np.float32, [-1, 4])
    ind = g.placeholder("ind", np.int32, [-1])
    g.node("CropAndResize", "c", [img, bx, ind, g.const("size", np.int32(size))], method=method,
           extrapolation_value=-2.0)
    iv = _r(2, 6, 7, 3)
    bv = np.float32([[0.1, 0.2, 0.8, 0.7], [0.9, 0.8, 0.1, 0.0], [-0.3, 0.2, 0.5, 1.4], [0, 0, 1, 1]])
    nv = np.int32([1, 0, 1, 0])
    want = _crop_and_resize(iv, bv, nv, size, method, -2.0)
    check_tf(g, {"img": iv, "boxes": bv, "ind": nv}, tmp_path, want=[want])


@pytest.mark.parametrize("align,half", [(False, False), (True, False), (False, True)])
def test_resize_bicubic_dynamic_dims_match_static(align, half, tmp_path):
    """Dynamic H / W build the same indices and weights at run time as the
    constants of a static image (the fixture more_ops checks those against TF)."""
    xv = _r(1, 5, 7, 2)
    got = []
    for k, shape in enumerate(([1, 5, 7, 2], [1, -1, -1, 2])):
        g = Graph()
        x = g.placeholder("x", np.float32, shape)
        g.node("ResizeBicubic", "y", [x, g.const("size", np.int32([8, 4]))], align_corners=align,
               half_pixel_centers=half)
        module = xmo_module(g.save(tmp_path / f"m{k}.pb"))
        got.append(run_on_cpu_backend(module, {"x": xv})[0][1])
    assert got[0].shape == (1, 8, 4, 2)
    np.testing.assert_allclose(got[1], got[0], rtol=1e-6, atol=1e-6)


# -- Switch / Merge (tf.cond in a frozen graph) -----------------------------------------------------


def _cond_graph(pred_const: bool | None, dead_op: str = "FancyOp") -> Graph:
    """y = cond(pred, x * 2 (then an op xmo cannot convert), x + 1); the branch
    constants hang on the pivots by control edges, as TF lowers tf.cond."""
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    if pred_const is None:
        pred = g.placeholder("pred", np.bool_, [])
    else:
        pred = g.node("PlaceholderWithDefault", "learning_phase", [g.const("dflt", np.bool_(pred_const))],
                      T=None, dtype=np.bool_, shape=Shape([]), out_dtype=np.bool_)
    g.node("Switch", "sw_pred", [pred, pred], T=np.bool_)
    g.node("Identity", "pivot_t", ["sw_pred:1"], T=np.bool_)
    g.node("Identity", "pivot_f", ["sw_pred"], T=np.bool_)
    g.node("Switch", "sw_x", [x, pred], T=np.float32)
    two = g.node("Const", "two", [], T=None, out_dtype=np.float32, dtype=np.float32,
                 value=np.asarray(2.0, np.float32), controls=["pivot_t"])
    one = g.node("Const", "one", [], T=None, out_dtype=np.float32, dtype=np.float32,
                 value=np.asarray(1.0, np.float32), controls=["pivot_f"])
    t = g.node("Mul", "then_mul", ["sw_x:1", two], T=np.float32)
    t = g.node(dead_op, "then_out", [t], T=np.float32)
    f = g.node("AddV2", "else_out", ["sw_x", one], T=np.float32)
    g.node("Merge", "merge", [t, f], T=np.float32, N=2)
    g.node("Identity", "y", ["merge"], T=np.float32)
    return g


def test_switch_merge_constant_predicate_takes_one_branch(tmp_path):
    xv = _r(2, 3)
    # False: the else branch; the then branch (with an op no one converts) vanishes
    module = xmo_module(_cond_graph(False).save(tmp_path / "f.pb"), ["y"])
    assert sorted(o.name for o in module.body.block.ops) == [
        "ov.Add", "ov.Constant", "ov.Parameter", "ov.Result"]
    np.testing.assert_allclose(run_on_cpu_backend(module, {"x": xv})[0][1], xv + 1)
    # True: the then branch (Relu stands for the op)
    module = xmo_module(_cond_graph(True, "Relu").save(tmp_path / "t.pb"), ["y", "merge:1"])
    outs = [v for _, v in run_on_cpu_backend(module, {"x": xv})]
    np.testing.assert_allclose(outs[0], np.maximum(xv * 2, 0))
    assert outs[1] == 0  # value_index: the then input


def test_switch_with_runtime_predicate_is_unsupported(tmp_path):
    from xmo.passes.tf_to_ov import UnsupportedOpsError

    with pytest.raises(UnsupportedOpsError) as err:
        xmo_module(_cond_graph(None, "Relu").save(tmp_path / "m.pb"), ["y"])
    msg = str(err.value)
    assert "Switch (2): sw_pred, sw_x" in msg
    assert "the predicate is not a constant" in msg
    assert "Merge" not in msg and "Relu" not in msg  # they only depend on the Switch


def test_learning_phase_named_as_input_is_a_runtime_predicate(tmp_path):
    """--input learning_phase: the PlaceholderWithDefault is a graph input, so
    the predicate is not a constant any more."""
    from xmo.context import make_context
    from xmo.frontends.tf import load_tf
    from xmo.passes.tf_to_ov import UnsupportedOpsError, convert_tf_to_ov

    path = _cond_graph(False, "Relu").save(tmp_path / "m.pb")
    ctx = make_context()
    module = load_tf(str(path), ctx, inputs=["learning_phase"])
    with pytest.raises(UnsupportedOpsError, match=r"Switch \(2\)"):
        convert_tf_to_ov(module, ctx)


def test_output_in_the_untaken_branch_is_reported(tmp_path):
    from xmo.passes.tf_to_ov import UnsupportedOpsError

    with pytest.raises(UnsupportedOpsError, match="not taken"):
        xmo_module(_cond_graph(False, "Relu").save(tmp_path / "m.pb"), ["then_out"])


def test_merge_of_two_live_inputs_is_unsupported(tmp_path):
    from xmo.passes.tf_to_ov import UnsupportedOpsError

    g = Graph()
    x = g.placeholder("x", np.float32, [3])
    g.node("Merge", "m", [x, g.node("Relu", "r", [x])], T=np.float32, N=2)
    with pytest.raises(UnsupportedOpsError, match="2 of its inputs are live"):
        xmo_module(g.save(tmp_path / "m.pb"), ["m"])


# -- PlaceholderWithDefault as a graph input ------------------------------------------------------


def _pwd_graph() -> Graph:
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    d = g.node("PlaceholderWithDefault", "bias", [g.const("dflt", np.full((1, 3), 0.5, np.float32))],
               T=None, dtype=np.float32, shape=Shape([-1, 3]), out_dtype=np.float32)
    g.node("AddV2", "y", [x, d], T=np.float32)
    return g


def test_placeholder_with_default_named_as_input(tmp_path):
    from xmo.context import attach_context, make_context
    from xmo.frontends.tf import TFFrontendError, load_tf
    from xmo.passes.tf_to_ov import convert_tf_to_ov

    path = _pwd_graph().save(tmp_path / "m.pb")
    xv, bv = _r(2, 3), _r(2, 3)
    # not named: its default value (a constant)
    module = xmo_module(path)
    assert [o.get_friendly_name() for o in module.body.block.ops if o.name == "ov.Parameter"] == ["x"]
    np.testing.assert_allclose(run_on_cpu_backend(module, {"x": xv})[0][1], xv + 0.5)
    # named in inputs: a Parameter of its shape attribute; in input_shapes: of those dims
    for kw, dims in (({"inputs": ["bias"]}, "?x3"), ({"input_shapes": {"bias:0": [2, 3]}}, "2x3")):
        ctx = make_context()
        module = load_tf(str(path), ctx, **kw)
        convert_tf_to_ov(module, ctx)
        params = [o for o in module.body.block.ops if o.name == "ov.Parameter"]
        assert [p.get_friendly_name() for p in params] == ["x", "bias"]
        assert str(params[1].results[0].type) == f"tensor<{dims}xf32>"
        assert params[1].get_tensor_names(0) == ["bias", "bias:0"]
        attach_context(module, ctx)
        got = run_on_cpu_backend(module, {"x": xv, "bias": bv})[0][1]
        np.testing.assert_allclose(got, xv + bv)
    with pytest.raises(TFFrontendError, match=r"inputs: the graph has no Placeholder 'y' \(placeholders: x, bias\)"):
        load_tf(str(path), make_context(), inputs=["y"])
