"""``--transformations_config FILE.json``: transformation entries by id.

The file is a JSON list of entries::

    [
      {"id": "my-block", "match_kind": "scope",
       "instances": ["model/block_\\\\d+/"], "custom_attributes": {"alpha": 0.5}},
      {"id": "my-tail", "match_kind": "points",
       "instances": {"start_points": ["strided_slice"], "end_points": ["Abs"]}},
      {"id": "my-opt", "match_kind": "general", "custom_attributes": {"level": 2}}
    ]

* ``id``: a loaded transformation's id; it receives the entry
  (``self.config``) and ``custom_attributes`` (``self.custom_attributes``).
* ``scope``: ``instances`` are regular expressions matched against the start
  of node names; each instance's nodes form one sub-graph. Its ``inputs``
  (edges entering it) and ``outputs`` (edges leaving it) are computed;
  ``update=True`` (``xmo convert --update_transformations_config``) writes
  them back into the file.
* ``points``: ``start_points`` / ``end_points`` node names: the sub-graph is
  every node reached forward from the starts, stopping at the ends, plus
  everything its nodes other than the starts need (followed backwards; the
  starts' inputs are the sub-graph's inputs). An end that is not reached, or
  a model input pulled in backwards, is an error.
* ``general``: only ``custom_attributes``.

Matches are computed on the framework dialect before the front phase and
handed to :class:`ConfigReplacement` transformations (``self.matches``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xmo.passes.phases.transformation import Transformation
from xmo.passes.phases.view import ModuleView, OpView, op_name
from xmo.passes.pipeline import FRONT
from xmo.errors import XmoError

MATCH_KINDS = ("scope", "points", "general")
_INPUT_OPS = ("tf.Placeholder", "onnx.Input", "ov.Parameter")


class TransformationsConfigError(XmoError):
    """A malformed or unmatchable transformations config (names the file and entry)."""


@dataclass
class SubgraphMatch:
    """One matched sub-graph: its nodes (block order), the edges entering it
    (``(node, input port)`` inside) and leaving it (``(node, output port)``)."""

    instance: Any
    nodes: list[OpView]
    inputs: list[tuple[OpView, int]] = field(default_factory=list)
    outputs: list[tuple[OpView, int]] = field(default_factory=list)

    def node_names(self) -> list[str]:
        return [n.name for n in self.nodes]

    def __contains__(self, node: OpView) -> bool:
        return any(n.op is node.op for n in self.nodes)


def _boundary(block_ops: Sequence[Operation], inside: set[Operation]) -> tuple[list, list]:
    inputs: list[tuple[OpView, int]] = []
    outputs: list[tuple[OpView, int]] = []
    for op in block_ops:
        if op not in inside:
            continue
        for i, v in enumerate(op.operands):
            if v.owner not in inside:
                inputs.append((OpView(op), i))
        for k, r in enumerate(op.results):
            if any(u.operation not in inside for u in r.uses):
                outputs.append((OpView(op), k))
    return inputs, outputs


def match_scope(module: ModuleOp, pattern: str) -> SubgraphMatch:
    rx = re.compile(pattern)
    ops = list(module.body.block.ops)
    inside = {op for op in ops if rx.match(op_name(op))}
    ins, outs = _boundary(ops, inside)
    return SubgraphMatch(pattern, [OpView(op) for op in ops if op in inside], ins, outs)


def match_points(module: ModuleOp, starts: Sequence[str], ends: Sequence[str], where: str) -> SubgraphMatch:
    ops = list(module.body.block.ops)
    by_name = {op_name(op): op for op in ops if op_name(op)}
    for n in [*starts, *ends]:
        if n not in by_name:
            raise TransformationsConfigError(f"{where}: no node named '{n}'")
    end_ops = {by_name[n] for n in ends}
    inside: set[Operation] = set()
    todo = [by_name[n] for n in starts]
    while todo:  # forward from the starts, stopping at the ends
        op = todo.pop()
        if op in inside:
            continue
        inside.add(op)
        if op in end_ops:
            continue
        for r in op.results:
            for u in r.uses:
                if u.operation.name not in ("tf.Output",) and u.operation.parent is op.parent:
                    todo.append(u.operation)
    missing = [n for n in ends if by_name[n] not in inside]
    if missing:
        raise TransformationsConfigError(
            f"{where}: end point{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            "not reached from the start points"
        )
    start_ops = {by_name[n] for n in starts}
    todo = [op for op in inside if op not in start_ops]
    while todo:  # what the internal nodes need, backwards
        op = todo.pop()
        for v in op.operands:
            owner = v.owner
            if not isinstance(owner, Operation) or owner in inside:
                continue
            if owner.name in _INPUT_OPS:
                raise TransformationsConfigError(
                    f"{where}: the sub-graph pulls in the model input '{op_name(owner)}' "
                    f"(needed by '{op_name(op)}'); add a start point before it"
                )
            inside.add(owner)
            todo.append(owner)
    ins, outs = _boundary(ops, inside)
    return SubgraphMatch(
        {"start_points": list(starts), "end_points": list(ends)},
        [OpView(op) for op in ops if op in inside],
        ins,
        outs,
    )


class TransformationsConfig:
    """The entries of a transformations config file, by id."""

    def __init__(self, entries: list[dict[str, Any]], path: str | Path | None = None, update: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.update = update
        where = str(self.path) if self.path else "transformations config"
        if not isinstance(entries, list):
            raise TransformationsConfigError(f"{where}: expected a JSON list of entries")
        self.entries: dict[str, dict[str, Any]] = {}
        for k, e in enumerate(entries):
            w = f"{where}: entry {k}"
            if not isinstance(e, dict) or not isinstance(e.get("id"), str) or not e["id"]:
                raise TransformationsConfigError(f"{w}: needs an 'id' string")
            w = f"{where}: entry '{e['id']}'"
            kind = e.get("match_kind", "general")
            if kind not in MATCH_KINDS:
                raise TransformationsConfigError(
                    f"{w}: match_kind must be one of {', '.join(MATCH_KINDS)}, got '{kind}'"
                )
            attrs = e.get("custom_attributes", {})
            if not isinstance(attrs, dict):
                raise TransformationsConfigError(f"{w}: custom_attributes must be an object")
            inst = e.get("instances")
            if kind == "scope" and not (
                isinstance(inst, list) and inst and all(isinstance(i, str) for i in inst)
            ):
                raise TransformationsConfigError(f"{w}: scope instances must be a list of regexes")
            if kind == "points" and not (
                isinstance(inst, dict)
                and all(isinstance(inst.get(k), list) and inst.get(k) for k in ("start_points", "end_points"))
            ):
                raise TransformationsConfigError(
                    f"{w}: points instances need start_points and end_points lists"
                )
            if e["id"] in self.entries:
                raise TransformationsConfigError(f"{w}: defined twice")
            self.entries[e["id"]] = dict(e, match_kind=kind, custom_attributes=attrs)
        self._raw = entries

    @classmethod
    def load(cls, path: str | Path, update: bool = False) -> TransformationsConfig:
        from xmo.input_files import open_input

        p = Path(path)
        try:
            with open_input(p, TransformationsConfigError) as f:  # not a FIFO
                data = json.loads(f.read().decode("utf-8"))
        except UnicodeDecodeError:
            raise TransformationsConfigError(f"{p}: not valid JSON: not UTF-8 text") from None
        except OSError as e:
            raise TransformationsConfigError(f"{p}: {e.strerror or e}") from None
        except json.JSONDecodeError as e:
            raise TransformationsConfigError(f"{p}: not valid JSON: {e}") from None
        return cls(data, p, update)

    def entry(self, id_: str) -> dict[str, Any] | None:
        return self.entries.get(id_)

    def match(self, module: ModuleOp, manager: Any) -> None:
        """Check every id is loaded; compute the matches of scope/points entries."""
        where = str(self.path) if self.path else "transformations config"
        for id_, e in self.entries.items():
            if id_ not in manager.by_id:
                raise TransformationsConfigError(
                    f"{where}: entry '{id_}': no transformation with this id is loaded"
                )
            kind = e["match_kind"]
            if kind == "scope":
                e["matches"] = [match_scope(module, i) for i in e["instances"]]
                if self.update:
                    m0 = e["matches"]
                    e["inputs"] = [[{"node": n.name, "port": p} for n, p in m.inputs] for m in m0]
                    e["outputs"] = [[{"node": n.name, "port": p} for n, p in m.outputs] for m in m0]
            elif kind == "points":
                inst = e["instances"]
                e["matches"] = [
                    match_points(module, inst["start_points"], inst["end_points"], f"{where}: entry '{id_}'")
                ]
            inst_obj = manager.instances.get(id_)
            if inst_obj is not None:
                inst_obj.config = e
                inst_obj.custom_attributes = dict(e.get("custom_attributes") or {})
        if self.update and self.path is not None:
            self.save(self.path)

    def save(self, path: str | Path) -> None:
        out = []
        for e in self.entries.values():
            out.append({k: v for k, v in e.items() if k != "matches"})
        Path(path).write_text(json.dumps(out, indent=2) + "\n")


class ConfigReplacement(Transformation):
    """A front transformation driven by its config entry: ``replace_sub_graph
    (graph, match)`` for each matched :class:`SubgraphMatch` (scope, points);
    ``general`` entries only hand over ``custom_attributes``."""

    phase = FRONT

    @property
    def matches(self) -> list[SubgraphMatch]:
        return list((self.config or {}).get("matches", []))

    def replace_sub_graph(self, graph: ModuleView, match: SubgraphMatch) -> bool | None:
        raise NotImplementedError(f"{type(self).__name__} defines no replace_sub_graph()")

    def find_and_replace_pattern(self, graph: Any) -> bool:
        changed = False
        for m in self.matches:
            if any(n.op.parent is None for n in m.nodes):
                continue
            changed |= bool(self.replace_sub_graph(graph, m))
        return changed


__all__ = [
    "MATCH_KINDS",
    "ConfigReplacement",
    "SubgraphMatch",
    "TransformationsConfig",
    "TransformationsConfigError",
    "match_points",
    "match_scope",
]
