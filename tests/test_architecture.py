"""Architecture rules, checked on the source (the AST of every ``.py`` of the
``xmo`` package; ``tests/``, ``tools/``, ``benchmarks/``, ``examples/``,
``dev.py`` and ``setup.py`` are not part of it):

* **No import cycles between modules.** The graph has an edge from module A to
  module B when A imports B (or a name from B) at module level: at the top of
  the file, in a class body, or under a module-level ``if``/``try``; imports
  under ``if TYPE_CHECKING:`` do not run and do not count. Imports inside
  functions do not count either: they are deliberate, made on first use to keep
  ``import xmo`` fast (numba, onnx, openvino, the built-in CPU kernels, every
  pass of the registry), and must not be used to dodge a cycle -- restructure
  the modules instead (move what both need to a module both import).
  ``from pkg import sub`` is an edge to the module ``pkg.sub``; importing a
  module does not count as importing its parent packages.
* **No private names across modules.** No module imports a name starting with
  ``_`` (dunders aside) from another xmo module, at any level: make it public
  where it belongs, or move it. A private module (``pkg/_helpers.py``) is
  private to its package: only modules inside ``pkg`` import it.
* **The CPU backend runs ``ov`` modules**: nothing under ``xmo.backends.cpu``
  imports the API or a frontend (at any level).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from source_tree import ROOT, package_modules


#: Private imports allowed for now, each with who removes it.
ALLOWED_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Import:
    importer: str
    line: int
    module: str  # the xmo module imported (or imported from)
    name: str | None  # the name imported from it, None for ``import module``
    module_level: bool


MODULES = package_modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(body: list[ast.stmt], module_level: bool) -> Iterator[tuple[ast.stmt, bool]]:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, module_level
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import | ast.ImportFrom):
                    yield sub, False
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_nodes(node.orelse, module_level)
        else:
            for field in ("body", "orelse", "finalbody"):
                yield from _import_nodes(getattr(node, field, None) or [], module_level)
            for handler in getattr(node, "handlers", None) or []:
                yield from _import_nodes(handler.body, module_level)
            for case in getattr(node, "cases", None) or []:
                yield from _import_nodes(case.body, module_level)


def _imports(name: str, path: Path, is_pkg: bool) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node, module_level in _import_nodes(tree.body, True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "xmo":
                    yield Import(name, node.lineno, alias.name, None, module_level)
            continue
        assert isinstance(node, ast.ImportFrom)
        if node.level:
            base = name.split(".") if is_pkg else name.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        if source.split(".")[0] != "xmo":
            continue
        for alias in node.names:
            sub = f"{source}.{alias.name}"
            if sub in MODULES:
                yield Import(name, node.lineno, sub, None, module_level)
            else:
                yield Import(name, node.lineno, source, alias.name, module_level)


IMPORTS = [imp for name, (path, is_pkg) in MODULES.items() for imp in _imports(name, path, is_pkg)]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_package_is_found():
    assert "xmo.api" in MODULES and "xmo.backends.cpu.compiled" in MODULES
    assert not any(m.startswith(("xmo.tests", "xmo.tools")) for m in MODULES)
    assert len(IMPORTS) > 500


def test_no_import_cycles_between_modules():
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], int] = {}
    for imp in IMPORTS:
        if imp.module_level and imp.module in MODULES and imp.module != imp.importer:
            edges.setdefault(imp.importer, set()).add(imp.module)
            where.setdefault((imp.importer, imp.module), imp.line)
    report = []
    for comp in _cycles(edges):
        members = set(comp)
        report.append("cycle: " + ", ".join(comp))
        for m in comp:
            for t in sorted(edges[m] & members):
                report.append(f"    {m} (line {where[m, t]}) imports {t}")
    assert not report, "module-level imports form cycles:\n" + "\n".join(report)


def _private_module_owner(module: str) -> str | None:
    """The package a private module (a ``_name`` part) belongs to, else None."""
    parts = module.split(".")
    for i, p in enumerate(parts):
        if p.startswith("_") and not p.startswith("__"):
            return ".".join(parts[:i])
    return None


def test_no_private_names_imported_across_modules():
    bad = []
    for imp in IMPORTS:
        owner = _private_module_owner(imp.module)
        if owner is not None and not (imp.importer + ".").startswith(owner + "."):
            bad.append(f"{imp.importer} (line {imp.line}) imports private module {imp.module}")
        name = imp.name
        if name is None or not name.startswith("_") or name.startswith("__"):
            continue
        if (imp.importer, imp.module, name) in ALLOWED_PRIVATE_IMPORTS:
            continue
        bad.append(f"{imp.importer} (line {imp.line}) imports {name} from {imp.module}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def test_allow_list_entries_still_exist():
    """An entry whose import is gone must leave the allow-list too."""
    seen = {(i.importer, i.module, i.name) for i in IMPORTS}
    assert ALLOWED_PRIVATE_IMPORTS <= seen, ALLOWED_PRIVATE_IMPORTS - seen


def test_cpu_backend_never_calls_the_frontends():
    bad = [
        f"{i.importer} (line {i.line}) imports {i.module}"
        for i in IMPORTS
        if i.importer.startswith("xmo.backends.cpu")
        and (i.module == "xmo" or i.module.startswith(("xmo.api", "xmo.frontends")))
    ]
    assert not bad, "\n".join(bad)


#: Exceptions that are not errors: a signal raises them, and like
#: KeyboardInterrupt they must get past ``except Exception`` (so they cannot
#: be XmoErrors, which are Exceptions).
NOT_ERRORS = {"xmo.termination.Terminated"}


def test_every_error_is_an_xmo_error():
    """Exceptions xmo defines derive from :class:`xmo.errors.XmoError` (one
    ``except`` catches every error xmo raises on purpose); private ones
    (``_Skip``) are control flow inside a module and never escape it; those
    of :data:`NOT_ERRORS` are not errors and not Exceptions."""
    import importlib

    from xmo.errors import XmoError

    loose = []
    seen_not_errors = set()
    for name in sorted(MODULES):
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (
                isinstance(obj, type) and issubclass(obj, BaseException)
                and obj.__module__ == name and not obj.__name__.startswith("_")
                and not issubclass(obj, XmoError)
            ):
                qualified = f"{name}.{obj.__name__}"
                if qualified in NOT_ERRORS and not issubclass(obj, Exception):
                    seen_not_errors.add(qualified)
                else:
                    loose.append(qualified)
    assert not loose, loose
    assert seen_not_errors == NOT_ERRORS, NOT_ERRORS - seen_not_errors
