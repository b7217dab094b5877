"""One name for each thing, one import path for each name (checked on the source).

* **Imported from where it is defined.** ``from xmo.a.b import Name`` names
  the module that defines ``Name`` (a class, function or assignment at its top
  level), never a module that only imports it: a plain module does not
  re-export. Package ``__init__`` modules are the public face of their package
  and may gather names from their modules (``xmo.dialects.ov``,
  ``xmo.backends.cpu``...). Checked for the package and for ``tests/``,
  ``tools/``, ``examples/`` and ``benchmarks/``.
* **One class per name.** No two modules of the package define a public class
  of the same name, except the framework dialects' own ops and attributes,
  which their dialect names (:data:`DIALECT_TWINS`).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

from source_tree import ROOT, package_modules

#: folders outside the package whose imports are checked too
USERS = ("tests", "tools", "examples", "benchmarks")

#: class names defined in two framework dialects, each op or attribute of its
#: own dialect (``onnx.Output`` / ``tf.Output``...), and the ONNX schema's
#: formal parameter (``Port``) beside the graph API's ``xmo.graph.Port``
DIALECT_TWINS = {
    "OutputOp": {"xmo.dialects.onnx.base", "xmo.dialects.tf.base", "xmo.dialects.caffe",
                 "xmo.dialects.kaldi", "xmo.dialects.mxnet"},
    "InputOp": {"xmo.dialects.onnx.base", "xmo.dialects.caffe", "xmo.dialects.kaldi"},
    "StringTensorAttr": {"xmo.dialects.onnx.types", "xmo.dialects.tf.types"},
    "Port": {"xmo.dialects.onnx.base", "xmo.graph.node"},
}

#: the generated op tables (large; what they import is their generators')
GENERATED = {"xmo.dialects.onnx.ops", "xmo.dialects.tf.ops", "xmo.dialects.ov.ops"}


MODULES = package_modules()


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _top_level_names(tree: ast.Module) -> set[str]:
    """Names a module binds itself at module level (not by importing them)."""
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
            if isinstance(node, ast.If | ast.Try | ast.With | ast.For):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, None) or [])
                for handler in getattr(node, "handlers", None) or []:
                    visit(handler.body)

    visit(tree.body)
    return names


def _files() -> list[Path]:
    files = [path for name, (path, _) in MODULES.items() if name not in GENERATED]
    for folder in USERS:
        files += sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def test_names_are_imported_from_where_they_are_defined():
    defined: dict[str, set[str]] = {}
    bad = []
    for path in _files():
        for node in ast.walk(_tree(path)):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                continue
            source = node.module
            if source not in MODULES or MODULES[source][1] or source in GENERATED:
                continue
            if source not in defined:
                defined[source] = _top_level_names(_tree(MODULES[source][0]))
            for alias in node.names:
                if alias.name in defined[source] or f"{source}.{alias.name}" in MODULES:
                    continue
                where = path.relative_to(ROOT)
                bad.append(f"{where}:{node.lineno} imports {alias.name} from {source}, "
                           "which does not define it")
    assert not bad, "names imported through a module that re-exports them:\n" + "\n".join(bad)


def test_one_class_per_name():
    where: dict[str, set[str]] = defaultdict(set)
    for name, (path, _) in MODULES.items():
        if name in GENERATED:
            continue
        for node in _tree(path).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].add(name)
    twins = {
        cls: mods for cls, mods in where.items()
        if len(mods) > 1 and DIALECT_TWINS.get(cls) != mods
    }
    assert not twins, "class names defined in more than one module:\n" + "\n".join(
        f"{cls}: {', '.join(sorted(mods))}" for cls, mods in sorted(twins.items())
    )
    assert where["AttrSpec"] == {"xmo.dialects.attr_spec"}
    assert where["AttributeValueError"] == {"xmo.dialects.attr_spec"}
    assert where["Node"] == {"xmo.graph.node"}


def test_dialect_twins_still_exist():
    """An entry whose twin is gone must leave :data:`DIALECT_TWINS` too."""
    for cls, mods in DIALECT_TWINS.items():
        for mod in mods:
            tree = _tree(MODULES[mod][0])
            assert cls in {n.name for n in tree.body if isinstance(n, ast.ClassDef)}, (cls, mod)
