"""The conversion pipeline as data, and the one way pipelines run.

:data:`DEFAULT_PIPELINE` is xmo's conversion, written once: each
:class:`Step` is a built-in transformation with an ``id`` (what extension
transformations order themselves against with ``run_before`` /
``run_after``, and what ``--disable_transforms`` names), its ``phase``, the
registered passes it runs (by name, :func:`xmo.passes.get_all_passes`) and
when it applies. Steps without passes are anchors: they only order the
others. The phases:

* ``front``: on the framework dialect; ``legalize`` runs the frontend's own
  legalization passes (:attr:`xmo.frontends.Frontend.legalization`), e.g.
  ``onnx-canonicalize,convert-onnx-to-ov`` or ``convert-tf-to-ov``;
* ``middle``: on ``ov``: the layout change of NHWC frameworks, constant
  folding, fusions, CSE, DCE;
* between middle and back, what conversion options ask for
  (:func:`option_passes`: ``--output``, ``--layout``, ``--static_shape``);
* ``back``: extension transformations just before the IR is written.

:class:`~xmo.passes.phases.PhaseManager` orders these steps together with
the extensions' transformations and turns them into a list of
:class:`PipelineStep` (an xDSL ``ModulePass`` and the label it is traced
under); :mod:`xmo.passes.conversion` adds the option passes and runs the
whole list with :func:`run_pipeline`. ``xmo.convert_model``, ``xmo convert``
and ``xmo-opt -p xmo-convert`` all run that same list.

:func:`run_pipeline` is how every xmo pipeline runs (the conversion,
:class:`~xmo.passes.transformations.Manager`, ``xmo-opt -p``): each pass goes
through :func:`xmo.passes.tracing.run_pass` (profiling, pictures,
``--print-ir-after*``, ``--time-passes``, ``--dump-dir``, progress), and the
module can be verified after each pass (``verify_each``; the environment
variable ``XMO_VERIFY_EACH_TRANSFORM=1``, set for the whole test suite).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from xmo.errors import TransformationError, first_line
from xmo.passes import tracing

FRONT, MIDDLE, BACK = "front", "middle", "back"
PHASES = (FRONT, MIDDLE, BACK)

#: ``Step.passes`` entry standing for the frontend's legalization passes
LEGALIZATION = "<legalization>"
#: ``Step.when``: only for frameworks computing in NHWC (the layout change),
#: unless ``--disable_nhwc_to_nchw``
WHEN_NHWC = "nhwc"

VERIFY_ENV = "XMO_VERIFY_EACH_TRANSFORM"


@dataclass(frozen=True)
class Step:
    """A built-in transformation of the default pipeline (see the module docstring).

    ``passes``: registered pass names, each optionally ``"name as label"``
    (traced under ``label``), or :data:`LEGALIZATION`. A step with no passes
    is an anchor. ``required`` steps can be neither disabled nor enabled.
    """

    id: str
    phase: str
    passes: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    when: str | None = None
    required: bool = False
    #: steps are enabled; what extensions register may be opt-in
    enabled: bool = True
    source: str = ""

    @property
    def anchor(self) -> bool:
        return not self.passes

    def run_after(self) -> tuple[str, ...]:
        return self.after

    def run_before(self) -> tuple[str, ...]:
        return ()


#: xmo's conversion, in order (see the module docstring)
DEFAULT_PIPELINE: tuple[Step, ...] = (
    Step("front-start", FRONT),
    Step("front-finish", FRONT, after=("front-start",)),
    Step("legalize", FRONT, (LEGALIZATION,), after=("front-finish",), required=True),
    Step("middle-start", MIDDLE, after=("legalize",)),
    Step("layout-start", MIDDLE, after=("middle-start",)),
    # NHWC frameworks: shape sub-graphs fold first, so the layout change
    # sees constant axes and orders
    Step("ov-transpose-sinking", MIDDLE, ("ov-constant-fold", "ov-transpose-sinking"),
         after=("layout-start",), when=WHEN_NHWC),
    Step("layout-finish", MIDDLE, after=("ov-transpose-sinking",)),
    Step("ov-constant-fold", MIDDLE, ("ov-constant-fold",), after=("layout-finish",)),
    # recurrent loops -> Sequence ops: their weights are constants by now, and
    # the fusions have not rewritten their cells yet
    Step("ov-loop-to-sequence", MIDDLE, ("ov-loop-to-sequence",), after=("ov-constant-fold",)),
    # identical ops merge first (as OpenVINO's shared-op optimization does
    # before its fusions): two equal convolutions of one input stay one even
    # when different batch norms follow them
    Step("ov-fusions", MIDDLE, ("ov-cse as ov-cse-early", "ov-fusions"),
         after=("ov-loop-to-sequence",)),
    Step("ov-fuse-linear", MIDDLE, ("ov-fuse-linear",), after=("ov-fusions",)),
    Step("ov-cse", MIDDLE, ("ov-cse",), after=("ov-fuse-linear",)),
    Step("ov-dce", MIDDLE, ("ov-dce",), after=("ov-cse",)),
    Step("middle-finish", MIDDLE, after=("ov-dce",)),
    Step("back-start", BACK, after=("middle-finish",)),
    Step("back-finish", BACK, after=("back-start",)),
)


def builtin_step(step_id: str) -> Step | None:
    return next((s for s in DEFAULT_PIPELINE if s.id == step_id), None)


def option_passes(
    *, output: Sequence[str] | None, layout: str | None, nhwc_to_nchw: bool,
    preprocess: dict[str, Any] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """The passes conversion options add after the middle phase, as
    ``(registered name, options)``: ``--output`` cuts the model, ``--layout``
    changes input/output layouts (the new Transposes are then sunk, unless
    ``--disable_nhwc_to_nchw``), what they leave constant folds and what they
    cut off goes. (``--static_shape`` is checked last, after the back phase:
    ``ov-check-static-shapes``.)"""
    out: list[tuple[str, dict[str, Any]]] = []
    if preprocess:  # --mean_values / --scale_values / --reverse_input_channels
        out.append(("ov-preprocess", dict(preprocess)))
    if output is not None:
        out.append(("ov-set-outputs", {"outputs": tuple(output)}))
    if layout is not None:
        out.append(("ov-change-layout", {"layout": layout}))
        if nhwc_to_nchw:
            out.append(("ov-transpose-sinking", {}))
    if output is not None or layout is not None or preprocess:
        out += [("ov-constant-fold", {}), ("ov-dce", {})]
    return out


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PipelineStep:
    """One pass of a pipeline: the pass, the label it is traced (and disabled,
    and dumped) under, and where it comes from (an extension's file)."""

    pass_: ModulePass
    label: str
    source: str = ""

    @staticmethod
    def verify() -> PipelineStep:
        """A step that only verifies the module (timed as ``(verify)``)."""
        return PipelineStep(_VERIFY, "verify")


@dataclass(frozen=True)
class _Verify(ModulePass):
    name = "verify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        op.verify()


_VERIFY = _Verify()


def make_pass(name: str, **options: Any) -> ModulePass:
    """An instance of the registered pass ``name`` with ``options``."""
    from xmo.passes import get_all_passes

    factory = get_all_passes().get(name)
    if factory is None:
        raise KeyError(f"no pass named '{name}'")
    return factory()(**options)


def pass_step(spec: str, **options: Any) -> PipelineStep:
    """A :class:`PipelineStep` for ``"name"`` or ``"name as label"``."""
    name, _, label = spec.partition(" as ")
    return PipelineStep(make_pass(name.strip(), **options), label.strip() or name.strip())


def verify_each_default() -> bool:
    return os.environ.get(VERIFY_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def run_pipeline(
    steps: Sequence[PipelineStep],
    ctx: Context,
    module: ModuleOp,
    *,
    verify_each: bool | None = None,
    after_each: Callable[[PipelineStep], None] | None = None,
) -> bool:
    """Run ``steps`` in order on ``module``; True when any pass reported a
    change or did not report at all (plain xDSL passes).

    Each pass runs through :func:`xmo.passes.tracing.run_pass`. With
    ``verify_each`` (default: ``XMO_VERIFY_EACH_TRANSFORM``) the module is
    verified after every pass, and a failure names the pass (and the file of
    an extension's transformation). ``after_each(step)`` is called after each
    pass (a :class:`~xmo.passes.transformations.Manager` re-infers types there).
    """
    from xmo.passes.debug import phase

    if verify_each is None:
        verify_each = verify_each_default()
    changed = False
    for step in steps:
        if step.pass_ is _VERIFY:
            with phase("verify"):
                module.verify()
            continue
        result = tracing.run_pass(step.pass_, ctx, module, name=step.label)
        changed |= result is None or bool(result)
        if verify_each:
            try:
                module.verify()
            except Exception as e:
                where = f"'{step.label}'" + (f" ({step.source})" if step.source else "")
                raise TransformationError(
                    f"after {where}: the module does not verify: {first_line(e)}"
                ) from e
        if after_each is not None:
            after_each(step)
    return changed



@dataclass
class Pipeline:
    """Steps plus what they need while running: the converter tables the
    legalization consults (extensions' extractors, front op replacements)."""

    steps: list[PipelineStep] = field(default_factory=list)
    tables: Sequence[Any] = ()
    verify_each: bool | None = None

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        from xmo.passes.to_ov.scoped import using_tables

        with using_tables(*self.tables):
            return run_pipeline(self.steps, ctx, module, verify_each=self.verify_each)

    def labels(self) -> list[str]:
        return [s.label for s in self.steps]


@dataclass(frozen=True)
class TracedPassPipeline(PassPipeline):
    """xDSL's ``PassPipeline`` (``xmo-opt -p``) run by :func:`run_pipeline`;
    xDSL's callback (verification, ``--print-between-passes``) stays."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.callback is not None:
            self.callback(None, op, self.passes[0] if self.passes else None)
        steps = [PipelineStep(p, tracing.pass_name(p)) for p in self.passes]
        done = iter(range(len(steps)))

        def after(step: PipelineStep) -> None:
            i = next(done)
            if self.callback is not None:
                nxt = self.passes[i + 1] if i + 1 < len(self.passes) else None
                self.callback(step.pass_, op, nxt)

        run_pipeline(steps, ctx, op, verify_each=False, after_each=after)


__all__ = [
    "BACK",
    "DEFAULT_PIPELINE",
    "FRONT",
    "LEGALIZATION",
    "MIDDLE",
    "PHASES",
    "Pipeline",
    "PipelineStep",
    "Step",
    "TracedPassPipeline",
    "VERIFY_ENV",
    "WHEN_NHWC",
    "builtin_step",
    "make_pass",
    "option_passes",
    "pass_step",
    "run_pipeline",
    "verify_each_default",
]
