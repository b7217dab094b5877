"""A tiny builder of ``ov`` graphs for pass tests (``G``), shared by the
transpose-sinking and fusion tests."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xmo.context import make_context, weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import dims_of

N2C = [0, 3, 1, 2]
C2N = [0, 2, 3, 1]
N2C5 = [0, 4, 1, 2, 3]
C2N5 = [0, 2, 3, 4, 1]
F32 = {"INFERENCE_PRECISION_HINT": "f32"}


class G:
    """A tiny graph builder: ops are appended in order; values are SSA values."""

    def __init__(self, seed: int = 0) -> None:
        self.ctx = make_context()
        self.store = weight_store(self.ctx)
        self.ops: list[Any] = []
        self.rng = np.random.default_rng(seed)
        self.params: dict[str, list[int]] = {}

    def _add(self, op: Any) -> Any:
        self.ops.append(op)
        return op

    def param(self, shape: list[int], name: str, etype: str = "f32") -> SSAValue:
        self.params[name] = shape
        return self._add(ParameterOp.new(etype, shape, name=name, tensor_names=[name])).results[0]

    def const(self, a: Any, dtype: Any = np.float32, name: str | None = None) -> SSAValue:
        c = ConstantOp.from_array(np.asarray(a, dtype), store=self.store, name=name)
        return self._add(c).results[0]

    def i64(self, a: Any) -> SSAValue:
        return self.const(a, np.int64)

    def randc(self, *shape: int) -> SSAValue:
        return self.const(self.rng.standard_normal(shape))

    def op(self, ov_type: str, inputs: list[SSAValue], attrs: dict | None = None,
           name: str | None = None, names: list[str] | None = None, n: int | None = None) -> Any:
        o = self._add(op_class(ov_type).make(inputs, attrs, name=name, num_outputs=n))
        if names:
            o.set_tensor_names(0, names)
        return o.results[0] if len(o.results) == 1 else list(o.results)

    def typed(self, ov_type: str, inputs: list[SSAValue], attrs: dict | None, rtype: Any) -> SSAValue:
        """An op with an explicit result type (ops without shape inference)."""
        cls = op_class(*ov_type.split("_")) if "_opset" in ov_type else op_class(ov_type)
        return self._add(cls.make(inputs, attrs, result_types=[rtype])).results[0]

    def T(self, x: SSAValue, order: list[int], name: str | None = None) -> SSAValue:
        return self.op("Transpose", [x, self.i64(order)], name=name)

    def conv(self, x: SSAValue, cout: int, stride: int = 1, k: int = 3, name: str | None = None) -> SSAValue:
        cin = dims_of(x.type)[1]
        pad = k // 2
        return self.op("Convolution", [x, self.randc(cout, cin, k, k)], dict(
            strides=[stride, stride], dilations=[1, 1], pads_begin=[pad, pad],
            pads_end=[pad, pad]), name=name)

    def nhwc_conv(self, x: SSAValue, cout: int, stride: int = 1, name: str = "conv") -> SSAValue:
        """What a TF frontend emits for an NHWC Conv2D."""
        t = self.T(x, N2C, name=f"{name}/to_nchw")
        return self.T(self.conv(t, cout, stride, name=name), C2N, name=f"{name}/to_nhwc")

    def nhwc_pool(self, x: SSAValue, name: str = "pool") -> SSAValue:
        t = self.T(x, N2C, name=f"{name}/to_nchw")
        p = self.op("MaxPool", [t], dict(strides=[2, 2], dilations=[1, 1], pads_begin=[0, 0],
                                         pads_end=[0, 0], kernel=[2, 2]), name=name, n=2)[0]
        return self.T(p, C2N, name=f"{name}/to_nhwc")

    def result(self, v: SSAValue, name: str) -> None:
        """A model output; its tensor name is ``name`` (set on the producer)."""
        owner = v.owner
        if not owner.get_tensor_names(v.index):
            owner.set_tensor_names(v.index, [name])
        self._add(ResultOp.new(v, name=name))

    def module(self) -> ModuleOp:
        if not hasattr(self, "_module"):
            self._module = ModuleOp(self.ops)
        return self._module

    def feeds(self, batch: int | None = None) -> list[np.ndarray]:
        out = []
        for shape in self.params.values():
            s = [batch if d < 0 else d for d in shape]
            out.append(self.rng.standard_normal(s).astype(np.float32))
        return out


def op_counts(m: ModuleOp) -> Counter:
    """ov op type (without the ``ov.`` prefix) -> how many ops of it ``m`` has."""
    return Counter(o.name.removeprefix("ov.") for o in m.body.block.ops)


def check_pass(g: G, pass_: Any, expect: dict[str, int], rtol: float = 1e-5,
               atol: float = 1e-5) -> ModuleOp:
    """Run ``pass_`` on ``g``'s module: it verifies before and after, has the
    ``expect``-ed op counts, and computes the same outputs on the CPU backend."""
    from xmo import compile_model

    m = g.module()
    m.verify()
    feeds = g.feeds()
    before = compile_model(m.clone())(feeds)
    pass_.apply(g.ctx, m)
    m.verify()
    c = op_counts(m)
    for k, v in expect.items():
        assert c[k] == v, f"{k}: {c[k]} != {v} ({dict(c)})"
    after = compile_model(m)(feeds)
    for x, y in zip(before, after):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=rtol, atol=atol)
    return m
