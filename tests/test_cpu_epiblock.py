"""CPU backend: a fused product + bias + activation step whose producer
applies the epilogue in its own tasks (fusion.EpilogueKernel.epi, the
kernels' ``plan_fused``, kernels/gemm_epi.py): pointwise convolutions and
MatMul with a constant matrix, against the unfused schedule (an observer
run); the near misses keep the product and the separate epilogue pass."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu import threads
from xmo.backends.cpu.fusion import EpilogueKernel
from xmo.backends.cpu.kernels import gemm_epi, packed
from xmo.backends.cpu.kernels.rows import row_kernels
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(row_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(30)


@pytest.fixture(autouse=True)
def two_threads():
    threads.set_threads(2)
    yield
    threads.set_threads(None)


@pytest.fixture
def row_blocks(monkeypatch):
    """The row ranges the fused producers ran (r0, r1, rows of the product),
    on the helper pool (the native launchers call the kernels from compiled
    code: tests/test_cpu_native_tasks.py checks that they compute the same)."""
    threads.set_pool("python")
    seen: list[tuple[int, int, int]] = []
    real = gemm_epi._row_block

    def spy(act, a, b, out, epi, r0, r1):
        seen.append((r0, r1, out.shape[0]))
        real(act, a, b, out, epi, r0, r1)

    monkeypatch.setattr(gemm_epi, "_row_block", spy)
    jit = packed.panel_kernels()
    real_packed = jit.gemm_panels_epi

    def spy_packed(a, panels, out, ca, cb, period, prm, r0, r1):  # f32 on packed weights
        seen.append((r0, r1, out.shape[0]))
        real_packed(a, panels, out, ca, cb, period, prm, r0, r1)

    monkeypatch.setattr(jit, "gemm_panels_epi", spy_packed)
    real_strided = jit.gemm_strided_epi

    def spy_strided(a, x, out, ca, cb, period, prm, r0, r1):  # f32 with few input channels
        seen.append((r0, r1, out.shape[0]))
        real_strided(a, x, out, ca, cb, period, prm, r0, r1)

    monkeypatch.setattr(jit, "gemm_strided_epi", spy_strided)
    yield seen
    threads.set_pool(None)


def _act(act: str, x, t):
    attrs = {"Gelu": {"approximation_mode": "ERF"}}.get(act, {})
    return op_class(act).make([x], attrs, result_types=[t], name="act")


def _conv(shape: list[int], cout: int, act: str | None, etype: str = "f32",
          bias_shape: tuple[int, ...] | None = None, stride: int = 1) -> ModuleOp:
    """act(Conv1x1(x, w) + bias); ``shape`` may hold -1 (dynamic)."""
    dt = np.float32 if etype == "f32" else np.float64
    n, c, h, w = shape
    x = ParameterOp.new(etype, shape, name="x")
    wc = ConstantOp.from_array((RNG.standard_normal((cout, c, 1, 1)) * 0.3).astype(dt))
    t = tensor(etype, [n, cout, -(-h // stride), -(-w // stride)])
    conv = op_class("Convolution").make(
        [x, wc], {"strides": [stride, stride], "dilations": [1, 1], "pads_begin": [0, 0],
                  "pads_end": [0, 0]}, result_types=[t], name="conv")
    bc = ConstantOp.from_array(RNG.standard_normal(bias_shape or (1, cout, 1, 1)).astype(dt))
    last = op_class("Add").make([conv, bc], {}, result_types=[t], name="bias")
    ops = [x, wc, bc, conv, last]
    if act is not None:
        last = _act(act, last, t)
        ops.append(last)
    return ModuleOp([*ops, ResultOp.new(last.results[0])])


def _matmul(shape: list[int], n: int, act: str, etype: str = "f32") -> ModuleOp:
    """act(x @ w + bias), x: ``shape`` [..., K], w: [K, n] constant."""
    dt = np.float32 if etype == "f32" else np.float64
    x = ParameterOp.new(etype, shape, name="x")
    wc = ConstantOp.from_array((RNG.standard_normal((shape[-1], n)) * 0.2).astype(dt))
    t = tensor(etype, [*shape[:-1], n])
    mm = op_class("MatMul").make([x, wc], {"transpose_a": False, "transpose_b": False},
                                 result_types=[t], name="mm")
    bc = ConstantOp.from_array(RNG.standard_normal((n,)).astype(dt))
    add = op_class("Add").make([mm, bc], {}, result_types=[t], name="bias")
    y = _act(act, add, t)
    return ModuleOp([x, wc, bc, mm, add, y, ResultOp.new(y.results[0])])


def _check(module: ModuleOp, x: np.ndarray) -> np.ndarray:
    """The fused step's result (three runs: the generated function, which
    binds the plans, is made at the second) equal to the unfused schedule's."""
    model = compile_model(module, threads=2)
    (step,) = model._steps
    assert isinstance(step.kernel, EpilogueKernel)
    for _ in range(3):
        got = model([x])[0].copy()
    want = model([x], observer=lambda op, outs: None)[0]
    tol = 1e-6 if x.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    return got


@pytest.mark.parametrize("etype", ["f32", "f64"])
@pytest.mark.parametrize("act", ["Relu", "Swish", "HSwish", "Sigmoid", "Gelu"])
def test_pointwise_conv_applies_the_epilogue_in_its_row_ranges(act, etype, row_blocks):
    """Batch 2, 130 output channels over an odd map of 37x29 (1073 columns,
    139K outputs per image): each image's rows in ranges (tasks of both
    images on the pool)."""
    dt = np.float32 if etype == "f32" else np.float64
    x = RNG.standard_normal((2, 24, 37, 29)).astype(dt) * 2
    _check(_conv([2, 24, 37, 29], 130, act, etype), x)
    if act == "Gelu" and etype == "f64":  # f64 Gelu has no row form (math.erf)
        assert row_blocks == []
        return
    ranges = {(r0, r1) for r0, r1, rows in row_blocks}
    assert len(ranges) >= 2 and {rows for _, _, rows in row_blocks} == {130}
    assert sorted(ranges)[0][0] == 0 and sorted(ranges)[-1][1] == 130


def test_pointwise_conv_batch_one_and_small_product(row_blocks):
    """Batch 1 split in ranges; a small product (not split) keeps one GEMM
    and the row pass."""
    x = RNG.standard_normal((1, 16, 40, 41)).astype(np.float32)
    _check(_conv([1, 16, 40, 41], 96, "Swish"), x)
    assert len(row_blocks) >= 2
    row_blocks.clear()
    x = RNG.standard_normal((1, 5, 3, 7)).astype(np.float32)
    _check(_conv([1, 5, 3, 7], 6, "Relu"), x)
    assert row_blocks == []


@pytest.mark.parametrize("batch", [1, 2])
def test_strided_pointwise_conv_reads_its_pixels_then_the_same_gemm(batch, row_blocks):
    """A 1x1 convolution of stride 2 (a ResNet downsample; odd maps): the
    pixels it reads copied out, then the pointwise GEMM with its epilogue in
    row ranges; values of the unfused schedule and of numpy's subsampled product."""
    x = RNG.standard_normal((batch, 48, 61, 59)).astype(np.float32)
    module = _conv([batch, 48, 61, 59], 130, "Relu", stride=2)
    got = _check(module, x)
    assert got.shape == (batch, 130, 31, 30) and len(row_blocks) >= 2
    w = next(op for op in module.ops if isinstance(op, ConstantOp)).get_array()
    bias = [op for op in module.ops if isinstance(op, ConstantOp)][1].get_array()
    ref = np.einsum("mc,nchw->nmhw", w.reshape(130, 48).astype(np.float64),
                    x[:, :, ::2, ::2].astype(np.float64)) + bias
    np.testing.assert_allclose(got, np.maximum(ref, 0), rtol=1e-5, atol=1e-5)
    row_blocks.clear()
    small = RNG.standard_normal((batch, 5, 7, 9)).astype(np.float32)
    _check(_conv([batch, 5, 7, 9], 6, None, stride=3), small)  # no split: one GEMM, then the bias
    assert row_blocks == []


def test_pointwise_conv_bias_per_map_position(row_blocks):
    """Constants along the map ([1, 1, H, W]: one per column of [N*C, H*W])."""
    x = RNG.standard_normal((1, 16, 30, 40)).astype(np.float32)
    _check(_conv([1, 16, 30, 40], 112, "HSwish", bias_shape=(1, 1, 30, 40)), x)
    assert len(row_blocks) >= 2


@pytest.mark.parametrize("etype", ["f32", "f64"])
@pytest.mark.parametrize("act", ["Relu", "Gelu", "Sigmoid"])
def test_matmul_constant_matrix_applies_the_epilogue_in_its_row_ranges(act, etype, row_blocks):
    """[2, 151, 64] x [64, 200] + bias: 302 rows in ranges."""
    dt = np.float32 if etype == "f32" else np.float64
    x = RNG.standard_normal((2, 151, 64)).astype(dt)
    _check(_matmul([2, 151, 64], 200, act, etype), x)
    if act == "Gelu" and etype == "f64":
        assert row_blocks == []
    else:
        assert len({(r0, r1) for r0, r1, _ in row_blocks}) >= 2


@pytest.mark.parametrize("case", ["tanh", "dynamic", "period", "channels_few", "along_h",
                                  "matmul_large_b"])
def test_near_misses_keep_the_separate_epilogue(case, row_blocks):
    """Tanh (numpy's form on large arrays), a dynamic batch, constants whose
    period does not divide the channels, too few output channels to split,
    constants varying along H (not per channel), and a MatMul whose large
    constant matrix every row range would read: the old schedule, same values
    (too few channels with few input channels: one range on the in-place
    f32 kernel, ``gemm_epi.strided_fits``)."""
    x = RNG.standard_normal((2, 16, 30, 40)).astype(np.float32)
    if case == "tanh":
        module = _conv([2, 16, 30, 40], 64, "Tanh")
    elif case == "dynamic":
        module = _conv([-1, 16, 30, 40], 64, "Relu")
    elif case == "period":
        module = _conv([2, 16, 30, 40], 64, "Relu", bias_shape=(2, 64, 1, 1))
    elif case == "channels_few":
        module = _conv([1, 16, 80, 90], 20, "Swish")  # 144K outputs: a split
        x = RNG.standard_normal((1, 16, 80, 90)).astype(np.float32)
    elif case == "along_h":
        module = _conv([2, 16, 30, 40], 64, "Relu", bias_shape=(1, 64, 30, 1))
    else:  # f64 (f32 runs on the packed matrix, read by every range without a repack)
        x = RNG.standard_normal((1, 40, 256))
        module = _matmul([1, 40, 256], 1100, "Relu", "f64")
    _check(module, x)
    if case == "channels_few":  # 16 input channels: the in-place f32 kernel, one range
        assert set(row_blocks) == {(0, 20, 20)}  # and its epilogue in the same call
        return
    assert row_blocks == []


def _group_conv(shape: list[int], groups: int, mg: int, cg: int, k: int, stride: int,
                act: str) -> ModuleOp:
    """act(GroupConvolution(x, w) + bias): depthwise when ``cg`` is 1."""
    n, c, h, w = shape
    x = ParameterOp.new("f32", shape, name="x")
    wc = ConstantOp.from_array((RNG.standard_normal((groups, mg, cg, k, k)) * 0.3).astype(np.float32))
    p = k // 2
    ho, wo = (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
    t = tensor("f32", [n, groups * mg, ho, wo])
    conv = op_class("GroupConvolution").make(
        [x, wc], {"strides": [stride, stride], "dilations": [1, 1], "pads_begin": [p, p],
                  "pads_end": [p, p]}, result_types=[t], name="conv")
    bc = ConstantOp.from_array(RNG.standard_normal((1, groups * mg, 1, 1)).astype(np.float32))
    add = op_class("Add").make([conv, bc], {}, result_types=[t], name="bias")
    y = _act(act, add, t)
    return ModuleOp([x, wc, bc, conv, add, y, ResultOp.new(y.results[0])])


@pytest.mark.parametrize("act", ["Relu", "Swish", "HSwish"])
@pytest.mark.parametrize("form,groups,mg,cg,k,stride", [
    ("depthwise_conv", 24, 1, 1, 3, 1),     # depthwise kernel
    ("depthwise_conv", 16, 2, 1, 5, 2),     # depthwise with a channel multiplier, stride 2
    ("small_group_conv", 6, 8, 8, 3, 1),    # groups of 8 channels (RegNet)
    ("small_group_conv", 4, 4, 4, 3, 2),
])
def test_depthwise_and_small_group_convs_take_the_epilogue(form, groups, mg, cg, k, stride, act,
                                                           monkeypatch):
    """The depthwise and small-group kernels apply the fused epilogue
    themselves (``epi`` handed to them, the run marked), batch 2, equal to
    the unfused schedule."""
    from xmo.backends.cpu.kernels import convolution as conv

    real = getattr(conv, form)
    epis: list[object] = []

    def spy(*args, **kwargs):
        epis.append(kwargs.get("epi", args[-1] if form == "small_group_conv" and len(args) > 6
                               else None))
        return real(*args, **kwargs)

    monkeypatch.setattr(conv, form, spy)
    x = RNG.standard_normal((2, groups * cg, 30, 27)).astype(np.float32)
    _check(_group_conv([2, groups * cg, 30, 27], groups, mg, cg, k, stride, act), x)
    # runs: step by step (the kernel, no epilogue), twice the generated function
    # (the fused plan: epi handed over), the observer's unfused schedule
    assert len(epis) == 4 and epis[1] is not None and epis[2] is not None


@pytest.mark.parametrize("act", ["Relu", "HSwish"])
@pytest.mark.parametrize("shape,groups,mg,cg,k,stride", [
    ([2, 40, 4, 4], 40, 1, 1, 5, 1),  # depthwise, tiny map: the channels-innermost kernel
    ([1, 32, 2, 2], 4, 8, 8, 3, 1),  # groups of 8 on a 2x2 map: the direct kernel
])
def test_tiny_group_convs_take_the_epilogue(shape, groups, mg, cg, k, stride, act, monkeypatch):
    """On tiny maps the depthwise kernel applies the epilogue in its tasks
    (``epi`` handed to ``tiny_depthwise_plan``); the direct kernel's small
    output gets it right after (``then_epi``): equal to the unfused
    schedule."""
    from xmo.backends.cpu.kernels import convolution as conv

    epis: list[object] = []
    tiny, then = conv.tiny_depthwise_plan, conv.then_epi

    def spy_tiny(*args, **kwargs):
        epis.append(args[6] if len(args) > 6 else kwargs.get("epi"))
        return tiny(*args, **kwargs)

    def spy_then(run, epi, n):
        epis.append(epi)
        return then(run, epi, n)

    monkeypatch.setattr(conv, "tiny_depthwise_plan", spy_tiny)
    monkeypatch.setattr(conv, "then_epi", spy_then)
    x = RNG.standard_normal(shape).astype(np.float32)
    _check(_group_conv(shape, groups, mg, cg, k, stride, act), x)
    assert any(e is not None for e in epis)


@pytest.mark.parametrize("shape,cout,act", [
    ([1, 16, 4, 4], 64, "HSwish"),  # a tiny map's pointwise convolution
    ([2, 24, 2, 2], 144, "Relu"),
])
def test_small_pointwise_conv_applies_the_epilogue_after_it(shape, cout, act, monkeypatch,
                                                           row_blocks):
    """A small pointwise product (not split) with its epilogue right after
    it in the fused step (``then_epi``): equal to the unfused schedule."""
    from xmo.backends.cpu.kernels import convolution as conv

    epis: list[object] = []
    then = conv.then_epi

    def spy(run, epi, n):
        epis.append(epi)
        return then(run, epi, n)

    monkeypatch.setattr(conv, "then_epi", spy)
    x = RNG.standard_normal(shape).astype(np.float32)
    _check(_conv(shape, cout, act), x)
    assert any(e is not None for e in epis) and row_blocks == []


def test_then_epi_is_the_row_pass_after_the_product():
    """then_epi: the run, then bias_act over its rows in place, marked."""
    rk = row_kernels()
    a = RNG.uniform(0.5, 2, 6).astype(np.float32)
    b = RNG.uniform(-1, 1, 6).astype(np.float32)
    prm = np.array([2, 0.0, 0.0, 1.0, np.finfo(np.float32).tiny], np.float64)  # Relu
    x = RNG.standard_normal((2, 6, 5)).astype(np.float32)
    run = gemm_epi.then_epi(lambda v: v * 3, (a, b, 6, prm), 5)
    want = x * 3
    rk.bias_act(want.reshape(-1), want.reshape(-1), a, b, 6, prm, 5, 0, 12)
    np.testing.assert_array_equal(run(x), want)
    assert gemm_epi.epi_applied(run)
    plain = lambda v: v  # noqa: E731
    assert gemm_epi.then_epi(plain, None, 5) is plain
