"""``PhaseManager``: orders every transformation and turns phases into a pipeline.

The built-in transformations are the steps of
:data:`xmo.passes.pipeline.DEFAULT_PIPELINE` (the default conversion, as
data); extensions add :class:`~.transformation.Transformation` classes (each
an xDSL ``ModulePass`` named by its id). :meth:`PhaseManager.pipeline` gives
the ordered, enabled ones of some phases as a list of
:class:`~xmo.passes.pipeline.PipelineStep`, which
:func:`xmo.passes.pipeline.run_pipeline` runs like any other pipeline.

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

from xmo.passes.pipeline import (
    DEFAULT_PIPELINE,
    FRONT,
    LEGALIZATION,
    PHASES,
    WHEN_NHWC,
    Pipeline,
    PipelineStep,
    Step,
    pass_step,
    verify_each_default,
)
from xmo.passes.phases.transformation import (
    OpReplacement,
    Transformation,
    TransformationOrderError,
)

log = logging.getLogger("xmo.transformations")

ENABLED_ENV = "XMO_ENABLED_TRANSFORMS"
DISABLED_ENV = "XMO_DISABLED_TRANSFORMS"


def _ids(spec: str | Iterable[str] | None) -> list[str]:
    if spec is None:
        return []
    items = spec.split(",") if isinstance(spec, str) else [
        x for s in spec for x in str(s).split(",")
    ]
    return [x.strip() for x in items if x.strip()]


def _describe(cls: type[Transformation] | Step) -> str:
    return f"'{cls.id}'" + (f" ({cls.source})" if cls.source else "")


def _replacement(cls: type[Transformation]) -> str:
    return f"op replacement {_describe(cls)}"


#: what the manager orders: a built-in step, or an extension's transformation class
Node = Step | type[Transformation]


def _fixed(node: Node) -> bool:
    """Anchors and required steps always run: they cannot be switched."""
    return isinstance(node, Step) and (node.anchor or node.required)


class PhaseManager:
    """Every built-in step plus ``transformations`` (classes), in order.

    ``config``: a :class:`~.config.TransformationsConfig` (entries by id give
    transformations their ``custom_attributes`` and matched sub-graphs);
    ``converters``: extractor tables of loaded extensions
    (:class:`~xmo.passes.to_ov.scoped.ConverterTable` of any framework; a
    plain dict is a TF one, op type -> converter); ``verify_each``: verify
    the module after every pass (default: ``XMO_VERIFY_EACH_TRANSFORM``).

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
        nodes: list[Node] = list(DEFAULT_PIPELINE)
        seen: dict[str, Node] = {n.id: n for n in nodes}
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
                first = other.id if isinstance(other, Step) else other.__name__
                raise TransformationOrderError(
                    f"two transformations have the id '{cls.id}': "
                    f"{first}{' (' + other.source + ')' if other.source else ''} and "
                    f"{cls.__name__}{' (' + cls.source + ')' if cls.source else ''}"
                )
            seen[cls.id] = cls
            nodes.append(cls)
        self.nodes = nodes
        self.by_id = seen
        self.config = config
        self.converters = list(converters)
        self.verify_each = verify_each_default() if verify_each is None else verify_each
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
        #: id -> the step, or the transformation instance (one per id)
        self.instances: dict[str, Step | Transformation] = {}
        for node in nodes:
            if isinstance(node, Step):
                self.instances[node.id] = node
                continue
            inst = node()
            if config is not None:
                entry = config.entry(node.id)
                if entry is not None:
                    inst.config = entry
                    inst.custom_attributes = dict(entry.get("custom_attributes") or {})
            self.instances[node.id] = inst
        self._order: list[Step | Transformation] | None = None
        self.converter_tables()  # clashes between extractors: an error now

    # -- enable / disable ------------------------------------------------------------
    def _check_ids(self, what: str, ids: set[str], *, strict: bool) -> None:
        for i in sorted(ids):
            node = self.by_id.get(i)
            if node is None:
                msg = f"{what}: unknown transformation id '{i}' (known: {', '.join(sorted(self.by_id))})"
                if strict:
                    raise TransformationOrderError(msg)
                log.warning("%s", msg)
            elif _fixed(node):
                raise TransformationOrderError(f"{what}: '{i}' is an anchor and always runs")

    def is_enabled(self, t: Node | Transformation) -> bool:
        node = self.by_id.get(t.id, t)  # a step, a class or an instance
        if _fixed(node):  # type: ignore[arg-type]
            return True
        if node.id in self.disabled_ids:
            return False
        return node.enabled or node.id in self.enabled_ids

    # -- ordering -------------------------------------------------------------------
    def _ref(self, node: Node, ref: Any, how: str) -> str:
        rid = ref if isinstance(ref, str) else getattr(ref, "id", None)
        if not rid or rid not in self.by_id:
            shown = ref if isinstance(ref, str) else getattr(ref, "__name__", repr(ref))
            raise TransformationOrderError(
                f"transformation {_describe(node)} runs {how} '{shown}', which is not a "
                "registered transformation"
            )
        if not isinstance(ref, str) and self.by_id[rid] is not ref:
            raise TransformationOrderError(
                f"transformation {_describe(node)} runs {how} {ref.__name__}, but the "
                f"registered '{rid}' is another class"
            )
        return rid

    def edges(self) -> dict[str, set[str]]:
        """id -> ids that must run after it."""
        succ: dict[str, set[str]] = {n.id: set() for n in self.nodes}
        for node in self.nodes:
            inst = self.instances[node.id]
            for ref in inst.run_after():
                succ[self._ref(node, ref, "after")].add(node.id)
            for ref in inst.run_before():
                succ[node.id].add(self._ref(node, ref, "before"))
            if not _fixed(node):
                succ[f"{node.phase}-start"].add(node.id)
                succ[node.id].add(f"{node.phase}-finish")
        return succ

    def order(self) -> list[Step | Transformation]:
        """Every step and transformation (enabled or not) in the order they run."""
        if self._order is not None:
            return self._order
        succ = self.edges()
        index = {n.id: i for i, n in enumerate(self.nodes)}
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
        return [t.id for t in self.order()]

    # -- the pipeline ------------------------------------------------------------------
    def pipeline(
        self, phases: Sequence[str], *, frontend: Any = None, nhwc_to_nchw: bool = True
    ) -> list[PipelineStep]:
        """The passes of ``phases``, in order: each enabled built-in step's
        passes (the legalization of ``frontend``; the layout change only for
        an NHWC frontend with ``nhwc_to_nchw``) and each enabled extension
        transformation (front ones only for their framework; front op
        replacements are not passes: the legalization applies them)."""
        out: list[PipelineStep] = []
        for t in self.order():
            if t.phase not in phases or not self.is_enabled(t):
                continue
            if isinstance(t, Step):
                if t.when == WHEN_NHWC and not (frontend is not None and frontend.nhwc and nhwc_to_nchw):
                    continue
                for spec in t.passes:
                    if spec == LEGALIZATION:
                        out += [pass_step(p) for p in (frontend.legalization if frontend else ())]
                    else:
                        out.append(pass_step(spec))
                continue
            cls = type(t)
            if cls.phase == FRONT and (
                frontend is None or cls.framework not in (None, frontend.name) or isinstance(t, OpReplacement)
            ):
                continue
            out.append(PipelineStep(t, cls.id, cls.source))
        return out

    def prepare(self, module: ModuleOp) -> None:
        """Before a conversion runs: the transformations config's entries are
        matched on the framework module (scope / points sub-graphs)."""
        from xmo.frontends import frontend_of_module

        if self.config is not None and frontend_of_module(module) is not None:
            self.config.match(module, self)

    def run(self, module: ModuleOp, ctx: Context, phases: Sequence[str], *, nhwc_to_nchw: bool = True) -> bool:
        """Run the passes of ``phases`` on ``module`` (with the converter tables
        of its framework active); True when there were any."""
        from xmo.frontends import frontend_of_module

        frontend = frontend_of_module(module)
        if FRONT in phases:
            self.prepare(module)
        steps = self.pipeline(phases, frontend=frontend, nhwc_to_nchw=nhwc_to_nchw)
        Pipeline(steps, self.tables_for(frontend), self.verify_each).run(ctx, module)
        return bool(steps)

    # -- converter tables ----------------------------------------------------------------
    def front_converters(self, framework: str | None) -> Any:
        """The converter table (:class:`~xmo.passes.to_ov.scoped.ConverterTable`
        of ``framework``'s registry) of the enabled front op replacements:
        TF op type, or ONNX (domain, op type) at every version -> converter.
        Two of them for one op are a :class:`TransformationOrderError`."""
        from xmo.passes.to_ov.scoped import ConverterTable, scope_for

        table: ConverterTable[Any, Any] = ConverterTable(framework or "tf", "front op replacements")
        todo = [
            self.instances[node.id]
            for node in self.nodes
            if isinstance(node, type) and issubclass(node, OpReplacement) and node.phase == FRONT
            and node.op and node.framework in (None, framework) and self.is_enabled(node)
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

    def tables_for(self, frontend: Any) -> list[Any]:
        """The converter tables active while a model of ``frontend`` converts."""
        return self.converter_tables(frontend.name) if frontend is not None else self.converters


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
    for obj in vars(module).values():
        if (
            isinstance(obj, type)
            and issubclass(obj, Transformation)
            and obj.__module__ == module.__name__
            and obj.id
        ):
            yield obj


__all__ = [
    "DISABLED_ENV",
    "ENABLED_ENV",
    "PhaseManager",
    "iter_transformations",
]
