"""Start-up: what a fresh ``xmo`` process imports on each path.

Each case runs ``python -c "import xmo; ..."`` in a new interpreter and fails
when ``sys.modules`` then holds a module that path must not load: the heavy
optional packages (numba compiles at import, openvino and onnxruntime load
native runtimes, TensorFlow takes seconds) on every path, and on the light
paths the dialects and frontends they do not use. Imports made on first use
(inside functions) are how the package keeps them out; ``tests/test_architecture.py``
checks the module graph, this checks what actually runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

#: never imported unless a path needs them: numba / llvmlite (only the FFT
#: kernel), openvino and onnxruntime (only tests / benchmarks compare with
#: them), TensorFlow and PyTorch (never: xmo reads TF protobufs itself), and
#: large scientific packages xmo does not use
HEAVY = (
    "numba", "llvmlite", "openvino", "onnxruntime", "tensorflow", "keras", "torch",
    "jax", "scipy", "sympy", "pandas", "matplotlib",
)  # fmt: skip

#: the TensorFlow side of xmo, loaded only for a TensorFlow model
TF_SIDE = ("xmo.dialects.tf", "xmo.frontends.tf")

#: finds xDSL's dialect plugins by scanning every installed distribution
#: (20 ms): a framework model needs none of xDSL's dialects
UNIVERSE = ("xdsl.universe",)
#: what ``import xmo`` and ``xmo --version`` need none of
NOT_AT_IMPORT = (*HEAVY, "numpy", "onnx", "xdsl", "xmo.api", "xmo.dialects", "xmo.passes")


def _loaded(code: str, forbidden: tuple[str, ...]) -> list[str]:
    """Modules of ``forbidden`` (or below them) that running ``code`` imported."""
    script = code + textwrap.dedent(
        f"""
        import json, sys
        bad = {forbidden!r}
        print(json.dumps(sorted(m for m in sys.modules
                                if any(m == b or m.startswith(b + ".") for b in bad))))
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def small_onnx(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 4-node ONNX model: MatMul, Add, Relu, Softmax."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Add", ["m", "b"], ["a"]),
            helper.make_node("Relu", ["a"], ["r"]),
            helper.make_node("Softmax", ["r"], ["y"], axis=-1),
        ],
        "small",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 4])],
        [w, b],
    )
    path = tmp_path_factory.mktemp("startup") / "small.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


def test_import_xmo_loads_nothing_heavy():
    assert _loaded("import xmo; xmo.__version__", NOT_AT_IMPORT) == []


def test_xmo_version_loads_nothing_heavy():
    code = (
        "import contextlib, io\n"
        "from xmo.tools.xmo_main import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--version'])\n"
    )
    assert _loaded(code, NOT_AT_IMPORT) == []


def test_convert_onnx_loads_no_runtime(small_onnx: str, tmp_path):
    out = tmp_path / "cli" / "model.xml"
    code = (
        "from xmo.tools.xmo_main import main\n"
        f"assert main(['convert', {small_onnx!r}, '-o', {str(out)!r}, '--log_level', 'ERROR']) == 0\n"
    )
    assert _loaded(code, (*HEAVY, *TF_SIDE, *UNIVERSE, "xmo.backends.cpu")) == []
    assert out.exists()


def test_api_convert_and_save_load_no_runtime(small_onnx: str, tmp_path):
    out = tmp_path / "model.xml"
    code = f"import xmo; xmo.save_model(xmo.convert_model({small_onnx!r}), {str(out)!r})\n"
    assert _loaded(code, (*HEAVY, *TF_SIDE, *UNIVERSE, "xmo.backends.cpu")) == []
    assert out.exists()


def test_cpu_run_of_onnx_loads_no_other_runtime(small_onnx: str):
    code = (
        "import numpy as np, xmo\n"
        f"out = xmo.run({small_onnx!r}, {{'x': np.ones((2, 8), np.float32)}})\n"
        "assert len(out) == 1\n"
    )
    # numba is the CPU backend's own kernel compiler (its Softmax / MVN row
    # kernels, depthwise convolution, FFT compile on first use): allowed here,
    # with what numba itself imports when it is installed (scipy)
    other = tuple(m for m in HEAVY if m not in ("numba", "llvmlite", "scipy"))
    assert _loaded(code, (*other, *TF_SIDE)) == []


def test_the_check_sees_a_heavy_import():
    """Near miss: the same check reports a package the code did import."""
    assert _loaded("import xmo, decimal", ("decimal",)) == ["decimal"]
