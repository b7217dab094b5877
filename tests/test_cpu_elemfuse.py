"""CPU backend: chains of elementwise ops with non-constant operands fused
into one step (backends/cpu/fusion.py, fuse_elementwise, ElemChainKernel)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.fusion import ElemChainKernel
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytest.importorskip("numba")

RNG = np.random.default_rng(11)

#: an op of a chain: (type, operands, attrs); operands name parameters,
#: "v" (the previous result), "v0".. (earlier results) or a constant array
Spec = tuple[str, tuple[object, ...], dict[str, object]]


def _chain(params: dict[str, list[int]], out_shape: list[int], specs: list[Spec],
           etype: str = "f32", outputs: tuple[int, ...] = ()) -> ModuleOp:
    """A module of ``specs`` applied in turn; its outputs: the last result and
    the results numbered in ``outputs``."""
    ops: list = []
    vals: dict[str, object] = {}
    for name, shape in params.items():
        p = ParameterOp.new(etype, shape, name=name)
        ops.append(p)
        vals[name] = p
    t = tensor(etype, out_shape)
    results: list = []
    for k, (kind, operands, attrs) in enumerate(specs):
        args = []
        for o in operands:
            if isinstance(o, np.ndarray):
                c = ConstantOp.from_array(o)
                ops.append(c)
                args.append(c)
            elif o == "v":
                args.append(results[-1])
            elif isinstance(o, str) and o.startswith("v"):
                args.append(results[int(o[1:])])
            else:
                args.append(vals[o])
        op = op_class(kind).make(args, attrs, result_types=[t], name=f"op{k}")
        ops.append(op)
        results.append(op)
    ops.append(ResultOp.new(results[-1].results[0]))
    ops += [ResultOp.new(results[k].results[0]) for k in outputs]
    return ModuleOp(ops)


def _types(model) -> list[str]:
    return [getattr(st.kernel, "step_type", st.node.type) for st in model._steps]


def _check(model, feeds: list[np.ndarray], want: np.ndarray, exact: bool = True) -> None:
    """Fused runs (the step loop, then the generated function) against the
    unfused schedule (observer) and ``want``."""
    plain = model([a.copy() for a in feeds], observer=lambda op, outs: None)[0]
    for _ in range(3):
        got = model([a.copy() for a in feeds])[0]
        if exact:
            np.testing.assert_array_equal(got, plain)
        else:
            np.testing.assert_allclose(got, plain, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _fused(model) -> ElemChainKernel:
    (k,) = [st.kernel for st in model._steps if isinstance(st.kernel, ElemChainKernel)]
    return k


SHAPE = [1, 8, 16, 16]


def test_residual_add_relu_is_one_step_in_place():
    m = compile_model(_chain({"x": SHAPE, "y": SHAPE}, SHAPE,
                             [("Add", ("x", "y"), {}), ("Relu", ("v",), {})]))
    assert _types(m) == ["Add+Relu"]
    assert m._steps[0].node.name == "op1"
    x, y = (RNG.standard_normal(SHAPE).astype(np.float32) for _ in range(2))
    _check(m, [x, y], np.maximum(x + y, 0))
    assert [s.type for s in m.profile([x, y]).steps] == ["Add+Relu"]
    # an intermediate (not a parameter) dying with the step is updated in place
    chain = compile_model(_chain({"x": SHAPE, "y": SHAPE}, SHAPE, [
        ("Exp", ("x",), {}), ("Multiply", ("v", np.array(2.0, np.float32)), {}),
        ("Add", ("v", "y"), {}), ("Relu", ("v",), {})]))
    assert _types(chain) == ["Exp", "Multiply+Add+Relu"]
    assert chain._steps[1].steal is not None
    _check(chain, [x, y], np.maximum(2 * np.exp(x) + y, 0))
    assert "ok = so(x)" in chain.runner.source


def test_se_scale_per_channel_and_single_op():
    gate = [1, 8, 1, 1]
    x = RNG.standard_normal(SHAPE).astype(np.float32)
    g = RNG.standard_normal(gate).astype(np.float32)
    y = RNG.standard_normal(SHAPE).astype(np.float32)
    m = compile_model(_chain({"x": SHAPE, "g": gate, "y": SHAPE}, SHAPE, [
        ("Multiply", ("g", "x"), {}), ("Add", ("y", "v"), {}), ("Subtract", ("v", "g"), {})]))
    assert _types(m) == ["Multiply+Add+Subtract"]
    _check(m, [x, g, y], y + g * x - g)
    # one op of two inputs: fused (numpy's loop, in place) from 16384 elements
    big = [1, 16, 32, 32]
    xb = RNG.standard_normal(big).astype(np.float32)
    gb = RNG.standard_normal([1, 16, 1, 1]).astype(np.float32)
    single = compile_model(_chain({"x": big, "g": [1, 16, 1, 1]}, big,
                                  [("Multiply", ("x", "g"), {})]))
    assert _types(single) == ["Multiply"] and _fused(single).ufunc is np.multiply
    _check(single, [xb, gb], xb * gb)
    small = compile_model(_chain({"x": SHAPE, "g": gate}, SHAPE, [("Multiply", ("x", "g"), {})]))
    assert not any(isinstance(st.kernel, ElemChainKernel) for st in small._steps)


def test_swish_and_hswish_spelled_out():
    x = (RNG.standard_normal(SHAPE) * 4).astype(np.float32)
    swish = compile_model(_chain({"x": SHAPE}, SHAPE, [
        ("Sigmoid", ("x",), {}), ("Multiply", ("x", "v"), {})]))
    assert _types(swish) == ["Sigmoid+Multiply"]
    _check(swish, [x], x / (1 + np.exp(-x.astype(np.float64))))
    three, six = np.array(3, np.float32), np.array(6, np.float32)
    hswish = compile_model(_chain({"x": SHAPE}, SHAPE, [
        ("Add", ("x", three), {}), ("Clamp", ("v",), {"min": 0.0, "max": 6.0}),
        ("Multiply", ("x", "v"), {}), ("Divide", ("v", six), {})]))
    assert _types(hswish) == ["Add+Clamp+Multiply+Divide"]
    _check(hswish, [x], x * np.clip(x + 3, 0, 6) / 6, exact=False)


@pytest.mark.parametrize("etype", ["f32", "f64"])
def test_column_and_scalar_operands(etype: str):
    dt = np.float32 if etype == "f32" else np.float64
    shape = [2, 32, 24]
    x = RNG.standard_normal(shape).astype(dt)
    col = RNG.standard_normal([24]).astype(dt)
    s = RNG.standard_normal([]).astype(dt)
    m = compile_model(_chain({"x": shape, "c": [24], "s": []}, shape, [
        ("Add", ("x", "c"), {}), ("Multiply", ("s", "v"), {}), ("Relu", ("v",), {}),
        ("Divide", ("c", "v"), {})], etype=etype))
    assert _types(m) == ["Add+Multiply+Relu+Divide"]
    with np.errstate(divide="ignore"):
        _check(m, [x, col, s], col / np.maximum(s * (x + col), 0))


def test_dynamic_shapes_and_runtime_broadcast():
    m = compile_model(_chain({"x": [-1, 64], "y": [-1, 64]}, [-1, 64],
                             [("Add", ("x", "y"), {}), ("Relu", ("v",), {})]))
    assert _types(m) == ["Add+Relu"]
    for n in (1, 40):  # 64 elements: the ops one by one; 2560: the numba pass
        x, y = (RNG.standard_normal((n, 64)).astype(np.float32) for _ in range(2))
        _check(m, [x, y], np.maximum(x + y, 0))
    # [40, 64] + [1, 64] at run time: not the planned layout, the ops one by one
    x = RNG.standard_normal((40, 64)).astype(np.float32)
    y = RNG.standard_normal((1, 64)).astype(np.float32)
    _check(m, [x, y], np.maximum(x + y, 0))


def _not_fused(model) -> bool:
    return not any(isinstance(st.kernel, ElemChainKernel) for st in model._steps)


@pytest.mark.parametrize("case", ["used_twice", "model_output", "int", "layout"])
def test_near_misses(case: str):
    x = RNG.standard_normal(SHAPE).astype(np.float32)
    y = RNG.standard_normal(SHAPE).astype(np.float32)
    want: Callable[[], np.ndarray]
    if case == "used_twice":  # the Add's result feeds Relu and Multiply
        m = compile_model(_chain({"x": SHAPE, "y": SHAPE}, SHAPE, [
            ("Add", ("x", "y"), {}), ("Relu", ("v",), {}), ("Multiply", ("v", "v0"), {})]))
        assert "Add+Relu" not in _types(m)
        feeds, want = [x, y], lambda: np.maximum(x + y, 0) * (x + y)
    elif case == "model_output":
        m = compile_model(_chain({"x": SHAPE, "y": SHAPE}, SHAPE, [
            ("Add", ("x", "y"), {}), ("Relu", ("v",), {})], outputs=(0,)))
        assert _not_fused(m)
        np.testing.assert_array_equal(m([x, y])[1], x + y)
        feeds, want = [x, y], lambda: np.maximum(x + y, 0)
    elif case == "int":
        m = compile_model(_chain({"x": SHAPE, "y": SHAPE}, SHAPE, [
            ("Add", ("x", "y"), {}), ("Relu", ("v",), {})], etype="i32"))
        assert _not_fused(m)
        x, y = (np.arange(2048, dtype=np.int32).reshape(SHAPE) - k for k in (1000, 30))
        feeds, want = [x, y], lambda: np.maximum(x + y, 0)
    else:  # [1, 8, 1, 16] over [1, 8, 16, 16]: not one value per row or column
        gap = [1, 8, 1, 16]
        y = RNG.standard_normal(gap).astype(np.float32)
        m = compile_model(_chain({"x": SHAPE, "y": gap}, SHAPE, [
            ("Add", ("x", "y"), {}), ("Relu", ("v",), {})]))
        assert _not_fused(m)
        feeds, want = [x, y], lambda: np.maximum(x + y, 0)
    for _ in range(2):
        np.testing.assert_array_equal(m(feeds)[0], want())


def test_two_chains_meeting_at_one_op():
    """a*b - c*d: the second Multiply's chain ends at the Subtract; the first
    Multiply stays a step of its own (no op fused twice)."""
    names = {k: SHAPE for k in "abcd"}
    m = compile_model(_chain(names, SHAPE, [
        ("Multiply", ("a", "b"), {}), ("Multiply", ("c", "d"), {}),
        ("Subtract", ("v0", "v"), {})]))
    assert sorted(_types(m)) == ["Multiply", "Multiply+Subtract"]
    a, b, c, d = (RNG.standard_normal(SHAPE).astype(np.float32) for _ in range(4))
    _check(m, [a, b, c, d], a * b - c * d)


def test_chain_meeting_the_middle_of_another():
    """(a*b + c) * d with c = Relu(e + f): the second chain reaches the first
    one's middle op; each op is fused once."""
    names = {k: SHAPE for k in "abdef"}
    m = compile_model(_chain(names, SHAPE, [
        ("Multiply", ("a", "b"), {}), ("Add", ("e", "f"), {}), ("Relu", ("v",), {}),
        ("Add", ("v0", "v"), {}), ("Multiply", ("v", "d"), {})]))
    types = _types(m)
    assert sum(t.count("+") + 1 for t in types) == 5
    a, b, d, e, f = (RNG.standard_normal(SHAPE).astype(np.float32) for _ in range(5))
    _check(m, [a, b, d, e, f], (a * b + np.maximum(e + f, 0)) * d)


def test_small_chains_run_their_ufuncs_in_turn():
    """Below ``_CHAIN_MIN`` elements a chain of Add / Subtract / Multiply and
    affine steps runs them in turn (no kernel calls): the unfused values bit
    for bit, the carried value on either side, a broadcast row, an affine
    step first (on the step's input, not in place)."""
    shape = dims = [2, 12, 32]
    x, y = (RNG.standard_normal(shape).astype(np.float32) for _ in range(2))
    r, col = (RNG.standard_normal(32).astype(np.float32) for _ in range(2))
    model = compile_model(_chain({"x": dims, "y": dims, "r": [32]}, dims, [
        ("Add", ("x", "y"), {}), ("Add", ("r", "v"), {}), ("Multiply", ("v", "y"), {})]))
    assert _types(model) == ["Add+Add+Multiply"]
    assert [f for f, _, _ in _fused(model).small] == [np.add, np.add, np.multiply]
    _check(model, [x, y, r], (r + (x + y)) * y)
    affine = compile_model(_chain({"x": dims, "r": [32]}, dims, [
        ("Subtract", (col, "x"), {}), ("Multiply", ("r", "v"), {})]))
    # the affine step's run on input 0, then the ufunc with the carried value second
    assert [(f is np.multiply, a, b) for f, a, b in _fused(affine).small] == [
        (False, 0, None), (True, 1, None)]
    keep = x.copy()
    _check(affine, [x, r], r * (col - x))
    np.testing.assert_array_equal(x, keep)
    with_divide = compile_model(_chain({"x": shape, "y": shape}, shape,
                                       [("Add", ("x", "y"), {}), ("Divide", ("v", "y"), {})]))
    assert _fused(with_divide).small is None
    _check(with_divide, [x, y], (x + y) / y)


def _random_chain(rng, dt, rows: int, inner: int):
    """(srcs, code, prm, reference) of a random chain for ``rows_jit.elem_chain``
    over ``rows x inner`` elements: every op kind and source layout, NaN / inf /
    zero among the values; the reference is the ops one by one on whole arrays
    (numpy's ufuncs, the activations by ``bias_act`` over the whole array)."""
    from xmo.backends.cpu.kernels import rows_jit

    size = rows * inner
    acts = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] + ([1] if dt == np.float32 else [])

    def values(n: int) -> np.ndarray:
        a = (rng.standard_normal(n) * 3).astype(dt)
        special = [np.nan, np.inf, -np.inf, 0.0]
        a[rng.integers(0, n, min(n // 4, 2))] = rng.choice(special, min(n // 4, 2))
        return a

    srcs: list[np.ndarray] = []
    layouts: list[tuple[int, int]] = []  # (mode, period) of each source
    code, prm = [], []
    v = np.empty(size, dt)
    for k in range(int(rng.integers(1, 8))):
        op = 0 if k == 0 else int(rng.integers(1, 9))
        if op in (7, 8):
            act = int(rng.choice(acts))
            p = ((float(rng.uniform(-2, 0)), float(rng.uniform(0, 2))) if act == 3
                 else (float(rng.uniform(0.1, 2)), float(rng.uniform(-1, 1))))
            code.append((op, 0, 0, 0))
            prm.append((act, *p, float(dt == np.float32 and k % 2 == 0), float(np.finfo(dt).tiny)))
            if op == 8:
                v = np.where(v < 0, dt(0), v)
            else:
                none = np.empty(0, dt)
                rows_jit.bias_act(v, v, none, none, 0, np.array(prm[-1]), size, 0, 1)
            continue
        mode, period = int(rng.integers(0, 4)), 0
        if len(srcs) == 4:  # an earlier source again
            src = int(rng.integers(0, 4))
            mode, period = layouts[src]
        else:
            if mode == 2:
                period = int(rng.choice([d for d in (1, 2, 3, rows) if rows % d == 0]))
            srcs.append(values({0: size, 1: 1, 2: period, 3: inner}[mode]))
            layouts.append((mode, period))
            src = len(srcs) - 1
        o = srcs[src]
        if mode == 2:
            o = o[np.arange(rows) % period]
        full = o if mode == 0 else np.broadcast_to(o, size) if mode == 1 else (
            np.tile(o, rows) if mode == 3 else np.repeat(o, inner))
        if op == 0:
            v = full.copy()
        else:  # op 3 and 6: the source first
            uf = [np.add, np.subtract, np.subtract, np.multiply, np.divide, np.divide][op - 1]
            v = uf(full, v) if op in (3, 6) else uf(v, full)
        code.append((op, src, mode, period))
        prm.append((0.0,) * 5)
    srcs += [np.empty(0, dt)] * (4 - len(srcs))
    return (tuple(srcs), np.array(code, np.int64).reshape(-1, 4),
            np.array(prm, np.float64).reshape(-1, 5), v)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_elem_chain_kernel_matches_ops_one_by_one(dt):
    """``rows_jit.elem_chain`` (chunks of whole rows, or a part of one row
    for rows above its chunk) bit for bit against the ops one by one over
    whole arrays: random chains of every op kind on per-element, one-value,
    per-row and per-column sources, rows shorter and longer than a chunk,
    ranges starting and ending inside rows (the threads' splits)."""
    from xmo.backends.cpu.kernels import rows_jit

    rng = np.random.default_rng(3)
    with np.errstate(all="ignore"):
        for t in range(300):
            inner = int(rng.choice([1, 3, 8, 17, 32, 100, 511, 512, 513, 1100]))
            rows = int(rng.integers(1, 40))
            srcs, code, prm, want = _random_chain(rng, dt, rows, inner)
            size = rows * inner
            lo, hi = 0, size
            if t % 3 == 0:
                lo = int(rng.integers(0, size))
                hi = int(rng.integers(lo + 1, size + 1))
            out = np.full(size, 7, dt)
            rows_jit.elem_chain(srcs, out, code, prm, inner, lo, hi)
            ref = np.full(size, 7, dt)
            ref[lo:hi] = want[lo:hi]
            np.testing.assert_array_equal(out.view(np.uint8), ref.view(np.uint8),
                                          err_msg=f"{code.tolist()} {prm[:, 0]} {rows}x{inner}")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_elem_chain_tiles_matches_ops_one_by_one(dt):
    """``rows_jit.elem_chain_tiles`` (tiles of rows by columns, written
    C-contiguous) bit for bit against the ops one by one, as
    ``elem_chain``'s test, with per-element sources given transposed
    ([images, inner, chans]: read a tile at a time through transpose_block),
    odd channel counts and row ranges cut inside images."""
    from xmo.backends.cpu.kernels import rows_jit

    rng = np.random.default_rng(5)
    with np.errstate(all="ignore"):
        for t in range(200):
            chans = int(rng.choice([1, 3, 8, 16, 17, 40]))
            images = int(rng.integers(1, 4))
            inner = int(rng.choice([1, 5, 8, 49, 100, 300]))
            rows = images * chans
            srcs, code, prm, want = _random_chain(rng, dt, rows, inner)
            size = rows * inner
            trans = np.zeros(4, np.bool_)
            moved = list(srcs)
            for s in {int(c[1]) for c in code if c[2] == 0 and c[0] not in (7, 8)}:
                if rng.random() < 0.7:
                    trans[s] = True
                    moved[s] = srcs[s].reshape(images, chans, inner).transpose(0, 2, 1).copy().reshape(-1)
            lo, hi = 0, rows
            if t % 3 == 0:
                lo = int(rng.integers(0, rows))
                hi = int(rng.integers(lo + 1, rows + 1))
            tile_rows, tile = [(16, 4096), (8, 64), (3, 40)][t % 3]
            out = np.full(size, 7, dt)
            rows_jit.elem_chain_tiles(tuple(moved), trans, out, code, prm, chans, inner,
                                      tile_rows, tile, lo, hi)
            ref = np.full(size, 7, dt)
            ref[lo * inner:hi * inner] = want[lo * inner:hi * inner]
            np.testing.assert_array_equal(out.view(np.uint8), ref.view(np.uint8),
                                          err_msg=f"{code.tolist()} {trans} {chans}x{inner}")


@pytest.mark.parametrize("res_layout", ["nchw", "nhwc"])
def test_layer_scale_after_a_transpose_writes_nchw(res_layout):
    """ConvNeXt's block end: Transpose(NHWC -> NCHW) of the MLP's output, times
    the layer scale [C, 1, 1], plus the block input. The Transpose is a view,
    so the chain meets a transposed input: the tiled pass runs and writes a
    C-contiguous result (the next depthwise convolution reads it as is)."""
    n, c, h, w = 2, 24, 9, 11
    nhwc, nchw = [n, h, w, c], [n, c, h, w]
    gamma = RNG.standard_normal([c, 1, 1]).astype(np.float32)
    ops: list = []
    x = ParameterOp.new("f32", nhwc, name="x")
    y = ParameterOp.new("f32", nchw if res_layout == "nchw" else nhwc, name="y")
    perm = ConstantOp.from_array(np.array([0, 3, 1, 2], np.int64))
    xt = op_class("Transpose").make([x, perm], {}, result_types=[tensor("f32", nchw)], name="xt")
    ops += [x, y, perm, xt]
    yv = y
    if res_layout == "nhwc":
        yv = op_class("Transpose").make([y, perm], {}, result_types=[tensor("f32", nchw)], name="yt")
        ops.append(yv)
    g = ConstantOp.from_array(gamma)
    mul = op_class("Multiply").make([xt, g], {}, result_types=[tensor("f32", nchw)], name="scale")
    add = op_class("Add").make([mul, yv], {}, result_types=[tensor("f32", nchw)], name="res")
    ops += [g, mul, add, ResultOp.new(add.results[0])]
    m = compile_model(ModuleOp(ops))
    assert "Multiply+Add" in _types(m)
    xa = RNG.standard_normal(nhwc).astype(np.float32)
    ya = RNG.standard_normal(y.results[0].type.get_shape()).astype(np.float32)
    yn = ya if res_layout == "nchw" else ya.transpose(0, 3, 1, 2)
    want = xa.transpose(0, 3, 1, 2) * gamma + yn
    chain = _fused(m)
    calls = []
    tiles = chain._tiles
    chain._tiles = lambda *a: (calls.append(1), tiles(*a))
    for _ in range(2):
        got = m([xa, ya])[0]
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
    assert calls
