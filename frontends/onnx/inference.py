"""ONNX shape inference for the loader, with data propagation kept bounded.

:func:`infer_graph` runs onnx's shape inference on a light copy of the model
(payloads over 1 MiB left out, ``input_shapes`` applied) and returns the
inferred graph (None when inference fails).

Data propagation (``data_prop=True``) makes onnx compute the values of small
shape tensors (``Shape -> Gather -> Concat -> Reshape``), so more shapes are
static. It also represents *every* rank-0/1 tensor that an op with a data
propagator reads as one entry per element (N symbolic dimensions for a
length-N tensor, ~70 bytes each), and a Concat of two such values as their
sum: a chain of 40 Concats doubling a 1-element input (a 1 KB model) takes
gigabytes, and a long 1-D input or weight read by a ``Mul`` ~70 bytes per
element. Nothing bounds it inside onnx.

So inference first runs without data propagation, and that result sizes
what data propagation would represent (:func:`propagated_elements`: the
rank-0/1 values read or produced by ops with a data propagator):

* every size known and at most :data:`MAX_PROPAGATED_ELEMENTS` in all: data
  propagation runs here;
* more than that: no data propagation (the plain result is used: shapes that
  need propagated values stay dynamic in the ``onnx`` dialect; the ``ov``
  shape inference refines them later);
* some size unknown (a value whose length or rank only propagated data can
  tell, e.g. the output of a ``Reshape`` to a computed shape, or an op
  inferred through its function body): data propagation runs in a separate
  process under an address-space cap (:func:`infer_in_child`); when that
  process fails (out of memory, :data:`CHILD_TIMEOUT` seconds) the plain
  result is used.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from xmo import budget
from xmo.frontends.onnx.graphs import subgraphs, used_names
from xmo.frontends.onnx.tensors import stored_bytes

if TYPE_CHECKING:
    import onnx

log = logging.getLogger("xmo.onnx")

#: initializers / Constant values over this size are left out of the copy
#: given to ONNX shape inference (only their type and dims are kept): no value
#: a shape depends on is this large (a Reshape's shape, Resize's scales,
#: Slice's starts: a few elements), and each byte kept is serialized once and
#: parsed twice by onnx (plain, then data-propagating inference): 1 MiB here
#: cost regnet_y_400mf 0.1 s. Payloads over it of a model read from a file
#: are also read in place (:mod:`xmo.frontends.onnx.wire`).
INFER_STRIP_BYTES = 64 << 10

#: ops with a data propagator that reads only their input's type, not its value
TYPE_ONLY_PROPAGATORS = frozenset({"Shape", "Size"})

#: most elements of rank-0/1 values data propagation may represent in all
MAX_PROPAGATED_ELEMENTS = 1 << 20

#: seconds the data propagation process may take
CHILD_TIMEOUT = 30.0


def infer_graph(
    model: onnx.ModelProto, input_shapes: Mapping[str, Sequence[int | str | None]]
) -> onnx.GraphProto | None:
    """The inferred graph of ``model`` (see the module docstring); None when
    inference fails or changes the number of nodes."""
    import onnx

    data = light_copy(model, input_shapes).SerializeToString()
    try:
        out = onnx.shape_inference.infer_shapes(data, check_type=False, strict_mode=False)
    except Exception:  # noqa: BLE001 -- inference is best effort
        return None
    n = propagated_elements(out.graph, _opsets(model))
    if n is None:
        propagated = infer_in_child(data)
        if propagated is not None:
            out = propagated
    elif n <= MAX_PROPAGATED_ELEMENTS:
        try:
            out = onnx.shape_inference.infer_shapes(
                data, check_type=False, strict_mode=False, data_prop=True
            )
        except Exception:  # noqa: BLE001 -- keep the plain result
            pass
    else:
        log.debug("no ONNX data propagation: it would represent %d values", n)
    if len(out.graph.node) != len(model.graph.node):
        return None
    return out.graph


def light_copy(
    model: onnx.ModelProto, input_shapes: Mapping[str, Sequence[int | str | None]]
) -> onnx.ModelProto:
    """``model`` without its large payloads, with ``input_shapes`` applied
    (and the declared output / value_info shapes dropped when they are)."""
    import onnx

    m = model
    copy = onnx.ModelProto()
    copy.ir_version = m.ir_version
    copy.opset_import.extend(m.opset_import)
    copy.functions.extend(m.functions)
    g, src = copy.graph, m.graph
    g.name = src.name
    g.input.extend(src.input)
    g.output.extend(src.output)
    g.value_info.extend(src.value_info)
    used = used_names(src, {}) | {vi.name for vi in src.input}
    for t in src.initializer:
        if t.name in used:
            g.initializer.append(light_tensor(t))
    for node in src.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and any(
            a.HasField("t") and stored_bytes(a.t) > INFER_STRIP_BYTES for a in node.attribute
        ):
            n2 = g.node.add()
            n2.CopyFrom(onnx.NodeProto(
                input=node.input, output=node.output, name=node.name,
                op_type=node.op_type, domain=node.domain,
            ))  # fmt: skip
            for a in node.attribute:
                a2 = n2.attribute.add()
                if a.HasField("t"):
                    a2.name, a2.type = a.name, a.type
                    a2.t.CopyFrom(light_tensor(a.t))
                else:
                    a2.CopyFrom(a)
        else:
            g.node.append(node)
    if input_shapes:
        for vi in g.input:
            if vi.name in input_shapes:
                override_shape(vi.type, input_shapes[vi.name])
        for vi in (*g.output, *g.value_info):
            if vi.type.HasField("tensor_type"):
                vi.type.tensor_type.ClearField("shape")
    return copy


def light_tensor(t: onnx.TensorProto) -> onnx.TensorProto:
    """``t`` itself when small; else a copy without payload (type and dims only)."""
    import onnx

    if stored_bytes(t) <= INFER_STRIP_BYTES:
        return t
    light = onnx.TensorProto(name=t.name, data_type=t.data_type, dims=t.dims)
    light.data_location = onnx.TensorProto.EXTERNAL
    e = light.external_data.add()
    e.key, e.value = "location", "__xmo_stripped__"
    return light


def override_shape(tp: onnx.TypeProto, shape: Sequence[int | str | None]) -> None:
    """Replace the shape of a tensor type by ``shape`` (int: static, str: a
    symbol, None: dynamic)."""
    if not tp.HasField("tensor_type"):
        return
    tt = tp.tensor_type
    tt.ClearField("shape")
    shp = tt.shape
    shp.SetInParent()
    for d in shape:
        dim = shp.dim.add()
        if isinstance(d, int) and not isinstance(d, bool) and d >= 0:
            dim.dim_value = d
        elif isinstance(d, str):
            dim.dim_param = d


# ---------------------------------------------------------------------------
# Sizing data propagation
# ---------------------------------------------------------------------------


def _opsets(model: onnx.ModelProto) -> dict[str, int]:
    out = {imp.domain if imp.domain != "ai.onnx" else "": int(imp.version)
           for imp in model.opset_import}
    out.setdefault("", 1)
    return out


def _length(tp: onnx.TypeProto | None) -> int | None:
    """Elements of a rank-0/1 tensor type; 0 for higher ranks (never
    propagated) and non-tensors; None for an unknown rank or length."""
    if tp is None:
        return None
    if not tp.HasField("tensor_type"):
        return 0
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return None
    dims = tt.shape.dim
    if len(dims) == 0:
        return 1
    if len(dims) > 1:
        return 0
    return dims[0].dim_value if dims[0].HasField("dim_value") else None


class _Schemas:
    """What onnx's data propagation does with a node type (cached)."""

    def __init__(self, opsets: Mapping[str, int]) -> None:
        self.opsets = opsets
        self.cache: dict[tuple[str, str], str] = {}

    def kind(self, node: onnx.NodeProto) -> str:
        """``"reads"``: a data propagator reading input values; ``"body"``:
        inferred through a function body (its values are not visible);
        ``""``: neither."""
        domain = "" if node.domain == "ai.onnx" else node.domain
        key = (node.op_type, domain)
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = self._kind(*key)
        return hit

    def _kind(self, op_type: str, domain: str) -> str:
        import onnx.defs

        version = self.opsets.get(domain)
        if version is None:
            return ""
        try:
            schema = onnx.defs.get_schema(op_type, version, domain)
        except onnx.defs.SchemaError:
            return ""
        if schema.has_data_propagation_function and op_type not in TYPE_ONLY_PROPAGATORS:
            return "reads"
        if not schema.has_type_and_shape_inference_function and (
            schema.has_function or schema.has_context_dependent_function
        ):
            return "body"
        return ""


def propagated_elements(inferred: onnx.GraphProto, opsets: Mapping[str, int]) -> int | None:
    """How many values onnx's data propagation would represent for the graph
    whose plain inference gave ``inferred``: the elements of the rank-0/1
    values read or produced by ops with a data propagator; None when one of
    their sizes (or a function body's) only data propagation can tell."""
    schemas = _Schemas(opsets)
    total = 0
    for graph, types, fixed in _graphs(inferred, {}, frozenset(), main=True):
        for node in graph.node:
            kind = schemas.kind(node)
            if kind == "body":
                return None
            if kind != "reads":
                continue
            for name in (*node.input, *node.output):
                if not name:
                    continue
                n = _length(types.get(name))
                if n is None:
                    if name in fixed:
                        continue  # a graph input: propagation learns nothing more
                    return None
                total += n
    return total


def _graphs(
    graph: onnx.GraphProto,
    outer: Mapping[str, onnx.TypeProto],
    outer_fixed: frozenset[str],
    main: bool = False,
) -> Iterable[tuple[onnx.GraphProto, dict[str, onnx.TypeProto], frozenset[str]]]:
    """Each (sub)graph with the types it sees and the names whose types
    inference cannot refine (the main graph's inputs, initializers)."""
    types = dict(outer)
    for t in graph.initializer:
        types[t.name] = _tensor_type_proto(t)
    for vi in (*graph.input, *graph.value_info, *graph.output):
        if vi.HasField("type"):
            types[vi.name] = vi.type
    fixed = outer_fixed | {t.name for t in graph.initializer}
    if main:
        fixed |= {vi.name for vi in graph.input}
    yield graph, types, fixed
    for node in graph.node:
        for g in subgraphs(node):
            yield from _graphs(g, types, fixed)


def _tensor_type_proto(t: onnx.TensorProto) -> onnx.TypeProto:
    import onnx

    tp = onnx.TypeProto()
    tp.tensor_type.elem_type = t.data_type
    tp.tensor_type.shape.SetInParent()
    for d in t.dims:
        tp.tensor_type.shape.dim.add(dim_value=d)
    return tp


# ---------------------------------------------------------------------------
# Data propagation in a process of its own
# ---------------------------------------------------------------------------

#: run by ``python -I -S -c``: argv = [-c, the onnx package's folder, the
#: address space the process may add]; the serialized model on stdin, the
#: inferred one on stdout. Only onnx's C++ extension is imported (an empty
#: ``onnx`` package around it: the package's own imports take longer than
#: inference)
_CHILD = """
import os, resource, sys, types
package = types.ModuleType("onnx")
package.__path__ = [sys.argv[1]]
sys.modules["onnx"] = package
from onnx.onnx_cpp2py_export import shape_inference
data = sys.stdin.buffer.read()
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
cap = used + int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
sys.stdout.buffer.write(shape_inference.infer_shapes(data, False, False, True))
"""


def infer_in_child(data: bytes) -> onnx.ModelProto | None:
    """Shape inference with data propagation of the serialized model ``data``
    in a new process whose address space may grow by 256 MiB + 8x the
    model (at most what the memory budget has left); None when it fails."""
    import onnx
    from google.protobuf.message import DecodeError

    if not sys.executable:
        return None
    allowance = min((256 << 20) + 8 * len(data), budget.current().remaining)
    folder = os.path.dirname(onnx.__file__)
    cmd = [sys.executable, "-I", "-S", "-c", _CHILD, folder, str(allowance)]
    try:
        r = subprocess.run(cmd, input=data, capture_output=True, timeout=CHILD_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        log.debug("no ONNX data propagation: %s", e)
        return None
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace").strip().splitlines()
        log.debug("no ONNX data propagation: exit code %d %s", r.returncode, err[-1:] or "")
        return None
    try:
        return onnx.load_from_string(r.stdout)
    except DecodeError:
        return None


__all__ = [
    "CHILD_TIMEOUT",
    "INFER_STRIP_BYTES",
    "MAX_PROPAGATED_ELEMENTS",
    "TYPE_ONLY_PROPAGATORS",
    "infer_graph",
    "infer_in_child",
    "light_copy",
    "light_tensor",
    "override_shape",
    "propagated_elements",
]
