"""Anchors and xmo's built-in transformations, in the order they run.

Anchors order the others and do nothing: ``front-start``, ``front-finish``,
``middle-start``, ``layout-start``, ``layout-finish``, ``middle-finish``,
``back-start``, ``back-finish``. Built-ins wrap xmo's passes (their traces
keep the passes' names) and can be ordered against and disabled by id:

front-start -> (front transformations) -> front-finish -> ``legalize``
(onnx-canonicalize + convert-onnx-to-ov, or convert-tf-to-ov) -> middle-start
-> layout-start -> ``ov-transpose-sinking`` (TensorFlow models: constant
folding then the layout change) -> layout-finish -> ``ov-constant-fold`` ->
``ov-fusions`` -> ``ov-fuse-linear`` -> ``ov-cse`` -> ``ov-dce`` -> middle-finish -> back-start
-> (back transformations) -> back-finish.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import ModuleOp

from xmo.passes.phases.transformation import BACK, FRONT, MIDDLE, Transformation


class Anchor(Transformation):
    anchor: ClassVar[bool] = True
    builtin: ClassVar[bool] = True

    def apply_to(self, ctx: Any, module: ModuleOp) -> bool:
        return False


def _anchor(id_: str, phase: str, after: tuple[str, ...] = ()) -> type[Anchor]:
    def run_after(self: Any) -> tuple[str, ...]:
        return after

    return type(
        "Anchor_" + id_.replace("-", "_"),
        (Anchor,),
        {"id": id_, "phase": phase, "run_after": run_after, "__module__": __name__},
    )


class BuiltinPass(Transformation):
    """A built-in transformation running xmo passes through ``run_pass``."""

    builtin: ClassVar[bool] = True
    after: ClassVar[tuple[str, ...]] = ()
    #: set by the PhaseManager: framework ("tf", "onnx" or None), nhwc_to_nchw...
    options: dict[str, Any]

    def run_after(self) -> tuple[str, ...]:
        return self.after

    def passes(self) -> list[Any]:
        return []

    def apply_to(self, ctx: Any, module: ModuleOp) -> bool:
        from xmo.passes.tracing import run_pass

        for p in self.passes():
            if isinstance(p, tuple):
                run_pass(p[0], ctx, module, name=p[1])
            else:
                run_pass(p, ctx, module)
        return True


class Legalize(BuiltinPass):
    """Framework dialect -> ov (the extensions' extractors take part)."""

    id = "legalize"
    phase = FRONT
    after = ("front-finish",)

    def passes(self) -> list[Any]:
        fw = self.options.get("framework")
        if fw == "onnx":
            from xmo.passes.onnx_canonicalize import ONNXCanonicalizePass
            from xmo.passes.onnx_to_ov import ConvertONNXToOVPass

            return [ONNXCanonicalizePass(), ConvertONNXToOVPass()]
        if fw == "tf":
            from xmo.passes.tf_to_ov import convert_tf_to_ov

            return [(convert_tf_to_ov, "convert-tf-to-ov")]
        return []


class TransposeSinking(BuiltinPass):
    """The layout change of TensorFlow models (``--disable_nhwc_to_nchw`` skips it)."""

    id = "ov-transpose-sinking"
    phase = MIDDLE
    after = ("layout-start",)

    def passes(self) -> list[Any]:
        if self.options.get("framework") != "tf" or not self.options.get("nhwc_to_nchw", True):
            return []
        from xmo.passes.ov_constant_fold import OVConstantFoldPass
        from xmo.passes.ov_transpose_sinking import OVTransposeSinkingPass

        return [OVConstantFoldPass(), OVTransposeSinkingPass()]


class ConstantFold(BuiltinPass):
    id = "ov-constant-fold"
    phase = MIDDLE
    after = ("layout-finish",)

    def passes(self) -> list[Any]:
        from xmo.passes.ov_constant_fold import OVConstantFoldPass

        return [OVConstantFoldPass()]


class Fusions(BuiltinPass):
    id = "ov-fusions"
    phase = MIDDLE
    after = ("ov-constant-fold",)

    def passes(self) -> list[Any]:
        try:
            from xmo.passes.ov_fusions import OVFusionsPass
        except ImportError:  # pragma: no cover - not in this tree
            return []
        from xmo.passes.ov_cse import OVCSEPass

        # identical ops merge first (as OpenVINO's shared-op optimization does
        # before its fusions): two equal convolutions of one input stay one
        # even when different batch norms follow them
        return [(OVCSEPass(), "ov-cse-early"), OVFusionsPass()]


class FuseLinear(BuiltinPass):
    id = "ov-fuse-linear"
    phase = MIDDLE
    after = ("ov-fusions",)

    def passes(self) -> list[Any]:
        from xmo.passes.ov_fuse_linear import OVFuseLinearPass

        return [OVFuseLinearPass()]


class CSE(BuiltinPass):
    id = "ov-cse"
    phase = MIDDLE
    after = ("ov-fuse-linear",)

    def passes(self) -> list[Any]:
        from xmo.passes.ov_cse import OVCSEPass

        return [OVCSEPass()]


class DCE(BuiltinPass):
    id = "ov-dce"
    phase = MIDDLE
    after = ("ov-cse",)

    def passes(self) -> list[Any]:
        from xmo.passes.ov_dce import OVDeadCodeEliminationPass

        return [OVDeadCodeEliminationPass()]


ANCHORS: tuple[type[Anchor], ...] = (
    _anchor("front-start", FRONT),
    _anchor("front-finish", FRONT, ("front-start",)),
    _anchor("middle-start", MIDDLE, ("legalize",)),
    _anchor("layout-start", MIDDLE, ("middle-start",)),
    _anchor("layout-finish", MIDDLE, ("ov-transpose-sinking",)),
    _anchor("middle-finish", MIDDLE, ("ov-dce",)),
    _anchor("back-start", BACK, ("middle-finish",)),
    _anchor("back-finish", BACK, ("back-start",)),
)

#: built-in transformations (anchors first), in registration order
BUILTINS: list[type[Transformation]] = [
    *ANCHORS,
    Legalize,
    TransposeSinking,
    ConstantFold,
    Fusions,
    FuseLinear,
    CSE,
    DCE,
]


def register_builtin(cls: type[Transformation]) -> type[Transformation]:
    """Add an xmo transformation to the built-ins (a decorator); give it
    ``run_after``/``run_before`` to place it (default: within its phase)."""
    if any(c.id == cls.id for c in BUILTINS):
        raise ValueError(f"a built-in transformation '{cls.id}' is already registered")
    cls.builtin = True
    BUILTINS.append(cls)
    return cls


__all__ = ["ANCHORS", "BUILTINS", "Anchor", "BuiltinPass", "register_builtin"]
