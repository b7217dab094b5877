"""convert-tf-to-ov, shape / array / slicing ops: StridedSlice (every mask),
Slice, Reshape, Transpose, Squeeze, ExpandDims, Pack, Unpack, Concat, Split,
Pad, Fill, Tile, Shape, Gather..."""

from __future__ import annotations

import numpy as np
import pytest
from tf_graphs import Graph, check_tf

pytest.importorskip("openvino")

rng = np.random.default_rng(2)


def _r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# -- StridedSlice -----------------------------------------------------------------------


def tf_strided_slice(x, begin, end, strides, bm=0, em=0, elm=0, nam=0, sam=0):
    """TF's StridedSlice as numpy indexing (ellipsis > new axis > shrink;
    a shrinking axis takes ``begin`` whatever begin_mask says)."""
    index = []
    seen_ellipsis = False
    for i in range(len(begin)):
        bit = 1 << i
        if elm & bit and not seen_ellipsis:
            index.append(Ellipsis)
            seen_ellipsis = True
        elif nam & bit:
            index.append(np.newaxis)
        elif sam & bit:
            index.append(int(begin[i]))
        else:
            index.append(slice(None if bm & bit else int(begin[i]), None if em & bit else int(end[i]),
                               int(strides[i])))
    return x[tuple(index)]


SS_CASES = {
    "basic": ([1, 0, 2], [3, 5, 6], [1, 2, 1], {}),
    "negative_strides": ([-1, 4, 5], [0, -6, 0], [-1, -2, -1], {"end_mask": 0b100}),
    "reverse_masks": ([0, 0, 0], [0, 0, 0], [-1, -2, 1], {"begin_mask": 0b111, "end_mask": 0b111}),
    "begin_end_masks": ([2, 1, 3], [3, 4, 5], [1, 1, 2], {"begin_mask": 0b101, "end_mask": 0b010}),
    "ellipsis_first": ([0, 1], [0, 3], [1, 1], {"ellipsis_mask": 0b1}),
    "ellipsis_middle": ([1, 0, 1], [2, 0, 3], [1, 1, 1], {"ellipsis_mask": 0b10}),
    "new_axis": ([0, 0, 1], [0, 0, 3], [1, 1, 1], {"begin_mask": 0b1, "end_mask": 0b1, "new_axis_mask": 0b10}),
    "shrink": ([1, -1], [2, 0], [1, 1], {"shrink_axis_mask": 0b11}),
    "shrink_ignores_begin_mask": ([2, 0], [3, 0], [1, 1], {"shrink_axis_mask": 0b1, "begin_mask": 0b11, "end_mask": 0b11}),
    "ellipsis_new_axis_shrink": ([0, 0, 2], [0, 0, 3], [1, 1, 1],
                                 {"ellipsis_mask": 0b1, "new_axis_mask": 0b10, "shrink_axis_mask": 0b100}),
    "new_axis_first_then_shrink": ([0, 1, 0, 0], [0, 2, 0, 0], [1, 1, 1, -1],
                                   {"new_axis_mask": 0b1, "shrink_axis_mask": 0b10, "begin_mask": 0b1100,
                                    "end_mask": 0b1100}),
    "clamped": ([-10, 2, 0], [10, 100, -1], [1, 1, 3], {}),
    "negative_stride_clamped": ([10, -1, 4], [-10, -100, 0], [-2, -1, -3], {}),
    "ellipsis_and_new_axis_same_bit": ([0, 1], [0, 2], [1, 1], {"ellipsis_mask": 0b1, "new_axis_mask": 0b1}),
    "shrink_negative_last": ([0, 0, -1], [0, 0, 0], [1, 1, 1],
                             {"begin_mask": 0b11, "end_mask": 0b11, "shrink_axis_mask": 0b100}),
}


@pytest.mark.parametrize("case", sorted(SS_CASES))
def test_strided_slice(case, tmp_path):
    begin, end, strides, masks = SS_CASES[case]
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 5, 6])
    ins = [g.const(n, np.int32(v)) for n, v in (("b", begin), ("e", end), ("s", strides))]
    attrs = {k: masks.get(k, 0) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask")}
    g.node("StridedSlice", "y", [x, *ins], Index=np.int32, **attrs)
    xv = _r(4, 5, 6)
    want = tf_strided_slice(xv, begin, end, strides, masks.get("begin_mask", 0), masks.get("end_mask", 0),
                            masks.get("ellipsis_mask", 0), masks.get("new_axis_mask", 0),
                            masks.get("shrink_axis_mask", 0))
    check_tf(g, {"x": xv}, tmp_path, want=[want])


@pytest.mark.parametrize("case", ["basic", "negative_strides", "shrink", "new_axis", "ellipsis_middle",
                                  "begin_end_masks"])
def test_strided_slice_against_openvino(case, tmp_path):
    begin, end, strides, masks = SS_CASES[case]
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 5, 6])
    ins = [g.const(n, np.int32(v)) for n, v in (("b", begin), ("e", end), ("s", strides))]
    g.node("StridedSlice", "y", [x, *ins], Index=np.int32, **masks)
    check_tf(g, {"x": _r(4, 5, 6)}, tmp_path)


@pytest.mark.parametrize("stride", [1, -1])
def test_strided_slice_runtime_begin_end(stride, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 5, 6])
    b = g.placeholder("b", np.int32, [3])
    e = g.placeholder("e", np.int32, [3])
    s = g.const("s", np.int32([stride, 1, 2]))
    g.node("StridedSlice", "y", [x, b, e, s], Index=np.int32, shrink_axis_mask=0b010, end_mask=0b100)
    xv = _r(4, 5, 6)
    bv, ev = np.int32([1 if stride > 0 else 3, 2, 1]), np.int32([3 if stride > 0 else 0, 3, 0])
    want = tf_strided_slice(xv, bv, ev, [stride, 1, 2], em=0b100, sam=0b010)
    check_tf(g, {"x": xv, "b": bv, "e": ev}, tmp_path, want=[want])


# -- Slice ------------------------------------------------------------------------------------


@pytest.mark.parametrize("const", [True, False])
def test_slice(const, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 5, 6])
    bv, sv = np.int32([1, 0, 2]), np.int32([2, -1, 3])
    if const:
        b, s = g.const("b", bv), g.const("s", sv)
        feeds = {}
    else:
        b, s = g.placeholder("b", np.int32, [3]), g.placeholder("s", np.int32, [3])
        feeds = {"b": bv, "s": sv}
    g.node("Slice", "y", [x, b, s], Index=np.int32)
    xv = _r(4, 5, 6)
    check_tf(g, {"x": xv, **feeds}, tmp_path, want=[xv[1:3, 0:, 2:5]])


# -- reshape and friends ---------------------------------------------------------------------


def test_reshape_transpose_squeeze_expand(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3, 4])
    r = g.node("Reshape", "r", [x, g.const("shape", np.int32([4, -1, 1]))], Tshape=np.int32)
    t = g.node("Transpose", "t", [r, g.const("perm", np.int32([2, 0, 1]))], Tperm=np.int32)
    s = g.node("Squeeze", "s", [t], squeeze_dims=[0])
    e = g.node("ExpandDims", "e", [s, g.const("dim", np.int32(-1))], Tdim=np.int32)
    g.node("Squeeze", "y", [e])  # every size-1 dim
    check_tf(g, {"x": _r(2, 3, 4)}, tmp_path)


def test_reshape_dynamic_shape(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [-1, 3, 4])
    s = g.node("Shape", "shape", [x], out_type=np.int32, out_dtype=np.int32)
    n = g.node("StridedSlice", "n", [s, g.const("b", np.int32([0])), g.const("e", np.int32([1])),
                                      g.const("st", np.int32([1]))], Index=np.int32, shrink_axis_mask=1)
    shape = g.node("Pack", "pack", [n, g.const("m1", np.int32(-1))], N=2, axis=0)
    g.node("Reshape", "y", [x, shape], T=np.float32, Tshape=np.int32)
    check_tf(g, {"x": _r(5, 3, 4)}, tmp_path)


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_pack_unpack(axis, tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [3, 4])
    b = g.placeholder("b", np.float32, [3, 4])
    p = g.node("Pack", "p", [a, b], N=2, axis=axis)
    g.node("Unpack", "u", [p], num=2, axis=axis)
    g.node("Identity", "u0", ["u:0"], T=np.float32)
    g.node("Identity", "u1", ["u:1"], T=np.float32)
    check_tf(g, {"a": _r(3, 4), "b": _r(3, 4)}, tmp_path, outputs=["p", "u0", "u1"])


@pytest.mark.parametrize("axis", [0, 2, -1])
def test_concat_v2(axis, tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [2, 3, 4])
    b = g.const("b", _r(2, 3, 4))
    c = g.placeholder("c", np.float32, [2, 3, 4])
    g.node("ConcatV2", "y", [a, b, c, g.const("axis", np.int32(axis))], N=3, Tidx=np.int32)
    check_tf(g, {"a": _r(2, 3, 4), "c": _r(2, 3, 4)}, tmp_path)


def test_concat_v1(tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [2, 3])
    b = g.placeholder("b", np.float32, [2, 5])
    g.node("Concat", "y", [g.const("axis", np.int32(1)), a, b], N=2, T=np.float32)
    check_tf(g, {"a": _r(2, 3), "b": _r(2, 5)}, tmp_path)


def test_split_splitv(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 6])
    g.node("Split", "s", [g.const("axis", np.int32(1)), x], num_split=3, T=np.float32)
    g.node("SplitV", "v", [x, g.const("sizes", np.int32([1, -1, 2])), g.const("ax0", np.int32(0))],
           num_split=3, Tlen=np.int32)
    outs = []
    for name in ("s", "v"):
        for k in range(3):
            outs.append(g.node("Identity", f"{name}{k}", [f"{name}:{k}"], T=np.float32))
    check_tf(g, {"x": _r(4, 6)}, tmp_path, outputs=outs)


@pytest.mark.parametrize("op,mode", [("Pad", None), ("PadV2", None), ("MirrorPad", "REFLECT"),
                                     ("MirrorPad", "SYMMETRIC")])
def test_pad(op, mode, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 4, 5])
    pads = g.const("pads", np.int32([[0, 1], [2, 1], [3, 0]]))
    ins = [x, pads]
    attrs = {"Tpaddings": np.int32}
    if op == "PadV2":
        ins.append(g.const("value", np.float32(-1.5)))
    if mode:
        attrs["mode"] = mode
    g.node(op, "y", ins, **attrs)
    check_tf(g, {"x": _r(2, 4, 5)}, tmp_path)


def test_pad_runtime_paddings(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    p = g.placeholder("p", np.int32, [2, 2])
    g.node("Pad", "y", [x, p], Tpaddings=np.int32)
    xv, pv = _r(2, 3), np.int32([[1, 0], [0, 2]])
    check_tf(g, {"x": xv, "p": pv}, tmp_path, want=[np.pad(xv, pv)])


def test_shape_size_rank_fill_tile_broadcast(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3, 4])
    g.node("Shape", "shape", [x], out_type=np.int32, out_dtype=np.int32)
    g.node("Shape", "shape64", [x], out_type=np.int64, out_dtype=np.int64)
    g.node("Size", "size", [x], out_type=np.int32, out_dtype=np.int32)
    g.node("Rank", "rank", [x], out_dtype=np.int32)
    g.node("Fill", "fill", [g.const("dims", np.int32([2, 2])), g.const("v", np.float32(3.5))],
           T=np.float32, index_type=np.int32)
    g.node("Tile", "tile", [x, g.const("mult", np.int32([1, 2, 1]))], Tmultiples=np.int32)
    g.node("BroadcastTo", "bcast", [g.const("row", _r(4)), g.const("bshape", np.int32([3, 4]))], Tidx=np.int32)
    outs = ["shape", "shape64", "size", "rank", "fill", "tile", "bcast"]
    check_tf(g, {"x": _r(2, 3, 4)}, tmp_path, outputs=outs)


def test_shape_n(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    y = g.placeholder("y", np.float32, [4])
    g.node("ShapeN", "s", [x, y], N=2, out_type=np.int32)
    g.node("Identity", "s0", ["s:0"], T=np.int32)
    g.node("Identity", "s1", ["s:1"], T=np.int32)
    check_tf(g, {"x": _r(2, 3), "y": _r(4)}, tmp_path, outputs=["s0", "s1"],
             want=[np.int32([2, 3]), np.int32([4])])


def test_range_one_hot(tmp_path):
    g = Graph()
    n = g.placeholder("n", np.int32, [])
    r = g.node("Range", "r", [g.const("start", np.int32(1)), n, g.const("delta", np.int32(2))],
               Tidx=np.int32, T=None, out_dtype=np.int32)
    g.node("OneHot", "oh", [r, g.const("depth", np.int32(8)), g.const("on", np.float32(5)),
                            g.const("off", np.float32(-1))], axis=-1, T=np.float32, TI=np.int32)
    check_tf(g, {"n": np.int32(9)}, tmp_path, outputs=["r", "oh"])


def test_reverse_v2(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3, 4])
    g.node("ReverseV2", "y", [x, g.const("axis", np.int32([0, -1]))], Tidx=np.int32)
    xv = _r(2, 3, 4)
    check_tf(g, {"x": xv}, tmp_path, want=[xv[::-1, :, ::-1]])


@pytest.mark.parametrize("batch_dims,axis", [(0, 0), (0, 1), (1, 1)])
def test_gather_v2(batch_dims, axis, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [3, 4, 5])
    idx = g.const("idx", np.int32([[2, 0], [1, 1], [0, 3]]) if batch_dims else np.int32([2, 0, 1]))
    g.node("GatherV2", "y", [x, idx, g.const("axis", np.int32(axis))], batch_dims=batch_dims,
           Tparams=np.float32, Tindices=np.int32, Taxis=np.int32, T=None)
    check_tf(g, {"x": _r(3, 4, 5)}, tmp_path)


def test_gather_nd(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [3, 4, 5])
    g.node("GatherNd", "y", [x, g.const("idx", np.int32([[0, 1], [2, 3]]))], Tparams=np.float32,
           Tindices=np.int32, T=None)
    check_tf(g, {"x": _r(3, 4, 5)}, tmp_path)


def test_where(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.bool_, [3, 4])
    g.node("Where", "y", [x], out_dtype=np.int64)
    xv = rng.random((3, 4)) > 0.5
    check_tf(g, {"x": xv}, tmp_path, want=[np.argwhere(xv).astype(np.int64)])
