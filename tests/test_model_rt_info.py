"""Model-level runtime info: the ``<rt_info>`` of ``<net>`` (OpenVINO's
``Model.get_rt_info()``), kept in the module attribute ``ov.rt_info``.

* the helpers (nested dicts, sorted keys, key and value checks);
* the serializer writes it as OpenVINO does, xmo's reader reads it back;
* ``convert_model`` / ``xmo convert`` record ``conversion_parameters`` and
  ``xmo_version``, and OpenVINO reads them;
* an IR written by OpenVINO keeps its runtime info through xmo's reader and
  serializer (``xmo-opt src.xml -t ov-ir -o dst.xml``);
* the textual IR prints and parses it.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import openvino as ov
import pytest
import xmo
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.parser import Parser
from xmo.backends.ir import IRReadError, IRWriteError, read_ir, serialize
from xmo.context import make_context
from xmo.dialects.ov import rt_info as rt
from xmo.tools.xmo_opt import main as xmo_opt

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "models" / "demo.onnx"

BODY = """
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<1x2xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "relu"}> : (tensor<1x2xf32>) -> tensor<1x2xf32>
  "ov.Result"(%r) : (tensor<1x2xf32>) -> ()
"""


def _module(attrs: str = ""):
    head = f"builtin.module @m attributes {{{attrs}}}" if attrs else "builtin.module @m"
    return Parser(make_context(), head + " {" + BODY + "}\n").parse_module()


def _net_rt_info(xml: Path) -> str:
    """The text from the net's ``<rt_info`` to the end of the file."""
    text = xml.read_text()
    return text[text.rindex("\n\t<rt_info") + 1:]


def _ov_rt_info(model: ov.Model) -> dict:
    """OpenVINO's model runtime info as nested dicts of text (without the
    ``version`` key its reader adds)."""

    def text(x):
        return {k: text(v) for k, v in x.items()} if isinstance(x, dict) else x.astype(str)

    info = {k: text(v) for k, v in model.get_rt_info().items()}
    info.pop("version", None)
    return info


# -- helpers ------------------------------------------------------------------


def test_set_and_get_nested_info_with_sorted_keys():
    m = _module()
    assert rt.get_model_rt_info(m) == {}
    rt.set_model_rt_info(m, {"zeta": "z", "sec": {"b": [1, 2], "a": True}, "alpha": 0.5})
    attr = m.attributes[rt.MODEL_RT_INFO_ATTR]
    assert isinstance(attr, DictionaryAttr)
    assert list(attr.data) == ["alpha", "sec", "zeta"]  # as OpenVINO's map orders them
    assert isinstance(attr.data["sec"], DictionaryAttr)
    assert rt.get_model_rt_info(m) == {"alpha": 0.5, "sec": {"a": True, "b": [1, 2]}, "zeta": "z"}


def test_update_merges_sections_and_empty_info_removes_the_attribute():
    m = _module()
    rt.set_model_rt_info(m, {"sec": {"a": "1", "b": "2"}, "top": "t"})
    rt.update_model_rt_info(m, {"sec": {"b": "3", "c": {"d": "4"}}, "new": "n"})
    assert rt.get_model_rt_info(m) == {
        "new": "n", "sec": {"a": "1", "b": "3", "c": {"d": "4"}}, "top": "t",
    }
    rt.set_model_rt_info(m, {})
    assert rt.MODEL_RT_INFO_ATTR not in m.attributes


@pytest.mark.parametrize(
    ("info", "message"),
    [
        ({"": "x"}, "empty key"),
        ({"sec": {"": "x"}}, "'sec/': empty key"),
        ({3: "x"}, "keys are str, got int"),
        ({"sec": {"a\x01b": "x"}}, "character '\\\\x01' cannot be written"),
        ({"sec": {"v": None}}, "'sec/v'.*got NoneType"),
        ({"v": [[1], [2]]}, "'v': runtime info lists hold scalars only"),
        ({"v": [{"a": 1}]}, "lists hold scalars only"),
    ],
)
def test_keys_and_values_the_ir_cannot_hold_are_refused(info, message):
    m = _module()
    rt.set_model_rt_info(m, {"keep": "me"})
    with pytest.raises(rt.RtInfoError, match=message):
        rt.set_model_rt_info(m, info)
    assert rt.get_model_rt_info(m) == {"keep": "me"}  # unchanged


def test_deep_nesting_is_refused():
    info: dict = {"leaf": "x"}
    for _ in range(rt.MAX_MODEL_RT_INFO_DEPTH + 1):
        info = {"s": info}
    with pytest.raises(rt.RtInfoError, match="nested deeper"):
        rt.set_model_rt_info(_module(), info)


@pytest.mark.parametrize(
    ("key", "is_name"),
    # OpenVINO 2026.4 writes the first group as elements, the second as
    # <info name="KEY" .../> (checked with ov.save_model)
    [("A", True), ("_", True), ("a-b", True), ("a.b", True), ("xm", True), ("a1", True),
     ("info", True),
     ("has space", False), ("1abc", False), ("a:b", False), ("-x", False), (".a", False),
     ("xml_x", False), ("XMLa", False), ("Xml1", False), ("a/b", False), ("é", False),
     ("a_é", False), ("OpenVINO Runtime", False)],
)
def test_xml_names_follow_openvino(key, is_name):
    assert rt.is_xml_name(key) is is_name


# -- serializer and reader --------------------------------------------------------


def test_module_without_model_info_writes_an_empty_rt_info(tmp_path):
    serialize(_module(), tmp_path / "m.xml")
    assert _net_rt_info(tmp_path / "m.xml") == "\t<rt_info />\n</net>\n"
    assert rt.get_model_rt_info(read_ir(tmp_path / "m.xml")) == {}


def test_serializer_writes_nested_elements_and_the_reader_reads_them_back(tmp_path):
    m = _module()
    rt.set_model_rt_info(m, {
        "Runtime_version": "2026.4.1",
        "conversion_parameters": {"framework": "onnx", "is_python_object": "False"},
        "custom": {"flag": True, "off": False, "n": 5, "f": 0.25, "ids": [1, 2, 3],
                   "names": ["a", "b"], "empty": "", "esc": 'a<b>&"q"\tx\ny',
                   "has space": "v", "nested": {}},
        "top key": "w",
    })
    xml = tmp_path / "m.xml"
    serialize(m, xml)
    assert _net_rt_info(xml) == (
        "\t<rt_info>\n"
        '\t\t<Runtime_version value="2026.4.1" />\n'
        "\t\t<conversion_parameters>\n"
        '\t\t\t<framework value="onnx" />\n'
        '\t\t\t<is_python_object value="False" />\n'
        "\t\t</conversion_parameters>\n"
        "\t\t<custom>\n"
        '\t\t\t<empty value="" />\n'
        '\t\t\t<esc value="a&lt;b&gt;&amp;&quot;q&quot;&#09;x&#10;y" />\n'
        '\t\t\t<f value="0.25" />\n'
        '\t\t\t<flag value="YES" />\n'
        '\t\t\t<info name="has space" value="v" />\n'
        '\t\t\t<ids value="1 2 3" />\n'
        '\t\t\t<n value="5" />\n'
        '\t\t\t<names value="a b" />\n'
        "\t\t\t<nested />\n"
        '\t\t\t<off value="NO" />\n'
        "\t\t</custom>\n"
        '\t\t<info name="top key" value="w" />\n'
        "\t</rt_info>\n"
        "</net>\n"
    )
    back = read_ir(xml)
    want = {  # leaves come back as text, as OpenVINO reads them
        "Runtime_version": "2026.4.1",
        "conversion_parameters": {"framework": "onnx", "is_python_object": "False"},
        "custom": {"empty": "", "esc": 'a<b>&"q"\tx\ny', "f": "0.25", "flag": "YES",
                   "has space": "v", "ids": "1 2 3", "n": "5", "names": "a b",
                   "nested": {}, "off": "NO"},
        "top key": "w",
    }
    assert rt.get_model_rt_info(back) == want
    serialize(back, tmp_path / "again.xml")
    assert (tmp_path / "again.xml").read_bytes() == xml.read_bytes()
    # OpenVINO reads what xmo wrote
    got = ov.Core().read_model(str(xml))
    assert got.get_rt_info(["custom", "has space"]).astype(str) == "v"
    assert got.get_rt_info(["custom", "flag"]).astype(bool) is True
    assert got.get_rt_info(["custom", "ids"]).aslist(int) == [1, 2, 3]
    assert got.get_rt_info(["custom", "esc"]).astype(str) == 'a<b>&"q"\tx\ny'
    assert got.get_rt_info("top key").astype(str) == "w"


def test_reader_refuses_absurdly_deep_rt_info(tmp_path):
    serialize(_module(), tmp_path / "m.xml")
    depth = rt.MAX_MODEL_RT_INFO_DEPTH + 1
    deep = "<s>" * depth + '<v value="x" />' + "</s>" * depth
    text = (tmp_path / "m.xml").read_text().replace("<rt_info />", f"<rt_info>{deep}</rt_info>")
    (tmp_path / "m.xml").write_text(text)
    with pytest.raises(IRReadError, match="nested deeper"):
        read_ir(tmp_path / "m.xml")


def test_serializer_refuses_a_value_the_ir_cannot_hold(tmp_path):
    m = _module('ov.rt_info = {sec = {w = dense<1> : tensor<2xi32>}}')
    with pytest.raises(IRWriteError, match="model runtime info.*'sec/w'"):
        serialize(m, tmp_path / "m.xml")
    assert not list(tmp_path.iterdir())


# -- convert_model / xmo convert --------------------------------------------------


def test_convert_records_conversion_parameters_openvino_reads(tmp_path):
    module = xmo.convert_model(str(DEMO), static_shape=True, input="image[1,3,32,32]")
    xmo.save_model(module, tmp_path / "m.xml", compress_to_fp16=True)
    got = ov.Core().read_model(str(tmp_path / "m.xml"))
    assert _ov_rt_info(got) == {
        "conversion_parameters": {
            "compress_to_fp16": "True",
            "framework": "onnx",
            "input": "image[1,3,32,32]",
            "input_model": str(DEMO),
            "is_python_object": "False",
            "static_shape": "True",
        },
        "xmo_version": xmo.__version__,
    }
    assert got.has_rt_info(["conversion_parameters", "framework"])
    assert got.get_rt_info(["conversion_parameters", "framework"]).astype(str) == "onnx"
    assert not got.has_rt_info(["conversion_parameters", "batch"])  # not given


def test_in_memory_model_has_no_input_model(tmp_path):
    module = xmo.convert_model(onnx.load(str(DEMO)))
    info = rt.get_model_rt_info(module)
    assert info["conversion_parameters"] == {"framework": "onnx", "is_python_object": "True"}
    assert info["xmo_version"] == xmo.__version__


def test_cli_records_the_path_as_given(tmp_path, monkeypatch):
    from xmo.tools.xmo_main import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "m.xml"
    assert main(["convert", "./models//demo.onnx", "-o", str(out), "--static_shape"]) == 0
    got = ov.Core().read_model(str(out))
    assert got.get_rt_info(["conversion_parameters", "input_model"]).astype(str) == "./models//demo.onnx"
    assert got.get_rt_info(["conversion_parameters", "static_shape"]).astype(str) == "True"
    assert not got.has_rt_info(["conversion_parameters", "compress_to_fp16"])
    assert got.get_rt_info("xmo_version").astype(str) == xmo.__version__


# -- an IR written by OpenVINO ----------------------------------------------------


@pytest.fixture
def ov_ir(tmp_path) -> Path:
    model = ov.convert_model(str(DEMO))
    model.set_rt_info("a<b & \"c\"", ["custom", "text"])
    model.set_rt_info([1, 2], ["custom", "ids"])
    model.set_rt_info("v", ["custom", "has space"])
    path = tmp_path / "ov.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def test_openvino_ir_keeps_its_rt_info_through_xmo(ov_ir, tmp_path):
    info = rt.get_model_rt_info(read_ir(ov_ir))
    assert info["Runtime_version"] == ov.get_version()
    assert info["conversion_parameters"]["is_python_object"] == "False"
    assert info["custom"] == {"has space": "v", "ids": "1 2", "text": 'a<b & "c"'}
    dst = tmp_path / "dst.xml"
    assert xmo_opt([str(ov_ir), "-t", "ov-ir", "-o", str(dst)]) == 0
    core = ov.Core()
    want = _ov_rt_info(core.read_model(str(ov_ir)))
    assert "OpenVINO Runtime" in want  # written as <info name="OpenVINO Runtime" .../>
    assert _ov_rt_info(core.read_model(str(dst))) == want


def test_converting_an_ir_replaces_its_conversion_parameters(ov_ir):
    info = rt.get_model_rt_info(xmo.convert_model(ov_ir))
    assert info["conversion_parameters"] == {
        "framework": "ir", "input_model": str(ov_ir), "is_python_object": "False",
    }
    assert info["Runtime_version"] == ov.get_version()  # the rest is kept
    assert info["custom"]["ids"] == "1 2"


# -- textual IR ---------------------------------------------------------------------


def test_textual_ir_round_trip_through_xmo_opt(tmp_path, capsys):
    attrs = ('ov.rt_info = {"OpenVINO Runtime" = "2026", conversion_parameters = '
             '{framework = "onnx", is_python_object = "False"}, n = 3 : i64, '
             'xs = [1 : i64, 2 : i64], ok = true}')
    src = tmp_path / "m.mlir"
    src.write_text(f"builtin.module @m attributes {{{attrs}}} {{{BODY}}}\n")
    assert xmo_opt([str(src)]) == 0
    printed = capsys.readouterr().out
    assert f"attributes {{{attrs}}}" in printed
    again = tmp_path / "again.mlir"
    again.write_text(printed)
    assert xmo_opt([str(again)]) == 0
    assert capsys.readouterr().out == printed
    xml = tmp_path / "m.xml"
    assert xmo_opt([str(again), "-t", "ov-ir", "-o", str(xml)]) == 0
    assert rt.get_model_rt_info(read_ir(xml)) == {
        "OpenVINO Runtime": "2026",
        "conversion_parameters": {"framework": "onnx", "is_python_object": "False"},
        "n": "3", "ok": "YES", "xs": "1 2",
    }


def test_frontend_options_passed_are_recorded_even_when_false():
    module = xmo.convert_model(str(DEMO), shape_inference=False, disable_nhwc_to_nchw=False)
    params = rt.get_model_rt_info(module)["conversion_parameters"]
    assert params["shape_inference"] == "False"  # given, though False
    assert "disable_nhwc_to_nchw" not in params  # at its default
