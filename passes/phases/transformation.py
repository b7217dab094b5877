"""Phase-ordered transformations: the classes extensions subclass.

A transformation is a class with an ``id``, a ``phase`` (``front``: the
framework dialect before legalization; ``middle``: the ``ov`` dialect after
legalization; ``back``: the ``ov`` dialect just before serialization),
``enabled`` (opt-in transformations set False and are switched on by id),
``run_before()`` / ``run_after()`` (other transformation classes or ids),
``graph_condition`` (predicates on the module; all must hold for it to run)
and flags: ``infer_shapes`` (re-infer the types of changed ops; middle and
back), ``clean_up`` (erase ops left without consumers) and
``run_in_regions`` (visit nested blocks too).

Every transformation is an xDSL ``ModulePass`` (a
:class:`~xmo.passes.transformations.TransformationPass`, which reports
whether it changed the module) whose pass name is its id: the
:class:`~.manager.PhaseManager` places it in the conversion pipeline among
the built-in steps, and ``xmo-opt --extensions DIR -p <id>`` runs it alone.

Kinds:

* :class:`Transformation` (generic): ``find_and_replace_pattern(graph)`` on the
  whole module. ``graph`` is an :class:`xmo.graph.Graph` in the middle and
  back phases and a :class:`~.view.ModuleView` in the front phase.
* :class:`OpReplacement`: ``op = "ComplexAbs"``; ``replace_op(...)`` returns
  the values replacing the op's outputs. In the front phase it legalizes that
  framework op, taking the place of its converter (built-in ones included):
  ``replace_op(node, builder)`` gets what a converter gets and returns ov
  values, one per output: ``node`` is a
  :class:`~xmo.passes.to_ov.builder.ConverterNode` (``.input(i)``,
  ``.attr(name, default)``, ``.const(i)``; for ONNX also ``.domain``,
  ``.version``); ``builder`` a
  :class:`~xmo.passes.tf_to_ov.builder.TFBuilder` for TF and a
  :class:`~xmo.passes.to_ov.builder.Builder` for ONNX (``op`` of
  ``domain``, default ``""`` = ai.onnx; any version). In the middle and back
  phases it replaces ``ov`` ops of that type (``replace_op(graph, node)``,
  returning output ports or a node). Friendly and tensor names move to the
  replacement.
* :class:`SubgraphReplacement`: ``pattern()`` returns ``dict(nodes=[(label,
  attrs)], edges=[(src, dst, {"in": i, "out": j})])`` (the Model Optimizer's
  pattern dictionaries); ``replace_sub_graph(graph, match)`` gets each match
  (label -> node).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from xmo.errors import TransformationError
from xmo.passes.phases.view import ModuleView, OpView
from xmo.passes.pipeline import FRONT, MIDDLE, make_pass
from xmo.passes.transformations.base import TransformationPass

log = logging.getLogger("xmo.transformations")


class TransformationOrderError(TransformationError):
    """Dependencies that cannot be ordered (a cycle, an unknown id)."""


class Transformation(TransformationPass):
    """A generic transformation of the whole module (see the module docstring).

    Every transformation is an xDSL ``ModulePass`` named by its ``id`` (so
    ``xmo-opt --extensions DIR -p <id>`` runs it); the
    :class:`~.manager.PhaseManager` puts it into the conversion pipeline.
    Run as a pass it checks its ``graph_condition`` (and, in the front
    phase, that the module is of its framework), finds and replaces, and
    cleans up (``ov-dce``) when it changed something.
    """

    id: ClassVar[str] = ""
    name: ClassVar[str] = "transformation"
    enabled: ClassVar[bool] = True
    phase: ClassVar[str] = MIDDLE
    #: front transformations: framework they apply to ("tf", "onnx"; None: any)
    framework: ClassVar[str | None] = None
    graph_condition: ClassVar[Sequence[Callable[[ModuleOp], bool]]] = ()
    infer_shapes: ClassVar[bool] = True
    clean_up: ClassVar[bool] = True
    run_in_regions: ClassVar[bool] = False
    #: where the class was defined (set by the extension loader)
    source: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "id" in cls.__dict__ and cls.id:
            cls.name = cls.id  # the pass name is the id

    def __init__(self, custom_attributes: dict[str, Any] | None = None) -> None:
        #: ``custom_attributes`` of this id's ``--transformations_config`` entry
        self.custom_attributes: dict[str, Any] = dict(custom_attributes or {})
        #: the config entry itself (``match_kind``, ``instances``...), if any
        self.config: dict[str, Any] | None = None

    def run_before(self) -> Sequence[type[Transformation] | str]:
        return ()

    def run_after(self) -> Sequence[type[Transformation] | str]:
        return ()

    def find_and_replace_pattern(self, graph: Any) -> bool | None:
        raise NotImplementedError(f"{type(self).__name__} defines no find_and_replace_pattern()")

    # -- running as a pass ---------------------------------------------------------
    def describe(self) -> str:
        cls = type(self)
        return f"'{cls.id}'" + (f" ({cls.source})" if cls.source else "")

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        """Run once on ``module`` as a pass; True when it changed it. Errors
        are a :class:`TransformationError` naming the transformation."""
        cls = type(self)
        if cls.phase == FRONT:
            from xmo.frontends import frontend_of_module

            if isinstance(self, OpReplacement):
                raise TransformationError(
                    f"{self.describe()} replaces {cls.op} during the legalization; it is not a pass"
                )
            frontend = frontend_of_module(module)
            if frontend is None or cls.framework not in (None, frontend.name):
                return False
        if not all(cond(module) for cond in cls.graph_condition):
            log.info("transformation %s skipped: graph_condition", cls.id)
            return False
        try:
            changed = self.apply_to(ctx, module)
        except TransformationError:
            raise
        except Exception as e:
            raise TransformationError(f"transformation {self.describe()}: {e}") from e
        if changed and cls.clean_up and cls.phase != FRONT:
            make_pass("ov-dce").apply(ctx, module)
        return changed

    def blocks(self, module: ModuleOp) -> list[Block]:
        """The module's block, and every nested block when ``run_in_regions``."""
        top = module.body.block
        if not self.run_in_regions:
            return [top]
        out = [top]
        for op in top.walk():
            if op is module:
                continue
            for region in op.regions:
                out.extend(region.blocks)
        return out

    def apply_to(self, ctx: Any, module: ModuleOp) -> bool:
        """Find and replace on ``module`` (and its nested blocks); True when it changed."""
        changed = False
        for block in self.blocks(module):
            changed |= self._apply_block(ctx, module, block)
        return changed

    def _apply_block(self, ctx: Any, module: ModuleOp, block: Block) -> bool:
        if self.phase == FRONT:
            view = ModuleView(block, ctx)
            changed = bool(self.find_and_replace_pattern(view)) or view.changed
            if self.clean_up and changed:
                view.remove_dead()
            return changed
        graph = _graph(module, block, ctx)
        changed = bool(self.find_and_replace_pattern(graph))
        if self.infer_shapes:
            graph.finalize()
        return changed or graph.changed


def _graph(module: ModuleOp, block: Block, ctx: Any):
    from xmo.graph import Graph

    if block is module.body.block:
        return Graph(module, ctx)
    raise NotImplementedError(
        "run_in_regions: the ov dialect has no nested regions; middle and back "
        "transformations see the top-level block only"
    )


class OpReplacement(Transformation):
    """Replace every op of type ``op`` (see the module docstring)."""

    op: ClassVar[str] = ""
    #: front ONNX op replacements: the domain of ``op`` ("" = ai.onnx)
    domain: ClassVar[str] = ""

    def replace_op(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no replace_op()")

    def find_and_replace_pattern(self, graph: Any) -> bool:
        if self.phase == FRONT:
            # front op replacements legalize their op: see PhaseManager.front_converters
            return False
        from xmo.graph import Node
        from xmo.graph.replace import replace_node
        from xmo.graph.rt_info import copy_runtime_info

        changed = False
        for node in list(graph.nodes()):
            if node.type != self.op or not node.alive:
                continue
            out = self.replace_op(graph, node)
            if out is None:
                continue
            name = node.name
            ports = [out] if not isinstance(out, Node | list | tuple) else out
            new_nodes = [out] if isinstance(out, Node) else [p.node for p in ports]
            copy_runtime_info(node, new_nodes)
            replace_node(node, out if isinstance(out, Node) else list(ports))
            if name:
                new_nodes[0].name = name
            changed = True
        return changed


class SubgraphReplacement(Transformation):
    """Match a sub-graph pattern and replace each match (see the module docstring)."""

    def pattern(self) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} defines no pattern()")

    def replace_sub_graph(self, graph: Any, match: dict[str, Any]) -> bool | None:
        raise NotImplementedError(f"{type(self).__name__} defines no replace_sub_graph()")

    def find_and_replace_pattern(self, graph: Any) -> bool:
        block = graph.block
        pattern = self.pattern()
        changed = False
        done: set[Operation] = set()
        for match in find_matches(block, pattern):
            if any(v.op in done or v.op.parent is None for v in match.values()):
                continue  # an op an earlier replacement consumed
            if self.phase != FRONT:
                match = {k: graph.node(v.op) for k, v in match.items()}
                ops = [n.op for n in match.values()]
            else:
                ops = [v.op for v in match.values()]
            if self.replace_sub_graph(graph, match):
                changed = True
                done.update(ops)
        return changed


# -- sub-graph matching ---------------------------------------------------------------


def _attr_ok(node: OpView, key: str, want: Any) -> bool:
    if key in ("op", "type"):
        have = node.type
    elif key == "name":
        have = node.name
        if isinstance(want, re.Pattern):
            return want.fullmatch(have) is not None
    else:
        have = node.attr(key)
    if callable(want) and not isinstance(want, type):
        try:
            return bool(want(have))
        except Exception:  # noqa: BLE001 - a predicate that does not apply
            return False
    if isinstance(want, list | tuple) and have is not None and not isinstance(have, str):
        return list(have) == list(want)
    return have == want


def find_matches(block: Block, pattern: dict[str, Any]) -> list[dict[str, OpView]]:
    """Every assignment of ``pattern``'s node labels to ops of ``block``.

    ``nodes``: ``(label, attrs)`` with ``attrs`` mapping ``op`` (the op type),
    ``name`` (a string or compiled regex) or any attribute name to a value or
    a predicate ``fn(value) -> bool``. ``edges``: ``(src, dst)`` or ``(src,
    dst, {"out": j, "in": i})``: output ``j`` (default 0) of ``src`` feeds
    input ``i`` of ``dst`` (any input when ``in`` is absent). Distinct labels
    match distinct ops.
    """
    nodes = list(pattern.get("nodes", ()))
    edges = [(e[0], e[1], dict(e[2]) if len(e) > 2 else {}) for e in pattern.get("edges", ())]
    labels = [n[0] for n in nodes]
    attrs = {n[0]: dict(n[1]) if len(n) > 1 else {} for n in nodes}
    for s, d, _ in edges:
        if s not in attrs or d not in attrs:
            raise ValueError(f"pattern edge ({s}, {d}) names an unknown node")
    all_ops = [OpView(op) for op in block.ops]
    by_type: dict[str, list[OpView]] = {}
    for v in all_ops:
        by_type.setdefault(v.type, []).append(v)

    def candidates(label: str) -> list[OpView]:
        t = attrs[label].get("op", attrs[label].get("type"))
        pool = by_type.get(t, []) if isinstance(t, str) else all_ops
        return [v for v in pool if all(_attr_ok(v, k, w) for k, w in attrs[label].items())]

    cands = {label: candidates(label) for label in labels}
    order = sorted(labels, key=lambda lb: len(cands[lb]))

    def edge_ok(assign: dict[str, OpView]) -> bool:
        for s, d, e in edges:
            if s not in assign or d not in assign:
                continue
            src, dst = assign[s].op, assign[d].op
            out = e.get("out", 0)
            if out >= len(src.results):
                return False
            val = src.results[out]
            if "in" in e:
                i = e["in"]
                if i >= len(dst.operands) or dst.operands[i] is not val:
                    return False
            elif not any(o is val for o in dst.operands):
                return False
        return True

    found: list[dict[str, OpView]] = []

    def extend(i: int, assign: dict[str, OpView]) -> None:
        if i == len(order):
            found.append({lb: assign[lb] for lb in labels})
            return
        label = order[i]
        used = {v.op for v in assign.values()}
        for v in cands[label]:
            if v.op in used:
                continue
            assign[label] = v
            if edge_ok(assign):
                extend(i + 1, assign)
            del assign[label]

    extend(0, {})
    return found


__all__ = [
    "OpReplacement",
    "SubgraphReplacement",
    "Transformation",
    "TransformationOrderError",
    "find_matches",
]
