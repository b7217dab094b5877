"""Loss ONNX ops: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.

Both reduce to one decomposition: pick ``input[n, target[n, ...], ...]`` with
GatherElements along the class axis, weigh it by ``weight[target]`` (zero
where ``target == ignore_index``), then reduce (``mean`` divides by the sum
of the weights that apply).
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import all_axes, rank_of
from xmo.passes.onnx_to_ov.registry import converter


def nll_loss(
    node: ConverterNode,
    b: Builder,
    log_prob: SSAValue,
    target: SSAValue,
    weight: SSAValue | None,
) -> SSAValue:
    """Negative log likelihood of ``log_prob`` [N, C, d...] at ``target`` [N, d...]."""
    rank_of(node, log_prob, "input")
    reduction = str(node.attr("reduction", "mean") or "mean")
    if reduction not in ("none", "sum", "mean"):
        raise node.unsupported(f"reduction '{reduction}'")
    t = b.convert(target, "i64")
    ignore = node.attr("ignore_index")
    mask = None
    if ignore is not None:
        mask = b.out("NotEqual", [t, b.i64(int(ignore))])
        t = b.out("Select", [mask, t, b.i64(0)])
    picked = b.out("GatherElements", [log_prob, b.unsqueeze(t, [1])], {"axis": 1})
    loss = b.out("Negative", [b.squeeze(picked, [1])])
    w = None
    if weight is not None:
        w = b.gather(weight, t, 0)
    if mask is not None:
        m = b.out("ConvertLike", [mask, loss])
        w = m if w is None else b.out("Multiply", [w, m])
    if w is not None:
        loss = b.out("Multiply", [loss, w])
    if reduction == "none":
        return loss
    total = b.out("ReduceSum", [loss, all_axes(b, loss)], {"keep_dims": False})
    if reduction == "sum":
        return total
    if w is None:
        return b.out("ReduceMean", [loss, all_axes(b, loss)], {"keep_dims": False})
    denom = b.out("ReduceSum", [w, all_axes(b, w)], {"keep_dims": False})
    return b.out("Divide", [total, denom])


@converter("NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(node: ConverterNode, b: Builder):
    return nll_loss(node, b, node.input(0), node.input(1), node.optional_input(2))


@converter("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(node: ConverterNode, b: Builder):
    log_prob = b.out("LogSoftmax", [node.input(0)], {"axis": 1})
    loss = nll_loss(node, b, log_prob, node.input(1), node.optional_input(2))
    if node.num_outputs > 1 and node.output_names[1]:
        return [loss, log_prob]
    return loss
