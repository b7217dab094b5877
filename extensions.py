"""Loading user extensions: operations, extractors, transformations, kernels.

An extension is a folder (``xmo convert --extensions DIR``, repeatable;
``xmo-opt --extensions DIR``; ``xmo.convert_model(..., extensions=[DIR])``):

* ``DIR/ops/*.py``: new ``ov`` operations (``OVOp`` subclasses with
  ``@ov_op`` and their ``@shape_infer``), registered with the IR reader under
  their own opset name and loaded into the context;
* ``DIR/front/<framework>/*.py`` (``tf``, ``onnx``, ``caffe``): extractors
  (framework op -> ``ov`` ops: ``@tf_converter("IFFT2D")`` of
  :mod:`xmo.passes.tf_to_ov.registry` in ``front/tf``, ``@converter("Twice",
  domain="com.example")`` of :mod:`xmo.passes.onnx_to_ov.registry` in
  ``front/onnx``; ``@caffe_python_layer("module", "Layer")`` /
  ``@caffe_converter("Type")`` of :mod:`xmo.passes.caffe_to_ov.registry` in
  ``front/caffe``; ``@mxnet_converter(custom_key("my_op"))`` of
  :mod:`xmo.passes.mxnet_to_ov.registry` in ``front/mxnet`` for an MXNet
  ``Custom`` operator) and front transformations; the extractors go to the
  extension's own tables (:attr:`Extension.converters`,
  :attr:`Extension.onnx_converters`, :attr:`Extension.caffe_converters`,
  :attr:`Extension.mxnet_converters`) and apply only to conversions that load
  the extension;
* ``DIR/middle/*.py``, ``DIR/back/*.py``: middle and back transformations
  (:mod:`xmo.passes.phases`);
* ``DIR/kernels/*.py``: CPU backend kernels (``@register_kernel``, numba allowed);
* ``DIR/passes/*.py``: plain xDSL passes for ``xmo-opt -p``
  (:func:`load_extension_passes`).

Each file is imported once per process; it must be a regular file (a FIFO
is refused, not waited on). An import error, a ``sys.exit()`` while it
loads, an id, op or converter defined twice, or a clash with a built-in, is
an :class:`ExtensionError` naming the file; a ``sys.exit()`` in an
extension's code during a conversion is an error of ``xmo`` / ``xmo-opt``
naming the file (:func:`extension_file_of`). Two loaded extensions converting
the same framework op (an extractor or a front op replacement each) are an
error naming both files, raised by :func:`phase_manager` before anything is
converted. Nothing is loaded from folders the user did not name.
"""

from __future__ import annotations

import importlib.util
import sys
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from xdsl.context import Context
from xdsl.passes import ModulePass

from xmo.dialects.ov import register_op
from xmo.errors import ExtensionError
from xmo.dialects.ov.base import OVOp
from xmo.input_files import check_regular
from xmo.passes.to_ov.scoped import ConverterTable


_IMPORTED: dict[Path, object] = {}


def _import_file(path: Path, capture: Any = None) -> object:
    """Import a Python file once per process (loading a folder twice is a no-op).

    ``capture``: a context manager active while the file runs (capturing the
    extractors into its extension's table)."""
    path = path.resolve()
    if path in _IMPORTED:
        return _IMPORTED[path]
    check_regular(path, ExtensionError)  # a FIFO would be waited on forever
    mod_name = f"xmo_ext_{len(_IMPORTED)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ExtensionError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        with capture if capture is not None else nullcontext():
            spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[mod_name]
        raise ExtensionError(f"{path}: {type(e).__name__}: {e}") from e
    except SystemExit as e:  # an extension does not end the process
        del sys.modules[mod_name]
        raise ExtensionError(f"{path}: SystemExit: the extension called sys.exit({e.code!r}) "
                             "while loading") from e
    _IMPORTED[path] = module
    return module


def extension_file_of(tb: TracebackType | None) -> Path | None:
    """The extension file whose code is innermost in the traceback ``tb``
    (None: no extension code in it): the culprit of a ``SystemExit`` that
    ends a conversion, for the error line."""
    found = None
    files = {str(p) for p in _IMPORTED}
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            found = Path(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return found


def import_extension_file(path: str | Path) -> object:
    """The module of an extension file, imported once per process (a pass file
    uses it to reach a sibling file's classes)."""
    return _import_file(Path(path))


def load_extension_ops(ctx: Context, folder: str | Path) -> list[type[OVOp]]:
    """Import ``folder/ops/*.py`` and register the ops they define."""
    root = Path(folder)
    if not root.is_dir():
        raise ExtensionError(f"{root}: extensions folder not found")
    loaded: list[type[OVOp]] = []
    for path in sorted((root / "ops").glob("*.py")):
        module = _import_file(path)
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, OVOp)
                and obj.__module__ == module.__name__  # type: ignore[attr-defined]
            ):
                try:
                    register_op(obj)
                    if obj not in ctx.loaded_ops:
                        ctx.load_op(obj)
                except Exception as e:
                    raise ExtensionError(f"{path}: {e}") from e
                loaded.append(obj)
    return loaded


def load_extension_passes(folder: str | Path) -> dict[str, type[ModulePass]]:
    """Import ``folder/passes/*.py``; pass name -> class of the passes they define."""
    root = Path(folder)
    if not root.is_dir():
        raise ExtensionError(f"{root}: extensions folder not found")
    found: dict[str, type[ModulePass]] = {}
    for path in sorted((root / "passes").glob("*.py")):
        module = _import_file(path)
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, ModulePass)
                and obj.__module__ == module.__name__  # type: ignore[attr-defined]
                and isinstance(vars(obj).get("name"), str)
            ):
                if obj.name in found and found[obj.name] is not obj:
                    raise ExtensionError(f"{path}: a pass named '{obj.name}' is defined twice")
                found[obj.name] = obj
    return found


# -- whole extensions: ops, front/<framework>, middle, back, kernels -------------------

#: framework folders under ``front/``
FRAMEWORKS = ("tf", "onnx", "caffe", "mxnet")


@dataclass
class Extension:
    """What one extension folder defines."""

    folder: Path
    ops: list[type[OVOp]] = field(default_factory=list)
    #: phase transformation classes (front, middle, back), in load order
    transformations: list[type] = field(default_factory=list)
    #: TF op type -> converter (the ``front/tf`` extractors)
    converters: ConverterTable[str, Any] = field(default_factory=lambda: ConverterTable("tf"))
    #: ONNX (domain, op type) -> version ranges and converters (the
    #: ``front/onnx`` extractors)
    onnx_converters: ConverterTable[tuple[str, str], Any] = field(
        default_factory=lambda: ConverterTable("onnx")
    )
    #: MXNet operator (``Custom:<op_type>`` for Custom operators) -> converter
    #: (the ``front/mxnet`` extractors)
    mxnet_converters: ConverterTable[str, Any] = field(
        default_factory=lambda: ConverterTable("mxnet")
    )
    #: Caffe layer type / ``Python:<module>.<layer>`` -> converter (the
    #: ``front/caffe`` extractors)
    caffe_converters: ConverterTable[str, Any] = field(
        default_factory=lambda: ConverterTable("caffe")
    )
    files: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        for table in self.extractor_tables:
            table.origin = table.origin or str(self.folder)

    def extractor_table(self, framework: str) -> ConverterTable[Any, Any]:
        """The extractors of ``front/<framework>``."""
        return {"tf": self.converters, "onnx": self.onnx_converters,
                "caffe": self.caffe_converters, "mxnet": self.mxnet_converters}[framework]

    @property
    def extractor_tables(self) -> list[ConverterTable[Any, Any]]:
        """The extractor table of every framework."""
        return [self.converters, self.onnx_converters, self.caffe_converters, self.mxnet_converters]


_EXTENSIONS: dict[Path, Extension] = {}
#: transformation id -> (class, file) over every loaded extension
_IDS: dict[str, tuple[type, Path]] = {}


def _collect_transformations(ext: Extension, path: Path, module: object, framework: str | None) -> None:
    from xmo.passes.phases.manager import iter_transformations
    from xmo.passes.pipeline import DEFAULT_PIPELINE

    builtin_ids = {s.id for s in DEFAULT_PIPELINE}
    for cls in iter_transformations(module):
        cls.source = str(path)
        if framework is not None and cls.framework is None:
            cls.framework = framework
        if cls.id in builtin_ids:
            raise ExtensionError(f"{path}: transformation id '{cls.id}' is a built-in one")
        known = _IDS.get(cls.id)
        if known is not None and known[0] is not cls:
            raise ExtensionError(
                f"{path}: transformation id '{cls.id}' is already defined in {known[1]}"
            )
        _IDS[cls.id] = (cls, path)
        ext.transformations.append(cls)


def load_extension(folder: str | Path, ctx: Context | None = None) -> Extension:
    """Load every part of an extension folder (see the module docstring)."""
    root = Path(folder)
    if not root.is_dir():
        raise ExtensionError(f"{root}: extensions folder not found")
    key = root.resolve()
    ext = _EXTENSIONS.get(key)
    if ext is not None:
        if ctx is not None:
            for op in ext.ops:
                if op not in ctx.loaded_ops:
                    ctx.load_op(op)
            _note_loaded(ctx, ext)
        return ext
    known = {"ops", "front", "middle", "back", "kernels", "passes"}
    if not any((root / d).is_dir() for d in known):
        raise ExtensionError(
            f"{root}: not an extension folder (expected some of {', '.join(sorted(known))})"
        )
    ext = Extension(key)
    ext.ops = load_extension_ops(ctx if ctx is not None else _scratch_context(), root)
    kernel_files = sorted((root / "kernels").glob("*.py"))
    if kernel_files:
        from xmo.backends.cpu import registered_ops

        registered_ops()  # built-in kernels first: an extension may override one
    for path in kernel_files:
        _import_file(path)
        ext.files.append(path)
    front = root / "front"
    if front.is_dir():
        for sub in sorted(p for p in front.iterdir() if p.is_dir() and p.name != "__pycache__"):
            if sub.name not in FRAMEWORKS:
                raise ExtensionError(
                    f"{sub}: unknown framework folder (expected {', '.join(FRAMEWORKS)})"
                )
        for path in sorted(front.glob("*.py")):
            raise ExtensionError(f"{path}: front files go in front/<framework>/ ({', '.join(FRAMEWORKS)})")
    for fw in FRAMEWORKS:
        for path in sorted((front / fw).glob("*.py")):
            from xmo.passes.to_ov.scoped import scope_for

            capture = scope_for(fw).capturing(ext.extractor_table(fw), str(path))
            module = _import_file(path, capture)
            _collect_transformations(ext, path, module, fw)
            ext.files.append(path)
    for phase in ("middle", "back"):
        for path in sorted((root / phase).glob("*.py")):
            module = _import_file(path)
            _collect_transformations(ext, path, module, None)
            ext.files.append(path)
    for cls in ext.transformations:
        where = Path(cls.source).resolve().relative_to(key).parts[0]
        if where in ("front", "middle", "back") and cls.phase != where:
            raise ExtensionError(
                f"{cls.source}: transformation '{cls.id}' has phase '{cls.phase}' "
                f"but is in {where}/"
            )
    _EXTENSIONS[key] = ext
    if ctx is not None:
        _note_loaded(ctx, ext)
    return ext


def _note_loaded(ctx: Context, ext: Extension) -> None:
    loaded = ctx.__dict__.setdefault("_xmo_extensions", [])
    if all(e is not ext for e in loaded):
        loaded.append(ext)


def loaded_extensions(ctx: Context) -> list[Extension]:
    """The extensions loaded into ``ctx`` (:func:`load_extension` with that
    context), in loading order: their transformations and extractors take
    part in conversions in that context (``xmo-opt --extensions DIR -p
    xmo-convert``, ``xmo.convert_model(..., extensions=[DIR])``)."""
    return list(ctx.__dict__.get("_xmo_extensions", ()))


def _scratch_context() -> Context:
    from xmo.context import make_context

    return make_context()


def phase_manager(
    extensions: list[Extension],
    *,
    enable: Any = None,
    disable: Any = None,
    config: Any = None,
    verify_each: bool | None = None,
) -> Any:
    """A :class:`~xmo.passes.phases.PhaseManager` with the extensions'
    transformations and extractors (of every framework).

    Two extensions with an extractor for the same framework op are an
    :class:`ExtensionError` naming both files (an extractor and a front op
    replacement, or two front op replacements: the manager's
    :class:`~xmo.passes.phases.TransformationOrderError`, naming both)."""
    from xmo.passes.phases import PhaseManager
    from xmo.passes.to_ov.scoped import ConverterClashError, check_clashes

    classes = [c for e in extensions for c in e.transformations]
    tables = [t for e in extensions for t in e.extractor_tables]
    try:
        check_clashes(tables)
    except ConverterClashError as e:
        raise ExtensionError(str(e)) from None
    return PhaseManager(
        classes,
        enable=enable,
        disable=disable,
        config=config,
        converters=tables,
        verify_each=verify_each,
    )
