"""TF's atrous convolution (SpaceToBatchND -> [ExpandDims] -> Conv2D /
DepthwiseConv2dNative -> [Squeeze] -> BatchToSpaceND) converted as one dilated
convolution (passes/tf_to_ov/families/atrous.py); near misses convert op by
op. Every graph matches OpenVINO's own TF frontend, in OpenVINO and on xmo's
CPU backend."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from tf_graphs import Graph, check_tf

I32 = np.int32


def _r(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def _types(module) -> collections.Counter:
    return collections.Counter(o.name.removeprefix("ov.") for o in module.body.block.ops)


def _atrous(kind: str = "conv2d", pads=((2, 3), (2, 3)), crops=((0, 1), (0, 1)),
            padding: str = "VALID", read_twice: bool = False) -> tuple[Graph, dict]:
    """``kind``: conv2d / depthwise on [1, 9, 9, 3]; conv1d on [2, 16, 3]."""
    g = Graph()
    one_d = kind == "conv1d"
    shape = [2, 16, 3] if one_d else [1, 9, 9, 3]
    x = g.placeholder("x", np.float32, shape)
    block = [2] if one_d else [2, 2]
    s2b = g.node("SpaceToBatchND", "s2b", [x, g.const("block", I32(block)), g.const("pads", I32(pads))],
                 Tblock_shape=I32, Tpaddings=I32)
    a = s2b
    if one_d:
        a = g.node("ExpandDims", "expand", [a, g.const("dim", I32(-3))], Tdim=I32)
    conv = {"strides": [1, 1, 1, 1], "padding": padding, "dilations": [1, 1, 1, 1]}
    if kind == "depthwise":
        c = g.node("DepthwiseConv2dNative", "conv", [a, g.const("w", _r(3, 3, 3, 2))], **conv)
    else:
        w = _r(1, 3, 3, 5) if one_d else _r(3, 3, 3, 4)
        c = g.node("Conv2D", "conv", [a, g.const("w", w)], **conv)
    if one_d:
        c = g.node("Squeeze", "squeeze", [c], squeeze_dims=[-3])
    g.node("BatchToSpaceND", "y", [c, g.const("block2", I32(block)), g.const("crops", I32(crops))],
           Tblock_shape=I32, Tcrops=I32)
    if read_twice:
        g.node("Identity", "s2b_out", [s2b])
    return g, {"x": _r(*shape, seed=1)}


@pytest.mark.parametrize("kind,pads,crops,dilations", [
    ("conv2d", ((2, 3), (2, 3)), ((0, 1), (0, 1)), [2, 2]),
    ("depthwise", ((2, 3), (2, 3)), ((0, 1), (0, 1)), [2, 2]),
    ("conv1d", ((2, 2),), ((0, 0),), [1, 2]),
    ("conv1d", ((0, 0),), ((0, 0),), [1, 2]),  # Keras' padding valid
])
def test_atrous_chain_is_one_dilated_convolution(kind, pads, crops, dilations, tmp_path):
    g, feeds = _atrous(kind, pads, crops)
    module = check_tf(g, feeds, tmp_path)
    types = _types(module)
    conv = next(o for o in module.body.block.ops if o.name.endswith("Convolution"))
    assert list(conv.attr("dilations")) == dilations
    pb = [p[0] - c[0] for p, c in zip(pads, crops)]
    pe = [p[1] - c[1] for p, c in zip(pads, crops)]
    lead = [0] if kind == "conv1d" else []
    assert list(conv.attr("pads_begin")) == lead + pb and list(conv.attr("pads_end")) == lead + pe
    assert not types["Pad"] and not types["Slice"] and not types["Reshape"], dict(types)
    assert types["Convolution"] + types["GroupConvolution"] == 1
    # the BatchToSpaceND's tensor names are on the value that replaces it
    res = next(o for o in module.body.block.ops if o.name == "ov.Result")
    v = res.operands[0]
    assert "y" in v.owner.get_tensor_names(v.index)


def _np_s2b(x: np.ndarray, block: int, pads) -> np.ndarray:
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    n, h, w, c = x.shape
    x = x.reshape(n, h // block, block, w // block, block, c).transpose(2, 4, 0, 1, 3, 5)
    return x.reshape(-1, h // block, w // block, c)


def _np_b2s(x: np.ndarray, block: int, crops) -> np.ndarray:
    nb, h, w, c = x.shape
    x = x.reshape(block, block, -1, h, w, c).transpose(2, 3, 0, 4, 1, 5)
    x = x.reshape(-1, h * block, w * block, c)
    (t, b), (left, r) = crops
    return x[:, t:x.shape[1] - b, left:x.shape[2] - r]


def _np_conv_same3(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    xp = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)]).astype(np.float64)
    out = np.zeros(x.shape[:3] + (w.shape[3],))
    for i in range(3):
        for j in range(3):
            out += xp[:, i:i + x.shape[1], j:j + x.shape[2]] @ w[i, j]
    return out.astype(np.float32)


@pytest.mark.parametrize("case", ["crops_beyond_pads", "same_conv", "s2b_read_twice"])
def test_atrous_near_misses_convert_op_by_op(case, tmp_path):
    want = None
    outputs = None
    if case == "crops_beyond_pads":
        g, feeds = _atrous("conv2d", ((2, 1), (2, 1)), ((3, 0), (0, 0)))
    elif case == "same_conv":
        g, feeds = _atrous("conv2d", padding="SAME")
        # TensorFlow's result; OpenVINO 2026.4's TF frontend gives [1, 9, 9, 4] here
        s2b = _np_s2b(feeds["x"], 2, ((2, 3), (2, 3)))
        want = [_np_b2s(_np_conv_same3(s2b, _r(3, 3, 3, 4)), 2, ((0, 1), (0, 1)))]
        assert want[0].shape == (1, 13, 13, 4)
    else:
        g, feeds = _atrous("conv1d", ((2, 2),), ((0, 0),), read_twice=True)
        outputs = ["y", "s2b_out"]
    module = check_tf(g, feeds, tmp_path, outputs=outputs, want=want)
    conv = next(o for o in module.body.block.ops if o.name.endswith("Convolution"))
    assert all(d == 1 for d in conv.attr("dilations"))
    assert _types(module)["Reshape"] >= 2  # SpaceToBatchND / BatchToSpaceND decomposed
