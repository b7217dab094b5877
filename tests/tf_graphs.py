"""Test helpers: small TensorFlow GraphDefs built with xmo's own schema (no
TensorFlow), converted with xmo and checked against OpenVINO's TF frontend.

    g = Graph()
    x = g.placeholder("x", np.float32, [1, 5, 5, 3])
    w = g.const("w", np.ones((3, 3, 3, 4), np.float32))
    g.node("Conv2D", "y", [x, w], strides=[1, 1, 1, 1], padding="SAME")
    check_tf(g, {"x": x_value}, tmp_path)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from onnx_models import assert_matches
from xmo.frontends.tf import schema

_DT = schema.DataType
NP_TO_DT = {
    np.dtype(np.float32): _DT.Value("DT_FLOAT"),
    np.dtype(np.float64): _DT.Value("DT_DOUBLE"),
    np.dtype(np.float16): _DT.Value("DT_HALF"),
    np.dtype(np.int32): _DT.Value("DT_INT32"),
    np.dtype(np.int64): _DT.Value("DT_INT64"),
    np.dtype(np.int8): _DT.Value("DT_INT8"),
    np.dtype(np.int16): _DT.Value("DT_INT16"),
    np.dtype(np.uint8): _DT.Value("DT_UINT8"),
    np.dtype(np.uint16): _DT.Value("DT_UINT16"),
    np.dtype(np.bool_): _DT.Value("DT_BOOL"),
}


class Shape(list):
    """Marks a ``shape`` attribute value (-1 = unknown dim; None = unknown rank)."""


class DType:
    """Marks a ``type`` attribute value (``"variant"``: DT_VARIANT, a TensorList)."""

    def __init__(self, dtype: Any) -> None:
        if isinstance(dtype, str) and dtype == "variant":
            self.dtype = None
            self.enum = _DT.Value("DT_VARIANT")
        else:
            self.dtype = np.dtype(dtype)
            self.enum = NP_TO_DT[self.dtype]


def tensor_proto(value: Any, dtype: Any = None) -> Any:
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (str, bytes)):
        t = schema.TensorProto(dtype=_DT.Value("DT_STRING"))
        t.tensor_shape.dim.add(size=len(value))
        t.string_val.extend(v.encode() if isinstance(v, str) else v for v in value)
        return t
    arr = np.asarray(value, dtype=dtype)
    t = schema.TensorProto(dtype=NP_TO_DT[arr.dtype])
    for d in arr.shape:
        t.tensor_shape.dim.add(size=d)
    if arr.size > 1:
        t.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    elif arr.size == 1:  # as TensorFlow writes single values: the typed *_val field
        v = arr.reshape(-1)[0]
        if arr.dtype == np.float16:
            t.half_val.append(int(np.asarray(v).view(np.uint16)))
        else:
            field = {"f": "float_val", "b": "bool_val"}.get(arr.dtype.kind, "int_val")
            field = {np.dtype(np.float64): "double_val", np.dtype(np.int64): "int64_val"}.get(arr.dtype, field)
            getattr(t, field).append(v.item())
    return t


def _set_attr(a: Any, v: Any) -> None:
    if isinstance(v, str) and v == "DT_STRING":
        a.type = _DT.Value("DT_STRING")
    elif isinstance(v, DType):
        a.type = v.enum
    elif isinstance(v, type) and issubclass(v, np.generic) or isinstance(v, np.dtype):
        a.type = NP_TO_DT[np.dtype(v)]
    elif isinstance(v, Shape):
        if v and v[0] is None:
            a.shape.unknown_rank = True
        else:
            a.shape.SetInParent()
            for d in v:
                a.shape.dim.add(size=d)
    elif isinstance(v, bool):
        a.b = v
    elif isinstance(v, (int, np.integer)):
        a.i = int(v)
    elif isinstance(v, (float, np.floating)):
        a.f = float(v)
    elif isinstance(v, str):
        a.s = v.encode()
    elif isinstance(v, bytes):
        a.s = v
    elif isinstance(v, np.ndarray):
        a.tensor.CopyFrom(tensor_proto(v))
    elif isinstance(v, schema.AttrValue):
        a.CopyFrom(v)
    elif isinstance(v, (list, tuple)):
        v = [DType(x) if isinstance(x, type) and issubclass(x, np.generic) else x for x in v]
        a.list.SetInParent()
        if all(isinstance(x, bool) for x in v) and v:
            a.list.b.extend(v)
        elif all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
            a.list.i.extend(int(x) for x in v)
        elif all(isinstance(x, (float, int)) for x in v):
            a.list.f.extend(float(x) for x in v)
        elif all(isinstance(x, DType) for x in v):
            a.list.type.extend(x.enum for x in v)
        elif all(isinstance(x, str) for x in v):
            a.list.s.extend(x.encode() for x in v)
        else:
            raise TypeError(f"attribute list {v!r}")
    else:
        raise TypeError(f"attribute value {v!r}")


class Graph:
    """A GraphDef under construction; tracks each tensor's dtype for ``T``."""

    def __init__(self) -> None:
        self.g = schema.GraphDef()
        self.g.versions.producer = 1286
        self.dtypes: dict[str, np.dtype] = {}

    def node(
        self,
        op: str,
        name: str,
        inputs: Sequence[str] = (),
        *,
        T: Any = "auto",
        out_dtype: Any = None,
        controls: Sequence[str] = (),
        **attrs: Any,
    ) -> str:
        n = self._add_node(name, op)
        n.input.extend(list(inputs) + [f"^{c}" for c in controls])
        if isinstance(T, str) and T == "auto":
            first = inputs[0] if inputs else None
            T = None if first is None else self.dtypes.get(first, self.dtypes.get(first.split(":")[0]))
        if isinstance(T, str) and T == "DT_STRING":
            attrs = {"T": T, **attrs}
            T = None
        elif isinstance(T, (list, tuple)):
            attrs = {"T": [DType(t) for t in T], **attrs}
            T = T[0] if T else None
        elif T is not None:
            attrs = {"T": DType(T), **attrs}
        for k, v in attrs.items():
            _set_attr(n.attr[k], v)
        dt = out_dtype if out_dtype is not None else T
        if dt is not None:
            self.dtypes[name] = np.dtype(dt)
            self.dtypes[f"{name}:0"] = np.dtype(dt)
        return name

    def _add_node(self, name: str, op: str) -> Any:
        return self.g.node.add(name=name, op=op)

    def function(
        self,
        name: str,
        inputs: Sequence[tuple[str, Any]],
        shapes: Sequence[Sequence[int] | None] | None = None,
    ) -> Function:
        """A FunctionDef of this graph's library: ``inputs`` are (arg name,
        dtype); ``shapes`` their ``_output_shapes`` (None: not recorded)."""
        return Function(self, name, inputs, shapes)

    def placeholder(self, name: str, dtype: Any = np.float32, shape: Sequence[int] | None = None) -> str:
        attrs: dict[str, Any] = {"dtype": DType(dtype)}
        attrs["shape"] = Shape([None]) if shape is None else Shape(list(shape))
        return self.node("Placeholder", name, T=None, out_dtype=dtype, **attrs)

    def const(self, name: str, value: Any, dtype: Any = None) -> str:
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
            n = self._add_node(name, "Const")
            n.attr["dtype"].type = _DT.Value("DT_STRING")
            n.attr["value"].tensor.CopyFrom(tensor_proto(list(value)))
            return name
        arr = np.asarray(value, dtype=dtype)
        return self.node(
            "Const", name, T=None, out_dtype=arr.dtype, dtype=DType(arr.dtype), value=arr
        )

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.write_bytes(self.g.SerializeToString())
        return p


class Function(Graph):
    """A FunctionDef under construction (:meth:`Graph.function`): nodes as in a
    graph, but they read an argument by its name and a node output as
    ``node:out_arg:index`` (``out(node)`` for the first output); end with
    :meth:`returns`. ``T`` is inferred from the first input as in a graph."""

    def __init__(
        self,
        graph: Graph,
        name: str,
        inputs: Sequence[tuple[str, Any]],
        shapes: Sequence[Sequence[int] | None] | None = None,
    ) -> None:
        self.g = graph.g
        self.dtypes = {}
        self.fdef = graph.g.library.function.add()
        self.fdef.signature.name = name
        self.name = name
        for i, (arg, dt) in enumerate(inputs):
            a = self.fdef.signature.input_arg.add(name=arg)
            a.type = _DT.Value("DT_VARIANT") if dt == "variant" else NP_TO_DT[np.dtype(dt)]
            if dt != "variant":
                self.dtypes[arg] = np.dtype(dt)
            if shapes is not None and shapes[i] is not None:
                sh = self.fdef.arg_attr[i].attr["_output_shapes"].list.shape.add()
                for d in shapes[i]:
                    sh.dim.add(size=d)

    def _add_node(self, name: str, op: str) -> Any:
        return self.fdef.node_def.add(name=name, op=op)

    def returns(self, outputs: Sequence[tuple[str, str, Any]]) -> str:
        """The outputs: (output arg name, value (``arg`` or ``node:out:i``), dtype)."""
        for oname, ref, dt in outputs:
            a = self.fdef.signature.output_arg.add(name=oname)
            a.type = _DT.Value("DT_VARIANT") if dt == "variant" else NP_TO_DT[np.dtype(dt)]
            self.fdef.ret[oname] = ref
        return self.name


def out(node: str, arg: str = "output", index: int = 0) -> str:
    """A node output as a function's node reads it."""
    return f"{node}:{arg}:{index}"


def func_attr(name: str) -> Any:
    """A ``func`` attribute value naming function ``name``."""
    a = schema.AttrValue()
    a.func.name = name
    return a


# -- running ---------------------------------------------------------------------


def xmo_module(path: str | Path, outputs: Sequence[str] | None = None):
    """load_tf + convert-tf-to-ov + ov-constant-fold + ov-dce (no sinking)."""
    from xmo.context import attach_context, make_context
    from xmo.frontends.tf import load_tf
    from xmo.passes.ov_constant_fold import OVConstantFoldPass
    from xmo.passes.ov_dce import OVDeadCodeEliminationPass
    from xmo.passes.tf_to_ov import convert_tf_to_ov

    ctx = make_context()
    module = load_tf(str(path), ctx, outputs=list(outputs) if outputs else None)
    convert_tf_to_ov(module, ctx)
    OVConstantFoldPass().apply(ctx, module)
    OVDeadCodeEliminationPass().apply(ctx, module)
    module.verify()
    attach_context(module, ctx)
    return module


def _ov_core():
    import openvino as ov

    return ov.Core()


def _run_ov(compiled, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    req = compiled.create_infer_request()
    inputs = {}
    for port in compiled.inputs:
        names = port.get_names()
        key = next((k for k in feeds if k in names or f"{k}:0" in names), None)
        if key is None:
            raise KeyError(f"no feed for input {names}")
        inputs[port] = feeds[key]
    res = req.infer(inputs)
    return [np.asarray(res[o]) for o in compiled.outputs]


def _output_key(port) -> set[str]:
    return set(port.get_names())


def reference(path: str | Path, feeds: Mapping[str, np.ndarray], outputs: Sequence[str] | None = None):
    """Outputs of OpenVINO's own TF frontend on ``path`` (CPU, f32), by tensor name."""
    import openvino as ov

    if outputs:
        from openvino.frontend import FrontEndManager

        fe = FrontEndManager().load_by_framework("tf")
        im = fe.load(str(path))
        places = []
        for o in outputs:
            name = o if ":" in o else f"{o}:0"
            places.append(im.get_place_by_tensor_name(name) or im.get_place_by_tensor_name(o))
        im.override_all_outputs(places)
        model = fe.convert(im)
    else:
        model = ov.convert_model(str(path))
    compiled = _ov_core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    vals = _run_ov(compiled, feeds)
    return [(_output_key(o), v) for o, v in zip(compiled.outputs, vals)]


def run_in_openvino(module, feeds: Mapping[str, np.ndarray], tmp_path: Path):
    """xmo's module serialized as IR and run by OpenVINO CPU (f32)."""
    from xmo.backends.ir import serialize

    xml = Path(tmp_path) / "xmo_model.xml"
    serialize(module, xml)
    core = _ov_core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    vals = _run_ov(compiled, feeds)
    return [(_output_key(o), v) for o, v in zip(compiled.outputs, vals)]


def run_on_cpu_backend(module, feeds: Mapping[str, np.ndarray]):
    from xmo import compile_model

    model = compile_model(module)
    outs = model(dict(feeds))
    return [(set(p.names), np.asarray(a)) for p, a in zip(model.outputs, outs)]


def _match(want: list, got: list, msg: str, rtol: float, atol: float) -> None:
    assert len(got) == len(want), f"{msg}: {len(got)} outputs, want {len(want)}"
    for i, (wkeys, w) in enumerate(want):
        # pair by tensor name when both sides name the output, else by position
        j = next((j for j, (gkeys, _) in enumerate(got) if wkeys & gkeys), i)
        assert_matches(got[j][1], w, f"{msg} output {i} {sorted(wkeys)}", rtol=rtol, atol=atol)


def check_tf(
    graph: Graph | str | Path,
    feeds: Mapping[str, np.ndarray],
    tmp_path: Path,
    *,
    outputs: Sequence[str] | None = None,
    want: Sequence[np.ndarray] | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    cpu_backend: bool = True,
):
    """Convert with xmo; run in OpenVINO and on xmo's CPU backend; compare with
    OpenVINO's TF frontend (or with ``want`` where that frontend is wrong)."""
    path = graph.save(Path(tmp_path) / "model.pb") if isinstance(graph, Graph) else Path(graph)
    module = xmo_module(path, outputs)
    if want is None:
        ref = reference(path, feeds, outputs)
    else:
        ref = [(set(), np.asarray(w)) for w in want]
    got_ov = run_in_openvino(module, feeds, tmp_path)
    _match(ref, got_ov, "xmo in OpenVINO", rtol, atol)
    if cpu_backend:
        got_cpu = run_on_cpu_backend(module, feeds)
        _match(ref, got_cpu, "xmo CPU backend", rtol, atol)
    return module
