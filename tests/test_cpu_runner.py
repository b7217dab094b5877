"""The CPU backend's generated run function (backends/cpu/runner.py): the same
results as the step loop (the observer path), views for shape-only ops,
in-place affine steps, errors naming the op, model names never in its source,
several threads at once."""

from __future__ import annotations

import re
import threading
import warnings
import weakref
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu import CompiledModel, KernelError, kernel_for, register_kernel
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

EVIL = "x'); __import__('os').system('false'); ('"


def _i64(*v: int) -> ConstantOp:
    return ConstantOp.from_array(np.array(v, np.int64))


def _op(kind: str, args: list[Any], dims: list[int], name: str, **attrs: Any) -> Any:
    return op_class(kind).make(args, attrs, result_types=[tensor("f32", dims)], name=name)


def _views_module() -> ModuleOp:
    """x [?, 6] -> Relu -> Reshape [0, 3, 2] (special_zero) -> Transpose
    (0, 2, 1) -> Unsqueeze 1 -> Squeeze 1 -> Reshape [-1, 6]; a static
    Reshape of y [2, 3] -> [3, 2] -> Transpose; the affine chain after it."""
    x = ParameterOp.new("f32", [-1, 6], name=EVIL, tensor_names=[EVIL + "t"])
    y = ParameterOp.new("f32", [2, 3], name="y")
    s1, p, ax, s2, s3 = _i64(0, 3, 2), _i64(0, 2, 1), _i64(1), _i64(-1, 6), _i64(3, 2)
    rev = _i64()
    relu = _op("Relu", [x], [-1, 6], EVIL + "relu")
    r1 = _op("Reshape", [relu, s1], [-1, 3, 2], EVIL + "r1", special_zero=True)
    t1 = _op("Transpose", [r1, p], [-1, 2, 3], "t1")
    u = _op("Unsqueeze", [t1, ax], [-1, 1, 2, 3], "u")
    sq = _op("Squeeze", [u, ax], [-1, 2, 3], "sq")
    r2 = _op("Reshape", [sq, s2], [-1, 6], "r2", special_zero=False)
    r3 = _op("Reshape", [y, s3], [3, 2], "r3", special_zero=False)
    t2 = _op("Transpose", [r3, rev], [2, 3], "t2")
    c2 = ConstantOp.from_array(np.array([2.0], np.float32))
    c3 = ConstantOp.from_array(np.array([0.5], np.float32))
    mul = _op("Multiply", [r2, c2], [-1, 6], "mul")
    add = _op("Add", [mul, c3], [-1, 6], "add")
    return ModuleOp([x, y, s1, p, ax, s2, s3, rev, c2, c3, relu, r1, t1, u, sq, r2, r3, t2, mul,
                     add,
                     ResultOp.new(add.results[0], name="out"),
                     ResultOp.new(t2.results[0], name="out2")])


def _observed(model: CompiledModel, feeds: list[np.ndarray]) -> list[np.ndarray]:
    return list(model(feeds, observer=lambda op, outs: None))


def test_views_match_the_step_loop_and_skip_the_kernels():
    model = CompiledModel(_views_module())
    src = model.runner.source
    # the shape-only steps are view calls, not kernel calls
    assert src.count(".transpose(") == 2 and src.count(".reshape(") == 5
    assert "x = " in src and "ok = so(x)" in src  # the affine step may update in place
    rng = np.random.default_rng(0)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    for n in (1, 3):
        x = rng.standard_normal((n, 6)).astype(np.float32)
        got = model([x, y])
        want_out = np.maximum(x, 0).reshape(n, 3, 2).transpose(0, 2, 1).reshape(n, 6) * 2 + 0.5
        np.testing.assert_allclose(got[0], want_out, rtol=1e-6)
        np.testing.assert_array_equal(got[1], y.reshape(3, 2).T)
        for a, b in zip(got, _observed(model, [x, y])):
            np.testing.assert_array_equal(a, b)


def test_model_names_never_enter_the_source():
    src = CompiledModel(_views_module()).runner.source
    assert "import" not in src and "system" not in src and "'" not in src and '"' not in src
    # identifiers of the generated function: letters + an index, and a few helpers
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", src))
    allowed = re.compile(r"^([vcknDSP]\d+|run|r|x|ok|s|so|chk|ND|None|is|not|or|if|len|"
                         r"return|def|reshape|transpose|shape|dtype|__class__|with|ES)$")
    assert {n for n in names if not allowed.match(n)} == set()


def test_user_kernel_over_a_view_op_is_called():
    saved = kernel_for("ov.Transpose")
    calls = []

    def counting(node, x, order):
        calls.append(node.name)
        return saved(node, x, order)

    try:
        register_kernel("ov.Transpose", override=True)(counting)
        model = CompiledModel(_views_module())
        model([np.ones((2, 6), np.float32), np.ones((2, 3), np.float32)])
    finally:
        register_kernel("ov.Transpose", override=True)(saved)
    assert sorted(calls) == ["t1", "t2"]
    assert ".transpose(" not in model.runner.source


def test_dead_input_of_an_affine_step_is_updated_in_place():
    saved = kernel_for("ov.Relu")
    made: list[weakref.ref] = []  # weak: a reference would make the buffer shared

    def relu(node, x):
        y = np.maximum(x, 0)
        made.append(weakref.ref(y))
        return y

    x = ParameterOp.new("f32", [2, 3])
    r = _op("Relu", [x], [2, 3], "relu")
    c = ConstantOp.from_array(np.array([3.0], np.float32))
    mul = _op("Multiply", [r, c], [2, 3], "mul")
    module = ModuleOp([x, c, r, mul, ResultOp.new(mul.results[0])])
    try:
        register_kernel("ov.Relu", override=True)(relu)
        model = CompiledModel(module)
        for _ in range(2):  # step by step, then the generated function
            out = model([np.full((2, 3), 2.0, np.float32)])[0]
            assert out is made[-1]()  # Relu's own buffer, multiplied in place
            np.testing.assert_array_equal(out, np.full((2, 3), 6.0, np.float32))
    finally:
        register_kernel("ov.Relu", override=True)(saved)


def test_kernel_exception_names_the_op_in_every_path():
    saved = kernel_for("ov.Relu")

    def broken(node, x):
        raise ZeroDivisionError("no luck")

    x = ParameterOp.new("f32", [3])
    r = _op("Relu", [x], [3], "the_relu")
    module = ModuleOp([x, r, ResultOp.new(r.results[0])])
    try:
        register_kernel("ov.Relu", override=True)(broken)
        model = CompiledModel(module)
        # the first run step by step, the second the generated function
        for run in (lambda: model([np.ones(3, np.float32)]),
                    lambda: model([np.ones(3, np.float32)]),
                    lambda: model.profile([np.ones(3, np.float32)]),
                    lambda: _observed(model, [np.ones(3, np.float32)])):
            with pytest.raises(KernelError,
                               match=r"Relu.*'the_relu': ZeroDivisionError: no luck") as e:
                run()
            assert isinstance(e.value.__cause__, ZeroDivisionError)
    finally:
        register_kernel("ov.Relu", override=True)(saved)


def test_one_model_in_several_threads():
    model = CompiledModel(_views_module())
    y = np.arange(6, dtype=np.float32).reshape(2, 3)
    feeds = {n: np.arange(6 * n, dtype=np.float32).reshape(n, 6) - n for n in (1, 2, 5, 7)}
    want = {n: [a.copy() for a in model([x, y])] for n, x in feeds.items()}
    errors: list[str] = []

    def work(n: int) -> None:
        for _ in range(200):
            got = model([feeds[n], y])
            if not all(np.array_equal(a, b) for a, b in zip(got, want[n])):
                errors.append(f"batch {n}")
                return

    threads = [threading.Thread(target=work, args=(n,)) for n in feeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_elementwise_steps_are_ufunc_calls_without_float_warnings():
    x = ParameterOp.new("f32", [2, 3], name="x")
    y = ParameterOp.new("f32", [3], name="y")
    add = _op("Add", [x, y], [2, 3], "add")
    sub = _op("Subtract", [add, x], [2, 3], "sub", auto_broadcast="none")
    less = op_class("Less").make([sub, y], {}, result_types=[tensor("boolean", [2, 3])],
                                 name="lt")
    module = ModuleOp([x, y, add, sub, less, ResultOp.new(sub.results[0]),
                       ResultOp.new(less.results[0])])
    model = CompiledModel(module)
    src = model.runner.source
    assert "with ES():" in src
    assert re.search(r"= k\d+\(v\d+, v\d+\)", src)  # Add, Less: the ufunc itself
    assert re.search(r"= k\d+\(n\d+, v\d+, v\d+\)", src)  # Subtract (no broadcast): its kernel
    a = np.array([[1, np.inf, 3], [4, 5, -np.inf]], np.float32)
    b = np.array([np.inf, -np.inf, 1e38], np.float32)
    with np.errstate(all="ignore"):
        want = (a + b) - a
    for _ in range(2):  # step by step, then the generated function
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # inf - inf, overflow: no warning, as the kernels
            got = model([a, b])
        np.testing.assert_array_equal(got[0], want)
        np.testing.assert_array_equal(got[1], want < b)
    for g, w in zip(got, _observed(model, [a, b])):
        np.testing.assert_array_equal(g, w)


def test_huge_schedules_keep_running_step_by_step(monkeypatch):
    from xmo.backends.cpu import compiled

    monkeypatch.setattr(compiled, "GENERATE_MAX_STEPS", 3)
    model = CompiledModel(_views_module())
    feeds = [np.ones((2, 6), np.float32), np.ones((2, 3), np.float32)]
    first = [a.copy() for a in model(feeds)]
    for _ in range(2):
        for a, b in zip(model(feeds), first):
            np.testing.assert_array_equal(a, b)
    assert model.profile(feeds).total > 0
    assert model._runner is None
