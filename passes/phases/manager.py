"""``PhaseManager``: orders every transformation and runs a conversion's phases.

The dependency graph has an edge ``a -> b`` for each ``b.run_after()``
naming ``a`` and each ``a.run_before()`` naming ``b``; every transformation
of a phase (except ``legalize``) also runs after ``<phase>-start`` and
before ``<phase>-finish``. The order is the topological order, ties broken
by registration order (built-ins first, then extensions as loaded). A cycle
or an unknown id is a :class:`TransformationOrderError` naming the
transformations involved.

Enabling and disabling by id: ``enable=`` / ``disable=`` (``xmo convert
--enable_transforms`` / ``--disable_transforms``) and the environment
variables ``XMO_ENABLED_TRANSFORMS`` / ``XMO_DISABLED_TRANSFORMS``
(comma-separated ids). Disabled transformations keep their place in the
order (what runs after them still does), they just do not run.
"""

from __future__ import annotations

import heapq
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xmo.passes.phases.builtins import BUILTINS, BuiltinPass
from xmo.passes.phases.transformation import (
    FRONT,
    PHASES,
    OpReplacement,
    Transformation,
    TransformationOrderError,
)

log = logging.getLogger("xmo.transformations")

ENABLED_ENV = "XMO_ENABLED_TRANSFORMS"
DISABLED_ENV = "XMO_DISABLED_TRANSFORMS"
VERIFY_ENV = "XMO_VERIFY_EACH_TRANSFORM"


def _ids(spec: str | Iterable[str] | None) -> list[str]:
    if spec is None:
        return []
    items = spec.split(",") if isinstance(spec, str) else [
        x for s in spec for x in str(s).split(",")
    ]
    return [x.strip() for x in items if x.strip()]


class TransformationFailed(Exception):
    """A transformation that raised (the message names it and its file)."""


def framework_of(module: ModuleOp) -> str | None:
    """``"tf"``, ``"onnx"`` for framework-dialect modules, None for ov ones."""
    for op in module.body.block.ops:
        if op.name.startswith("tf."):
            return "tf"
        if op.name.startswith("onnx."):
            return "onnx"
    return None


def _describe(cls: type[Transformation]) -> str:
    return f"'{cls.id}'" + (f" ({cls.source})" if cls.source else "")


def _replacement(cls: type[Transformation]) -> str:
    return f"op replacement {_describe(cls)}"


class PhaseManager:
    """Every built-in transformation plus ``transformations`` (classes), in order.

    ``config``: a :class:`~.config.TransformationsConfig` (entries by id give
    transformations their ``custom_attributes`` and matched sub-graphs);
    ``converters``: extractor tables of loaded extensions
    (:class:`~xmo.passes.to_ov.scoped.ConverterTable` of any framework; a
    plain dict is a TF one, op type -> converter); ``verify_each``: verify
    the module after every transformation (default:
    ``XMO_VERIFY_EACH_TRANSFORM``).

    Two tables, or a table and an enabled front op replacement, converting
    the same framework op are a :class:`TransformationOrderError` naming both
    (raised here, before anything is converted).
    """

    def __init__(
        self,
        transformations: Sequence[type[Transformation]] = (),
        *,
        enable: str | Iterable[str] | None = None,
        disable: str | Iterable[str] | None = None,
        config: Any = None,
        converters: Sequence[dict[str, Any]] = (),
        verify_each: bool | None = None,
        use_env: bool = True,
    ) -> None:
        classes: list[type[Transformation]] = list(BUILTINS)
        seen: dict[str, type[Transformation]] = {c.id: c for c in classes}
        for cls in transformations:
            if not isinstance(cls, type) or not issubclass(cls, Transformation):
                raise TypeError(f"not a Transformation class: {cls!r}")
            if not cls.id:
                raise TransformationOrderError(
                    f"{cls.__name__}{' (' + cls.source + ')' if cls.source else ''} has no id"
                )
            if cls.phase not in PHASES:
                raise TransformationOrderError(
                    f"{_describe(cls)}: phase must be one of {', '.join(PHASES)}, got '{cls.phase}'"
                )
            other = seen.get(cls.id)
            if other is cls:
                continue
            if other is not None:
                raise TransformationOrderError(
                    f"two transformations have the id '{cls.id}': "
                    f"{other.__name__}{' (' + other.source + ')' if other.source else ''} and "
                    f"{cls.__name__}{' (' + cls.source + ')' if cls.source else ''}"
                )
            seen[cls.id] = cls
            classes.append(cls)
        self.classes = classes
        self.by_id = seen
        self.config = config
        self.converters = list(converters)
        if verify_each is None:
            verify_each = os.environ.get(VERIFY_ENV, "").strip().lower() in ("1", "true", "yes", "on")
        self.verify_each = verify_each
        self.enabled_ids = set(_ids(enable))
        self.disabled_ids = set(_ids(disable))
        for what, ids in (("enable", self.enabled_ids), ("disable", self.disabled_ids)):
            self._check_ids(what, ids, strict=True)
        if use_env:
            env_on = set(_ids(os.environ.get(ENABLED_ENV)))
            env_off = set(_ids(os.environ.get(DISABLED_ENV)))
            self._check_ids(ENABLED_ENV, env_on, strict=False)
            self._check_ids(DISABLED_ENV, env_off, strict=False)
            self.enabled_ids |= env_on
            self.disabled_ids |= env_off
        both = self.enabled_ids & self.disabled_ids
        if both:
            raise TransformationOrderError(
                f"transformations both enabled and disabled: {', '.join(sorted(both))}"
            )
        self.instances: dict[str, Transformation] = {}
        for cls in classes:
            inst = cls()
            if config is not None:
                entry = config.entry(cls.id)
                if entry is not None:
                    inst.config = entry
                    inst.custom_attributes = dict(entry.get("custom_attributes") or {})
            self.instances[cls.id] = inst
        self._order: list[Transformation] | None = None
        self.converter_tables()  # clashes between extractors: an error now

    # -- enable / disable ------------------------------------------------------------
    def _check_ids(self, what: str, ids: set[str], *, strict: bool) -> None:
        for i in sorted(ids):
            cls = self.by_id.get(i)
            if cls is None:
                msg = f"{what}: unknown transformation id '{i}' (known: {', '.join(sorted(self.by_id))})"
                if strict:
                    raise TransformationOrderError(msg)
                log.warning("%s", msg)
            elif cls.anchor or cls.id == "legalize":
                raise TransformationOrderError(f"{what}: '{i}' is an anchor and always runs")

    def is_enabled(self, t: Transformation | type[Transformation]) -> bool:
        cls = t if isinstance(t, type) else type(t)
        if cls.anchor or cls.id == "legalize":
            return True
        if cls.id in self.disabled_ids:
            return False
        return cls.enabled or cls.id in self.enabled_ids

    # -- ordering -------------------------------------------------------------------
    def _ref(self, cls: type[Transformation], ref: Any, how: str) -> str:
        rid = ref if isinstance(ref, str) else getattr(ref, "id", None)
        if not rid or rid not in self.by_id:
            shown = ref if isinstance(ref, str) else getattr(ref, "__name__", repr(ref))
            raise TransformationOrderError(
                f"transformation {_describe(cls)} runs {how} '{shown}', which is not a "
                "registered transformation"
            )
        if not isinstance(ref, str) and self.by_id[rid] is not ref:
            raise TransformationOrderError(
                f"transformation {_describe(cls)} runs {how} {ref.__name__}, but the "
                f"registered '{rid}' is another class"
            )
        return rid

    def edges(self) -> dict[str, set[str]]:
        """id -> ids that must run after it."""
        succ: dict[str, set[str]] = {c.id: set() for c in self.classes}
        for cls in self.classes:
            inst = self.instances[cls.id]
            for ref in inst.run_after():
                succ[self._ref(cls, ref, "after")].add(cls.id)
            for ref in inst.run_before():
                succ[cls.id].add(self._ref(cls, ref, "before"))
            if not cls.anchor and cls.id != "legalize":
                succ[f"{cls.phase}-start"].add(cls.id)
                succ[cls.id].add(f"{cls.phase}-finish")
        return succ

    def order(self) -> list[Transformation]:
        """Every transformation (enabled or not) in the order they run."""
        if self._order is not None:
            return self._order
        succ = self.edges()
        index = {c.id: i for i, c in enumerate(self.classes)}
        indeg = dict.fromkeys(succ, 0)
        for s in succ.values():
            for d in s:
                indeg[d] += 1
        ready = [(index[i], i) for i, n in indeg.items() if n == 0]
        heapq.heapify(ready)
        out: list[str] = []
        while ready:
            _, i = heapq.heappop(ready)
            out.append(i)
            for d in succ[i]:
                indeg[d] -= 1
                if indeg[d] == 0:
                    heapq.heappush(ready, (index[d], d))
        if len(out) != len(succ):
            left = {i for i in succ if i not in set(out)}
            raise TransformationOrderError(
                "transformation dependencies form a cycle: " + " -> ".join(_cycle(succ, left))
            )
        self._order = [self.instances[i] for i in out]
        return self._order

    def ids(self) -> list[str]:
        return [type(t).id for t in self.order()]

    # -- running ---------------------------------------------------------------------
    def front_converters(self, framework: str | None) -> Any:
        """The converter table (:class:`~xmo.passes.to_ov.scoped.ConverterTable`
        of ``framework``'s registry) of the enabled front op replacements:
        TF op type, or ONNX (domain, op type) at every version -> converter.
        Two of them for one op are a :class:`TransformationOrderError`."""
        from xmo.passes.to_ov.scoped import ConverterTable, scope_for

        table: ConverterTable[Any, Any] = ConverterTable(framework or "tf", "front op replacements")
        todo = [
            self.instances[cls.id]
            for cls in self.classes
            if issubclass(cls, OpReplacement) and cls.phase == FRONT and cls.op
            and cls.framework in (None, framework) and self.is_enabled(cls)
        ]
        if framework is None or not todo:
            return table
        scope = scope_for(framework)
        for t in todo:
            cls = type(t)
            key = scope.key(cls.op, cls.domain)
            if key in table:
                raise TransformationOrderError(
                    f"{scope.describe(key)} is replaced by two front op replacements: "
                    f"{table.source(key)} and {_replacement(cls)}"
                )
            table[key] = scope.value(lambda node, b, t=t: t.replace_op(node, b))
            table.sources[key] = _replacement(cls)
        return table

    def converter_tables(self, framework: str | None = None) -> list[Any]:
        """What the legalization consults before its built-in converters: the
        extensions' extractor tables and the front op replacements' table of
        ``framework`` (None: of every framework). Two of them converting the
        same op are a :class:`TransformationOrderError` naming both."""
        from xmo.passes.to_ov.scoped import REGISTRIES, ConverterClashError, check_clashes

        frameworks = tuple(REGISTRIES) if framework is None else (framework,)
        tables = [*self.converters, *(self.front_converters(fw) for fw in frameworks)]
        try:
            check_clashes(tables)
        except ConverterClashError as e:
            raise TransformationOrderError(str(e)) from None
        return tables

    def run(self, module: ModuleOp, ctx: Context, phases: Sequence[str], **options: Any) -> bool:
        """Run the transformations of ``phases`` (in order) on ``module``;
        True when any transformation besides anchors ran."""
        from xmo.passes.to_ov.scoped import using_tables

        framework = options.setdefault("framework", framework_of(module))
        if self.config is not None and framework is not None and FRONT in phases:
            self.config.match(module, self)
        todo = [t for t in self.order() if type(t).phase in phases]
        tables = self.converter_tables(framework) if framework is not None else self.converters
        ran = False
        with using_tables(*tables):  # extractors and front op replacements
            for t in todo:
                ran |= self._run_one(t, module, ctx, framework, options)
        return ran

    def _run_one(self, t: Transformation, module: ModuleOp, ctx: Context, framework, options) -> bool:
        from xmo.passes.tracing import run_pass

        cls = type(t)
        if cls.anchor or not self.is_enabled(t):
            return False
        if cls.phase == FRONT and cls.id != "legalize":
            if framework is None or cls.framework not in (None, framework):
                return False
            if isinstance(t, OpReplacement):
                return False  # applied by the legalization
        if isinstance(t, BuiltinPass):
            t.options = options
            t.apply_to(ctx, module)
        else:
            if not all(cond(module) for cond in cls.graph_condition):
                log.info("transformation %s skipped: graph_condition", cls.id)
                return False
            try:
                run_pass(lambda m, c: _apply_user(t, c, m), ctx, module, name=cls.id)
            except TransformationOrderError:
                raise
            except Exception as e:
                raise TransformationFailed(f"transformation {_describe(cls)}: {e}") from e
        if self.verify_each:
            try:
                module.verify()
            except Exception as e:
                raise TransformationFailed(
                    f"after transformation {_describe(cls)}: the module does not verify: {e}"
                ) from e
        return True


def _apply_user(t: Transformation, ctx: Context, module: ModuleOp) -> None:
    changed = t.apply_to(ctx, module)
    cls = type(t)
    if changed and cls.clean_up and cls.phase != FRONT:
        from xmo.passes.ov_dce import OVDeadCodeEliminationPass

        OVDeadCodeEliminationPass().apply(ctx, module)


def _cycle(succ: dict[str, set[str]], left: set[str]) -> list[str]:
    """One cycle among ``left`` (ids), as a closed path."""
    left = set(left)
    while True:  # drop what only lies downstream of a cycle
        sinks = {i for i in left if not (succ[i] & left)}
        if not sinks:
            break
        left -= sinks
    start = min(left)
    path: list[str] = [start]
    pos = {start: 0}
    cur = start
    while True:
        nxt = min(d for d in succ[cur] if d in left)
        if nxt in pos:
            return path[pos[nxt]:] + [nxt]
        pos[nxt] = len(path)
        path.append(nxt)
        cur = nxt


def iter_transformations(module: Any) -> Iterator[type[Transformation]]:
    """Transformation classes a Python module defines (not imported ones)."""
    from xmo.passes.phases.builtins import Anchor

    for obj in vars(module).values():
        if (
            isinstance(obj, type)
            and issubclass(obj, Transformation)
            and obj.__module__ == module.__name__
            and not issubclass(obj, Anchor)
            and obj.id
        ):
            yield obj


__all__ = [
    "DISABLED_ENV",
    "ENABLED_ENV",
    "PhaseManager",
    "TransformationFailed",
    "framework_of",
    "iter_transformations",
]
