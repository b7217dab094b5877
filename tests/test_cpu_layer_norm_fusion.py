"""CPU backend: a last-axis MVN and its scale / shift (a LayerNorm) as one
step (backends/cpu/norm_fusion.py, rows_jit.mvn_affine), bit-exact with the
unfused schedule; the near misses that keep two steps."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.kernels.rows import row_kernels
from xmo.backends.cpu.norm_fusion import LayerNormKernel
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(row_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(21)
SHAPE = [2, 5, 24]


def _layer_norm(etype="f32", scale=(24,), shift=(24,), axis=-1, variance=True,
                eps_mode="inside_sqrt", shared=False, shape=SHAPE):
    """MVN(x, [axis]) [* scale] [+ shift] (scale / shift: constant shapes, None
    for none); ``shared``: the MVN's result is a model output too."""
    dt = np.float32 if etype == "f32" else np.float64
    t = tensor(etype, shape)
    x = ParameterOp.new(etype, shape, name="x")
    axes = ConstantOp.from_array(np.array([axis], np.int64))
    mvn = op_class("MVN").make([x, axes], {"normalize_variance": variance, "eps": 1e-3,
                                           "eps_mode": eps_mode}, result_types=[t], name="mvn")
    ops, last = [x, axes, mvn], mvn
    for name, op, cshape in (("scale", "Multiply", scale), ("shift", "Add", shift)):
        if cshape is not None:
            c = ConstantOp.from_array((RNG.standard_normal(cshape) * 2).astype(dt))
            last = op_class(op).make([last, c], {}, result_types=[t], name=name)
            ops += [c, last]
    ops.append(ResultOp.new(last.results[0]))
    if shared:
        ops.append(ResultOp.new(mvn.results[0]))
    return compile_model(ModuleOp(ops))


def _x(etype="f32", shape=SHAPE):
    return (RNG.standard_normal(shape) * 3 + 1).astype(np.float32 if etype == "f32" else np.float64)


def _unfused(model, x):
    return model([x], observer=lambda op, outs: None)  # each op its own kernel


@pytest.mark.parametrize("etype", ["f32", "f64"])
@pytest.mark.parametrize("scale,shift", [((24,), (24,)), ((1, 1, 24), None), (None, (24,)),
                                         ((1,), (1, 1, 1))])
@pytest.mark.parametrize("eps_mode", ["inside_sqrt", "outside_sqrt"])
def test_layer_norm_one_step_bit_exact(etype, scale, shift, eps_mode):
    model = _layer_norm(etype, scale, shift, eps_mode=eps_mode)
    (step,) = model._steps
    assert isinstance(step.kernel, LayerNormKernel)
    assert step.kernel.step_type == "MVN" + "+Multiply" * (scale is not None) + "+Add" * (shift is not None)
    assert step.node.name == ("shift" if shift is not None else "scale")
    for _ in range(2):  # the step loop, then the generated run function
        x = _x(etype)
        got, want = model([x])[0], _unfused(model, x)[0]
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # against the formula
    x64 = x.astype(np.float64)
    y = x64 - x64.mean(-1, keepdims=True)
    var = (y * y).mean(-1, keepdims=True)
    y = y / (np.sqrt(var + 1e-3) if eps_mode == "inside_sqrt" else np.sqrt(var) + 1e-3)
    assert np.allclose(got, y * (model._steps[0].kernel.a if scale else 1)
                       + (model._steps[0].kernel.b if shift else 0), rtol=1e-5, atol=1e-5)


def test_layer_norm_odd_rows_and_non_contiguous_input():
    model = _layer_norm(shape=[3, 7, 24])
    assert isinstance(model._steps[0].kernel, LayerNormKernel)
    x = _x(shape=[3, 7, 24])
    np.testing.assert_array_equal(model([x])[0], _unfused(model, x)[0])
    kernel = model._steps[0].kernel
    xt = np.asfortranarray(x)  # the two-step fallback
    np.testing.assert_array_equal(kernel(model._steps[0].node, xt, np.array([-1])), model([x])[0])


@pytest.mark.parametrize("case", ["shared", "axis", "no_variance", "per_row"])
def test_layer_norm_near_misses_keep_two_steps(case):
    kw = {"shared": {"shared": True}, "axis": {"axis": 1, "scale": (1, 5, 1), "shift": None},
          "no_variance": {"variance": False}, "per_row": {"scale": (5, 1), "shift": None}}[case]
    model = _layer_norm(**kw)
    assert not any(isinstance(st.kernel, LayerNormKernel) for st in model._steps)
    x = _x()
    for got, want in zip(model([x]), _unfused(model, x)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("etype", ["f32", "f64"])
@pytest.mark.parametrize("layout", [(2, 24, 3, 5), (24, 2, 3, 5), (2, 3, 24, 5)])
def test_layer_norm_reads_a_transposed_input_in_place(etype, layout):
    """An array with the normalized axis moved last by a transpose (an NCHW
    map seen as NHWC: ConvNeXt's LayerNorm after its depthwise convolution)
    runs the tiled pass (rows_jit.mvn_affine_cols), bit-exact with the
    contiguous one; odd sizes: blocks of 8 and their edges, rows split."""
    k = layout.index(24)
    perm = (*[i for i in range(4) if i != k], k)
    shape = [layout[i] for i in perm]
    model = _layer_norm(etype, shape=shape)
    (step,) = model._steps
    x = _x(etype, list(layout)).transpose(perm)
    assert not x.flags.c_contiguous
    want = model([np.ascontiguousarray(x)])[0]
    for _ in range(2):  # the step loop, then the generated run function
        got = model([x])[0]
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
    from xmo.backends.cpu.kernels.rows import row_kernels as rk

    # rows lo..hi of the kernel itself (the threads' ranges: tiles cut at
    # range and image ends)
    kern = step.kernel
    flat = np.ascontiguousarray(np.moveaxis(x, -1, k)).reshape(-1)
    positions = int(np.prod(shape[k:-1]))
    rows = x.size // 24
    for lo, hi in ((0, rows), (3, rows - 5), (positions - 1, min(rows, positions + 9))):
        out = np.zeros((rows, 24), x.dtype)
        rk().mvn_affine_cols(flat, kern.eps, kern.inside, kern.a, kern.b, out, positions, lo, hi)
        np.testing.assert_array_equal(out[lo:hi], want.reshape(rows, 24)[lo:hi])
        assert not out[:lo].any() and not out[hi:].any()
