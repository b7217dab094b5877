"""Phase-ordered transformations (passes/phases), extension loading, transformations config.

Ordering: anchors, run_before/run_after, cycles and unknown dependencies,
enable/disable by id (arguments and environment), an extension transformation
running before a built-in one, a disabled built-in. Loading: every folder of
an extension, clear errors naming the file. Config: scope, points, general.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import xmo
from xmo.errors import ExtensionError
from xmo.extensions import load_extension
from xmo.passes.conversion import run_conversion
from xmo.passes.phases import (
    BACK,
    FRONT,
    MIDDLE,
    PhaseManager,
    SubgraphReplacement,
    Transformation,
    TransformationOrderError,
    find_matches,
)
from xmo.passes.phases.config import (
    TransformationsConfig,
    TransformationsConfigError,
    match_points,
    match_scope,
)

ROOT = Path(__file__).resolve().parents[1]
MRI = ROOT / "tests" / "data" / "tf" / "fft_mri.pb"
CNN = ROOT / "tests" / "data" / "tf" / "cnn.pb"
DEMO = ROOT / "models" / "demo.onnx"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("XMO_ENABLED_TRANSFORMS", raising=False)
    monkeypatch.delenv("XMO_DISABLED_TRANSFORMS", raising=False)
    monkeypatch.setenv("XMO_VERIFY_EACH_TRANSFORM", "1")  # the verifier after each one


def _mk(id_, phase=MIDDLE, after=(), before=(), enabled=True, log=None):
    def run_after(self):
        return after

    def run_before(self):
        return before

    def find(self, graph):
        if log is not None:
            log.append(id_)
        return False

    return type(
        id_.replace("-", "_"),
        (Transformation,),
        {"id": id_, "phase": phase, "enabled": enabled, "run_after": run_after,
         "run_before": run_before, "find_and_replace_pattern": find},
    )


# -- ordering ----------------------------------------------------------------------


def test_builtin_order_and_anchors():
    ids = PhaseManager(use_env=False).ids()
    assert ids[:3] == ["front-start", "front-finish", "legalize"]
    for a, b in [
        ("legalize", "middle-start"),
        ("layout-start", "ov-transpose-sinking"),
        ("ov-transpose-sinking", "layout-finish"),
        ("layout-finish", "ov-constant-fold"),
        ("ov-constant-fold", "ov-fuse-linear"),
        ("ov-fuse-linear", "ov-cse"),
        ("ov-cse", "ov-dce"),
        ("ov-dce", "middle-finish"),
        ("middle-finish", "back-start"),
    ]:
        assert ids.index(a) < ids.index(b), (a, b)
    assert ids[-1] == "back-finish"


def test_phase_bounds_and_explicit_dependencies():
    a = _mk("a", MIDDLE)
    b = _mk("b", MIDDLE, before=("ov-fuse-linear",), after=("layout-finish",))
    f = _mk("f", FRONT)
    k = _mk("k", BACK, after=(a,))
    ids = PhaseManager([a, b, f, k], use_env=False).ids()
    assert ids.index("front-start") < ids.index("f") < ids.index("front-finish")
    assert ids.index("middle-start") < ids.index("a") < ids.index("middle-finish")
    assert ids.index("layout-finish") < ids.index("b") < ids.index("ov-fuse-linear")
    assert ids.index("back-start") < ids.index("k") < ids.index("back-finish")


def test_cycle_is_an_error_naming_it():
    a = _mk("cyc-a", after=("cyc-b",))
    b = _mk("cyc-b", after=("cyc-a",))
    with pytest.raises(TransformationOrderError, match=r"cycle: cyc-a -> cyc-b -> cyc-a"):
        PhaseManager([a, b], use_env=False).order()


def test_cycle_through_an_anchor():
    x = _mk("early", MIDDLE, before=("middle-start",))
    with pytest.raises(TransformationOrderError, match="cycle"):
        PhaseManager([x], use_env=False).order()


def test_unknown_dependency_is_an_error():
    a = _mk("lonely", after=("no-such-thing",))
    with pytest.raises(TransformationOrderError, match="'lonely' runs after 'no-such-thing'"):
        PhaseManager([a], use_env=False).order()


def test_duplicate_ids_are_an_error():
    with pytest.raises(TransformationOrderError, match="two transformations have the id 'dup'"):
        PhaseManager([_mk("dup"), _mk("dup")], use_env=False)
    with pytest.raises(TransformationOrderError, match="'ov-cse'"):
        PhaseManager([_mk("ov-cse")], use_env=False)


def test_enable_disable_by_id_and_environment(monkeypatch):
    opt = _mk("opt-in", enabled=False)
    m = PhaseManager([opt], use_env=False)
    assert not m.is_enabled(opt)
    assert PhaseManager([opt], enable="opt-in", use_env=False).is_enabled(opt)
    monkeypatch.setenv("XMO_ENABLED_TRANSFORMS", "opt-in")
    monkeypatch.setenv("XMO_DISABLED_TRANSFORMS", "ov-cse,ov-fuse-linear")
    m = PhaseManager([opt])
    assert m.is_enabled(opt)
    assert not m.is_enabled(m.by_id["ov-cse"]) and not m.is_enabled(m.by_id["ov-fuse-linear"])
    with pytest.raises(TransformationOrderError, match="unknown transformation id 'nope'"):
        PhaseManager(disable="nope", use_env=False)
    with pytest.raises(TransformationOrderError, match="anchor"):
        PhaseManager(disable="middle-start", use_env=False)


def test_extension_transformation_runs_before_a_builtin(monkeypatch):
    log: list[str] = []
    seen = []

    class BeforeFuse(Transformation):
        id = "before-fuse"
        phase = MIDDLE

        def run_before(self):
            return ["ov-fuse-linear"]

        def find_and_replace_pattern(self, graph):
            log.append(self.id)
            seen.append(sorted({n.type for n in graph.nodes()}))
            return False

    from xmo.passes import tracing

    real = tracing.run_pass

    def spy(p, ctx, module, *, name=None):
        log.append(name or tracing.pass_name(p))
        return real(p, ctx, module, name=name)

    monkeypatch.setattr(tracing, "run_pass", spy)
    m = PhaseManager([BeforeFuse])
    module, ctx = _tf_module(CNN)
    run_conversion(module, ctx, m)
    assert log.index("before-fuse") < log.index("ov-fuse-linear")
    assert log.index("ov-transpose-sinking") < log.index("before-fuse")
    assert "BatchNormInference" in seen[0] or "Multiply" in seen[0]  # before the fusion


def test_disabled_builtin_does_not_run(monkeypatch):
    ran = []
    from xmo.passes import tracing

    real = tracing.run_pass

    def spy(p, ctx, module, *, name=None):
        ran.append(name or tracing.pass_name(p))
        return real(p, ctx, module, name=name)

    monkeypatch.setattr(tracing, "run_pass", spy)
    module = xmo.convert_model(DEMO, disable_transforms=["ov-cse", "ov-fuse-linear"])
    assert "ov-cse" not in ran and "ov-fuse-linear" not in ran
    assert "ov-dce" in ran and "convert-onnx-to-ov" in ran
    full = xmo.convert_model(DEMO)
    assert len(list(module.body.block.ops)) > len(list(full.body.block.ops))


def _tf_module(path):
    from xmo.context import make_context
    from xmo.frontends.tf import load_tf

    ctx = make_context()
    return load_tf(path, ctx), ctx


# -- sub-graph patterns -----------------------------------------------------------------


def test_find_matches_with_attribute_predicates_and_ports():
    module, _ = _tf_module(MRI)
    pattern = dict(
        nodes=[("re", dict(op="StridedSlice", shrink_axis_mask=2)),
               ("im", dict(op="StridedSlice", shrink_axis_mask=lambda v: v == 2)),
               ("c", dict(op="Complex"))],
        edges=[("re", "c", {"in": 0}), ("im", "c", {"in": 1})],
    )
    (m,) = find_matches(module.body.block, pattern)
    assert (m["re"].name, m["im"].name, m["c"].name) == ("strided_slice", "strided_slice_1", "Complex")
    swapped = dict(pattern, edges=[("re", "c", {"in": 1}), ("im", "c", {"in": 0})])
    (m2,) = find_matches(module.body.block, swapped)
    assert m2["re"].name == "strided_slice_1"
    none = dict(pattern, nodes=[*pattern["nodes"][:2], ("c", dict(op="Complex", T="f64"))])
    assert find_matches(module.body.block, none) == []


def test_middle_subgraph_replacement_moves_names():
    """A middle SubgraphReplacement on ov ops: Relu(Add(x, b)) both replaced,
    verified after it runs; the names stay on the model output."""

    class AddReluToClamp(SubgraphReplacement):
        id = "relu-to-clamp"
        phase = MIDDLE

        def pattern(self):
            return dict(nodes=[("relu", dict(op="Relu"))], edges=[])

        def replace_sub_graph(self, graph, match):
            from xmo.graph import replace_node

            relu = match["relu"]
            clamp = graph.create_node("Clamp", [relu.in_port(0).get_source()],
                                      {"min": 0.0, "max": 3.0e38})
            clamp.name = relu.name
            replace_node(relu, clamp)
            return True

    m = PhaseManager([AddReluToClamp], use_env=False, verify_each=True)
    module, ctx = _tf_module(MRI)
    from xmo.extensions import phase_manager

    ext = load_extension(ROOT / "examples" / "fft_extension", ctx)
    m = phase_manager([ext])
    m2 = PhaseManager([*ext.transformations, AddReluToClamp], converters=[ext.converters],
                      use_env=False, verify_each=True)
    run_conversion(module, ctx, m2)
    types = [op.name for op in module.body.block.ops]
    assert "ov.Relu" not in types and types.count("ov.Clamp") == 2
    names = [op.properties["friendly_name"].data for op in module.body.block.ops
             if op.name == "ov.Clamp"]
    assert names == ["Relu", "Relu_1"]
    del m


# -- loading -------------------------------------------------------------------------------


def _write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


def test_import_error_names_the_file(tmp_path):
    bad = _write(tmp_path, "ext/middle/broken.py", "import no_such_module_xyz\n")
    with pytest.raises(ExtensionError, match=f"{bad}: ModuleNotFoundError"):
        load_extension(tmp_path / "ext")


def test_duplicate_ids_across_files_name_both(tmp_path):
    body = """
    from xmo.passes.phases import Transformation, MIDDLE
    class T(Transformation):
        id = "same-id-xyz"
        phase = MIDDLE
    """
    _write(tmp_path, "ext/middle/a.py", body)
    b = _write(tmp_path, "ext/middle/b.py", body)
    with pytest.raises(ExtensionError, match=f"{b}: transformation id 'same-id-xyz' is already defined in .*a.py"):
        load_extension(tmp_path / "ext")


def test_builtin_id_and_converter_collisions(tmp_path):
    _write(tmp_path, "e1/middle/a.py", """
    from xmo.passes.phases import Transformation
    class T(Transformation):
        id = "ov-cse"
    """)
    with pytest.raises(ExtensionError, match="a.py: transformation id 'ov-cse' is a built-in one"):
        load_extension(tmp_path / "e1")
    conv = _write(tmp_path, "e2/front/tf/relu.py", """
    from xmo.passes.tf_to_ov.registry import tf_converter
    @tf_converter("Relu")
    def relu(node, b):
        return b.out("Relu", [node.input(0)])
    """)
    with pytest.raises(ExtensionError, match=f"{conv}: ValueError: a converter for TF op Relu is already built in"):
        load_extension(tmp_path / "e2")


def test_misplaced_phase_and_unknown_framework(tmp_path):
    p = _write(tmp_path, "e3/back/t.py", """
    from xmo.passes.phases import Transformation, MIDDLE
    class T(Transformation):
        id = "misplaced-xyz"
        phase = MIDDLE
    """)
    with pytest.raises(ExtensionError, match=f"{p}: transformation 'misplaced-xyz' has phase 'middle' but is in back/"):
        load_extension(tmp_path / "e3")
    _write(tmp_path, "e4/front/torch/x.py", "")
    with pytest.raises(ExtensionError, match="unknown framework folder"):
        load_extension(tmp_path / "e4")
    with pytest.raises(ExtensionError, match="extensions folder not found"):
        load_extension(tmp_path / "nowhere")


def test_extractors_apply_only_with_their_extension():
    from xmo.passes.tf_to_ov.registry import lookup

    load_extension(ROOT / "examples" / "fft_extension")
    assert lookup("IFFT2D") is None  # not globally: only conversions that load it
    with pytest.raises(Exception, match="IFFT2D"):
        xmo.convert_model(MRI)


# -- transformations config --------------------------------------------------------------


def test_scope_match_and_write_back(tmp_path):
    module, _ = _tf_module(MRI)
    m = match_scope(module, r"strided_slice")
    assert set(m.node_names()) >= {"strided_slice", "strided_slice_1", "strided_slice/stack"}
    assert {(n.name, p) for n, p in m.inputs} >= {("strided_slice", 0), ("strided_slice_1", 0)}
    assert [(n.name, p) for n, p in m.outputs] == [("strided_slice", 0), ("strided_slice_1", 0)]

    ext = _write(tmp_path, "ext/front/tf/cfg.py", """
    from xmo.passes.phases import ConfigReplacement
    SEEN = []
    class ScopeUser(ConfigReplacement):
        id = "scope-user"
        def run_before(self):
            return ["complex-to-pairs"]  # it removes the slices
        def replace_sub_graph(self, graph, match):
            SEEN.append((self.custom_attributes, match.node_names()))
            return False
    """).parents[2]
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps([{"id": "scope-user", "match_kind": "scope",
                                "instances": ["strided_slice_1"],
                                "custom_attributes": {"k": 3}}]))
    xmo.convert_model(MRI, extensions=[ROOT / "examples" / "fft_extension", ext],
                      transformations_config=TransformationsConfig.load(cfg, update=True))
    from xmo.extensions import _IMPORTED

    mod = next(m for p, m in _IMPORTED.items() if p.name == "cfg.py")
    assert mod.SEEN and mod.SEEN[0][0] == {"k": 3}
    assert set(mod.SEEN[0][1]) >= {"strided_slice_1"}
    written = json.loads(cfg.read_text())[0]
    assert {"node": "strided_slice_1", "port": 0} in written["outputs"][0]
    assert {"node": "strided_slice_1", "port": 0} in written["inputs"][0]


def test_points_match_and_errors():
    module, _ = _tf_module(MRI)
    m = match_points(module, ["strided_slice", "strided_slice_1"], ["Abs"], "t")
    assert set(m.node_names()) == {"strided_slice", "strided_slice_1", "Complex", "IFFT2D", "Abs"}
    assert [(n.name, p) for n, p in m.inputs][:2] == [("strided_slice", 0), ("strided_slice", 1)]
    assert [(n.name, p) for n, p in m.outputs] == [("Abs", 0)]
    # one start only: Complex needs strided_slice_1, which needs `add`... and
    # backwards up to the model input
    with pytest.raises(TransformationsConfigError, match="pulls in the model input 'kspace'"):
        match_points(module, ["strided_slice"], ["Abs"], "t")
    with pytest.raises(TransformationsConfigError, match="end point strided_slice not reached"):
        match_points(module, ["IFFT2D"], ["strided_slice"], "t")


def test_config_errors(tmp_path):
    with pytest.raises(TransformationsConfigError, match="match_kind must be one of"):
        TransformationsConfig([{"id": "x", "match_kind": "weird"}])
    with pytest.raises(TransformationsConfigError, match="points instances need"):
        TransformationsConfig([{"id": "x", "match_kind": "points", "instances": {}}])
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps([{"id": "not-loaded", "match_kind": "general"}]))
    with pytest.raises(TransformationsConfigError, match="entry 'not-loaded': no transformation"):
        xmo.convert_model(MRI, extensions=[ROOT / "examples" / "fft_extension"],
                          transformations_config=cfg)


def test_general_entry_hands_custom_attributes(tmp_path):
    ext = _write(tmp_path, "ext/back/g.py", """
    from xmo.passes.phases import Transformation, BACK
    GOT = []
    class General(Transformation):
        id = "general-user"
        phase = BACK
        def find_and_replace_pattern(self, graph):
            GOT.append(self.custom_attributes)
            return False
    """).parents[1]
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps([{"id": "general-user", "match_kind": "general",
                                "custom_attributes": {"level": 2}}]))
    xmo.convert_model(DEMO, extensions=[ext], transformations_config=cfg)
    from xmo.extensions import _IMPORTED

    mod = next(m for p, m in _IMPORTED.items() if p.name == "g.py")
    assert mod.GOT == [{"level": 2}]
