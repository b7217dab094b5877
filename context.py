"""xmo contexts: an xDSL ``Context`` with every xmo dialect and a weight store.

Use :func:`make_context` wherever a ``Context`` is needed. Each context owns its
own :class:`~xmo.dialects.ov.weights.WeightStore` (the builtin dialect's resource
interface), so weights are freed with the context. xDSL's own dialects stay
available, registered lazily.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin
from xdsl.ir import Dialect

from xmo.dialects.ov.weights import WeightStore


def _xmo_dialects() -> dict[str, object]:
    def ov() -> Dialect:
        from xmo.dialects.ov import OV

        return OV

    def onnx() -> Dialect:
        from xmo.dialects.onnx import ONNX

        return ONNX

    def tf() -> Dialect:
        from xmo.dialects.tf import TF

        return TF

    def kaldi() -> Dialect:
        from xmo.dialects.kaldi import KALDI

        return KALDI

    def mxnet() -> Dialect:
        from xmo.dialects.mxnet import MXNET

        return MXNET

    def caffe() -> Dialect:
        from xmo.dialects.caffe import CAFFE

        return CAFFE

    return {"ov": ov, "onnx": onnx, "tf": tf, "caffe": caffe, "kaldi": kaldi, "mxnet": mxnet}


def make_context(
    allow_unregistered: bool = False,
    elide_weights_larger_than: int | None = None,
    with_xdsl_dialects: bool = True,
) -> Context:
    """A fresh context: builtin (with a new weight store), xmo dialects, xDSL's."""
    ctx = Context(allow_unregistered=allow_unregistered)
    store = WeightStore(elide_larger_than=elide_weights_larger_than)
    builtin = Dialect(
        "builtin", list(Builtin.operations), list(Builtin.attributes), [store]
    )
    ctx.load_dialect(builtin)
    for name, factory in _xmo_dialects().items():
        ctx.register_dialect(name, factory)  # type: ignore[arg-type]
    if with_xdsl_dialects:
        from xdsl.universe import Universe

        for name, factory in Universe.get_multiverse().all_dialects.items():
            if name not in ctx.registered_dialect_names:
                ctx.register_dialect(name, factory)
    return ctx


def weight_store(ctx: Context) -> WeightStore:
    """The weight store of an xmo context."""
    iface = ctx.get_dialect("builtin").get_interface(OpAsmDialectInterface)
    if not isinstance(iface, WeightStore):
        raise TypeError("this context has no xmo weight store: use make_context()")
    return iface


def attach_context(module: object, ctx: Context) -> None:
    """Keep ``ctx`` (and so its weight store) alive as long as ``module``.

    Every function that returns a module built in a context attaches it, so
    weights live exactly as long as a module that refers to them.
    """
    module._xmo_context = ctx  # type: ignore[attr-defined]


def context_of(module: object) -> Context | None:
    """The context attached to ``module`` by :func:`attach_context`, if any."""
    return getattr(module, "_xmo_context", None)
