"""The README's new-operation walkthrough (examples/custom_op), end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.ir import read_ir, serialize
from xmo.context import make_context
from xmo.dialects.ov import ParameterOp, ResultOp, op_class
from xmo.errors import ExtensionError
from xmo.extensions import load_extension_ops

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "custom_op"


def test_scaled_tanh_builds_serializes_and_reads_back(tmp_path):
    ctx = make_context()
    (scaled_tanh,) = load_extension_ops(ctx, EXAMPLE)
    assert op_class("ScaledTanh", "xmo_example") is scaled_tanh
    x = ParameterOp.new("f32", [1, -1], name="x", tensor_names=["x"])
    y = scaled_tanh.make([x], {"alpha": 2.0, "beta": 0.5}, name="st")
    assert str(y.results[0].type) == "tensor<1x?xf32>"
    m = ModuleOp([x, y, ResultOp.new(y.results[0])])
    m.verify()
    xml = tmp_path / "m.xml"
    serialize(m, xml)
    layer = next(
        l for l in ET.parse(xml).getroot().iter("layer") if l.get("type") == "ScaledTanh"
    )
    assert layer.get("version") == "xmo_example"
    assert layer.find("data").get("alpha") == "2.0"
    back = read_ir(xml, ctx=ctx)
    st = next(o for o in back.walk() if o.name == "ov.ScaledTanh")
    assert st.attr("beta") == 0.5 and st.get_friendly_name() == "st"


def test_bad_extension_names_the_file(tmp_path):
    (tmp_path / "ops").mkdir()
    bad = tmp_path / "ops" / "broken.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(ExtensionError, match=r"broken\.py: RuntimeError: boom"):
        load_extension_ops(make_context(), tmp_path)


def test_colliding_op_is_refused(tmp_path):
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "dup.py").write_text(
        (EXAMPLE / "ops" / "scaled_tanh.py")
        .read_text()
        .replace('"ov.ScaledTanh"', '"ov.ScaledTanh2"')
        .replace('@shape_infer("ov.ScaledTanh")', '@shape_infer("ov.ScaledTanh2")')
    )
    ctx = make_context()
    load_extension_ops(ctx, EXAMPLE)
    with pytest.raises(ExtensionError, match="dup.py: an op with IR type ScaledTanh"):
        load_extension_ops(ctx, tmp_path)
