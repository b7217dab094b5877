"""Loop, TensorIterator and If: the bodies run as compiled models of their own.

Each body is compiled once per node (:class:`~xmo.backends.cpu.compiled.CompiledModel`
of the region, kept in ``node.cache``) and called once per iteration. Loop
(OpenVINO Loop-5): the first iteration runs when ``execution_condition`` is
true; the loop goes on while the body's condition output is true and fewer than
``trip_count`` iterations ran (-1: no limit) and, with sliced inputs, parts
remain. Sliced inputs give one part per iteration (``start``/``end`` inclusive,
negative from the end; a negative stride walks backwards); merged parameters
take their back edge's value of the previous iteration; the current-iteration
parameter gets the iteration number. Concatenated outputs join every
iteration's value along the axis (backwards for a negative stride); a last
output is the value of iteration ``iteration`` (-1: the last one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xmo.backends.cpu.compiled import CompiledModel
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel
from xmo.dialects.ov.control_ops import IfOp, body_parameters
from xmo.dialects.ov.port_map import ConcatOutput, InputSlice, MergedInput
from xmo.dialects.ov.shape_inference.control import slice_iterations


def _compiled(node: KernelNode, key: str, region: Any) -> CompiledModel:
    compiled = node.cache.get(key)
    if compiled is None:
        compiled = node.cache[key] = CompiledModel(region)
    return compiled


def _part(x: np.ndarray, e: InputSlice, k: int) -> np.ndarray:
    """Part ``k`` of sliced input ``x``."""
    axis = e.axis + x.ndim if e.axis < 0 else e.axis
    dim = x.shape[axis]
    start = e.start + dim if e.start < 0 else e.start
    if e.stride > 0:
        lo = start + k * e.stride
    else:
        lo = start + k * e.stride - e.part_size + 1
    index = [slice(None)] * x.ndim
    index[axis] = slice(lo, lo + e.part_size)
    return x[tuple(index)]


@register_kernel("ov.Loop", "ov.TensorIterator")
def _iterate(node: KernelNode, *inputs: np.ndarray) -> list[np.ndarray]:
    op = node.op
    body = _compiled(node, "body", op.body)
    ins = op.input_descs()
    outs = op.output_descs()
    params = body_parameters(op.body)
    it_param = op.current_iteration_parameter()
    cond_result = op.condition_result()
    limit: int | None = None
    for e in ins:
        if isinstance(e, InputSlice):
            x = inputs[e.external]
            axis = e.axis + x.ndim if e.axis < 0 else e.axis
            n = slice_iterations(e, x.shape[axis])
            limit = n if limit is None else min(limit, n)
    if op.name == "ov.Loop":
        trip = int(np.asarray(inputs[0]).reshape(-1)[0])
        if trip >= 0:
            limit = trip if limit is None else min(limit, trip)
        go_on = bool(np.asarray(inputs[1]).reshape(-1)[0])
    else:
        go_on = True
    args: list[Any] = [None] * len(params)
    for e in ins:
        if not isinstance(e, InputSlice):
            args[e.parameter] = inputs[e.external]
    it_dtype = None
    if it_param >= 0:
        it_dtype = body.inputs[it_param].dtype
    merged = [e for e in ins if isinstance(e, MergedInput)]
    last: list[Any] = [None] * len(outs)
    parts: list[list[np.ndarray]] = [[] for _ in outs]
    k = 0
    while go_on and (limit is None or k < limit):
        for e in ins:
            if isinstance(e, InputSlice):
                args[e.parameter] = _part(inputs[e.external], e, k)
        if it_param >= 0:
            args[it_param] = np.array(k, dtype=it_dtype)
        res = body(args)
        for j, e in enumerate(outs):
            if isinstance(e, ConcatOutput):
                parts[j].append(res[e.result])
            elif e.iteration < 0 or e.iteration == k:
                last[j] = res[e.result]
        for e in merged:
            args[e.parameter] = res[e.result]
        if cond_result >= 0:
            go_on = bool(np.asarray(res[cond_result]).reshape(-1)[0])
        k += 1
    result: list[np.ndarray | None] = [None] * len(op.results)
    for j, e in enumerate(outs):
        if isinstance(e, ConcatOutput):
            if not parts[j]:
                shape = body.outputs[e.result].shape
                if shape is None or any(d < 0 for d in shape):
                    raise node.error(
                        f"output {e.external}: no iteration ran and the body's "
                        "part has no static shape"
                    )
                empty = list(shape)
                empty[e.axis] = 0
                result[e.external] = np.zeros(empty, body.outputs[e.result].dtype)
                continue
            seq = parts[j][::-1] if e.stride < 0 else parts[j]
            result[e.external] = np.concatenate(seq, axis=e.axis)
        elif last[j] is not None:
            result[e.external] = last[j]
        else:
            back = [m for m in merged if m.result == e.result]
            if not back:
                raise node.error(f"output {e.external}: no iteration ran")
            result[e.external] = inputs[back[0].external]
    return result  # type: ignore[return-value]


@register_kernel("ov.If")
def _if(node: KernelNode, *inputs: np.ndarray) -> list[np.ndarray]:
    op = node.op
    assert isinstance(op, IfOp)
    which = bool(np.asarray(inputs[0]).reshape(-1)[0])
    region, ins, outs = op.branch(which)
    body = _compiled(node, "then" if which else "else", region)
    args: list[Any] = [None] * len(body.inputs)
    for e in ins:
        args[e.parameter] = inputs[e.external]
    res = body(args)
    result: list[Any] = [None] * len(op.results)
    for e in outs:
        result[e.external] = res[e.result]
    return result
