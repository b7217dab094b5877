"""Conversion options in the Model Optimizer / ovc tradition.

* ``input``: ``"data[1,3,224,224],mask[1,?]"`` (CLI) or, in Python, a dict
  ``{"data": [1, 3, 224, 224]}`` / a list of names. Dims: ints, ``?`` or ``-1``
  (dynamic), or a symbol name.
* ``output``: output tensor names to keep (``"prob,feat"`` or a list); the
  graph is cut there and what no kept output needs is dropped.
* ``batch``: sets dimension 0 of every input.
* ``static_shape``: every input shape must be static after the overrides; the
  shape sub-graphs then fold into constants.

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
            out[name] = None if dims is None else _dims(dims.split(","), name)
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
