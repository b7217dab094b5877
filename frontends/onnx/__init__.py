"""ONNX frontend: an ONNX model -> an ``onnx``-dialect module.

:func:`load_onnx` reads a model (path, serialized bytes or ``onnx.ModelProto``)
into a ``builtin.module`` whose body holds, in order:

* one ``onnx.Input`` per graph input that has no initializer (graph order;
  property ``name``; result type from the ValueInfo, ``?`` for symbolic or
  unknown dims with the symbols kept in ``dim_params``, unranked when the rank
  is unknown)
* one ``onnx.Initializer`` per initializer (property ``name``, ``value`` =
  ``dense``/``dense_resource``/``#onnx.string_tensor``; ``overridable`` when
  the initializer is also a graph input of an IR >= 4 model)
* the nodes in topological order, one op each (the generated op of the node's
  schema version, or ``onnx.Custom``), with ``node_name`` and
  ``output_names`` properties holding the exact ONNX names
* one ``onnx.Output`` per graph output (graph order; property ``name``)

Subgraphs (If/Loop/Scan bodies...) are regions: block arguments are the
subgraph inputs, its initializers and nodes follow, ``onnx.Yield`` returns its
outputs; values of enclosing graphs are used directly.

Weights stay numpy arrays held by reference in the context's weight store:
views of the protobuf ``raw_data`` bytes, read-only memory maps for external
data (locations must stay inside the model's folder). Typed repeated fields
(``float_data``, ``int32_data``...) are converted once into a new array.

Every malformed model raises :class:`OnnxFrontendError` (a ``ValueError``) with
a one-line message naming the tensor or node.
"""

from __future__ import annotations

from xmo.frontends.onnx.errors import OnnxFrontendError
from xmo.frontends.onnx.loader import load_onnx, read_model_proto

__all__ = ["OnnxFrontendError", "graph_input_shapes", "load_onnx", "read_model_proto"]


def graph_input_shapes(model: object) -> dict[str, list[int] | None]:
    """Dims of the real graph inputs (not initializers) of an ONNX model.

    ``model``: a path, serialized bytes or ``onnx.ModelProto``. Dims are -1 when
    symbolic or unknown; None for an unknown rank.
    """
    import os

    import onnx

    if isinstance(model, str | os.PathLike):
        proto = read_model_proto(model, payloads=False)
    elif isinstance(model, bytes | bytearray | memoryview):
        proto = onnx.load_from_string(bytes(model))
    else:
        proto = model  # type: ignore[assignment]
    inits = {t.name for t in proto.graph.initializer}  # type: ignore[attr-defined]
    out: dict[str, list[int] | None] = {}
    for vi in proto.graph.input:  # type: ignore[attr-defined]
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            out[vi.name] = None
        else:
            out[vi.name] = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim]
    return out
