"""Conversion options in the Model Optimizer / ovc tradition.

* ``input``: ``"data[1,3,224,224],mask[1,?]"`` (CLI) or, in Python, a dict
  ``{"data": [1, 3, 224, 224]}`` / a list of names. Dims: ints, ``?`` or ``-1``
  (dynamic), or a symbol name.
* ``output``: output tensor names to keep (``"prob,feat"`` or a list); the
  graph is cut there and what no kept output needs is dropped.
* ``batch``: sets dimension 0 of every input.
* ``static_shape``: every input shape must be static after the overrides; the
  shape sub-graphs then fold into constants.
* ``layout``: change the layout of model inputs/outputs, the Model Optimizer
  way: ``"data(nhwc->nchw)"``, ``"data(nhwc->nchw),prob(nhwc->nchw)"``, or
  ``"nhwc->nchw"`` for every input whose rank matches; in Python also a dict
  ``{"data": "nhwc->nchw"}``. The model then takes (or gives) that tensor in
  the target layout; the transposes this needs inside are sunk and cancelled.

:func:`parse_input_spec` and :func:`apply_outputs` are shared by every
frontend; they raise :class:`OptionError` with a one-line message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xmo.dialects.ov import ParameterOp, ResultOp
from xmo.dialects.ov.base import OVOp, dims_of


class OptionError(ValueError):
    """A conversion option that cannot be applied."""


_ITEM = re.compile(r"\s*([^\[\]{},]+?)\s*(?:\[([^\]]*)\])?\s*(?:,|$)")


def parse_input_spec(spec: Any) -> dict[str, list[int | str | None] | None]:
    """Input names -> overridden dims (None: keep the model's shape)."""
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return {str(k): None if v is None else _dims(list(v), str(k)) for k, v in spec.items()}
    if isinstance(spec, str):
        out: dict[str, list[int | str | None] | None] = {}
        pos = 0
        text = spec.strip()
        while pos < len(text):
            m = _ITEM.match(text, pos)
            if m is None or m.end() == pos:
                raise OptionError(f"--input: cannot parse '{text[pos:]}' (use name[1,3,224,224])")
            name, dims = m.group(1), m.group(2)
            # "name[]" is a scalar (rank 0), not one dynamic dim
            out[name] = None if dims is None else _dims(dims.split(",") if dims.strip() else [], name)
            pos = m.end()
        return out
    if isinstance(spec, Sequence):
        return {str(n): None for n in spec}
    raise OptionError(f"input: unsupported value {spec!r}")


def _dims(items: list[Any], name: str) -> list[int | str | None]:
    dims: list[int | str | None] = []
    for d in items:
        if isinstance(d, str):
            d = d.strip()
            if d in ("?", "-1", ""):
                dims.append(None)
            elif re.fullmatch(r"\d+", d):
                dims.append(int(d))
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", d):
                dims.append(d)
            else:
                raise OptionError(f"input '{name}': bad dim '{d}'")
        elif d is None or (isinstance(d, int) and d == -1):
            dims.append(None)
        elif isinstance(d, int) and d >= 0:
            dims.append(int(d))
        else:
            raise OptionError(f"input '{name}': bad dim {d!r}")
    return dims


def with_batch(
    shapes: dict[str, list[int | str | None] | None],
    model_inputs: Mapping[str, list[int] | None],
    batch: int | None,
) -> dict[str, list[int | str | None] | None]:
    """Apply ``batch`` to dim 0 of every model input."""
    if batch is None:
        return shapes
    if batch <= 0:
        raise OptionError(f"--batch must be positive, got {batch}")
    out = dict(shapes)
    for name, dims in model_inputs.items():
        cur = out.get(name)
        base: list[int | str | None] | None = list(cur) if cur is not None else (
            [None if d < 0 else d for d in dims] if dims is not None else None
        )
        if not base:
            raise OptionError(f"--batch: input '{name}' has no dimension 0 to set")
        base[0] = batch
        out[name] = base
    return out


def apply_outputs(module: ModuleOp, names: Any) -> None:
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


def check_static(module: ModuleOp) -> None:
    """``--static_shape``: every input must have a static shape."""
    for op in module.body.block.ops:
        if isinstance(op, ParameterOp):
            dims = dims_of(op.results[0].type)
            if dims is None or any(d < 0 for d in dims):
                raise OptionError(
                    f"--static_shape: input '{op.get_friendly_name()}' has shape "
                    f"{op.results[0].type}; give it with --input name[dims]"
                )


_LAYOUT_ITEM = re.compile(
    r"\s*(?:([^(),]+?)\s*\(\s*([A-Za-z]+)\s*->\s*([A-Za-z]+)\s*\)|([A-Za-z]+)\s*->\s*([A-Za-z]+))\s*(?:,|$)"
)


def parse_layout_spec(spec: Any) -> dict[str | None, tuple[str, str]]:
    """``layout`` option -> {tensor name (None: every input) -> (source, target)}."""
    if spec is None:
        return {}
    items: dict[str | None, tuple[str, str]] = {}
    if isinstance(spec, Mapping):
        for k, v in spec.items():
            parsed = parse_layout_spec(f"{k}({v})" if "->" in str(v) else f"{k}({v}->{v})")
            items.update(parsed)
        return items
    if not isinstance(spec, str):
        raise OptionError(f"layout: unsupported value {spec!r}")
    text, pos = spec.strip(), 0
    while pos < len(text):
        m = _LAYOUT_ITEM.match(text, pos)
        if m is None or m.end() == pos:
            raise OptionError(
                f"--layout: cannot parse '{text[pos:]}' (use name(nhwc->nchw) or nhwc->nchw)"
            )
        name = m.group(1)
        src, dst = (m.group(2), m.group(3)) if name else (m.group(4), m.group(5))
        src, dst = src.upper(), dst.upper()
        if sorted(src) != sorted(dst) or len(set(src)) != len(src):
            raise OptionError(
                f"--layout: '{src}->{dst}' must reorder the same distinct dimension letters"
            )
        items[name.strip() if name else None] = (src, dst)
        pos = m.end()
    return items


def _perm(src: str, dst: str) -> list[int]:
    """Order ``p`` with ``dst[i] == src[p[i]]`` (Transpose from src to dst)."""
    return [src.index(c) for c in dst]


def apply_layouts(module: ModuleOp, spec: Any) -> bool:
    """Apply the ``layout`` option to an ov module; True when something changed.

    An input ``name(src->dst)`` becomes a Parameter in ``dst`` layout followed
    by a Transpose back to ``src`` (what the graph computes in); an output gets
    a Transpose from ``src`` to ``dst`` before its Result, which takes over the
    output's tensor names. The caller sinks and cancels the new transposes.
    """
    wanted = parse_layout_spec(spec)
    if not wanted:
        return False
    import numpy as np
    from xmo.dialects.ov import ConstantOp, op_class
    from xmo.dialects.ov import element_types as et

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
