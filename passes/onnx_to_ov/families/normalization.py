"""Normalizations: BatchNormalization, InstanceNormalization, LayerNormalization,
GroupNormalization, RMSNormalization, LpNormalization, MeanVarianceNormalization, LRN."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import (
    broadcast_along,
    norm_axis,
    rank_of,
    scalar,
    upcast_float,
)
from xmo.passes.onnx_to_ov.registry import converter


def _to(b: Builder, v: SSAValue, like: SSAValue) -> SSAValue:
    return b.convert(v, value_etype(like))


def _channel(b: Builder, v: SSAValue, like: SSAValue, rank: int) -> SSAValue:
    """A ``[C]`` parameter converted to ``like``'s type, broadcasting along axis 1."""
    return broadcast_along(b, _to(b, v, like), 1, rank)


# -- BatchNormalization -------------------------------------------------------------


@converter("BatchNormalization")
def batch_norm(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    eps = float(node.attr("epsilon", 1e-5))
    training = node.version >= 14 and bool(node.attr("training_mode", 0))
    if node.version < 7 and not node.attr("is_test", 0) and node.num_outputs > 1:
        raise node.unsupported("training-mode BatchNormalization (opset < 7)")
    if node.version < 9 and not node.attr("spatial", 1):
        raise node.unsupported("spatial=0")
    scale, bias = _channel(b, node.input(1), x, r), _channel(b, node.input(2), x, r)
    if training:
        return _batch_norm_training(node, b, x, r, scale, bias, eps)
    mean, var = _channel(b, node.input(3), x, r), _channel(b, node.input(4), x, r)
    inv = b.out("Sqrt", [b.out("Add", [var, scalar(b, eps, value_etype(x))])])
    y = b.out("Divide", [b.out("Subtract", [x, mean]), inv])
    return b.out("Add", [b.out("Multiply", [y, scale]), bias])


def _batch_norm_training(node: ConverterNode, b: Builder, x, r, scale, bias, eps):  # noqa: ANN001
    """Batch statistics; running mean/var = stat * (1 - momentum) + input * momentum."""
    t = value_etype(x)
    axes = b.i64([0, *range(2, r)])
    mean = b.out("ReduceMean", [x, axes], {"keep_dims": True})
    d = b.out("Subtract", [x, mean])
    var = b.out("ReduceMean", [b.out("Multiply", [d, d]), axes], {"keep_dims": True})
    inv = b.out("Sqrt", [b.out("Add", [var, scalar(b, eps, t)])])
    y = b.out("Add", [b.out("Multiply", [b.out("Divide", [d, inv]), scale]), bias])
    outs: list[SSAValue | None] = [y]
    if node.num_outputs > 1:
        m = float(node.attr("momentum", 0.9))
        for i, stat in ((3, mean), (4, var)):
            run = node.input(i)
            stat = b.convert(b.reshape(stat, [-1]), value_etype(run))
            rt = value_etype(run)
            outs.append(
                b.out(
                    "Add",
                    [
                        b.out("Multiply", [run, scalar(b, m, rt)]),
                        b.out("Multiply", [stat, scalar(b, 1 - m, rt)]),
                    ],
                )
            )
    return outs


# -- Instance / Layer / Group / RMS -------------------------------------------------------


def mvn_of(b: Builder, x: SSAValue, axes: list[int], eps: float, inside: bool = True) -> SSAValue:
    return b.out(
        "MVN",
        [x, b.i64(axes)],
        {
            "eps": eps,
            "normalize_variance": True,
            "eps_mode": "INSIDE_SQRT" if inside else "OUTSIDE_SQRT",
        },
    )


@converter("InstanceNormalization")
def instance_norm(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    y = mvn_of(b, x, list(range(2, r)), float(node.attr("epsilon", 1e-5)))
    y = b.out("Multiply", [y, _channel(b, node.input(1), x, r)])
    return b.out("Add", [y, _channel(b, node.input(2), x, r)])


def _stash(node: ConverterNode, b: Builder, x: SSAValue) -> tuple[SSAValue, str]:
    """``x`` in the computation type of ``stash_type`` (1 = f32)."""
    t = value_etype(x)
    if int(node.attr("stash_type", 1)) == 1 and t in ("f16", "bf16"):
        return b.convert(x, "f32"), t
    return x, t


@converter("LayerNormalization")
def layer_norm(node: ConverterNode, b: Builder):
    """MVN over the trailing axes, then scale and bias (as OpenVINO's frontend);
    the decomposition when the mean or the inverse standard deviation is used."""
    x0 = node.input(0)
    r = rank_of(node, x0)
    axis = norm_axis(node, node.attr("axis", -1), r)
    x, t = _stash(node, b, x0)
    stats = any(node.num_outputs > i and node.output_names[i] for i in (1, 2))
    y, mean, inv = layer_norm_of(
        b, x, t, x0, list(range(axis, r)), float(node.attr("epsilon", 1e-5)),
        node.input(1), node.optional_input(2), stats,
    )  # fmt: skip
    if not stats:
        return y
    outs: list[SSAValue | None] = [y, None, None]
    if node.num_outputs > 1 and node.output_names[1]:
        outs[1] = mean
    if node.num_outputs > 2 and node.output_names[2]:
        outs[2] = inv
    return outs


def layer_norm_of(
    b: Builder,
    x: SSAValue,
    t: str,
    like: SSAValue,
    axes: list[int],
    eps: float,
    scale: SSAValue,
    bias: SSAValue | None,
    stats: bool,
) -> tuple[SSAValue, SSAValue | None, SSAValue | None]:
    """Layer normalization of ``x`` (in its computation type) over ``axes``,
    the result converted to ``t``, times ``scale`` plus ``bias`` (both
    converted to ``like``'s type): one MVN, or with ``stats`` the
    decomposition that also gives the mean and the inverse standard
    deviation (keep_dims) -> ``(y, mean, inv_std)``."""
    if not stats:
        y = b.convert(mvn_of(b, x, axes, eps), t)
        y = b.out("Multiply", [y, _to(b, scale, like)])
        if bias is not None:
            y = b.out("Add", [y, _to(b, bias, like)])
        return y, None, None
    axes_v = b.i64(axes)
    mean = b.out("ReduceMean", [x, axes_v], {"keep_dims": True})
    d = b.out("Subtract", [x, mean])
    var = b.out("ReduceMean", [b.out("Multiply", [d, d]), axes_v], {"keep_dims": True})
    ct = value_etype(x)
    inv = b.out("Divide", [scalar(b, 1, ct), b.out("Sqrt", [b.out("Add", [var, scalar(b, eps, ct)])])])
    y = b.convert(b.out("Multiply", [d, inv]), t)
    y = b.out("Multiply", [y, _to(b, scale, like)])
    if bias is not None:
        y = b.out("Add", [y, _to(b, bias, like)])
    return y, mean, inv


@converter("GroupNormalization")
def group_norm(node: ConverterNode, b: Builder):
    x0 = node.input(0)
    r = rank_of(node, x0)
    groups = int(node.attr("num_groups"))
    eps = float(node.attr("epsilon", 1e-5))
    x, t = _stash(node, b, x0) if node.version >= 21 else (x0, value_etype(x0))
    # [N, C, ...] -> [N, G, -1], normalize each group
    xr = b.reshape(x, [0, groups, -1], special_zero=True)
    y = mvn_of(b, xr, [2], eps)
    y = b.convert(y, t)
    scale, bias = _to(b, node.input(1), x0), _to(b, node.input(2), x0)
    if node.version < 21:  # scale/bias per group
        y = b.out("Add", [b.out("Multiply", [y, b.reshape(scale, [-1, 1])]), b.reshape(bias, [-1, 1])])
        return b.reshape(y, b.shape_of(x0))
    y = b.reshape(y, b.shape_of(x0))
    y = b.out("Multiply", [y, broadcast_along(b, scale, 1, r)])
    return b.out("Add", [y, broadcast_along(b, bias, 1, r)])


@converter("RMSNormalization")
def rms_norm(node: ConverterNode, b: Builder):
    x0 = node.input(0)
    r = rank_of(node, x0)
    axis = norm_axis(node, node.attr("axis", -1), r)
    x, t = _stash(node, b, x0)
    y, _ = rms_norm_of(b, x, t, x0, list(range(axis, r)), float(node.attr("epsilon", 1e-5)), node.input(1))
    return y


def rms_norm_of(
    b: Builder, x: SSAValue, t: str, like: SSAValue, axes: list[int], eps: float, scale: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """``x / sqrt(mean(x * x over axes) + eps)`` (in ``x``'s computation type,
    converted to ``t``) times ``scale`` (converted to ``like``'s type) ->
    ``(y, rms)``, ``rms`` with keep_dims."""
    ct = value_etype(x)
    ms = b.out("ReduceMean", [b.out("Multiply", [x, x]), b.i64(axes)], {"keep_dims": True})
    rms = b.out("Sqrt", [b.out("Add", [ms, scalar(b, eps, ct)])])
    y = b.convert(b.out("Divide", [x, rms]), t)
    return b.out("Multiply", [y, _to(b, scale, like)]), rms


# -- Lp / MVN / LRN ------------------------------------------------------------------------


@converter("LpNormalization")
def lp_norm(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, node.attr("axis", -1), r)
    p = int(node.attr("p", 2))
    if p not in (1, 2):
        raise node.unsupported(f"p={p}")
    norm = b.out("ReduceL1" if p == 1 else "ReduceL2", [x, b.i64([axis])], {"keep_dims": True})
    # x / norm, 0 where the norm is 0
    zero = scalar(b, 0, value_etype(x))
    is_zero = b.out("Equal", [norm, zero])
    safe = b.out("Select", [is_zero, scalar(b, 1, value_etype(x)), norm])
    return b.out("Select", [is_zero, zero, b.out("Divide", [x, safe])])


@converter("MeanVarianceNormalization")
def mean_variance_norm(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axes = [norm_axis(node, a, r) for a in (node.attr("axes", None) or [0, 2, 3])]
    # (x - mean) / (sqrt(var) + 1e-9)
    return mvn_of(b, x, axes, 1e-9, inside=False)


@converter("LRN")
def lrn(node: ConverterNode, b: Builder):
    x, t = upcast_float(b, node.input(0))
    y = b.out(
        "LRN",
        [x, b.i64([1])],
        {
            "alpha": float(node.attr("alpha", 1e-4)),
            "beta": float(node.attr("beta", 0.75)),
            "bias": float(node.attr("bias", 1.0)),
            "size": int(node.attr("size")),
        },
    )
    return b.convert(y, t)
