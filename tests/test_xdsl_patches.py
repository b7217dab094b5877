"""xmo's xDSL patches (xmo/xdsl_speedups.py, docs/xdsl-patches.md): applied only
where xmo parses, only to the xDSL they were checked against, and without
changing a parse result; and the ov ops' specialised verifier (dialects/ov/base.py).

The test process itself has the patches applied (tests/conftest.py), so what
needs xDSL as shipped runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from textual_ir import assert_same_ir_text
from xdsl import irdl
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    Float32Type,
    IndexType,
    IntegerType,
    RankedStructure,
    TensorType,
)
from xdsl.parser import Parser, attribute_parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer

from xmo import xdsl_speedups
from xmo.context import make_context

ROOT = Path(__file__).resolve().parents[1]

# A module with what the patched code parses: dense literals of several element
# types and string literals with every kind of escape.
DENSE_AND_STRINGS = r"""
builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x \"quoted\" \\ back\tslash\n"}> : () -> tensor<2x3xf32>
  %1 = "ov.Constant"() <{value = dense<[1.5, -2.0, 3.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %2 = "ov.Constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>}> : () -> tensor<2x2xi64>
  %3 = "ov.Constant"() <{value = dense<true> : tensor<1xi1>}> : () -> tensor<1xi1>
  %4 = "ov.Add"(%0, %1) <{friendly_name = "add\22x\22"}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%4) <{friendly_name = ""}> : (tensor<2x3xf32>) -> ()
  "test.op"() {bytes = "\C3\A9\00\FF", text = "tab\09end"} : () -> ()
}
"""

# What the commands convert.
OV_MODULE = """
builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %1 = "ov.Constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %2 = "ov.Add"(%0, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%2) : (tensor<2x3xf32>) -> ()
}
"""


def _fresh_python(script: str, *args: str) -> dict:
    """Run ``script`` in a new interpreter (xDSL as shipped); its stdout's last line is JSON."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


_LIFECYCLE = """
import io, json, sys
from pathlib import Path
from xdsl import irdl
from xdsl.parser import Parser, attribute_parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRLexer

import xmo
from xmo import xdsl_speedups as s
from xmo.context import make_context

root, texts, mlir = Path(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]

def shipped():
    return {"base": attribute_parser.base is irdl.base,
            "regex": MLIRLexer._unescaped_characters_regex.pattern == s.XDSL_STRING_LITERAL}

def parse_all():
    out = []
    for text in texts:
        buf = io.StringIO()
        Printer(stream=buf).print_op(Parser(make_context(), text).parse_module())
        out.append(buf.getvalue())
    return out

r = {}
model = xmo.convert_model(str(root / "models" / "demo.onnx"))  # a library user converting ONNX
r["shipped_after_convert"] = shipped()
r["status_after_convert"] = s.status()
r["mismatches"] = {p.name: p.mismatch() for p in s.PATCHES}
r["unpatched"] = parse_all()
xmo.read_model(mlir)  # xmo parses textual IR
r["shipped_after_read_model"] = shipped()
r["status_after_read_model"] = s.status()
r["patched"] = parse_all()
print(json.dumps(r))
"""


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory) -> dict:
    mlir = tmp_path_factory.mktemp("mlir") / "m.mlir"
    mlir.write_text(DENSE_AND_STRINGS)
    texts = [DENSE_AND_STRINGS, (ROOT / "models" / "demo.mlir").read_text()]
    r = _fresh_python(_LIFECYCLE, str(ROOT), json.dumps(texts), str(mlir))
    r["texts"] = texts
    return r


# ---------------------------------------------------------------------------
# Version and shape checks
# ---------------------------------------------------------------------------


def test_pinned_xdsl_is_a_release_the_patches_were_checked_on():
    """Moving the xDSL pin means re-checking every patch (and the ov verifier):
    list the new release in VERIFIED_XDSL once docs/xdsl-patches.md's checks hold."""
    (pin,) = re.findall(r'^\s*"(xdsl[^"]*)"', (ROOT / "pyproject.toml").read_text(), re.M)
    m = re.fullmatch(r"xdsl==(\d+\.\d+)\.\*", pin)
    assert m, f"xDSL pin {pin!r} is not one major.minor release series"
    assert m.group(1) in xdsl_speedups.VERIFIED_XDSL
    assert xdsl_speedups.xdsl_is_verified(), xdsl_speedups.xdsl_version()


def test_xdsl_version_read_off_the_dist_info_is_the_installed_one():
    from importlib.metadata import version

    assert xdsl_speedups.xdsl_version() == version("xdsl")


def test_patched_objects_are_what_the_patches_expect(lifecycle):
    """On the pinned xDSL, as shipped: the parser's ``base`` is irdl's and the
    lexer's regex is the backtracking one. Fails when an xDSL release moved them."""
    assert lifecycle["mismatches"] == {p.name: None for p in xdsl_speedups.PATCHES}


def test_every_patch_is_applied_here():
    assert xdsl_speedups.status() == {p.name: "applied" for p in xdsl_speedups.PATCHES}
    assert attribute_parser.base is not irdl.base
    assert MLIRLexer._unescaped_characters_regex.pattern == xdsl_speedups.LINEAR_STRING_LITERAL


_REFUSED = """
import json, logging, re, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(name)s %(message)s")
import xdsl
from xdsl import irdl
from xdsl.parser import attribute_parser
from xdsl.utils.mlir_lexer import MLIRLexer
from xmo import xdsl_speedups as s

case = sys.argv[1]
moved = re.compile(r'"[^"]*"')
if case == "regex-moved":
    MLIRLexer._unescaped_characters_regex = moved
elif case == "base-moved":
    attribute_parser.base = lambda c: irdl.base(c)
elif case == "new-release":
    xdsl.__version__ = "99.1.0"
records = []
handler = logging.Handler()
handler.emit = records.append
logging.getLogger("xmo.xdsl_speedups").addHandler(handler)
s.apply()
s.apply()
print(json.dumps({"status": s.status(), "logged": [r.getMessage() for r in records],
                  "levels": sorted({r.levelname for r in records}),
                  "regex": MLIRLexer._unescaped_characters_regex.pattern,
                  "base_is_irdl": attribute_parser.base is irdl.base}))
"""


def test_a_moved_regex_is_left_alone_and_said_once_at_debug_level():
    r = _fresh_python(_REFUSED, "regex-moved")
    assert r["status"]["dense-type-constraint"] == "applied"
    assert r["status"]["string-literal-redos"].startswith("not applied: ")
    assert r["regex"] == '"[^"]*"'
    assert r["levels"] == ["DEBUG"] and len(r["logged"]) == 1
    assert "string-literal-redos" in r["logged"][0]


def test_a_moved_base_is_left_alone():
    r = _fresh_python(_REFUSED, "base-moved")
    assert r["status"]["dense-type-constraint"].startswith("not applied: ")
    assert r["status"]["string-literal-redos"] == "applied"
    assert not r["base_is_irdl"] and r["regex"] == xdsl_speedups.LINEAR_STRING_LITERAL


def test_an_unchecked_xdsl_release_is_not_patched():
    r = _fresh_python(_REFUSED, "new-release")
    assert all(v.startswith("not applied: xDSL 99.1.0") for v in r["status"].values())
    assert r["base_is_irdl"] and r["regex"] == xdsl_speedups.XDSL_STRING_LITERAL
    assert r["levels"] == ["DEBUG"] and len(r["logged"]) == len(xdsl_speedups.PATCHES)


# ---------------------------------------------------------------------------
# Where they apply
# ---------------------------------------------------------------------------


def test_importing_and_converting_leaves_xdsl_as_shipped(lifecycle):
    assert lifecycle["shipped_after_convert"] == {"base": True, "regex": True}
    assert lifecycle["status_after_convert"] == {}


def test_read_model_of_mlir_applies_them(lifecycle):
    assert lifecycle["shipped_after_read_model"] == {"base": False, "regex": False}
    assert set(lifecycle["status_after_read_model"].values()) == {"applied"}


@pytest.mark.parametrize("tool", ["xmo", "xmo-opt"])
def test_the_commands_apply_them_when_they_parse_text(tool, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(xdsl_speedups, "apply", lambda: calls.append(tool))
    src = tmp_path / "m.mlir"
    src.write_text(OV_MODULE)
    if tool == "xmo":
        from xmo.tools.xmo_main import main

        model = ROOT / "models" / "demo.onnx"
        assert main(["convert", str(model), "-o", str(tmp_path / "m.xml")]) == 0
        assert calls == []  # a framework model: no textual IR
        assert main(["convert", str(src), "-o", str(tmp_path / "t.xml")]) == 0
    else:
        from xmo.tools.xmo_opt import main

        assert main([str(src), "-o", str(tmp_path / "out.mlir")]) == 0
    assert calls == [tool]


def test_the_xmo_command_on_an_onnx_model_imports_no_parser(tmp_path):
    model = ROOT / "models" / "demo.onnx"
    code = (
        "import sys\n"
        "from xmo.tools.xmo_main import main\n"
        f"assert main(['convert', {str(model)!r}, '-o', {str(tmp_path / 'm.xml')!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('xdsl.parser')))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


# ---------------------------------------------------------------------------
# Behaviour kept
# ---------------------------------------------------------------------------


def test_parse_results_are_identical_with_and_without(lifecycle):
    assert len(lifecycle["patched"]) == len(lifecycle["texts"])
    for got, want in zip(lifecycle["patched"], lifecycle["unpatched"], strict=True):
        assert_same_ir_text(got, want)


def test_linear_regex_matches_what_the_xdsl_regex_matches():
    """Same match (or none) on every short string over the characters that
    matter: quotes, backslashes, escape letters, hex digits, line breaks."""
    shipped = re.compile(xdsl_speedups.XDSL_STRING_LITERAL)
    linear = re.compile(xdsl_speedups.LINEAR_STRING_LITERAL)
    alphabet = ['"', "\\", "n", "t", "0", "F", "g", "x", " ", "\n", "\v", "\f", "é"]
    rng = random.Random(21)
    for _ in range(20_000):
        s = '"' + "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        a, b = shipped.match(s), linear.match(s)
        assert (a and a.span()) == (b and b.span()), repr(s)


def test_unterminated_string_is_linear():
    """xDSL's regex takes ~2x longer per extra character after an unterminated
    quote (2 s at 24 characters); the linear one takes milliseconds for 10^5."""
    linear = re.compile(xdsl_speedups.LINEAR_STRING_LITERAL)
    times = []
    for n in (50_000, 200_000):
        t0 = time.perf_counter()
        assert linear.match('"' + "x" * n) is None
        times.append(time.perf_counter() - t0)
    assert times[1] < 1.0
    # through the parser: an error, at once
    t0 = time.perf_counter()
    with pytest.raises(ParseError, match="closing string literal"):
        Parser(make_context(), 'builtin.module {\n  %0 = "ov.Parameter() : ' + "x" * 100_000).parse_module()
    assert time.perf_counter() - t0 < 5.0


def test_memoized_base_returns_what_base_returns():
    for arg in (
        RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType],
        TensorType,
        IntegerType,
    ):
        assert attribute_parser.base(arg) == irdl.base(arg)
        assert attribute_parser.base(arg) is attribute_parser.base(arg)


# ---------------------------------------------------------------------------
# The ov ops' specialised verifier (xmo's own OpDefs, never xDSL's class)
# ---------------------------------------------------------------------------


def test_fast_verifier_is_only_on_ov_op_definitions():
    from xdsl.irdl import OpDef

    from xmo.dialects.ov import op_class

    assert (OpDef.verify.__module__, OpDef.verify.__qualname__) == ("xdsl.irdl.operations", "OpDef.verify")
    assert "verify" in vars(op_class("Add").get_irdl_definition())


def test_ops_of_another_shape_keep_the_generic_verifier():
    from xdsl.irdl import OpDef, prop_def, var_operand_def

    from xmo.dialects.ov.base import OVOp, ov_op

    @ov_op
    class F32Only(OVOp):  # narrower operands than OVOp's
        name = "ov.TestF32Only"
        inputs = var_operand_def(TensorType[Float32Type])

    @ov_op
    class Required(OVOp):  # a required property
        name = "ov.TestRequiredProperty"
        mode = prop_def(Float32Type)

    for cls in (F32Only, Required):
        op_def = cls.get_irdl_definition()
        assert "verify" not in vars(op_def), cls.name
        assert type(op_def).verify is OpDef.verify
    with pytest.raises(VerifyException, match="mode"):
        Required.create(result_types=[]).verify()
