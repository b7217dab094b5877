"""ovc-style conversion options and the ONNX -> IR pipeline end to end."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import xmo
from xmo.dialects.ov import ParameterOp, ResultOp
from xmo.options import OptionError, parse_input_spec
from xmo.passes.onnx_to_ov import UnsupportedOpsError


def _model(dims=("N", 3)) -> onnx.ModelProto:
    g = helper.make_graph(
        [
            helper.make_node("Add", ["x", "w"], ["y"], name="add1"),
            helper.make_node("Abs", ["y"], ["z"], name="abs1"),
            helper.make_node("Cast", ["z"], ["c"], name="cast1", to=T.INT64),
        ],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, list(dims))],
        [helper.make_tensor_value_info("c", T.INT64, list(dims))],
        [numpy_helper.from_array(np.arange(3, dtype=np.float32), "w")],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _params(module):
    return [o for o in module.body.block.ops if isinstance(o, ParameterOp)]


def test_names_survive_conversion():
    m = xmo.convert_model(_model())
    names = {o.get_friendly_name(): o for o in m.walk() if hasattr(o, "get_friendly_name")}
    assert {"x", "w", "add1", "abs1", "cast1"} <= set(names)
    assert names["add1"].get_tensor_names(0) == ["y"]
    assert names["cast1"].get_tensor_names(0) == ["c"]


@pytest.mark.parametrize(
    "spec, want",
    [
        ("x[2,3]", {"x": [2, 3]}),
        ("x[?,3],y", {"x": [None, 3], "y": None}),
        ("data[1,3,-1,W]", {"data": [1, 3, None, "W"]}),
        ({"x": [4, 3]}, {"x": [4, 3]}),
        (["a", "b"], {"a": None, "b": None}),
        ("s[],x[?]", {"s": [], "x": [None]}),  # [] is a scalar, not one dynamic dim
    ],
)
def test_parse_input_spec(spec, want):
    assert parse_input_spec(spec) == want


def test_bad_input_spec_is_clear():
    with pytest.raises(OptionError, match="bad dim"):
        parse_input_spec("x[1,#]")


def test_input_shape_override_and_static_shape():
    m = xmo.convert_model(_model(), input="x[5,3]", static_shape=True)
    assert str(_params(m)[0].results[0].type) == "tensor<5x3xf32>"
    with pytest.raises(OptionError, match="--static_shape: input 'x'"):
        xmo.convert_model(_model(), static_shape=True)


@pytest.mark.parametrize("spec", ["nothere", "nothere[1,3]", "x,nothere"])
def test_input_naming_no_graph_input_is_an_error(spec):
    """A name --input gives must be a graph input, with or without a shape
    (it was silently ignored without one)."""
    from xmo.frontends.onnx import OnnxFrontendError

    with pytest.raises(OnnxFrontendError, match=r"has no input 'nothere' \(inputs: x\)"):
        xmo.convert_model(_model(), input=spec)
    assert _params(xmo.convert_model(_model(), input="x"))  # a real input without a shape


def test_scalar_input_override():
    g = helper.make_graph(
        [helper.make_node("Mul", ["s", "w"], ["y"], name="mul")], "g",
        [helper.make_tensor_value_info("s", T.FLOAT, None)],
        [helper.make_tensor_value_info("y", T.FLOAT, None)],
        [numpy_helper.from_array(np.float32(2.0), "w")],
    )
    m = xmo.convert_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
                          input="s[]")
    (p,) = _params(m)
    assert p.results[0].type.get_shape() == ()


def test_tf_input_naming_no_placeholder_is_an_error(tmp_path):
    from pathlib import Path

    from xmo.frontends.tf import TFFrontendError

    pb = Path(__file__).parent / "data" / "tf" / "cnn.pb"
    with pytest.raises(TFFrontendError, match="no Placeholder 'nothere'"):
        xmo.convert_model(pb, input="nothere")
    assert len(_params(xmo.convert_model(pb, input="input"))) == 1


def test_batch_sets_dim_zero():
    m = xmo.convert_model(_model(), batch=7)
    assert str(_params(m)[0].results[0].type) == "tensor<7x3xf32>"


def test_output_cut_drops_the_rest():
    m = xmo.convert_model(_model(), output="y")
    ops = [o.name for o in m.body.block.ops]
    assert "ov.Abs" not in ops and "ov.Convert" not in ops
    (res,) = [o for o in m.body.block.ops if isinstance(o, ResultOp)]
    assert res.operands[0].owner.get_tensor_names(0) == ["y"]
    with pytest.raises(OptionError, match="no tensor named nope"):
        xmo.convert_model(_model(), output="nope")


def test_unsupported_ops_report_lists_every_type_with_counts():
    g = helper.make_graph(
        [
            helper.make_node("Add", ["x", "x"], ["a"], name="ok"),
            helper.make_node("Frobnicate", ["a"], ["b"], name="f1", domain="my.domain"),
            helper.make_node("Frobnicate", ["b"], ["c"], name="f2", domain="my.domain"),
            helper.make_node("Zorg", ["x"], ["d"], name="z1", domain="my.domain"),
        ],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("c", T.FLOAT, [2]), helper.make_tensor_value_info("d", T.FLOAT, [2])],
    )
    model = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("my.domain", 1)]
    )
    with pytest.raises(UnsupportedOpsError) as e:
        xmo.convert_model(model)
    text = str(e.value)
    assert "my.domain:Frobnicate (1): f1" in text  # f2 depends on f1: not a root cause
    assert "my.domain:Zorg (1): z1" in text


def test_cli_convert_unsupported_writes_nothing(tmp_path):
    import subprocess
    import sys

    g = helper.make_graph(
        [helper.make_node("Frobnicate", ["x"], ["y"], name="f1", domain="my.domain")],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])],
    )
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("my.domain", 1)]), path)
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_main", "convert", str(path), "-o", str(tmp_path / "o.xml")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "List of operations that cannot be converted" in r.stderr
    assert "my.domain:Frobnicate (1): f1" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


def test_run_and_compare_with_onnxruntime(tmp_path, capsys):
    from xmo.tools.xmo_main import main

    path = tmp_path / "m.onnx"
    onnx.save(_model((2, 3)), path)
    x = np.array([[-1.5, 0.2, 3.0], [2.0, -7.0, 0.0]], np.float32)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(path), "--input", f"x={tmp_path / 'x.npy'}", "--compare-with", "onnxruntime"]) == 0
    out = capsys.readouterr().out
    assert "output c: int64[2, 3]" in out
    assert "tensors computed by both match onnxruntime" in out
    got = xmo.run(path, {"x": x})
    np.testing.assert_array_equal(got["c"], np.abs(x + np.arange(3, dtype=np.float32)).astype(np.int64))


def test_compress_to_fp16_marks_decompression(tmp_path):
    import openvino as ov

    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 64)).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 64])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    xml = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(model), xml, compress_to_fp16=True)
    text = xml.read_text()
    assert 'precision="FP16"' in text
    assert '<attribute name="decompression" version="0" />' in text
    x = rng.standard_normal((2, 3)).astype(np.float32)
    got = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})({0: x})[0]
    np.testing.assert_allclose(got, x @ w, rtol=2e-3, atol=2e-3)
    # read back by xmo: the runtime info survives
    back = xmo.read_model(xml)
    conv = next(o for o in back.walk() if o.name == "ov.Convert")
    assert conv.get_rt_info() == {"decompression": ""}


def test_model_local_functions_are_inlined():
    f = helper.make_function(
        "my.funcs",
        "AddAbs",
        ["a", "b"],
        ["c"],
        [helper.make_node("Add", ["a", "b"], ["t"]), helper.make_node("Abs", ["t"], ["c"])],
        opset_imports=[helper.make_opsetid("", 17)],
    )
    g = helper.make_graph(
        [helper.make_node("AddAbs", ["x", "y"], ["z"], domain="my.funcs", name="call")],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [3]), helper.make_tensor_value_info("y", T.FLOAT, [3])],
        [helper.make_tensor_value_info("z", T.FLOAT, [3])],
    )
    model = helper.make_model(
        g,
        functions=[f],
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("my.funcs", 1)],
    )
    x = np.array([1, -5, 2], np.float32)
    y = np.array([-3, 1, 1], np.float32)
    np.testing.assert_array_equal(xmo.run(model, [x, y])["z"], np.abs(x + y))


def test_layout_changes_an_onnx_input_to_nhwc() -> None:
    """--layout nchw->nhwc on an NCHW model: the Parameter becomes NHWC, one
    Transpose feeds the graph, outputs are unchanged."""
    from pathlib import Path

    demo = Path(xmo.__file__).parent / "models" / "demo.onnx"
    base = xmo.convert_model(demo)
    nhwc = xmo.convert_model(demo, layout="nchw->nhwc")
    (p,) = [o for o in nhwc.body.block.ops if isinstance(o, ParameterOp)]
    assert str(p.results[0].type) == "tensor<1x32x32x3xf32>"
    assert p.get_friendly_name() == "image" and "image" in p.get_tensor_names(0)
    assert sum(o.name == "ov.Transpose" for o in nhwc.body.block.ops) == 1
    x = np.random.default_rng(0).random((1, 3, 32, 32), dtype=np.float32)
    want = xmo.compile_model(base)([x])[0]
    got = xmo.compile_model(nhwc)([x.transpose(0, 2, 3, 1).copy()])[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_layout_output_change_keeps_the_output_name() -> None:
    from pathlib import Path

    demo = Path(xmo.__file__).parent / "models" / "demo.onnx"
    base = xmo.convert_model(demo)
    (r,) = [o for o in base.body.block.ops if isinstance(o, ResultOp)]
    v = r.operands[0]
    out_name = v.owner.get_tensor_names(v.index)[0]
    rank = len(v.type.get_shape())
    src = "NCHW"[:rank] if rank <= 4 else None
    assert src is not None
    dst = src[::-1]
    m = xmo.convert_model(demo, layout=f"{out_name}({src}->{dst})")
    (r2,) = [o for o in m.body.block.ops if isinstance(o, ResultOp)]
    v2 = r2.operands[0]
    assert out_name in v2.owner.get_tensor_names(v2.index)
    assert list(v2.type.get_shape()) == list(v.type.get_shape())[::-1]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("image(nchw->nhw)", "same distinct dimension letters"),
        ("image(nchw->nhwc", "cannot parse"),
        ("nosuch(nchw->nhwc)", "no input or output named nosuch"),
        ("ncdhw->ndhwc", "no input of rank 5"),
    ],
)
def test_bad_layouts_are_one_line_errors(spec: str, message: str) -> None:
    from pathlib import Path

    demo = Path(xmo.__file__).parent / "models" / "demo.onnx"
    with pytest.raises(OptionError, match=message):
        xmo.convert_model(demo, layout=spec)
