"""The Python API, mirroring openvino's: ``convert_model``, ``save_model``, ``read_model``.

A module returned here keeps its context (and so its weight store) alive: the
weights of a module live as long as the module.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xmo import xdsl_speedups
from xmo.context import attach_context, context_of, make_context
from xmo.errors import ConversionError, first_line, printable
from xmo.frontends import Frontend


def read_model(path: str | os.PathLike[str], ctx: Context | None = None) -> ModuleOp:
    """Load a model file into xDSL IR.

    ``.mlir`` (textual IR) and ``.xml`` (OpenVINO IR with its ``.bin``) are
    read as they are; framework formats go through their frontend.
    """
    p = Path(path)
    if not p.exists():
        raise ConversionError(f"{p}: no such file")
    ctx = ctx or make_context()
    suffix = p.suffix.lower()
    if suffix == ".mlir":
        xdsl_speedups.apply()
        from xdsl.parser import Parser
        from xdsl.utils.exceptions import ParseError

        from xmo.mlir_file import open_mlir

        try:
            with open_mlir(p, ConversionError) as f:
                text = io.TextIOWrapper(f, encoding="utf-8").read()
            module = Parser(ctx, text, str(p)).parse_module()
        except UnicodeDecodeError:
            raise ConversionError(f"{p}: not a text MLIR file (not UTF-8)") from None
        except ParseError as e:
            raise ConversionError(parse_error_line(e)) from None
        except RecursionError:
            raise ConversionError(f"{p}: nested too deeply") from None
        try:
            module.verify()
        except Exception as e:  # noqa: BLE001 - the input is at fault, not a pass
            raise ConversionError(f"{p}: the module does not verify: {first_line(e)}") from None
    elif suffix == ".xml":
        from xmo.backends.ir import read_ir

        module = read_ir(p, ctx=ctx)
    else:
        from xmo.frontends import frontend_for

        module = frontend_for(p).load(p, ctx)
    attach_context(module, ctx)
    return module


def parse_error_line(e: Exception) -> str:
    """One line for an xDSL ``ParseError``: ``file:line:col: message`` (xDSL's
    own text adds the source line and a caret on lines of their own)."""
    return printable(f"{e.span.get_location()}: {' '.join(e.msg.split())}")  # type: ignore[attr-defined]



def convert_model(
    input_model: Any,
    *,
    input: Any = None,
    output: Any = None,
    batch: int | None = None,
    static_shape: bool = False,
    layout: Any = None,
    disable_nhwc_to_nchw: bool = False,
    extensions: Any = None,
    transformations_config: Any = None,
    enable_transforms: Any = None,
    disable_transforms: Any = None,
    memory_limit: int | str | None = None,
    mean_values: Any = None,
    scale_values: Any = None,
    reverse_input_channels: bool = False,
    **frontend_options: Any,
) -> ModuleOp:
    """Convert a model (path or in-memory model) to an ov-dialect module.

    ``.xml``/``.mlir`` files are read as they are; framework models (``.onnx``
    paths, bytes, ``onnx.ModelProto``; TensorFlow frozen ``.pb``/``.pbtxt``)
    go through their frontend and the conversion pipeline
    (:mod:`xmo.passes.conversion`: the default pipeline of
    :mod:`xmo.passes.pipeline` with the extensions' transformations and the
    passes these options add). Options follow ovc / the Model Optimizer (see
    :mod:`xmo.options`): ``input`` (names and shapes), ``output`` (cut at
    these tensors), ``batch``, ``static_shape``, ``layout`` (change an
    input's or output's layout, e.g. ``"input(nhwc->nchw)"``),
    ``disable_nhwc_to_nchw`` (TensorFlow: keep the NHWC computation, do not
    sink the layout transposes); ``mean_values`` / ``scale_values``
    (``"data[123,117,104]"``, ``[123, 117, 104]`` for every input, or a dict)
    and ``reverse_input_channels`` preprocess the inputs of any model as the
    Model Optimizer did: ``(reverse(x) - mean) / scale``
    (:mod:`xmo.passes.ov_preprocess`); other keywords go to the frontend
    (Caffe: ``input_proto``, the deploy prototxt of a ``.caffemodel``).

    Extensions (``docs/extensions.md``): ``extensions`` (extension folders:
    operations, extractors, front/middle/back transformations, kernels),
    ``transformations_config`` (a JSON file of transformation entries),
    ``enable_transforms`` / ``disable_transforms`` (transformation ids, a
    list or a comma-separated string).

    ``memory_limit``: the conversion's memory budget (bytes, or ``"4G"``,
    ``"512M"``...; default half of the physical memory, see
    :mod:`xmo.budget`): what the frontend decodes, constant folding and
    unrolling create is charged against it; beyond it the conversion fails
    with :class:`~xmo.budget.MemoryLimitError` (folds that do not fit stay ops).

    The module's model runtime info records the conversion as ovc does:
    ``conversion_parameters`` (``framework``; ``input_model``, the path as
    given, or ``is_python_object = "True"`` for an in-memory model; the
    options not at their defaults) and ``xmo_version``
    (:func:`xmo.dialects.ov.rt_info.get_model_rt_info`).
    """
    from xmo.budget import memory_budget
    from xmo.gc_policy import relaxed_gc
    from xmo.passes.conversion import framework_name, record_conversion

    # recorded in the model's runtime info (conversion_parameters): the options
    # not at their defaults, as given, and every frontend option passed
    options = {
        "input": input, "output": output, "batch": batch, "static_shape": static_shape,
        "layout": layout, "disable_nhwc_to_nchw": disable_nhwc_to_nchw,
        "extensions": extensions, "transformations_config": transformations_config,
        "enable_transforms": enable_transforms, "disable_transforms": disable_transforms,
        "memory_limit": memory_limit, "mean_values": mean_values,
        "scale_values": scale_values, "reverse_input_channels": reverse_input_channels,
    }
    given = {
        k: v for k, v in options.items()
        if not (v is None or v is False or (isinstance(v, list | tuple) and not v))
    }
    given.update(frontend_options)
    frontend = _frontend_of(input_model)
    framework = framework_name(input_model, frontend)
    with memory_budget(memory_limit), relaxed_gc():
        module = _convert(
            input_model, frontend, input=input, output=output, batch=batch,
            static_shape=static_shape, layout=layout,
            disable_nhwc_to_nchw=disable_nhwc_to_nchw, extensions=extensions,
            transformations_config=transformations_config,
            enable_transforms=enable_transforms, disable_transforms=disable_transforms,
            preprocess=_preprocess_options(mean_values, scale_values, reverse_input_channels),
            **frontend_options,
        )
    record_conversion(module, input_model, framework, given)
    return module


def _preprocess_options(mean_values: Any, scale_values: Any, reverse: bool) -> dict[str, Any]:
    """The ``ov-preprocess`` options of the preprocessing arguments (checked
    here, before anything is loaded)."""
    from xmo import options as opt

    out: dict[str, Any] = {}
    for key, spec in (("mean_values", mean_values), ("scale_values", scale_values)):
        if spec is not None and spec != "":
            opt.parse_values_spec(spec, key)
            out[key] = opt.values_text(spec)
    if reverse:
        out["reverse_input_channels"] = True
    return out


def _is_ir_path(model: Any) -> bool:
    from xmo.frontends import IR_SUFFIXES

    return isinstance(model, str | os.PathLike) and Path(model).suffix.lower() in IR_SUFFIXES


def _frontend_of(model: Any) -> Frontend | None:
    """The frontend that loads ``model`` (None: a module, or an IR file read
    as it is). A missing file is a :class:`ConversionError` first."""
    from xmo.frontends import frontend_for

    if isinstance(model, ModuleOp) or _is_ir_path(model):
        return None
    if isinstance(model, str | os.PathLike) and not Path(model).exists():
        raise ConversionError(f"{model}: no such file")
    return frontend_for(model)


def _convert(
    input_model: Any,
    frontend: Frontend | None,
    *,
    input: Any,
    output: Any,
    batch: int | None,
    static_shape: bool,
    layout: Any,
    disable_nhwc_to_nchw: bool,
    extensions: Any,
    transformations_config: Any,
    enable_transforms: Any,
    disable_transforms: Any,
    preprocess: dict[str, Any] | None = None,
    **frontend_options: Any,
) -> ModuleOp:
    from xmo import options as opt
    from xmo.extensions import load_extension
    from xmo.passes.conversion import conversion_manager, run_conversion

    shapes = opt.parse_input_spec(input)
    folders = [extensions] if isinstance(extensions, str | os.PathLike) else list(extensions or ())
    exts = [load_extension(f) for f in folders]  # a bad extension fails before loading
    if isinstance(input_model, ModuleOp):
        ctx = context_of(input_model) or make_context()
        module = input_model
    elif frontend is None:  # .mlir / .xml
        module = read_model(input_model)
        ctx = context_of(module) or make_context()
    else:
        # a framework model is read into xmo's dialects only: no xDSL dialects
        # (finding their plugins scans every installed distribution, 20 ms)
        ctx = make_context(with_xdsl_dialects=False)
        if batch is not None:
            shapes = opt.with_batch(shapes, frontend.input_shapes(input_model, **frontend_options), batch)
            batch = None
        overrides = {k: v for k, v in shapes.items() if v is not None}
        if overrides:
            frontend_options["input_shapes"] = overrides
        if shapes:
            # every name must be a graph input, also without a shape (TF: a
            # PlaceholderWithDefault named by --input becomes a graph input)
            frontend_options.setdefault("inputs", list(shapes))
        from xmo.passes.debug import phase

        with phase("load"):
            module = frontend.load(input_model, ctx, **frontend_options)
    if batch is not None or any(v is not None for v in shapes.values()):
        from xmo.frontends import frontend_of_module

        if frontend_of_module(module) is None:
            raise ConversionError("input shapes and batch can only be set on framework models")
    for e in exts:
        load_extension(e.folder, ctx)  # their ops into this context
    manager = conversion_manager(
        ctx, extensions=exts, enable=enable_transforms, disable=disable_transforms,
        config=transformations_config,
    )  # fmt: skip
    run_conversion(
        module, ctx, manager, output=opt.output_names(output), layout=opt.layout_text(layout),
        nhwc_to_nchw=not disable_nhwc_to_nchw, static_shape=static_shape,
        preprocess=preprocess,
    )  # fmt: skip
    attach_context(module, ctx)
    return module


def save_model(
    module: ModuleOp,
    xml_path: str | os.PathLike[str],
    compress_to_fp16: bool = False,
    *,
    verify: bool = True,
    verify_ir: bool = False,
) -> None:
    """Write ``module`` as OpenVINO IR (``xml_path`` and the ``.bin`` beside it).

    ``compress_to_fp16`` first runs ``ov-compress-fp16`` on ``module`` (in
    place): large f32 weights are stored as f16 with a decompression Convert.
    ``verify=False`` skips verifying the module again (for a module that
    :func:`convert_model` just produced and verified). ``verify_ir=True``
    reads the written IR back with xmo's reader and checks every layer's op
    and output types against ``module`` before the files replace anything.
    """
    if compress_to_fp16:
        from xmo.passes.ov_compress_fp16 import OVCompressFP16Pass

        ctx = context_of(module)
        if ctx is None:
            ctx = make_context()
            attach_context(module, ctx)
        from xmo.passes.tracing import run_pass

        run_pass(OVCompressFP16Pass(), ctx, module)
        _record_option(module, "compress_to_fp16", "True")
    from xmo.backends.ir import serialize
    from xmo.gc_policy import relaxed_gc
    from xmo.passes.debug import phase

    with phase("serialize"), relaxed_gc():
        serialize(module, xml_path, verify=verify, verify_ir=verify_ir)


def _record_option(module: ModuleOp, key: str, text: str) -> None:
    """Add an option to the ``conversion_parameters`` of a converted model."""
    from xmo.dialects.ov import rt_info as rt

    if isinstance(rt.get_model_rt_info(module).get("conversion_parameters"), dict):
        rt.update_model_rt_info(module, {"conversion_parameters": {key: text}})


def compile_model(model: Any, threads: int | None = None, flush_denormals: bool | None = None,
                  **options: Any) -> Any:
    """A callable running ``model`` on xmo's CPU backend (numpy + numba).

    ``model``: an ov module or any path :func:`convert_model` accepts
    (``.onnx``, ``.xml``, ``.mlir``), converted first with ``options``. Call
    the result with a dict (input name -> array) or a list; it returns the
    outputs (a list, also indexable by output name). ``threads``: threads of
    the CPU backend, process-wide (BLAS, numba and xmo's helper pool; default:
    the cores the process may use, ``os.sched_getaffinity``).
    ``flush_denormals``: denormal floats flushed to zero during runs (FTZ/DAZ),
    process-wide (None: keep what is set; default on, ``XMO_CPU_DENORMALS``).
    """
    from xmo.backends.cpu import CompiledModel  # start-up: the backend on first use

    if not isinstance(model, ModuleOp):
        model = convert_model(model, **options)
    return CompiledModel(model, threads=threads, flush_denormals=flush_denormals)


def run(model: Any, inputs: Any = None, **options: Any) -> Any:
    """``compile_model(model, **options)(inputs)`` in one call."""
    return compile_model(model, **options)(inputs)
