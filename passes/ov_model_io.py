"""Passes applying the conversion options that change a converted model.

* ``ov-set-outputs{outputs=...}`` (``--output``): cut the model at these tensors;
* ``ov-change-layout{layout=...}`` (``--layout``): inputs / outputs in another
  layout, with Transposes the layout change then sinks;
* ``ov-check-static-shapes`` (``--static_shape``): every input is static.

The default pipeline adds them after the middle phase
(:func:`xmo.passes.pipeline.option_passes`); the options are parsed by
:mod:`xmo.options`, whose :class:`~xmo.options.OptionError` they raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, dims_of
from xmo.options import OptionError, parse_layout_spec


def set_outputs(module: ModuleOp, names: Any) -> None:
    """Cut ``module`` at the given output tensor names (replaces the Results)."""
    if names is None:
        return
    wanted = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    by_name = {}
    for op in module.body.block.ops:
        if isinstance(op, OVOp):
            for i, r in enumerate(op.results):
                for n in op.get_tensor_names(i):
                    by_name.setdefault(n, r)
            if op.get_friendly_name() and op.results:
                by_name.setdefault(op.get_friendly_name(), op.results[0])
    missing = [n for n in wanted if n not in by_name]
    if missing:
        raise OptionError(f"--output: no tensor named {', '.join(missing)}")
    for op in [o for o in module.body.block.ops if isinstance(o, ResultOp)]:
        op.detach()
        op.erase()
    module.body.block.add_ops([ResultOp.new(by_name[n]) for n in wanted])


def check_static_shapes(module: ModuleOp) -> None:
    """``--static_shape``: every input must have a static shape."""
    for op in module.body.block.ops:
        if isinstance(op, ParameterOp):
            dims = dims_of(op.results[0].type)
            if dims is None or any(d < 0 for d in dims):
                raise OptionError(
                    f"--static_shape: input '{op.get_friendly_name()}' has shape "
                    f"{op.results[0].type}; give it with --input name[dims]"
                )




def change_layouts(module: ModuleOp, spec: Any) -> bool:
    """Apply the ``layout`` option to an ov module; True when something changed.

    An input ``name(src->dst)`` becomes a Parameter in ``dst`` layout followed
    by a Transpose back to ``src`` (what the graph computes in); an output gets
    a Transpose from ``src`` to ``dst`` before its Result, which takes over the
    output's tensor names. The caller sinks and cancels the new transposes.
    """
    wanted = parse_layout_spec(spec)
    if not wanted:
        return False
    def names_of(op: OVOp, i: int) -> set[str]:
        names = set(op.get_tensor_names(i))
        if op.get_friendly_name():
            names.add(op.get_friendly_name())  # type: ignore[arg-type]
        return names

    block = module.body.block
    used: set[str | None] = set()
    for op in list(block.ops):
        if not isinstance(op, ParameterOp):
            continue
        names = names_of(op, 0)
        key = next((n for n in wanted if n is not None and n in names), None)
        dims = dims_of(op.results[0].type)
        if key is None and None in wanted and dims is not None and len(dims) == len(wanted[None][0]):
            key = None
        elif key is None:
            continue
        src, dst = wanted[key]
        if dims is None or len(dims) != len(src):
            raise OptionError(f"--layout: input '{op.get_friendly_name()}' has rank "
                              f"{'?' if dims is None else len(dims)}, layout {src} has {len(src)} dims")
        used.add(key)
        to_dst = _perm(src, dst)
        new_param = ParameterOp.new(
            et.from_xdsl(op.results[0].type.get_element_type()),  # type: ignore[attr-defined]
            [dims[i] for i in to_dst],
            name=op.get_friendly_name(),
            tensor_names=op.get_tensor_names(0),
        )
        for k, v in op.get_rt_info().items():
            new_param.set_rt_info(k, v)
        back = [dst.index(c) for c in src]
        order = ConstantOp.from_array(np.asarray(back, np.int64), "i64")
        tr = op_class("Transpose").make([new_param.results[0], order.results[0]], {})
        tr.set_friendly_name(f"{op.get_friendly_name()}/layout")
        block.insert_ops_before([new_param, order, tr], op)
        op.results[0].replace_all_uses_with(tr.results[0])
        op.detach()
        op.erase()
    for op in list(block.ops):
        if not isinstance(op, ResultOp):
            continue
        v = op.operands[0]
        owner = v.owner
        if not isinstance(owner, OVOp):
            continue
        names = names_of(owner, v.index)  # type: ignore[attr-defined]
        key = next((n for n in wanted if n is not None and n in names), "\0")
        if key == "\0":
            continue
        src, dst = wanted[key]  # type: ignore[index]
        dims = dims_of(v.type)
        if dims is None or len(dims) != len(src):
            raise OptionError(f"--layout: output '{key}' has rank "
                              f"{'?' if dims is None else len(dims)}, layout {src} has {len(src)} dims")
        used.add(key)
        order = ConstantOp.from_array(np.asarray(_perm(src, dst), np.int64), "i64")
        tr = op_class("Transpose").make([v, order.results[0]], {})
        tr.set_friendly_name(f"{key}/layout")
        tr.set_tensor_names(0, owner.get_tensor_names(v.index))  # type: ignore[attr-defined]
        owner.set_tensor_names(v.index, [])  # type: ignore[attr-defined]
        block.insert_ops_before([order, tr], op)
        op.operands[0] = tr.results[0]
    missing = [n for n in wanted if n is not None and n not in used]
    if missing:
        raise OptionError(f"--layout: no input or output named {', '.join(missing)}")
    if None in wanted and None not in used:
        raise OptionError(f"--layout: no input of rank {len(wanted[None][0])}")
    return True


def _perm(src: str, dst: str) -> list[int]:
    """Order ``p`` with ``dst[i] == src[p[i]]`` (Transpose from src to dst)."""
    return [src.index(c) for c in dst]


@dataclass(frozen=True)
class OVSetOutputsPass(ModulePass):
    """``--output``: the model's outputs become these tensors (by tensor or friendly name)."""

    name = "ov-set-outputs"
    outputs: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        set_outputs(op, list(self.outputs))


@dataclass(frozen=True)
class OVChangeLayoutPass(ModulePass):
    """``--layout``: ``name(nhwc->nchw)`` per tensor, or ``nhwc->nchw`` for
    every input of that rank (see :func:`change_layouts`)."""

    name = "ov-change-layout"
    layout: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        change_layouts(op, self.layout)


@dataclass(frozen=True)
class OVCheckStaticShapesPass(ModulePass):
    """``--static_shape``: an error naming the first input whose shape is not static."""

    name = "ov-check-static-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_static_shapes(op)


__all__ = [
    "OVChangeLayoutPass",
    "OVCheckStaticShapesPass",
    "OVSetOutputsPass",
    "change_layouts",
    "check_static_shapes",
    "set_outputs",
]
