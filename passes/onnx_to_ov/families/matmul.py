"""Matrix products: MatMul, Gemm, Einsum."""

from __future__ import annotations

from xmo.dialects.ov.base import tensor
from xmo.passes.onnx_to_ov.builder import Builder, Node
from xmo.passes.onnx_to_ov.registry import converter


@converter("MatMul")
def matmul(node: Node, b: Builder):
    return b.out("MatMul", [node.input(0), node.input(1)])


@converter("Gemm")
def gemm(node: Node, b: Builder):
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


def _s(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def einsum_shape(equation: str, shapes: list[list[int] | None]) -> list[int] | None:
    """Output dims of an einsum (explicit or implicit form); None if unknown rank."""
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if any(s is None for s in shapes):
        return None
    dims: dict[str, int] = {}
    ell: list[int] = []
    counts: dict[str, int] = {}

    def merge(a: int, c: int) -> int:
        if a == 1 or a < 0:
            return c if a == 1 or c >= 0 else a
        return a

    for term, shape in zip(terms, shapes):
        assert shape is not None
        if "..." in term:
            pre, post = term.split("...")
            n_ell = len(shape) - len(pre) - len(post)
            labels = list(pre) + [None] * n_ell + list(post)
        else:
            labels = list(term)
        e_dims = [d for lab, d in zip(labels, shape) if lab is None]
        # broadcast ellipsis dims (right-aligned)
        if len(e_dims) > len(ell):
            ell = [1] * (len(e_dims) - len(ell)) + ell
        off = len(ell) - len(e_dims)
        for i, d in enumerate(e_dims):
            ell[off + i] = merge(ell[off + i], d)
        for lab, d in zip(labels, shape):
            if lab is None:
                continue
            counts[lab] = counts.get(lab, 0) + 1
            dims[lab] = merge(dims.get(lab, 1), d) if lab in dims else d
    if not _:
        rhs = ("..." if ell or "..." in lhs else "") + "".join(
            sorted(k for k, v in counts.items() if v == 1)
        )
    out: list[int] = []
    if "..." in rhs:
        pre, post = rhs.split("...")
        return [dims[c] for c in pre] + ell + [dims[c] for c in post]
    return out + [dims[c] for c in rhs]


@converter("Einsum")
def einsum(node: Node, b: Builder):
    eq = _s(node.attr("equation")).replace(" ", "")
    ins = [node.input(i) for i in range(node.num_inputs)]
    shape = einsum_shape(eq, [node.shape(i) for i in range(node.num_inputs)])
    etype = node.etype(0)
    # low-precision floats accumulate in f32 (as the ONNX reference does)
    work = "f32" if etype in ("bf16", "f16") else etype
    ins = [b.convert(v, work) for v in ins]
    y = b.out("Einsum", ins, {"equation": eq}, result_types=[tensor(work, shape)])
    return b.convert(y, etype)
