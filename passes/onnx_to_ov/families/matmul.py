"""Matrix products: MatMul, Gemm, Einsum."""

from __future__ import annotations

from xmo.dialects.ov.base import tensor
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import einsum_shape


@converter("MatMul")
def matmul(node: ConverterNode, b: Builder):
    return b.out("MatMul", [node.input(0), node.input(1)])


@converter("Gemm")
def gemm(node: ConverterNode, b: Builder):
    a, c = node.input(0), node.input(1)
    if node.version < 7 and node.attr("broadcast", 0) == 0 and node.has_input(2):
        pass  # same-shape C: numpy broadcasting covers it
    y = b.out(
        "MatMul",
        [a, c],
        {
            "transpose_a": bool(node.attr("transA", 0)),
            "transpose_b": bool(node.attr("transB", 0)),
        },
    )
    alpha = float(node.attr("alpha", 1.0))
    if alpha != 1.0:
        y = b.out("Multiply", [y, b.scalar_like(alpha, y)])
    if node.has_input(2):
        bias = node.input(2)
        beta = float(node.attr("beta", 1.0))
        if beta != 1.0:
            bias = b.out("Multiply", [bias, b.scalar_like(beta, bias)])
        y = b.out("Add", [y, bias])
    return y


@converter("Einsum")
def einsum(node: ConverterNode, b: Builder):
    eq = attr_str(node.attr("equation")).replace(" ", "")
    ins = [node.input(i) for i in range(node.num_inputs)]
    shape = einsum_shape(eq, [node.shape(i) for i in range(node.num_inputs)])
    etype = node.etype(0)
    # low-precision floats accumulate in f32 (as the ONNX reference does)
    work = "f32" if etype in ("bf16", "f16") else etype
    ins = [b.convert(v, work) for v in ins]
    y = b.out("Einsum", ins, {"equation": eq}, result_types=[tensor(work, shape)])
    return b.convert(y, etype)
