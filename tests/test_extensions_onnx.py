"""ONNX extractors and front op replacements of extensions (``DIR/front/onnx``).

An extractor (``@converter(..., domain=...)`` in ``front/onnx``) applies only
to conversions that load its extension; a front ``OpReplacement`` replaces a
standard ONNX op during legalization; a converter for a built-in op, and two
extensions converting one op (ONNX or TF), are errors naming the files;
``xmo-opt --extensions`` legalizes with them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper

import xmo
from xmo.errors import ExtensionError
from xmo.extensions import load_extension, phase_manager
from xmo.passes.onnx_to_ov.registry import lookup
from xmo.passes.phases import TransformationOrderError
from xmo.passes.to_ov.report import UnsupportedOpsError
from xmo.tools.xmo_opt import main as xmo_opt

ROOT = Path(__file__).resolve().parents[1]
FFT_EXT = ROOT / "examples" / "fft_extension"

SCALE_EXTRACTOR = """
from xmo.passes.onnx_to_ov.registry import converter

@converter("Scale", domain="com.example", max_version=3)
def scale(node, b):
    assert node.domain == "com.example" and node.version == 1
    factor = node.attr("factor", 2.0)
    return b.out("Multiply", [node.input(0), b.scalar_like(factor, node.input(0))])
"""

RELU6 = """
from xmo.passes.phases import FRONT, OpReplacement

SEEN = []

class ReluToRelu6(OpReplacement):
    id = "{id}"
    phase = FRONT
    op = "Relu"

    def replace_op(self, node, b):
        SEEN.append((node.domain, node.type, node.version, node.name))
        return b.out("Clamp", [node.input(0)], {{"min": 0.0, "max": 6.0}})
"""


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("XMO_ENABLED_TRANSFORMS", raising=False)
    monkeypatch.delenv("XMO_DISABLED_TRANSFORMS", raising=False)
    monkeypatch.setenv("XMO_VERIFY_EACH_TRANSFORM", "1")


def _write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


def _model(factor: float | None = 3.0) -> onnx.ModelProto:
    """y = Relu(com.example:Scale(x, factor))."""
    attrs = {} if factor is None else {"factor": factor}
    g = helper.make_graph(
        [
            helper.make_node("Scale", ["x"], ["s"], domain="com.example", name="scale", **attrs),
            helper.make_node("Relu", ["s"], ["y"], name="relu"),
        ],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])],
    )
    return helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )


def _relu_model() -> onnx.ModelProto:
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


X = np.array([[-1.0, 0.5, 1.0], [2.0, -3.0, 4.0]], np.float32)


def test_custom_domain_extractor_applies_only_with_its_extension(tmp_path):
    ext = tmp_path / "ext"
    _write(ext, "front/onnx/scale.py", SCALE_EXTRACTOR)
    loaded = load_extension(ext)
    assert ("com.example", "Scale") in loaded.onnx_converters
    assert lookup("com.example", "Scale", 1) is None  # not globally

    module = xmo.convert_model(_model(3.0), extensions=[ext])
    types = [op.name for op in module.body.block.ops]
    assert "ov.Multiply" in types and "ov.Relu" in types
    np.testing.assert_allclose(xmo.compile_model(module)([X])[0], np.maximum(3.0 * X, 0))
    # the attribute's absence: the extractor's default
    got = xmo.run(_model(None), [X], extensions=[ext])[0]
    np.testing.assert_allclose(got, np.maximum(2.0 * X, 0))

    # the same process, without the extension: refused, as before
    with pytest.raises(UnsupportedOpsError, match=r"com\.example:Scale \(1\): scale\n\s+reason: unknown operation"):
        xmo.convert_model(_model(3.0))
    # a version the extractor does not handle (max_version=3)
    later = _model(3.0)
    later.opset_import[1].version = 4
    with pytest.raises(UnsupportedOpsError, match=r"com\.example:Scale"):
        xmo.convert_model(later, extensions=[ext])


def test_front_op_replacement_replaces_a_standard_onnx_op(tmp_path):
    ext = tmp_path / "ext"
    path = _write(ext, "front/onnx/relu6.py", RELU6.format(id="onnx-relu-to-relu6"))
    big = X * 4  # up to 16: Relu6 clips

    module = xmo.convert_model(_relu_model(), extensions=[ext])
    (clamp,) = [op for op in module.body.block.ops if op.name == "ov.Clamp"]
    assert clamp.get_friendly_name() == "relu"
    assert not any(op.name == "ov.Relu" for op in module.body.block.ops)
    np.testing.assert_allclose(xmo.compile_model(module)([big])[0], np.clip(big, 0, 6))
    from xmo.extensions import _IMPORTED

    assert _IMPORTED[path.resolve()].SEEN == [("", "Relu", 14, "relu")]

    # without the extension (or with the replacement disabled): the built-in Relu
    np.testing.assert_allclose(xmo.run(_relu_model(), [big])[0], np.maximum(big, 0))
    plain = xmo.convert_model(_relu_model(), extensions=[ext],
                              disable_transforms="onnx-relu-to-relu6")
    assert any(op.name == "ov.Relu" for op in plain.body.block.ops)


def test_front_op_replacement_of_a_custom_domain_op(tmp_path):
    ext = _write(tmp_path, "ext/front/onnx/scale.py", """
    from xmo.passes.phases import FRONT, OpReplacement

    class ScaleByFactor(OpReplacement):
        id = "onnx-scale-op"
        phase = FRONT
        op = "Scale"
        domain = "com.example"

        def replace_op(self, node, b):
            x = node.input(0)
            return b.out("Multiply", [x, b.scalar_like(node.attr("factor"), x)])
    """).parents[2]
    np.testing.assert_allclose(xmo.run(_model(5.0), [X], extensions=[ext])[0], np.maximum(5.0 * X, 0))


def test_builtin_clash_and_overlap_name_the_file(tmp_path):
    relu = _write(tmp_path, "e1/front/onnx/relu.py", """
    from xmo.passes.onnx_to_ov.registry import converter

    @converter("Relu", domain="ai.onnx")
    def relu(node, b):
        return b.out("Relu", [node.input(0)])
    """)
    with pytest.raises(ExtensionError, match=f"{relu}: ValueError: a converter for ONNX op Relu is already built in"):
        load_extension(tmp_path / "e1")
    _write(tmp_path, "e2/front/onnx/a.py", SCALE_EXTRACTOR)
    b = _write(tmp_path, "e2/front/onnx/b.py", SCALE_EXTRACTOR.replace("max_version=3", "min_version=3"))
    with pytest.raises(ExtensionError, match=f"{b}: ValueError: converters for com.example:Scale overlap at version 3"):
        load_extension(tmp_path / "e2")


def test_two_extensions_with_one_extractor_name_both(tmp_path):
    a = _write(tmp_path, "ea/front/onnx/scale.py", SCALE_EXTRACTOR)
    b = _write(tmp_path, "eb/front/onnx/scale.py", SCALE_EXTRACTOR)
    exts = [tmp_path / "ea", tmp_path / "eb"]
    both = f"ONNX op com.example:Scale has two extractors: {a} and {b}"
    with pytest.raises(ExtensionError, match=both):
        phase_manager([load_extension(e) for e in exts])
    with pytest.raises(ExtensionError, match=both):
        xmo.convert_model(_model(), extensions=exts)
    # disjoint version ranges do not clash
    _write(tmp_path, "ec/front/onnx/scale.py", SCALE_EXTRACTOR.replace("max_version=3", "min_version=4"))
    got = xmo.run(_model(), [X], extensions=[tmp_path / "ea", tmp_path / "ec"])[0]
    np.testing.assert_allclose(got, np.maximum(3.0 * X, 0))

    # an extractor and another extension's front op replacement of the same op
    rep = _write(tmp_path, "ed/front/onnx/scale.py", """
    from xmo.passes.phases import FRONT, OpReplacement

    class ScaleAgain(OpReplacement):
        id = "scale-again"
        phase = FRONT
        op = "Scale"
        domain = "com.example"

        def replace_op(self, node, b):
            return node.input(0)
    """)
    with pytest.raises(TransformationOrderError,
                       match=f"com.example:Scale has two extractors: {a} and op replacement 'scale-again' \\({rep}\\)"):
        xmo.convert_model(_model(), extensions=[tmp_path / "ea", tmp_path / "ed"])

    # two front op replacements of one op
    r1 = _write(tmp_path, "ee/front/onnx/relu6.py", RELU6.format(id="relu6-one"))
    r2 = _write(tmp_path, "ef/front/onnx/relu6.py", RELU6.format(id="relu6-two"))
    with pytest.raises(TransformationOrderError,
                       match=f"ONNX op Relu is replaced by two front op replacements: "
                             f"op replacement 'relu6-one' \\({r1}\\) and op replacement 'relu6-two' \\({r2}\\)"):
        xmo.convert_model(_relu_model(), extensions=[tmp_path / "ee", tmp_path / "ef"])


def test_two_extensions_with_one_tf_extractor_name_both(tmp_path):
    again = _write(tmp_path, "tf_ext/front/tf/ifft.py", """
    from xmo.passes.tf_to_ov.registry import tf_converter

    @tf_converter("IFFT2D")
    def ifft(node, b):
        return node.input(0)
    """)
    exts = [load_extension(FFT_EXT), load_extension(tmp_path / "tf_ext")]
    with pytest.raises(ExtensionError, match=f"TF op IFFT2D has two extractors: .*fft_extractors.py and {again}"):
        phase_manager(exts)


def test_xmo_opt_extensions_legalize_onnx(tmp_path, capsys):
    ext = tmp_path / "ext"
    _write(ext, "front/onnx/scale.py", SCALE_EXTRACTOR)
    _write(ext, "front/onnx/relu6.py", RELU6.format(id="opt-relu6"))
    src = tmp_path / "m.onnx"
    onnx.save(_model(3.0), src)

    assert xmo_opt([str(src), "--extensions", str(ext), "-p", "convert-onnx-to-ov"]) == 0
    out = capsys.readouterr().out
    assert '"ov.Multiply"' in out and '"ov.Clamp"' in out and "onnx." not in out

    assert xmo_opt([str(src), "-p", "convert-onnx-to-ov"]) == 1
    err = capsys.readouterr().err
    assert "com.example:Scale" in err and "unknown operation" in err
