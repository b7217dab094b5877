"""Shape sub-graph rewrites of ``ov-fusions`` that read symbolic dimensions
(passes/ov_fusions/dim_symbols.py, passes/ov_fusions/shapes.py): positive and
near miss each. Every graph has dynamic dimensions and is run on xmo's CPU
backend before and after the pass at several input shapes (same outputs), so
each rewrite is checked to hold for every size of the dynamic dimensions.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from ov_graphs import G, op_counts
from xdsl.dialects.builtin import ModuleOp
from xmo import compile_model
from xmo.dialects.ov.base import constant_value_of
from xmo.passes.ov_fusions import OVFusionsPass
from xmo.passes.ov_fusions.dim_symbols import DimSymbols, div, static

SIZES = (1, 2, 5)
I64_MAX = np.iinfo(np.int64).max


def _feeds(g: G, sizes: tuple[int, ...]) -> list[np.ndarray]:
    """Inputs with the dynamic dims set to ``sizes`` (in order of appearance)."""
    it = iter(sizes)
    out = []
    for name, shape in g.params.items():
        s = [next(it) if d < 0 else d for d in shape]
        if name.startswith("i"):
            out.append(np.arange(int(np.prod(s)), dtype=np.int64).reshape(s) % 7)
        else:
            out.append(g.rng.standard_normal(s).astype(np.float32))
    return out


def _run(g: G, expect: dict[str, int], n_dyn: int) -> ModuleOp:
    m = g.module()
    m.verify()
    cases = [_feeds(g, sizes) for sizes in itertools.product(SIZES, repeat=n_dyn)]
    before = [compile_model(m.clone())(f) for f in cases]
    OVFusionsPass().apply(g.ctx, m)
    m.verify()
    c = op_counts(m)
    for k, v in expect.items():
        assert c[k] == v, f"{k}: {c[k]} != {v} ({dict(c)})"
    compiled = compile_model(m)
    for f, want in zip(cases, before):
        got = compiled(f)
        for x, y in zip(got, want):
            assert np.shape(x) == np.shape(y)
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)
    return m


def _named(m: ModuleOp, ov_type: str, name: str | None = None) -> Any:
    return next(o for o in m.body.block.ops if o.name == f"ov.{ov_type}"
                and (name is None or o.get_friendly_name() == name))


def _dim(g: G, shape: Any, i: int) -> Any:
    """TorchScript's ``Unsqueeze(Gather(shape, i), 0)``."""
    return g.op("Unsqueeze", [g.op("Gather", [shape, g.i64(i), g.i64(0)], {"batch_dims": 0}),
                              g.i64([0])])


# -- the symbols themselves ---------------------------------------------------------


def test_monomials_divide_only_exactly() -> None:
    assert div((32, (0, 1)), (1, (1,))) == (32, (0,))
    assert div((32, (0,)), (1, (1,))) is None
    assert div((30, ()), static(4)) is None


def test_symbols_follow_shape_rules() -> None:
    g = G()
    x = g.param([-1, -1, 32], "x")
    y = g.op("MatMul", [x, g.randc(32, 96)], {"transpose_a": False, "transpose_b": False})
    z = g.op("Add", [y, g.randc(96)])
    g.result(z, "z")
    s = DimSymbols()
    dx, dz = s.dims(x), s.dims(z)
    assert dz[:2] == dx[:2] and dz[2] == static(96) and dx[0] != dx[1]
    assert s.origin(dx[0][1][0]) == (x, 0)


# -- reshape-dynamic-target ---------------------------------------------------------------


def test_torchscript_head_split_becomes_constant_target() -> None:
    g = G()
    x = g.param([-1, -1, 32], "x")
    y = g.op("MatMul", [x, g.randc(32, 32)], {"transpose_a": False, "transpose_b": False})
    shape = g.op("ShapeOf", [y], {"output_type": "i64"})
    target = g.op("Concat", [_dim(g, shape, 0), _dim(g, shape, 1), g.i64([4]), g.i64([8])],
                  {"axis": 0})
    g.result(g.op("Reshape", [y, target], {"special_zero": True}, name="heads", names=["h"]), "h")
    m = _run(g, {"ShapeOf": 0, "Gather": 0, "Concat": 0, "Unsqueeze": 0, "Reshape": 1}, 2)
    r = _named(m, "Reshape")
    assert r.get_friendly_name() == "heads" and r.get_tensor_names(0) == ["h"]
    assert constant_value_of(r.operands[1]).tolist() == [0, 0, 4, 8]
    assert str(r.results[0].type) == "tensor<?x?x4x8xf32>"


def test_flattened_rows_read_back_from_one_shape() -> None:
    """[B, S, 32] -> [B*S, 32] -> Gemm -> [B, S, 96]: B and S come from one
    ShapeOf of the input (no -1 can stand for two dims)."""
    g = G()
    x = g.param([-1, -1, 32], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    tail = g.op("Slice", [shape, g.i64([-1]), g.i64([I64_MAX]), g.i64([1]), g.i64([0])])
    flat = g.op("Reshape", [x, g.op("Concat", [g.i64([-1]), tail], {"axis": 0})], {"special_zero": True})
    y = g.op("MatMul", [flat, g.randc(32, 96)], {"transpose_a": False, "transpose_b": False})
    target = g.op("Concat", [_dim(g, shape, 0), _dim(g, shape, 1), g.i64([96])], {"axis": 0})
    g.result(g.op("Reshape", [y, target], {"special_zero": True}, name="back"), "y")
    m = _run(g, {"ShapeOf": 1, "Gather": 1, "Slice": 0, "Unsqueeze": 0, "Concat": 1}, 2)
    c = _named(m, "Concat")  # Concat(Gather(ShapeOf(x), [0, 1]), [96])
    gather = c.operands[0].owner
    assert gather.name == "ov.Gather" and constant_value_of(gather.operands[1]).tolist() == [0, 1]
    assert gather.operands[0].owner.operands[0] is x
    flat_target = [constant_value_of(o.operands[1]) for o in m.body.block.ops if o.name == "ov.Reshape"]
    assert [-1, 32] in [t.tolist() for t in flat_target if t is not None]


def test_reshape_near_miss_target_from_arithmetic() -> None:
    """A target element the analysis cannot read (a product computed with
    Multiply) keeps the shape sub-graph."""
    g = G()
    x = g.param([-1, -1, 8], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    rows = g.op("Multiply", [_dim(g, shape, 0), _dim(g, shape, 1)])
    target = g.op("Concat", [rows, g.i64([8])], {"axis": 0})
    g.result(g.op("Reshape", [x, target], {"special_zero": False}), "y")
    _run(g, {"ShapeOf": 1, "Multiply": 1, "Concat": 1}, 2)


# -- nop-reshape-elimination (symbolic) ------------------------------------------------------


def test_reshape_to_its_own_dims_goes() -> None:
    g = G()
    x = g.param([-1, 4, -1, 8], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    target = g.op("Concat", [_dim(g, shape, 0), g.i64([-1]), _dim(g, shape, 2), g.i64([8])],
                  {"axis": 0})
    r = g.op("Reshape", [x, target], {"special_zero": False})
    g.result(g.op("Relu", [r], name="relu"), "y")
    m = _run(g, {"Reshape": 0, "ShapeOf": 0, "Concat": 0}, 2)
    assert _named(m, "Relu").operands[0] is x


def test_reshape_near_miss_swapped_dims_stays() -> None:
    g = G()
    x = g.param([-1, -1], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    target = g.op("Concat", [_dim(g, shape, 1), _dim(g, shape, 0)], {"axis": 0})
    g.result(g.op("Reshape", [x, target], {"special_zero": False}), "y")
    m = _run(g, {"Reshape": 1, "ShapeOf": 1}, 2)
    assert constant_value_of(_named(m, "Reshape").operands[1]) is None


# -- shape-value-fold ----------------------------------------------------------------------


def test_static_dims_of_a_dynamic_shape_fold() -> None:
    g = G()
    x = g.param([-1, -1, 32], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    last = g.op("Slice", [shape, g.i64([-1]), g.i64([I64_MAX]), g.i64([1]), g.i64([0])])
    plus = g.op("Add", [last, g.i64([2])], name="plus", names=["plus"])
    g.result(g.op("Broadcast", [g.const(1.0), plus], {"mode": "numpy"}), "y")
    m = _run(g, {"ShapeOf": 0, "Slice": 0, "Add": 0}, 2)
    b = _named(m, "Broadcast")
    assert constant_value_of(b.operands[1]).tolist() == [34]
    assert b.operands[1].owner.get_tensor_names(0) == ["plus"]


def test_shape_value_near_miss_dynamic_dim_stays() -> None:
    g = G()
    x = g.param([-1, -1, 32], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    first = g.op("Slice", [shape, g.i64([0]), g.i64([1]), g.i64([1]), g.i64([0])])
    g.result(g.op("Broadcast", [g.const(1.0), first], {"mode": "numpy"}), "y")
    _run(g, {"ShapeOf": 1, "Slice": 1}, 2)


# -- reshape-chain-fusion (dynamic) ----------------------------------------------------------


def test_unsqueeze_chain_of_dynamic_tensor_becomes_one() -> None:
    g = G()
    x = g.param([-1, -1], "x")
    u = g.op("Unsqueeze", [x, g.i64([1])])
    u = g.op("Unsqueeze", [u, g.i64([-1])])
    u = g.op("Unsqueeze", [u, g.i64([0])], name="u", names=["u"])
    g.result(u, "u")
    m = _run(g, {"Unsqueeze": 1}, 2)
    un = _named(m, "Unsqueeze")
    assert constant_value_of(un.operands[1]).tolist() == [0, 2, 4]
    assert un.get_friendly_name() == "u" and str(un.results[0].type) == "tensor<1x?x1x?x1xf32>"


def test_unsqueeze_chain_near_miss_shared_inner() -> None:
    g = G()
    x = g.param([-1, -1], "x")
    inner = g.op("Unsqueeze", [x, g.i64([1])])
    g.result(g.op("Unsqueeze", [inner, g.i64([0])]), "a")
    g.result(g.op("Relu", [inner]), "b")
    _run(g, {"Unsqueeze": 2}, 2)


# -- negative-index-wrap-elimination ---------------------------------------------------------


def _wrap(g: G, idx: Any, n: int) -> Any:
    neg = g.op("Less", [idx, g.i64(0)])
    return g.op("Select", [neg, g.op("Add", [idx, g.i64(n)]), idx], name="wrap", names=["wrap"])


def test_index_wrap_of_position_ids_goes() -> None:
    g = G()
    x = g.param([-1, -1, 4], "x")
    n = g.op("Gather", [g.op("ShapeOf", [x], {"output_type": "i64"}), g.i64(1), g.i64(0)],
             {"batch_dims": 0})
    pos = g.op("Range", [g.i64(0), n, g.i64(1)], {"output_type": "i64"})
    table = g.randc(16, 4)
    g.result(g.op("Gather", [table, _wrap(g, pos, 16), g.i64(0)], {"batch_dims": 0}), "y")
    _run(g, {"Select": 0, "Less": 0}, 2)


def test_index_wrap_near_miss_input_indices() -> None:
    g = G()
    idx = g.param([-1], "idx", "i64")
    g.result(g.op("Gather", [g.randc(16, 4), _wrap(g, idx, 16), g.i64(0)], {"batch_dims": 0}), "y")
    _run(g, {"Select": 1, "Less": 1}, 1)


# -- slice-bound-clamp-elimination -------------------------------------------------------


def _clamped(g: G, v: Any) -> Any:
    """What the ONNX Slice conversion writes for a computed bound."""
    big, small = np.float32(1 << 30), np.float32(-(1 << 30))
    vf = g.op("Convert", [v], {"destination_type": "f32"})
    s = g.op("Select", [g.op("Greater", [vf, g.const(big)]), g.i64(1 << 30), v])
    vf2 = g.op("Convert", [v], {"destination_type": "f32"})
    return g.op("Select", [g.op("Less", [vf2, g.const(small)]), g.i64(-(1 << 30)), s])


def test_slice_bound_clamp_of_a_dimension_goes() -> None:
    g = G()
    x = g.param([-1, -1], "x")
    n = _dim(g, g.op("ShapeOf", [x], {"output_type": "i64"}), 1)
    table = g.randc(1, 16)
    sl = g.op("Slice", [table, g.i64([0]), _clamped(g, n), g.i64([1]), g.i64([1])])
    g.result(g.op("Add", [x, sl]), "y")
    _run(g, {"Select": 0, "Greater": 0, "Less": 0, "Convert": 0}, 2)


def test_slice_bound_clamp_near_miss_input_bound() -> None:
    g = G()
    x = g.param([1, 16], "x")
    stop = g.param([1], "i_stop", "i64")
    g.result(g.op("Slice", [x, g.i64([0]), _clamped(g, stop), g.i64([1]), g.i64([1])]), "y")
    _run(g, {"Select": 2, "Greater": 1, "Less": 1}, 0)


def test_position_table_prefix_broadcast_keeps_the_sequence_dim() -> None:
    """``table[:, :S]`` (64 rows) added to ``[B, S, 4]``: the sum has ``S`` rows
    whenever the Add runs (for S > 64 the 64 rows do not broadcast to S), so
    it keeps x's dims and the Reshape after it reads ``[0, 0, 2, 2]``."""
    g = G()
    x = g.param([-1, -1, 4], "x")
    shape = g.op("ShapeOf", [x], {"output_type": "i64"})
    n = _dim(g, shape, 1)
    pos = g.op("Slice", [g.randc(1, 64, 4), g.i64([0]), n, g.i64([1]), g.i64([1])])
    y = g.op("Add", [x, pos])
    target = g.op("Concat", [_dim(g, shape, 0), n, g.i64([2, 2])], {"axis": 0})
    g.result(g.op("Reshape", [y, target], {"special_zero": False}), "y")
    s = DimSymbols()
    assert s.dims(y) == s.dims(x)
    m = _run(g, {"ShapeOf": 1, "Concat": 0, "Gather": 1}, 2)  # what the Slice reads
    assert constant_value_of(_named(m, "Reshape").operands[1]).tolist() == [0, 0, 2, 2]


def test_prefix_near_miss_other_length_is_its_own_dim() -> None:
    """``table[:, :T]`` for another tensor's T is not x's S."""
    g = G()
    x = g.param([-1, -1, 4], "x")
    t = g.param([-1], "t")
    n = _dim(g, g.op("ShapeOf", [t], {"output_type": "i64"}), 0)
    pos = g.op("Slice", [g.randc(1, 64, 4), g.i64([0]), n, g.i64([1]), g.i64([1])])
    y = g.op("Add", [x, pos])
    s = DimSymbols()
    assert s.dims(y)[1] not in (s.dims(x)[1], s.dims(pos)[1])


# -- transpose-to-reshape after a Reshape (Keras squeeze-excite) --------------------------------


def _keras_se(g: G, x: Any, last: int = 8) -> Any:
    """TF's ``Reshape(v, Pack(StridedSlice(Shape(v), 0, shrink), 1, 1, C))``
    then the NCHW Transpose of the convolution after it."""
    shape = g.op("ShapeOf", [x], {"output_type": "i32"})
    n = g.op("StridedSlice", [shape, g.i64([0]), g.i64([1]), g.i64([1])],
             {"begin_mask": [0], "end_mask": [0], "shrink_axis_mask": [1]})
    one = g.const([1], np.int32)
    target = g.op("Concat", [g.op("Unsqueeze", [n, g.i64([0])]), one, one,
                             g.const([last], np.int32)], {"axis": 0})
    r = g.op("Reshape", [x, target], {"special_zero": False})
    return g.T(r, [0, 3, 1, 2], name="to_nchw")


def test_keras_squeeze_excite_reshape_and_transpose_become_one_reshape() -> None:
    g = G()
    x = g.param([-1, 8], "x")
    g.result(g.op("Relu", [_keras_se(g, x)], name="relu"), "y")
    m = _run(g, {"Reshape": 1, "Transpose": 0, "ShapeOf": 0, "StridedSlice": 0}, 1)
    r = _named(m, "Reshape")
    assert constant_value_of(r.operands[1]).tolist() == [0, 8, 1, 1] and r.operands[0] is x
    assert r.get_friendly_name() == "to_nchw"


def test_keras_squeeze_excite_near_miss_reshape_shared() -> None:
    """The Reshape feeds something else too: it stays, the Transpose becomes
    a Reshape of its own."""
    g = G()
    x = g.param([-1, 8], "x")
    t = _keras_se(g, x)
    g.result(g.op("Relu", [t]), "y")
    g.result(g.op("Relu", [t.owner.operands[0]]), "z")
    _run(g, {"Reshape": 2, "Transpose": 0}, 1)
