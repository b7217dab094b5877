"""``ov-preprocess``: the Model Optimizer's input preprocessing options, for
every frontend (``--reverse_input_channels``, ``--mean_values``,
``--scale_values``).

For each model input they apply to, the ops below go between the
``ov.Parameter`` and its users (the Parameter keeps its names; the model
then takes the raw input)::

    y = (reverse_channels(x) - mean) / scale

in that order, as ovc and the Model Optimizer documented it: the channels
are reversed first (RGB <-> BGR), so mean and scale values are given in the
channel order of the original model. The channel axis is 1 (NCHW), or the
last axis for a channels-last model (TensorFlow's inputs, ``channels_last``).
Reversal applies to inputs with 3 channels (the option names every input);
mean/scale values without an input name apply to every input whose channel
count matches their number (a single value: to every input). Errors are
:class:`~xmo.options.OptionError`: an input name the model does not have, a
value count that does not match the channels, an input that none applies to.

The default pipeline adds the pass with the other option passes
(:func:`xmo.passes.pipeline.option_passes`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xmo.dialects.ov import ConstantOp, ParameterOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, dims_of
from xmo.options import OptionError, parse_values_spec


def _input_names(p: ParameterOp) -> set[str]:
    names = set(p.get_tensor_names(0))
    if p.get_friendly_name():
        names.add(p.get_friendly_name())
    return names


def _pick(values: dict[str | None, list[float]], p: ParameterOp, channels: int | None,
          option: str, used: set[str | None]) -> list[float] | None:
    names = _input_names(p)
    for k, v in values.items():
        if k is not None and k in names:
            used.add(k)
            if len(v) != 1 and channels is not None and len(v) != channels:
                raise OptionError(
                    f"--{option}: input '{k}' has {channels} channels, {len(v)} values given")
            return v
    v = values.get(None)
    if v is None:
        return None
    if len(v) == 1 or channels is None or len(v) == channels:
        used.add(None)
        return v
    return None


def _const(values: list[float], etype: str, rank: int, axis: int, name: str) -> ConstantOp:
    arr = np.asarray(values, dtype=et.numpy_dtype(etype))
    if arr.size > 1:
        arr = arr.reshape([arr.size if i == axis else 1 for i in range(rank)])
    else:
        arr = arr.reshape(())
    c = ConstantOp.from_array(arr, etype)
    c.set_friendly_name(name)
    return c


def _emit(ov_type: str, inputs: list[SSAValue], name: str, attrs: dict | None = None) -> OVOp:
    op = op_class(ov_type).make(inputs, attrs or {})
    op.set_friendly_name(name)
    return op


def preprocess(
    module: ModuleOp,
    mean_values: str = "",
    scale_values: str = "",
    reverse_input_channels: bool = False,
    channels_last: bool = False,
) -> None:
    """Apply the options to ``module``'s inputs in place (see the module docstring)."""
    means = parse_values_spec(mean_values, "mean_values")
    scales = parse_values_spec(scale_values, "scale_values")
    if not (means or scales or reverse_input_channels):
        return
    used_m: set[str | None] = set()
    used_s: set[str | None] = set()
    reversed_any = False
    block = module.body.block
    for p in [op for op in block.ops if isinstance(op, ParameterOp)]:
        dims = dims_of(p.results[0].type)
        etype = et.from_xdsl(p.results[0].type.get_element_type())  # type: ignore[attr-defined]
        if etype not in ("f32", "f16", "f64", "bf16"):
            continue
        if dims is None or len(dims) < 2:
            continue
        axis = len(dims) - 1 if channels_last else 1
        channels = dims[axis] if dims[axis] >= 0 else None
        name = p.get_friendly_name() or "input"
        chain: list[Operation] = []
        v: SSAValue = p.results[0]
        if reverse_input_channels and channels == 3:
            idx = ConstantOp.from_array(np.asarray([2, 1, 0], np.int64), "i64")
            ax = ConstantOp.from_array(np.asarray(axis, np.int64), "i64")
            g = _emit("Gather", [v, idx.results[0], ax.results[0]], f"{name}/reverse_input_channels",
                      {"batch_dims": 0})
            chain += [idx, ax, g]
            v = g.results[0]
            reversed_any = True
        mean = _pick(means, p, channels, "mean_values", used_m)
        if mean is not None:
            c = _const(mean, etype, len(dims), axis, f"{name}/mean_values")
            s = _emit("Subtract", [v, c.results[0]], f"{name}/mean")
            chain += [c, s]
            v = s.results[0]
        scale = _pick(scales, p, channels, "scale_values", used_s)
        if scale is not None:
            c = _const(scale, etype, len(dims), axis, f"{name}/scale_values")
            d = _emit("Divide", [v, c.results[0]], f"{name}/scale")
            chain += [c, d]
            v = d.results[0]
        if not chain:
            continue
        first_new = set(chain)
        for use in list(p.results[0].uses):
            if use.operation not in first_new:
                use.operation.operands[use.index] = v
        Rewriter.insert_op(chain, _after(p))
    for option, given, used in (("mean_values", means, used_m), ("scale_values", scales, used_s)):
        missing = [k for k in given if k not in used]
        if missing:
            what = ", ".join("(every input)" if k is None else f"'{k}'" for k in missing)
            raise OptionError(f"--{option}: no model input matches {what}")
    if reverse_input_channels and not reversed_any:
        raise OptionError("--reverse_input_channels: no model input has 3 channels")


def _after(op: Operation):  # noqa: ANN202 - an xDSL insert point
    from xdsl.rewriter import InsertPoint

    return InsertPoint.after(op)


@dataclass(frozen=True)
class OVPreprocessPass(ModulePass):
    """``--mean_values`` / ``--scale_values`` / ``--reverse_input_channels``
    (see the module docstring)."""

    name = "ov-preprocess"
    mean_values: str = ""
    scale_values: str = ""
    reverse_input_channels: bool = False
    channels_last: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        preprocess(op, self.mean_values, self.scale_values, self.reverse_input_channels,
                   self.channels_last)


__all__ = ["OVPreprocessPass", "preprocess"]
