"""Loading user extensions: new ``ov`` operations and passes from Python files.

``xmo-opt --extensions DIR`` (and :func:`load_extensions`) imports every
``DIR/ops/*.py``; each ``OVOp`` subclass defined there (with ``@ov_op``) is
registered with the IR reader and loaded into the context. ``xmo-opt`` also
imports every ``DIR/passes/*.py`` (:func:`load_extension_passes`): each xDSL
``ModulePass`` subclass defined there becomes available to ``-p`` under its
``name``. Errors name the file. Nothing is loaded from folders the user did
not name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from xdsl.context import Context
from xdsl.passes import ModulePass

from xmo.dialects.ov import register_op
from xmo.dialects.ov.base import OVOp


class ExtensionError(Exception):
    """An extension that cannot be loaded (the message names the file)."""


_IMPORTED: dict[Path, object] = {}


def _import_file(path: Path) -> object:
    """Import a Python file once per process (loading a folder twice is a no-op)."""
    path = path.resolve()
    if path in _IMPORTED:
        return _IMPORTED[path]
    mod_name = f"xmo_ext_{len(_IMPORTED)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ExtensionError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[mod_name]
        raise ExtensionError(f"{path}: {type(e).__name__}: {e}") from e
    _IMPORTED[path] = module
    return module


def import_extension_file(path: str | Path) -> object:
    """The module of an extension file, imported once per process (a pass file
    uses it to reach a sibling file's classes)."""
    return _import_file(Path(path))


def load_extensions(ctx: Context, folder: str | Path) -> list[type[OVOp]]:
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
