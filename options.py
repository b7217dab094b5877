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

This module parses them (:func:`parse_input_spec`, :func:`parse_layout_spec`,
:func:`with_batch`); the passes of :mod:`xmo.passes.ov_model_io` apply the
ones that change a converted model (``ov-set-outputs``, ``ov-change-layout``,
``ov-check-static-shapes``). Errors are :class:`OptionError` with a one-line
message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from xmo.errors import ConversionError



class OptionError(ConversionError, ValueError):
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


def output_names(spec: Any) -> tuple[str, ...] | None:
    """``output`` option -> tensor names (``"prob, feat"`` or a list); None: keep."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return tuple(n.strip() for n in spec.split(","))
    return tuple(spec)


def layout_text(spec: Any) -> Any:
    """``layout`` option as the text ``ov-change-layout`` takes: a mapping
    ``{"data": "nhwc->nchw"}`` becomes ``"data(nhwc->nchw)"`` (other values
    pass unchanged and are checked by :func:`parse_layout_spec`)."""
    if isinstance(spec, Mapping):
        return ",".join(f"{k}({v})" if "->" in str(v) else f"{k}({v}->{v})" for k, v in spec.items())
    return spec


# ---------------------------------------------------------------------------
# Input preprocessing: --mean_values, --scale_values, --reverse_input_channels
# ---------------------------------------------------------------------------

_VALUES_ITEM = re.compile(r"\s*([^\[\],]*?)\s*\[([^\]]*)\]\s*(?:,|$)")


def parse_values_spec(spec: Any, option: str) -> dict[str | None, list[float]]:
    """``--mean_values`` / ``--scale_values`` -> {input name (None: every
    input) -> one value per channel}: ``"data[123,117,104]"``,
    ``"data[1,2,3],info[4]"``, ``"[123,117,104]"`` (every input); in Python
    also a dict ``{"data": [123, 117, 104]}`` or a list (every input)."""
    if spec is None or spec == "":
        return {}
    if isinstance(spec, Mapping):
        return {str(k): _floats(v, option, str(k)) for k, v in spec.items()}
    if isinstance(spec, str):
        out: dict[str | None, list[float]] = {}
        text, pos = spec.strip(), 0
        while pos < len(text):
            m = _VALUES_ITEM.match(text, pos)
            if m is None or m.end() == pos:
                raise OptionError(
                    f"--{option}: cannot parse '{text[pos:]}' (use name[v1,v2,v3] or [v1,v2,v3])")
            name = m.group(1) or None
            out[name] = _floats(m.group(2).split(","), option, name)
            pos = m.end()
        return out
    if isinstance(spec, Sequence):
        return {None: _floats(spec, option, None)}
    raise OptionError(f"{option}: unsupported value {spec!r}")


def _floats(items: Any, option: str, name: str | None) -> list[float]:
    where = f"--{option}" + (f" '{name}'" if name else "")
    try:
        vals = [float(v) for v in items if not (isinstance(v, str) and not v.strip())]
    except (TypeError, ValueError):
        raise OptionError(f"{where}: values must be numbers, got {items!r}") from None
    if not vals:
        raise OptionError(f"{where}: no values")
    if option == "scale_values" and any(v == 0 for v in vals):
        raise OptionError(f"{where}: a scale value of 0")
    return vals


def values_text(spec: Any) -> str:
    """A ``--mean_values`` / ``--scale_values`` value as the text
    ``ov-preprocess`` takes (a mapping or list becomes ``name[v,...]``)."""
    if spec is None:
        return ""
    if isinstance(spec, str):
        return spec
    parsed = parse_values_spec(spec, "values")
    return ",".join(f"{k or ''}[{','.join(repr(v) for v in vals)}]" for k, vals in parsed.items())
