"""The whole conversion as one pipeline, and as one pass: ``xmo-convert``.

:func:`conversion_pipeline` lays out what ``xmo.convert_model`` / ``xmo
convert`` run after loading a model: the front and middle phases of the
:class:`~xmo.passes.phases.PhaseManager` (the default pipeline's steps and
the extensions' transformations, :data:`xmo.passes.pipeline.DEFAULT_PIPELINE`),
a verification, the passes the conversion options add
(:func:`xmo.passes.pipeline.option_passes`), the back phase, the
``--static_shape`` check. :class:`XmoConvertPass` is that pipeline as an
xDSL pass, so ``xmo-opt model.onnx -p xmo-convert -t ov-ir -o m.xml`` writes
the IR ``xmo convert model.onnx -o m.xml`` writes (its options are the
conversion's: ``xmo-convert{layout="nhwc->nchw" output=prob}``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xmo.frontends import Frontend, frontend_of_module
from xmo.options import output_names
from xmo.passes.phases import PhaseManager
from xmo.passes.pipeline import (
    BACK,
    FRONT,
    MIDDLE,
    Pipeline,
    PipelineStep,
    make_pass,
    option_passes,
)


def conversion_manager(
    ctx: Context,
    *,
    extensions: Sequence[Any] | None = None,
    enable: Any = None,
    disable: Any = None,
    config: Any = None,
) -> PhaseManager:
    """The phase manager of a conversion in ``ctx``: the built-in steps, and
    the transformations and extractors of ``extensions`` (default: every
    extension loaded into ``ctx``, :func:`xmo.extensions.load_extension`);
    ``config``: a :class:`~xmo.passes.phases.TransformationsConfig` or the
    path of one."""
    from xmo.extensions import loaded_extensions, phase_manager

    if extensions is None:
        extensions = loaded_extensions(ctx)
    if config is not None:
        from xmo.passes.phases.config import TransformationsConfig

        if not isinstance(config, TransformationsConfig):
            config = TransformationsConfig.load(config)
    return phase_manager(list(extensions), enable=enable, disable=disable, config=config)


def conversion_pipeline(
    manager: PhaseManager,
    frontend: Frontend | None,
    *,
    output: Sequence[str] | None = None,
    layout: str | None = None,
    nhwc_to_nchw: bool = True,
    static_shape: bool = False,
    preprocess: dict[str, Any] | None = None,
) -> Pipeline:
    """The conversion of a module loaded by ``frontend`` (None: an ``ov``
    module, which only the middle and back phases change)."""
    steps = manager.pipeline((FRONT, MIDDLE), frontend=frontend, nhwc_to_nchw=nhwc_to_nchw)
    steps.append(PipelineStep.verify())
    if preprocess:  # the model's own input layout: channels last for NHWC frontends
        preprocess = {**preprocess, "channels_last": bool(frontend is not None and frontend.nhwc)}
    extra = option_passes(output=output, layout=layout, nhwc_to_nchw=nhwc_to_nchw,
                          preprocess=preprocess)
    if extra:
        steps += [PipelineStep(make_pass(name, **opts), name) for name, opts in extra]
        steps.append(PipelineStep.verify())
    back = manager.pipeline((BACK,), frontend=frontend, nhwc_to_nchw=nhwc_to_nchw)
    if back:  # back phase: last, before serialization
        steps += [*back, PipelineStep.verify()]
    if static_shape:
        steps.append(PipelineStep(make_pass("ov-check-static-shapes"), "ov-check-static-shapes"))
    return Pipeline(steps, manager.tables_for(frontend), manager.verify_each)


def run_conversion(
    module: ModuleOp,
    ctx: Context,
    manager: PhaseManager,
    *,
    output: Sequence[str] | None = None,
    layout: str | None = None,
    nhwc_to_nchw: bool = True,
    static_shape: bool = False,
    preprocess: dict[str, Any] | None = None,
) -> None:
    """Convert ``module`` (a framework or ``ov`` module) in place.
    ``preprocess``: ``ov-preprocess`` options (``mean_values``,
    ``scale_values``, ``reverse_input_channels``)."""
    frontend = frontend_of_module(module)
    if frontend is not None:
        manager.prepare(module)
    conversion_pipeline(
        manager, frontend, output=output, layout=layout,
        nhwc_to_nchw=nhwc_to_nchw, static_shape=static_shape, preprocess=preprocess,
    ).run(ctx, module)  # fmt: skip


# ---------------------------------------------------------------------------
# The conversion's record in the model runtime info (as ovc's)
# ---------------------------------------------------------------------------


def param_text(value: Any) -> str:
    """An option's value as recorded: its text, deterministic (no object ids)."""
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, bool | int | float) or value is None:
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{param_text(k)}: {param_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(param_text(v) for v in value) + "]"
    if isinstance(value, set | frozenset):
        return "[" + ", ".join(sorted(param_text(v) for v in value)) + "]"
    path = getattr(value, "path", None)  # e.g. a loaded TransformationsConfig
    if isinstance(path, str | os.PathLike):
        return os.fspath(path)
    return type(value).__name__


def xmo_version() -> str:
    """xmo's version (``xmo.__version__``, which is also the installed
    distribution's: pyproject.toml reads it from there)."""
    from xmo import __version__

    return __version__


def record_conversion(
    module: ModuleOp, input_model: Any, framework: str, given: dict[str, Any]
) -> None:
    """Record the conversion in the model's runtime info, as ovc does:
    ``conversion_parameters`` (``framework``, ``input_model`` as given,
    ``is_python_object``, the options ``given``) and ``xmo_version``.
    Parameters of an earlier conversion are replaced."""
    from xmo.dialects.ov import rt_info as rt

    params: dict[str, str] = {"framework": framework}
    is_path = isinstance(input_model, str | os.PathLike)
    if is_path:
        params["input_model"] = os.fspath(input_model)
    params["is_python_object"] = str(not is_path)
    for key, value in given.items():
        params[key] = param_text(value)
    info = rt.get_model_rt_info(module)
    info["conversion_parameters"] = params
    info["xmo_version"] = xmo_version()
    rt.set_model_rt_info(module, info)


def framework_name(input_model: Any, frontend: Frontend | None) -> str:
    """``framework`` of ``conversion_parameters``: the frontend's name, or
    ``ir`` / ``mlir`` for a model read as it is."""
    if frontend is not None:
        return frontend.name
    if isinstance(input_model, ModuleOp):
        f = frontend_of_module(input_model)
        return f.name if f is not None else "mlir"
    return "ir" if os.fspath(input_model).lower().endswith(".xml") else "mlir"


@dataclass(frozen=True)
class XmoConvertPass(ModulePass):
    """``xmo-convert``: the default conversion pipeline (see the module docstring).

    Options, as ``xmo convert``'s: ``output`` (tensor names,
    comma-separated), ``layout`` (``"name(nhwc->nchw)"`` or ``"nhwc->nchw"``),
    ``disable_nhwc_to_nchw``, ``static_shape``, ``enable_transforms`` /
    ``disable_transforms`` (ids, comma-separated), ``transformations_config``
    (a JSON file), ``mean_values`` / ``scale_values`` / ``reverse_input_channels``
    (input preprocessing). Extensions are the ones loaded into the context
    (``xmo-opt --extensions DIR``). ``input_model`` (``xmo-opt`` sets it to
    its input file): the model's runtime info records the conversion as
    ``xmo convert`` does (``conversion_parameters``: the framework, the
    input, the options given).
    """

    name = "xmo-convert"
    input_model: str | None = None
    output: str | None = None
    layout: str | None = None
    disable_nhwc_to_nchw: bool = False
    static_shape: bool = False
    enable_transforms: str | None = None
    disable_transforms: str | None = None
    transformations_config: str | None = None
    mean_values: str | None = None
    scale_values: str | None = None
    reverse_input_channels: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        frontend = frontend_of_module(op)
        preprocess: dict[str, Any] = {
            k: v for k, v in (("mean_values", self.mean_values), ("scale_values", self.scale_values),
                              ("reverse_input_channels", self.reverse_input_channels)) if v
        }
        manager = conversion_manager(
            ctx, enable=self.enable_transforms, disable=self.disable_transforms,
            config=self.transformations_config,
        )  # fmt: skip
        run_conversion(
            op, ctx, manager, output=output_names(self.output), layout=self.layout,
            nhwc_to_nchw=not self.disable_nhwc_to_nchw, static_shape=self.static_shape,
            preprocess=preprocess,
        )  # fmt: skip
        if self.input_model is not None:
            given = {
                f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "input_model" and getattr(self, f.name) not in (None, False)
            }
            record_conversion(op, self.input_model, framework_name(self.input_model, frontend), given)


__all__ = [
    "XmoConvertPass",
    "conversion_manager",
    "conversion_pipeline",
    "framework_name",
    "param_text",
    "record_conversion",
    "run_conversion",
    "xmo_version",
]
