"""convert-tf-to-ov, graph level: inputs, constants, outputs, names,
pass-through nodes, dead / control-only nodes, the unsupported-ops report."""

from __future__ import annotations

import numpy as np
import pytest
from tf_graphs import Graph, check_tf, xmo_module

rng = np.random.default_rng(3)


def _r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _ops(module, name):
    return [o for o in module.body.block.ops if o.name == name]


def _load(g: Graph, tmp_path, outputs=None):
    from xmo.context import make_context
    from xmo.frontends.tf import load_tf

    ctx = make_context()
    path = g.save(tmp_path / "m.pb")
    return load_tf(str(path), ctx, outputs=outputs), ctx


def test_pass_is_registered():
    from xmo.passes import get_all_passes
    from xmo.passes.tf_to_ov import ConvertTFToOVPass

    cls = get_all_passes()["convert-tf-to-ov"]()
    assert cls is ConvertTFToOVPass and cls.name == "convert-tf-to-ov"


def test_io_names(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    w = g.const("w", _r(3, 4))
    g.node("MatMul", "mm", [x, w])
    g.node("Relu", "y", ["mm"])
    module = xmo_module(g.save(tmp_path / "m.pb"))
    (p,) = _ops(module, "ov.Parameter")
    assert p.get_friendly_name() == "x"
    assert p.get_tensor_names(0) == ["x", "x:0"]
    (res,) = _ops(module, "ov.Result")
    producer = res.operands[0].owner
    assert producer.get_friendly_name() == "y"
    assert {"y", "y:0"} <= set(producer.get_tensor_names(0))
    mm = _ops(module, "ov.MatMul")[0]
    assert mm.get_friendly_name() == "mm"
    assert {"mm", "mm:0"} <= set(mm.get_tensor_names(0))


def test_const_keeps_payload(tmp_path):
    from xmo.passes.tf_to_ov import convert_tf_to_ov

    g = Graph()
    x = g.placeholder("x", np.float32, [2, 64])
    w = g.const("w", _r(64, 64))
    g.node("MatMul", "y", [x, w])
    module, ctx = _load(g, tmp_path)
    (tf_const,) = [o for o in module.body.block.ops if o.name == "tf.Const"]
    payload = tf_const.properties["value"]
    convert_tf_to_ov(module, ctx)
    (c,) = [o for o in _ops(module, "ov.Constant") if o.get_friendly_name() == "w"]
    assert c.properties["value"] is payload
    assert c.get_tensor_names(0) == ["w", "w:0"]


def test_pass_through_nodes_add_names(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    r = g.node("Relu", "r", [x])
    i1 = g.node("Identity", "id1", [r])
    i2 = g.node("StopGradient", "sg", [i1])
    i3 = g.node("Snapshot", "snap", [i2])
    g.node("IdentityN", "idn", [i3, x], T=[np.float32, np.float32])
    module = check_tf(g, {"x": _r(2, 3)}, tmp_path, outputs=["idn", "idn:1"])
    relu = _ops(module, "ov.Relu")[0]
    assert relu.get_friendly_name() == "r"
    names = set(relu.get_tensor_names(0))
    assert {"r", "r:0", "id1", "id1:0", "sg", "snap", "idn", "idn:0"} <= names
    (p,) = _ops(module, "ov.Parameter")
    assert {"x", "x:0", "idn:1"} <= set(p.get_tensor_names(0))
    assert len(_ops(module, "ov.Result")) == 2


def test_placeholder_with_default_is_its_default(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    d = g.node("PlaceholderWithDefault", "pwd", [g.const("dflt", _r(2, 3))], T=None,
               dtype=np.float32, shape=__import__("tf_graphs").Shape([2, 3]), out_dtype=np.float32)
    g.node("Add", "y", [x, d], T=np.float32)
    check_tf(g, {"x": _r(2, 3)}, tmp_path)


def test_dynamic_and_unknown_rank_placeholders(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [-1, 3])
    u = g.placeholder("u", np.float32, None)
    g.node("Relu", "y", [x])
    g.node("Neg", "z", [u])
    module = xmo_module(g.save(tmp_path / "m.pb"))
    px, pu = _ops(module, "ov.Parameter")
    assert str(px.results[0].type) == "tensor<?x3xf32>"
    assert str(pu.results[0].type) == "tensor<*xf32>"
    # OpenVINO's CPU plugin takes no input of dynamic rank: xmo's CPU backend does
    from tf_graphs import run_on_cpu_backend

    xv, uv = _r(5, 3), _r(2, 2, 2)
    out = {min(k): v for k, v in run_on_cpu_backend(module, {"x": xv, "u": uv})}
    np.testing.assert_allclose(out["y"], np.maximum(xv, 0))
    np.testing.assert_allclose(out["z"], -uv)


def test_noop_control_edges_and_dead_nodes_vanish(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4])
    g.node("NoOp", "init", [], T=None)
    g.node("Relu", "y", [x], controls=["init"])
    g.const("unused_string", ["a", "b"])  # string constant nobody uses
    g.node("Unknown_Op_Nobody_Uses", "dead", [x])
    module = check_tf(g, {"x": _r(4)}, tmp_path, outputs=["y"])
    assert [o.name for o in module.body.block.ops] == ["ov.Parameter", "ov.Relu", "ov.Result"]


def test_output_port_names(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 6])
    g.node("Split", "s", [g.const("axis", np.int32(1)), x], num_split=3, T=np.float32)
    module = check_tf(g, {"x": _r(4, 6)}, tmp_path, outputs=["s:2", "s", "s:1"])
    (split,) = _ops(module, "ov.Split")
    assert split.get_friendly_name() == "s"
    assert split.get_tensor_names(0) == ["s", "s:0"]
    assert split.get_tensor_names(1) == ["s:1"]
    assert split.get_tensor_names(2) == ["s:2"]
    results = _ops(module, "ov.Result")
    assert [r.operands[0].index for r in results] == [2, 0, 1]


def test_unpack_outputs_are_named_by_port(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [3, 4])
    g.node("Unpack", "u", [x], num=3, axis=0)
    module = xmo_module(g.save(tmp_path / "m.pb"), ["u:0", "u:1", "u:2"])
    owners = [r.operands[0].owner for r in _ops(module, "ov.Result")]
    assert [o.get_friendly_name() for o in owners] == ["u", "u:1", "u:2"]
    assert [o.get_tensor_names(0) for o in owners] == [["u", "u:0"], ["u:1"], ["u:2"]]


def test_types_bool_f16_i64(tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float16, [3])
    b = g.placeholder("b", np.int64, [3])
    c = g.placeholder("c", np.bool_, [3])
    s = g.node("Cast", "a32", [a], T=None, SrcT=np.float16, DstT=np.float32, out_dtype=np.float32)
    bf = g.node("Cast", "b32", [b], T=None, SrcT=np.int64, DstT=np.float32, out_dtype=np.float32)
    g.node("SelectV2", "y", [c, s, bf], T=np.float32)
    av, bv, cv = _r(3).astype(np.float16), np.int64([1, -2, 3]), np.array([True, False, True])
    want = np.where(cv, av.astype(np.float32), bv.astype(np.float32))
    check_tf(g, {"a": av, "b": bv, "c": cv}, tmp_path, want=[want])


def test_unsupported_report(tmp_path):
    from xmo.passes.tf_to_ov import UnsupportedOpsError, convert_tf_to_ov

    g = Graph()
    x = g.placeholder("x", np.float32, [1, 4, 4, 4])
    a = g.node("FancyOp", "fancy_a", [x])
    b = g.node("FancyOp", "fancy_b", [x])
    # a converter refusing the node: an unsupported data format
    c = g.node("Conv2D", "conv", [x, g.const("w", _r(1, 1, 4, 4))], strides=[1, 1, 1, 1],
               padding="VALID", data_format="NCHW_VECT_C")
    g.node("Relu", "after_fancy", [a])  # depends on a failed node: not reported itself
    g.node("AddV2", "sum", ["after_fancy", b])
    g.node("Relu", "y", [c])
    module, ctx = _load(g, tmp_path, ["sum", "y"])
    before = [o.name for o in module.body.block.ops]
    with pytest.raises(UnsupportedOpsError) as err:
        convert_tf_to_ov(module, ctx)
    msg = str(err.value)
    assert "FancyOp (2): fancy_a, fancy_b" in msg
    assert "Conv2D (1): conv" in msg
    assert "NCHW_VECT_C" in msg
    assert "after_fancy" not in msg and "Relu" not in msg
    assert set(err.value.failures) == {"FancyOp", "Conv2D"}
    # nothing half-converted
    assert [o.name for o in module.body.block.ops] == before


def test_used_string_constant_is_unsupported(tmp_path):
    from xmo.passes.tf_to_ov import UnsupportedOpsError

    g = Graph()
    x = g.placeholder("x", np.float32, [2])
    s = g.const("names", ["a", "b"])
    g.node("Identity", "y", [x])
    g.node("Identity", "s_out", [s], T="DT_STRING")
    with pytest.raises(UnsupportedOpsError, match="names"):
        xmo_module(g.save(tmp_path / "m.pb"), ["y", "s_out"])


def test_pass_by_name(tmp_path):
    from xmo.passes import get_all_passes

    g = Graph()
    x = g.placeholder("x", np.float32, [2])
    g.node("Relu", "y", [x])
    module, ctx = _load(g, tmp_path)
    passes = get_all_passes()
    for name in ("convert-tf-to-ov", "ov-dce"):
        passes[name]()().apply(ctx, module)
    module.verify()
    assert [o.name for o in module.body.block.ops] == ["ov.Parameter", "ov.Relu", "ov.Result"]
