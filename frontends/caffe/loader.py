"""Loading a Caffe net into the ``caffe`` dialect (:mod:`xmo.dialects.caffe`).

Files: the net's structure comes from the text ``.prototxt`` (the deploy
net), its learned blobs from the binary ``.caffemodel``, matched by layer
name as Caffe itself copies trained layers. ``load_caffe("net.prototxt")``
reads ``net.caffemodel`` beside it when there is one;
``load_caffe("net.caffemodel", input_proto="deploy.prototxt")`` names the
structure explicitly (the Model Optimizer's ``--input_proto``);
``load_caffe("net.caffemodel")`` uses ``net.prototxt`` beside it, else the
structure stored in the caffemodel itself.

Both forms of layers load: ``layer`` (LayerParameter) and the legacy V1
``layers`` (V1LayerParameter, its type enum mapped to the type strings).
Layers the TEST phase excludes (``include``/``exclude`` rules) are dropped,
as a deploy net does. Graph inputs: the net's ``input`` with ``input_shape``
or ``input_dim`` (legacy), and ``Input`` layers (``input_param.shape``);
``input_shapes`` overrides their dims. Graph outputs: every blob no later
layer consumes, in production order. In-place layers (top == bottom) get a
new SSA value; the blob name then refers to it for later layers.

Every malformed file raises :class:`CaffeFrontendError` (a
:class:`~xmo.errors.ModelError`) with a one-line message naming the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrankedTensorType, f32
from xdsl.ir import Attribute, SSAValue

from xmo.context import weight_store
from xmo.dialects.caffe import InputOp, LayerOp, OutputOp, param_attr
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.weights import make_constant_attr
from xmo.errors import ModelError, first_line, printable
from xmo.frontends.caffe import schema
from xmo.frontends.caffe.wire import RawLayer, WireError, read_caffemodel
from xmo.frontends.protobuf_file import check_size
from xmo.input_files import open_input


class CaffeFrontendError(ModelError):
    """A Caffe model that cannot be read."""


#: phase a deploy net runs in
_TEST = 1


def _read_bytes(path: str) -> bytes:
    try:
        with open_input(path, CaffeFrontendError) as f:
            size = os.fstat(f.fileno()).st_size
            check_size(path, size, "a Caffe net", CaffeFrontendError)
            return f.read()
    except OSError as e:
        raise CaffeFrontendError(f"{path}: cannot read: {e.strerror or e}") from None


def read_prototxt(path: str) -> Any:
    """The NetParameter of a text ``.prototxt``."""
    data = _read_bytes(path)
    try:
        return schema.parse_text(data)
    except UnicodeDecodeError:
        raise CaffeFrontendError(f"{path}: not a text prototxt (not UTF-8)") from None
    except text_format.ParseError as e:
        raise CaffeFrontendError(f"{path}: not a valid prototxt: {printable(first_line(e))}") from None
    except RecursionError:
        raise CaffeFrontendError(f"{path}: nested too deeply") from None


def read_weights(path: str) -> tuple[Any, list[RawLayer]]:
    """``(net fields, layers with blobs)`` of a binary ``.caffemodel``."""
    data = _read_bytes(path)
    if not data:
        raise CaffeFrontendError(f"{path}: empty file, not a caffemodel")
    try:
        net, layers = read_caffemodel(data)
    except (WireError, DecodeError) as e:
        raise CaffeFrontendError(f"{path}: not a valid caffemodel: {printable(first_line(e))}") from None
    except RecursionError:
        raise CaffeFrontendError(f"{path}: nested too deeply") from None
    if not layers:
        raise CaffeFrontendError(f"{path}: the caffemodel has no layers")
    return net, layers


def model_files(model: Any, input_proto: Any = None) -> tuple[str | None, str | None]:
    """``(prototxt, caffemodel)`` paths of a model (see the module docstring);
    either may be None."""
    if not isinstance(model, str | os.PathLike):
        raise CaffeFrontendError(
            f"cannot load a Caffe net from a {type(model).__name__} "
            "(expected a .prototxt or .caffemodel path)")
    path = Path(model)
    if path.suffix.lower() == ".prototxt":
        if input_proto is not None:
            raise CaffeFrontendError(
                f"{path}: --input_proto names the prototxt of a .caffemodel; "
                "give the caffemodel as the model")
        weights = path.with_suffix(".caffemodel")
        return os.fspath(path), os.fspath(weights) if weights.is_file() else None
    if input_proto is not None:
        proto = Path(input_proto)
        if not proto.exists():
            raise CaffeFrontendError(f"{proto}: no such file (--input_proto)")
        return os.fspath(proto), os.fspath(path)
    beside = path.with_suffix(".prototxt")
    return (os.fspath(beside) if beside.is_file() else None), os.fspath(path)


def _included(layer: Any) -> bool:
    """Whether a layer is part of the TEST-phase net (its include/exclude rules)."""
    def matches(rule: Any) -> bool:
        if rule.HasField("phase") and rule.phase != _TEST:
            return False
        if rule.HasField("min_level") and rule.min_level > 0:
            return False
        if rule.HasField("max_level") and rule.max_level < 0:
            return False
        return not rule.stage
    if len(layer.include):
        return any(matches(r) for r in layer.include)
    return not any(matches(r) for r in layer.exclude)


class _Layer:
    """One layer as the loader sees it (``layer`` or V1 ``layers``)."""

    def __init__(self, msg: Any, v1: bool, index: int) -> None:
        self.msg = msg
        self.v1 = v1
        self.name = msg.name or f"layer_{index}"
        self.type = schema.V1_TYPES.get(msg.type, str(msg.type)) if v1 else msg.type
        self.bottoms = list(msg.bottom)
        self.tops = list(msg.top)

    def params(self) -> dict[str, Attribute]:
        out: dict[str, Attribute] = {}
        for f, v in self.msg.ListFields():
            if f.message_type is not None and f.name.endswith("_param"):
                out[f.name] = param_attr(v)
        return out


def _net_layers(net: Any, what: str) -> list[_Layer]:
    if len(net.layer) and len(net.layers):
        raise CaffeFrontendError(f"{what}: the net mixes 'layer' and legacy 'layers'")
    v1 = not len(net.layer)
    msgs = net.layers if v1 else net.layer
    return [_Layer(m, v1, i) for i, m in enumerate(msgs) if _included(m)]


def _dims(shape: Any) -> list[int]:
    return [int(d) for d in shape.dim]


def _net_inputs(net: Any, layers: Sequence[_Layer], what: str) -> dict[str, list[int] | None]:
    """Graph input blob -> dims (None: not given) -- the net's ``input`` fields
    and the tops of ``Input`` layers."""
    out: dict[str, list[int] | None] = {}
    names = list(net.input)
    for i, name in enumerate(names):
        if i < len(net.input_shape):
            out[name] = _dims(net.input_shape[i])
        elif len(net.input_dim) >= 4 * (i + 1):
            out[name] = [int(d) for d in net.input_dim[4 * i: 4 * i + 4]]
        elif len(net.input_dim) and len(names) == 1:
            out[name] = [int(d) for d in net.input_dim]
        else:
            out[name] = None
    for layer in layers:
        if layer.type != "Input":
            continue
        shapes = [_dims(s) for s in layer.msg.input_param.shape] if not layer.v1 else []
        for k, top in enumerate(layer.tops):
            out[top] = shapes[k] if k < len(shapes) else (shapes[0] if len(shapes) == 1 else None)
    return out


def _resolve(
    model: Any, input_proto: Any
) -> tuple[Any, dict[str, list[np.ndarray]], str]:
    """``(structure, blobs by layer name, what)``."""
    proto, weights = model_files(model, input_proto)
    blobs: dict[str, list[np.ndarray]] = {}
    if proto is None:  # the structure of the caffemodel itself
        assert weights is not None
        net_fields, raw = read_weights(weights)
        for r in raw:
            (net_fields.layers if r.v1 else net_fields.layer).add().CopyFrom(r.message)
            if r.blobs:
                blobs[r.message.name] = r.blobs
        return net_fields, blobs, weights
    net = read_prototxt(proto)
    if weights is not None:
        _, raw = read_weights(weights)
        for r in raw:
            if r.blobs and r.message.name:
                blobs.setdefault(r.message.name, r.blobs)
    return net, blobs, proto


def graph_input_shapes(model: Any, input_proto: Any = None) -> dict[str, list[int] | None]:
    """Graph input blob -> dims (-1 dynamic; None: not given)."""
    proto, weights = model_files(model, input_proto)
    if proto is not None:
        net = read_prototxt(proto)
        what = proto
    else:
        net, raw = read_weights(weights)  # type: ignore[arg-type]
        for r in raw:
            (net.layers if r.v1 else net.layer).add().CopyFrom(r.message)
        what = weights
    return _net_inputs(net, _net_layers(net, what), what)  # type: ignore[arg-type]


def _blob_attr(store: Any, array: np.ndarray, hint: str) -> Attribute:
    if array.dtype != np.float32:
        array = array.astype(np.float32)
    return make_constant_attr(array, "f32", store, hint)


def load_caffe(
    model: Any,
    ctx: Context,
    *,
    input_proto: Any = None,
    input_shapes: Mapping[str, Sequence[int | str | None] | None] | None = None,
    inputs: Sequence[str] | None = None,
) -> ModuleOp:
    """Load a Caffe net into a ``caffe``-dialect module (see the module docstring).

    ``input_proto``: the deploy prototxt of a ``.caffemodel`` model.
    ``input_shapes``: input blob -> dims (int >= 0 static; -1, None or a
    string dynamic). ``inputs``: blob names that must be graph inputs.
    """
    net, blobs, what = _resolve(model, input_proto)
    layers = _net_layers(net, what)
    if not layers and not len(net.input):
        raise CaffeFrontendError(f"{what}: the net has no layers")
    graph_inputs = _net_inputs(net, layers, what)
    for name, dims in (input_shapes or {}).items():
        if name not in graph_inputs:
            raise CaffeFrontendError(f"{what}: '{name}' is not an input of the net "
                                     f"(inputs: {', '.join(graph_inputs) or 'none'})")
        graph_inputs[name] = [d if isinstance(d, int) and d >= 0 else -1 for d in dims] if dims is not None else None
    for name in inputs or ():
        if name not in graph_inputs:
            raise CaffeFrontendError(f"{what}: '{name}' is not an input of the net "
                                     f"(inputs: {', '.join(graph_inputs) or 'none'})")
    store = weight_store(ctx)
    ops: list[Any] = []
    values: dict[str, SSAValue] = {}
    producer_order: list[str] = []
    consumed: set[SSAValue] = set()
    for name, dims in graph_inputs.items():
        t = tensor("f32", dims) if dims is not None else UnrankedTensorType(f32)
        op = InputOp.create(result_types=[t], properties={"blob_name": _str(name)})
        ops.append(op)
        values[name] = op.results[0]
        producer_order.append(name)
    for layer in layers:
        if layer.type == "Input":
            continue
        operands: list[SSAValue] = []
        for b in layer.bottoms:
            v = values.get(b)
            if v is None:
                raise CaffeFrontendError(
                    f"{what}: layer '{layer.name}' ({layer.type}): bottom '{b}' is not "
                    "produced by an earlier layer or an input")
            operands.append(v)
            consumed.add(v)
        arrays = blobs.get(layer.msg.name, [])
        attrs = [_blob_attr(store, a, f"{layer.name}_{k}") for k, a in enumerate(arrays)]
        try:
            params = layer.params()
        except (TypeError, ValueError) as e:
            raise CaffeFrontendError(f"{what}: layer '{layer.name}': {printable(first_line(e))}") from None
        op = LayerOp.make(
            layer.name, layer.type, operands, layer.bottoms, layer.tops,
            [UnrankedTensorType(f32)] * len(layer.tops), params, attrs,
        )
        ops.append(op)
        for top, r in zip(layer.tops, op.results):
            if top not in values:
                producer_order.append(top)
            values[top] = r
    outputs = [n for n in producer_order if values[n] not in consumed
               and not isinstance(values[n].owner, InputOp)]
    if not outputs:
        raise CaffeFrontendError(f"{what}: the net has no outputs (every blob is consumed)")
    for n in outputs:
        ops.append(OutputOp.create(operands=[values[n]], properties={"blob_name": _str(n)}))
    return ModuleOp(ops)


def _str(s: str) -> Attribute:
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(s)


__all__ = ["CaffeFrontendError", "graph_input_shapes", "load_caffe", "model_files",
           "read_prototxt", "read_weights"]
