"""Reductions: Reduce*, ArgMax/ArgMin, CumSum/CumProd, TopK."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xmo.dialects.ov.base import dims_of
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import (
    all_axes,
    cumprod as cumulative_product,
    dim_of,
    norm_axis,
    rank_of,
    reverse_axis,
    scalar,
)
from xmo.passes.onnx_to_ov.registry import converter

#: since_version from which ``axes`` is an input instead of an attribute
_AXES_INPUT_SINCE = {"ReduceSum": 13}

_FLOAT = ("f16", "bf16", "f32", "f64")


def _reduce_axes(node: ConverterNode, b: Builder, x: SSAValue) -> SSAValue | None:
    """The axes to reduce as an i64 vector; None means "no reduction" (identity)."""
    noop = bool(node.attr("noop_with_empty_axes", 0))
    if node.version >= _AXES_INPUT_SINCE.get(node.type, 18):
        if not node.has_input(1) or node.shape(1) == [0]:
            axes = None
        else:
            c = node.const(1)
            if c is None:
                a = b.convert(b.reshape(node.input(1), [-1]), "i64")
                if node.shape(1) is not None and node.shape(1)[0] > 0:
                    return a
                if noop:
                    raise node.unsupported("runtime axes with noop_with_empty_axes")
                # runtime axes: an empty list means all axes; append
                # all_axes[:rank * (len(axes) == 0)]
                n = b.out("ShapeOf", [a], {"output_type": "i64"})
                is_empty = b.convert(b.out("Equal", [n, b.i64([0])]), "i64")
                every = all_axes(b, x)
                stop = b.out("Multiply", [b.shape_of(every), is_empty])
                tail = b.out("Slice", [every, b.i64([0]), stop, b.i64([1])])
                return b.concat([a, tail], 0)
            axes = [int(a) for a in c.reshape(-1)]
    else:
        axes = node.attr("axes", None)
        axes = None if axes is None else [int(a) for a in axes]
    if not axes:
        if noop:
            return None
        return all_axes(b, x)
    return b.i64(axes)


def _reduce(b: Builder, kind: str, x: SSAValue, axes: SSAValue, keep: bool) -> SSAValue:
    return b.out(kind, [x, axes], {"keep_dims": keep})


def _reduce_node(node: ConverterNode, b: Builder, body) -> SSAValue:  # noqa: ANN001
    x = node.input(0)
    axes = _reduce_axes(node, b, x)
    keep = bool(node.attr("keepdims", 1))
    if axes is None:
        return body(b, x, None, keep, noop=True)
    n = dims_of(axes.type)
    r = dims_of(x.type)
    if not keep and node.const(1) is None and n and n[0] >= 0 and r is not None and node.has_input(1):
        # runtime axes of known count: OpenVINO cannot tell the output rank
        # (axes may repeat); keep the dims, then drop them with a static-length shape
        y = body(b, x, axes, True, noop=False)
        return _drop_axes(b, y, axes, len(r), n[0])
    return body(b, x, axes, keep, noop=False)


def _drop_axes(b: Builder, y: SSAValue, axes: SSAValue, r: int, n: int) -> SSAValue:
    """Reshape keep-dims ``y`` to its shape without ``axes`` (``n`` distinct runtime axes)."""
    import numpy as np

    ax = b.out("FloorMod", [axes, b.i64(r)])
    hit = b.out("Equal", [b.unsqueeze(ax, [1]), b.i64(list(range(r)))])  # [n, r]
    mask = b.out("ReduceMax", [b.convert(hit, "f32"), b.i64([0])], {"keep_dims": False})
    # kept axes score r - i (decreasing in i), dropped ones 0: TopK picks the kept ones in order
    score = b.out(
        "Multiply",
        [b.out("Subtract", [b.const(np.float32(1)), mask]), b.const(np.arange(r, 0, -1, dtype=np.float32))],
    )
    keep_idx = b.op(
        "TopK",
        [score, b.i64(r - n)],
        {"axis": 0, "mode": "max", "sort": "value", "index_element_type": "i64", "stable": True},
    ).results[1]
    return b.reshape(y, b.gather(b.shape_of(y), keep_idx, 0))


def _simple(ov_kind: str, pre=None, post=None):  # noqa: ANN001, ANN202
    def body(b: Builder, x, axes, keep, noop):  # noqa: ANN001
        if pre is not None:
            x = pre(b, x)
        y = x if noop else _reduce(b, ov_kind, x, axes, keep)
        return post(b, y) if post is not None else y

    return body


def _square(b: Builder, x):  # noqa: ANN001
    return b.out("Multiply", [x, x])


def _log(b: Builder, x):  # noqa: ANN001
    return b.out("Log", [x])


def _exp(b: Builder, x):  # noqa: ANN001
    return b.out("Exp", [x])


def _minmax(ov_kind: str, empty_value: str):  # noqa: ANN202
    def body(b: Builder, x, axes, keep, noop):  # noqa: ANN001
        if noop:
            return x
        t = value_etype(x)
        xs = b.convert(x, "u8") if t == "boolean" else x
        y = _reduce(b, ov_kind, xs, axes, keep)
        shape = dims_of(x.type)
        if t != "boolean" and shape is not None and 0 in shape:
            # reductions over an empty set give the identity (-inf for max, ...)
            y = b.out("Broadcast", [_extreme(b, t, empty_value), b.shape_of(y)])
        return b.convert(y, "boolean") if t == "boolean" else y

    return body


def _extreme(b: Builder, t: str, which: str) -> SSAValue:
    import numpy as np

    if t in _FLOAT:
        v = -np.inf if which == "lowest" else np.inf
    else:
        from xmo.dialects.ov import element_types as et

        info = np.iinfo(et.numpy_dtype(t))
        v = info.min if which == "lowest" else info.max
    return scalar(b, v, t)


def _l1(b: Builder, x, axes, keep, noop):  # noqa: ANN001
    if noop:
        return b.out("Abs", [x])
    if value_etype(x) in _FLOAT:
        return _reduce(b, "ReduceL1", x, axes, keep)
    return _reduce(b, "ReduceSum", b.out("Abs", [x]), axes, keep)


def _l2(b: Builder, x, axes, keep, noop):  # noqa: ANN001
    if noop:
        return b.out("Abs", [x])
    t = value_etype(x)
    if t in _FLOAT:
        return b.out("Sqrt", [_reduce(b, "ReduceSum", _square(b, x), axes, keep)])
    # integer L2: computed in f32 and truncated back like the ONNX reference
    xf = b.convert(x, "f32")
    y = b.out("Sqrt", [_reduce(b, "ReduceSum", _square(b, xf), axes, keep)])
    return b.convert(y, t)


def _logsumexp(b: Builder, x, axes, keep, noop):  # noqa: ANN001
    if noop:
        return x
    return b.out("Log", [_reduce(b, "ReduceSum", b.out("Exp", [x]), axes, keep)])


_REDUCERS = {
    "ReduceSum": _simple("ReduceSum"),
    "ReduceMean": _simple("ReduceMean"),
    "ReduceProd": _simple("ReduceProd"),
    "ReduceMax": _minmax("ReduceMax", "lowest"),
    "ReduceMin": _minmax("ReduceMin", "highest"),
    "ReduceL1": _l1,
    "ReduceL2": _l2,
    "ReduceLogSum": _simple("ReduceSum", post=_log),
    "ReduceLogSumExp": _logsumexp,
    "ReduceSumSquare": _simple("ReduceSum", pre=_square),
}


def _reducer(kind: str):  # noqa: ANN202
    def convert(node: ConverterNode, b: Builder):
        return _reduce_node(node, b, _REDUCERS[kind])

    return convert


for _k in _REDUCERS:
    converter(_k)(_reducer(_k))


# -- ArgMax / ArgMin -------------------------------------------------------------


def _first_extreme(b: Builder, x: SSAValue, axis: int, mode: str) -> SSAValue:
    """i64 index (keepdims) of the first max/min along ``axis``."""
    topk = b.op(
        "TopK",
        [x, b.i64(1)],
        {"axis": axis, "mode": mode, "sort": "value", "index_element_type": "i64", "stable": True},
    )
    return topk.results[1]


@converter("ArgMax", "ArgMin")
def arg_extreme(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, node.attr("axis", 0), r)
    mode = "max" if node.type == "ArgMax" else "min"
    if node.attr("select_last_index", 0):
        idx = _first_extreme(b, reverse_axis(b, x, axis), axis, mode)
        last = b.out("Subtract", [dim_of(b, x, axis, scalar_out=True), b.i64(1)])
        idx = b.out("Subtract", [last, idx])
    else:
        idx = _first_extreme(b, x, axis, mode)
    if not node.attr("keepdims", 1):
        idx = b.squeeze(idx, [axis])
    return idx


# -- CumSum / CumProd -----------------------------------------------------------------


def _scalar_axis(node: ConverterNode, b: Builder, rank: int) -> int:
    vals = node.const_ints(1, "axis")
    if len(vals) != 1:
        raise node.unsupported("axis must hold one value")
    return norm_axis(node, vals[0], rank)


@converter("CumSum")
def cumsum(node: ConverterNode, b: Builder):
    x = node.input(0)
    axis = node.input(1)
    if node.const(1) is not None:
        r = rank_of(node, x)
        axis = b.i64(_scalar_axis(node, b, r))
    else:
        axis = b.reshape(axis, [])
    return b.out(
        "CumSum",
        [x, axis],
        {"exclusive": bool(node.attr("exclusive", 0)), "reverse": bool(node.attr("reverse", 0))},
    )


@converter("CumProd")
def cumprod(node: ConverterNode, b: Builder):
    return cumulative_product(
        node, b, bool(node.attr("exclusive", 0)), bool(node.attr("reverse", 0))
    )


# -- TopK ---------------------------------------------------------------------------------


@converter("TopK")
def topk(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, node.attr("axis", -1), r)
    if node.version < 10:
        k = b.i64(int(node.attr("k")))
    else:
        k = b.reshape(b.convert(node.input(1), "i64"), [])
    largest = bool(node.attr("largest", 1)) if node.version >= 11 else True
    op = b.op(
        "TopK",
        [x, k],
        {
            "axis": axis,
            "mode": "max" if largest else "min",
            "sort": "value",
            "index_element_type": "i64",
            "stable": True,
        },
    )
    return [op.results[0], op.results[1]]
