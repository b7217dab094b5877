"""TF1 while loops (control-flow frames) raised to functional ``While`` ops.

A GraphDef frozen with lowered control flow (TensorFlow 1 graphs, and TF2
graphs frozen with ``lower_control_flow=True``) writes a while loop as a
*frame*: per loop variable an ``Enter`` (the initial value, into the frame),
a ``Merge`` of it with a ``NextIteration`` (the value of the next
iteration), a ``Switch`` of the merged value on the ``LoopCond`` (port 1
feeds the body, port 0 an ``Exit`` leaving the frame); loop-invariant values
enter through ``Enter`` nodes with ``is_constant``. The graph has a cycle per
loop variable (Merge -> Switch -> body -> NextIteration -> Merge), which the
``tf`` dialect (SSA, one block) cannot hold.

:func:`raise_frames` rewrites such a GraphDef into the functional form a
graph frozen with ``lower_control_flow=False`` has, so one conversion path
(:mod:`xmo.passes.tf_to_ov.families.functional`) serves both:

* each frame becomes one ``While`` node named after the frame, whose inputs
  are the Enter nodes' inputs (loop variables first, then the invariant
  values) and whose ``cond`` / ``body`` are two new FunctionDefs of the
  library: ``cond`` holds the nodes the LoopCond's input depends on, ``body``
  those the NextIteration nodes' inputs depend on, with the Merge / Switch
  outputs and the invariant Enters read as the function's arguments (the
  body returns the invariants unchanged);
* each ``Exit`` some node reads becomes an ``Identity`` of the same name
  reading the While's output, so the nodes after the loop (and the tensor
  names) stay (control edges from an Exit go);
* the frame's other nodes (control NoOps, the plumbing) go.

Frames nest: the innermost loops are raised first, their While node then
being a node of the enclosing frame. A frame of another shape (a Merge that
is not Enter + NextIteration, a value leaving the frame other than through
an Exit, ...) is refused with one line naming the frame.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from xmo.errors import ModelError
from xmo.frontends.tf import schema

_CONTROL_FLOW = frozenset({"Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"})


class FrameError(ModelError):
    """A frame :func:`raise_frames` cannot raise (the loader makes it a
    TFFrontendError)."""


def has_frames(graph: Any) -> bool:
    """True when the GraphDef has TF1 while loops (``Enter`` nodes)."""
    return any(n.op == "Enter" for n in graph.node)


def _split(inp: str) -> tuple[str, int, bool]:
    """``(node, port, is_control)`` of an input string."""
    if inp.startswith("^"):
        return inp[1:], 0, True
    node, sep, port = inp.rpartition(":")
    if sep and port.isdigit():
        return node, int(port), False
    return inp, 0, False


def _ref(node: str, port: int) -> str:
    return node if port == 0 else f"{node}:{port}"


@dataclass
class _Frame:
    name: str
    parent: str | None
    depth: int
    members: list[str] = field(default_factory=list)


@dataclass
class _Var:
    enter: Any
    merge: Any | None = None
    switch: Any | None = None
    next_iteration: Any | None = None
    exit: Any | None = None


class _Raiser:
    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.nodes: dict[str, Any] = {}
        for n in graph.node:
            c = schema.NodeDef()
            c.CopyFrom(n)
            self.nodes[n.name] = c
        self.order = [n.name for n in graph.node]
        self.functions: list[Any] = []
        self.function_names = {f.signature.name for f in graph.library.function}

    # -- frames ------------------------------------------------------------------------
    def frames(self) -> tuple[dict[str, str], dict[str, _Frame]]:
        """Frame of every node (root ``""``), as TensorFlow's executor assigns them."""
        users: dict[str, list[str]] = {}
        for n in self.nodes.values():
            for inp in n.input:
                src = _split(inp)[0]
                users.setdefault(src, []).append(n.name)
        frames = {"": _Frame("", None, 0)}
        frame_of: dict[str, str] = {}
        queue: deque[str] = deque()
        for name in self.order:
            n = self.nodes[name]
            if not n.input:
                frame_of[name] = ""
                queue.append(name)
        while queue:
            src = queue.popleft()
            sn = self.nodes[src]
            for dst in users.get(src, ()):
                dn = self.nodes.get(dst)
                if dn is None:
                    continue
                if sn.op == "Exit":
                    f = frames[frame_of[src]].parent
                    if f is None:
                        raise FrameError(f"node '{src}' (Exit) leaves the root frame")
                elif dn.op == "Enter":
                    fname = dn.attr["frame_name"].s.decode("utf-8", "replace")
                    parent = frame_of[src]
                    f = fname
                    if f not in frames:
                        frames[f] = _Frame(f, parent, frames[parent].depth + 1)
                else:
                    f = frame_of[src]
                old = frame_of.get(dst)
                if old is None:
                    frame_of[dst] = f
                    queue.append(dst)
                elif old != f and dn.op != "Merge":
                    raise FrameError(
                        f"node '{dst}' ({dn.op}) is in two while-loop frames ('{old}' and '{f}')"
                    )
        for name in self.order:
            frames[frame_of.get(name, "")].members.append(name)
        return frame_of, frames

    # -- one frame -----------------------------------------------------------------
    def raise_frame(self, frame: _Frame, frame_of: dict[str, str]) -> None:
        where = f"while-loop frame '{frame.name}'"
        members = [self.nodes[m] for m in frame.members if m in self.nodes]
        member_names = {n.name for n in members}
        by_op: dict[str, list[Any]] = {}
        for n in members:
            by_op.setdefault(n.op, []).append(n)
        conds = by_op.get("LoopCond", [])
        if len(conds) != 1:
            raise FrameError(f"{where}: {len(conds)} LoopCond nodes (one expected)")
        loop_cond = conds[0]
        enters = by_op.get("Enter", [])
        loop_vars: list[_Var] = []
        invariants: list[Any] = []
        by_merge: dict[str, _Var] = {}
        enter_of: dict[str, Any] = {e.name: e for e in enters}
        for m in by_op.get("Merge", []):
            data = [_split(i) for i in m.input if not i.startswith("^")]
            if len(data) != 2:
                raise FrameError(f"{where}: Merge '{m.name}' has {len(data)} inputs (2 expected)")
            ins = [self.nodes.get(s) for s, _, _ in data]
            ent = next((x for x in ins if x is not None and x.op == "Enter"), None)
            nxt = next((x for x in ins if x is not None and x.op == "NextIteration"), None)
            if ent is None or nxt is None:
                raise FrameError(f"{where}: Merge '{m.name}' does not merge an Enter and a NextIteration")
            v = _Var(ent, merge=m, next_iteration=nxt)
            by_merge[m.name] = v
            loop_vars.append(v)
        merged_enters = {v.enter.name for v in loop_vars}
        for e in enters:
            if e.name not in merged_enters:
                if not e.attr["is_constant"].b:
                    raise FrameError(f"{where}: Enter '{e.name}' feeds no Merge")
                invariants.append(e)
        loop_vars.sort(key=lambda v: self.order.index(v.enter.name))
        for s in by_op.get("Switch", []):
            data = [_split(i) for i in s.input if not i.startswith("^")]
            if len(data) != 2 or data[1][0] != loop_cond.name or data[0][0] not in by_merge:
                raise FrameError(f"{where}: Switch '{s.name}' does not switch a Merge on the LoopCond")
            by_merge[data[0][0]].switch = s
        switch_of = {v.switch.name: v for v in loop_vars if v.switch is not None}
        for x in by_op.get("Exit", []):
            src, port, _ = _split(x.input[0])
            v = switch_of.get(src)
            if v is None or port != 0:
                raise FrameError(f"{where}: Exit '{x.name}' does not leave through a Switch's port 0")
            v.exit = x
        # the frame's values leave only through its Exits
        for n in self.nodes.values():
            if frame_of.get(n.name, "") == frame.name:
                continue
            for inp in n.input:
                src, _, control = _split(inp)
                if src in member_names and not control and self.nodes[src].op != "Exit":
                    raise FrameError(
                        f"{where}: node '{n.name}' reads '{inp}' inside the frame (not through an Exit)"
                    )
        n_vars = len(loop_vars)
        args: dict[tuple[str, int], int] = {}
        for j, v in enumerate(loop_vars):
            args[(v.merge.name, 0)] = j
            if v.switch is not None:
                args[(v.switch.name, 1)] = j
        for k, e in enumerate(invariants):
            args[(e.name, 0)] = n_vars + k
        types = [v.enter.attr["T"].type for v in loop_vars] + [e.attr["T"].type for e in invariants]
        base = re.sub(r"[^\w.-]", "_", frame.name) or "while"
        cond_name = self._function_name(f"{base}_cond")
        body_name = self._function_name(f"{base}_body")
        pred_src, pred_port, _ = _split(loop_cond.input[0])
        self.functions.append(self._function(
            cond_name, types, args, [(pred_src, pred_port)], [schema.DataType.DT_BOOL],
            member_names, where,
        ))
        body_rets = []
        for v in loop_vars:
            src, port, _ = _split(v.next_iteration.input[0])
            body_rets.append((src, port))
        body_rets += [(e.name, 0) for e in invariants]
        self.functions.append(self._function(
            body_name, types, args, body_rets, types, member_names, where,
        ))
        # the While node (in the enclosing frame) and the Exits as Identities
        wname = frame.name if frame.name not in self.nodes else f"{frame.name}/While"
        w = schema.NodeDef(name=wname, op="While")
        w.input.extend([v.enter.input[0] for v in loop_vars] + [e.input[0] for e in invariants])
        for i in w.input:
            if i.startswith("^"):
                raise FrameError(f"{where}: Enter without a data input")
        w.attr["T"].list.type.extend(types)
        w.attr["cond"].func.name = cond_name
        w.attr["body"].func.name = body_name
        w.attr["parallel_iterations"].i = loop_vars[0].enter.attr["parallel_iterations"].i if loop_vars else 10
        removed = set(member_names)
        first = min(self.order.index(n) for n in removed)
        for name in removed:
            del self.nodes[name]
        new_order = [n for n in self.order if n not in removed]
        new_order.insert(min(first, len(new_order)), wname)
        self.nodes[wname] = w
        frame_of[wname] = frame.parent or ""
        read = {_split(i)[0] for n in self.nodes.values() for i in n.input if not i.startswith("^")}
        for j, v in enumerate(loop_vars):
            if v.exit is None or v.exit.name not in read:
                continue  # only control edges from it: they go
            x = schema.NodeDef(name=v.exit.name, op="Identity", input=[_ref(wname, j)])
            x.attr["T"].type = types[j]
            self.nodes[x.name] = x
            frame_of[x.name] = frame.parent or ""
            new_order.insert(new_order.index(wname) + 1 + j, x.name)
        self.order = new_order
        # control inputs naming removed nodes go (an Exit's name lives on)
        for n in self.nodes.values():
            keep = [i for i in n.input if not (i.startswith("^") and i[1:] not in self.nodes)]
            if len(keep) != len(n.input):
                del n.input[:]
                n.input.extend(keep)

    def _function_name(self, base: str) -> str:
        name, k = base, 1
        while name in self.function_names:
            k += 1
            name = f"{base}_{k}"
        self.function_names.add(name)
        return name

    def _function(
        self,
        name: str,
        types: list[int],
        args: dict[tuple[str, int], int],
        rets: list[tuple[str, int]],
        ret_types: list[int],
        members: set[str],
        where: str,
    ) -> Any:
        """A FunctionDef computing ``rets`` from the frame's nodes, reading
        the loop variables through ``args`` ((node, port) -> argument)."""
        used: set[str] = set()
        stack = [src for src, port in rets if (src, port) not in args]
        while stack:
            n = stack.pop()
            if n in used:
                continue
            node = self.nodes.get(n)
            outside_const = node is not None and node.op == "Const" and not node.input
            if node is None or (n not in members and not outside_const):
                raise FrameError(f"{where}: the loop reads '{n}', which is not in the frame")
            if node.op in _CONTROL_FLOW:
                raise FrameError(f"{where}: the loop reads {node.op} '{n}' where a value is expected")
            used.add(n)
            for inp in node.input:
                src, port, control = _split(inp)
                if not control and (src, port) not in args:
                    stack.append(src)
        arg_names = self._arg_names(len(types), used)
        f = schema.FunctionDef()
        f.signature.name = name
        for i, t in enumerate(types):
            a = f.signature.input_arg.add(name=arg_names[i])
            a.type = t
        for n in self.order:
            if n not in used:
                continue
            c = f.node_def.add()
            c.CopyFrom(self.nodes[n])
            ins = []
            for inp in c.input:
                src, port, control = _split(inp)
                if control:
                    if src in used:
                        ins.append(inp)
                elif (src, port) in args:
                    ins.append(arg_names[args[(src, port)]])
                else:
                    ins.append(_ref(src, port))
            del c.input[:]
            c.input.extend(ins)
        for i, ((src, port), t) in enumerate(zip(rets, ret_types)):
            oname = f"output_{i}"
            f.signature.output_arg.add(name=oname).type = t
            f.ret[oname] = arg_names[args[(src, port)]] if (src, port) in args else _ref(src, port)
        return f

    @staticmethod
    def _arg_names(n: int, taken: set[str]) -> list[str]:
        names = []
        for i in range(n):
            name = f"loop_var_{i}"
            while name in taken:
                name += "_"
            names.append(name)
        return names

    def result(self) -> Any:
        g = schema.GraphDef()
        g.CopyFrom(self.graph)
        del g.node[:]
        g.node.extend(self.nodes[n] for n in self.order)
        g.library.function.extend(self.functions)
        return g


def raise_frames(graph: Any) -> Any:
    """A copy of the GraphDef with every TF1 while-loop frame raised to a
    ``While`` node and two functions (see the module docstring); raises
    :class:`FrameError` for a frame it cannot raise."""
    r = _Raiser(graph)
    frame_of, frames = r.frames()
    for frame in sorted((f for f in frames.values() if f.parent is not None), key=lambda f: -f.depth):
        frame_members = [n for n, f in frame_of.items() if f == frame.name]
        frame.members = [n for n in r.order if n in set(frame_members)]
        r.raise_frame(frame, frame_of)
    return r.result()


__all__ = ["FrameError", "has_frames", "raise_frames"]
