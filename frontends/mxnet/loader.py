"""MXNet symbol + params -> an ``mxnet``-dialect module (see :mod:`xmo.frontends.mxnet`)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrankedTensorType, f32
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.context import weight_store
from xmo.dialects.mxnet import NodeOp, OutputOp, VarOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.weights import make_constant_attr
from xmo.errors import ModelError, printable
from xmo.frontends.mxnet.params import DTYPES, Param, ParamsError, read_params
from xmo.input_files import open_input

SYMBOL_SUFFIX = "-symbol.json"
PARAMS_SUFFIX = ".params"
_EPOCH = re.compile(r"-(\d{4,})\.params$")
#: largest symbol file read (a JSON graph of this size has millions of nodes)
_MAX_SYMBOL_BYTES = 256 << 20

#: loss layers: only their data input (0) is used at inference; the label
#: variables they take (``softmax_label``) are not graph inputs
LOSS_OPS = frozenset(
    {"SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput",
     "MAERegressionOutput", "SVMOutput", "MakeLoss"}
)  # fmt: skip

#: operator -> {input index: what it is} of the inputs the .params file must give
WEIGHT_INPUTS: dict[str, dict[int, str]] = {
    "Convolution": {1: "weight", 2: "bias"},
    "Deconvolution": {1: "weight", 2: "bias"},
    "FullyConnected": {1: "weight", 2: "bias"},
    "BatchNorm": {1: "gamma", 2: "beta", 3: "moving_mean", 4: "moving_var"},
    "Embedding": {1: "weight"},
    "RNN": {1: "parameters"},
    "LeakyReLU": {1: "gamma"},
    "InstanceNorm": {1: "gamma", 2: "beta"},
    "LayerNorm": {1: "gamma", 2: "beta"},
}


class MXNetFrontendError(ModelError):
    """A symbol / params pair the MXNet frontend cannot read (one line)."""

    def __init__(self, msg: object = "") -> None:
        super().__init__(printable(str(msg)))


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def _prefix_of(path: str) -> str | None:
    low = path.lower()
    if low.endswith(SYMBOL_SUFFIX):
        return path[: -len(SYMBOL_SUFFIX)]
    m = _EPOCH.search(path)
    return path[: m.start()] if m else None


def checkpoint_files(
    model: str | os.PathLike[str], params: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
) -> tuple[str, str | None]:
    """``(symbol, params)`` paths of a checkpoint named by either file.

    ``model``: ``PREFIX-symbol.json`` (the params file is ``params`` when
    given, else ``PREFIX-NNNN.params`` of ``epoch``, else of the newest epoch
    present; None when there is none) or ``PREFIX-NNNN.params`` (its symbol
    is ``PREFIX-symbol.json``)."""
    path = os.fspath(model)
    prefix = _prefix_of(path)
    if path.lower().endswith(PARAMS_SUFFIX):
        if prefix is None:
            raise MXNetFrontendError(
                f"{path}: a .params file is named PREFIX-NNNN.params next to PREFIX-symbol.json "
                "(or convert the -symbol.json file and name the params with --input_params)"
            )
        symbol = prefix + SYMBOL_SUFFIX
        if not Path(symbol).exists():
            raise MXNetFrontendError(f"{path}: no symbol file {symbol} beside it")
        return symbol, os.fspath(params) if params is not None else path
    if params is not None:
        return path, os.fspath(params)
    if prefix is None:
        return path, None
    if epoch is not None:
        p = f"{prefix}-{int(epoch):04d}{PARAMS_SUFFIX}"
        if not Path(p).exists():
            raise MXNetFrontendError(f"{path}: no params file {p} for epoch {epoch}")
        return path, p
    folder = Path(prefix).parent
    stem = Path(prefix).name
    found = []
    if folder.is_dir():
        for f in folder.iterdir():
            if f.name.startswith(stem + "-"):
                m = _EPOCH.search(f.name)
                if m and f.name[: m.start()] == stem:
                    found.append((int(m.group(1)), os.fspath(f)))
    return path, (max(found)[1] if found else None)


def _read_symbol(path: str) -> dict[str, Any]:
    try:
        with open_input(path, MXNetFrontendError) as f:
            data = f.read(_MAX_SYMBOL_BYTES + 1)
    except OSError as e:
        raise MXNetFrontendError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > _MAX_SYMBOL_BYTES:
        raise MXNetFrontendError(f"{path}: the symbol file is larger than {_MAX_SYMBOL_BYTES} bytes")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise MXNetFrontendError(f"{path}: not an MXNet symbol file (not UTF-8)") from None
    except RecursionError:
        raise MXNetFrontendError(f"{path}: not an MXNet symbol file: nested too deeply") from None
    except json.JSONDecodeError as e:
        raise MXNetFrontendError(
            f"{path}: not an MXNet symbol file: invalid JSON at line {e.lineno} column {e.colno} ({e.msg})"
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise MXNetFrontendError(f"{path}: not an MXNet symbol file (no 'nodes' list)")
    if not doc["nodes"]:
        raise MXNetFrontendError(f"{path}: the symbol has no nodes")
    return doc


# ---------------------------------------------------------------------------
# The graph
# ---------------------------------------------------------------------------


@dataclass
class _Node:
    index: int
    op: str
    name: str
    attrs: dict[str, str]
    inputs: list[tuple[int, int]]
    n_out: int = 1
    used: bool = False
    consumers: list[tuple[int, int]] = field(default_factory=list)  # (node, input position)


def _attr_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v) if isinstance(v, list | dict) else str(v)


def _entry(e: Any, n: int, where: str, path: str) -> tuple[int, int]:
    if (
        not isinstance(e, list) or len(e) not in (2, 3)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in e)
    ):
        raise MXNetFrontendError(f"{path}: {where}: an input entry must be [node, index(, version)], got {e!r}")
    node, idx = e[0], e[1]
    if not 0 <= node < n or idx < 0 or idx > 4096:
        raise MXNetFrontendError(f"{path}: {where}: input entry {e!r} refers to no node output")
    return node, idx


def parse_symbol(doc: dict[str, Any], path: str) -> tuple[list[_Node], list[tuple[int, int]]]:
    """The nodes (validated, topologically ordered as the file is) and heads."""
    raw = doc["nodes"]
    nodes: list[_Node] = []
    names: set[str] = set()
    for i, nd in enumerate(raw):
        if not isinstance(nd, dict) or not isinstance(nd.get("op"), str) or not isinstance(nd.get("name"), str):
            raise MXNetFrontendError(f"{path}: node {i} has no 'op' and 'name' strings")
        attrs: dict[str, str] = {}
        for key in ("param", "attr", "attrs"):  # MXNet 0.8 / 0.9-1.0 / 1.x spellings
            a = nd.get(key)
            if a is None:
                continue
            if not isinstance(a, dict):
                raise MXNetFrontendError(f"{path}: node '{nd['name']}': '{key}' is not an object")
            attrs.update({str(k): _attr_text(v) for k, v in a.items()})
        ins = nd.get("inputs", [])
        if not isinstance(ins, list):
            raise MXNetFrontendError(f"{path}: node '{nd['name']}': 'inputs' is not a list")
        where = f"node '{nd['name']}'"
        inputs = [_entry(e, len(raw), where, path) for e in ins]
        for src, _ in inputs:
            if src >= i:
                raise MXNetFrontendError(
                    f"{path}: {where}: input node {src} is not before it (the graph must be in topological order)"
                )
        if nd["op"] == "null" and inputs:
            raise MXNetFrontendError(f"{path}: {where}: a variable has inputs")
        if nd["name"] in names and nd["op"] == "null":
            raise MXNetFrontendError(f"{path}: two variables are named '{nd['name']}'")
        names.add(nd["name"])
        nodes.append(_Node(i, nd["op"], nd["name"], attrs, inputs))
    heads_raw = doc.get("heads")
    if not isinstance(heads_raw, list) or not heads_raw:
        raise MXNetFrontendError(f"{path}: the symbol has no 'heads' (outputs)")
    heads = [_entry(e, len(nodes), "heads", path) for e in heads_raw]
    for n in nodes:
        for pos, (src, idx) in enumerate(n.inputs):
            nodes[src].n_out = max(nodes[src].n_out, idx + 1)
            nodes[src].consumers.append((n.index, pos))
    for src, idx in heads:
        nodes[src].n_out = max(nodes[src].n_out, idx + 1)
    for n in nodes:
        if n.op == "null" and n.n_out != 1:
            raise MXNetFrontendError(f"{path}: variable '{n.name}' has one output, output {n.n_out - 1} is used")
    return nodes, heads


def _dims(text: str | None) -> list[int] | None:
    """MXNet's shape text ``(1, 3, 224, 224)`` (0: unknown) -> dims (-1 unknown)."""
    if text is None:
        return None
    try:
        vals = [int(v) for v in text.strip("()[] ").replace(" ", "").split(",") if v]
    except ValueError:
        return None
    return [v if v > 0 else -1 for v in vals]


def _var_dtype(attrs: Mapping[str, str], name: str, path: str) -> str:
    text = attrs.get("__dtype__")
    if text is None:
        return "f32"
    try:
        dt = DTYPES[int(text)]
    except (ValueError, KeyError):
        raise MXNetFrontendError(f"{path}: variable '{name}': unknown __dtype__ {text!r}") from None
    return et.from_numpy(dt)


def output_names(name: str, index: int) -> list[str]:
    """Tensor names of output ``index`` of node ``name`` (MXNet's ``<name>_output``)."""
    if index == 0:
        return [name, f"{name}_output", f"{name}_output0"]
    return [f"{name}_output{index}", f"{name}:{index}"]


def _input_vars(nodes: Sequence[_Node], params: Mapping[str, Param]) -> list[_Node]:
    """The variables that are graph inputs: not in the params file, used by a
    node other than as the label of a loss layer."""
    out = []
    for n in nodes:
        if n.op != "null" or n.name in params:
            continue
        if any(not (nodes[c].op in LOSS_OPS and pos > 0) for c, pos in n.consumers):
            out.append(n)
    return out


class _Loader:
    def __init__(
        self, symbol_path: str, params_path: str | None, ctx: Context | None,
        input_shapes: Mapping[str, Sequence[int | str | None] | None] | None,
        inputs: Sequence[str] | None,
    ) -> None:
        self.path = symbol_path
        self.params_path = params_path
        self.ctx = ctx
        self.input_shapes = dict(input_shapes or {})
        self.inputs = list(inputs or [])
        self.nodes, self.heads = parse_symbol(_read_symbol(symbol_path), symbol_path)
        self.params: dict[str, Param] = {}
        if params_path is not None:
            self.params = {p.name: p for p in read_params(params_path)}

    # -- checks -------------------------------------------------------------------------
    def check(self) -> None:
        nodes = self.nodes
        var_names = {n.name for n in nodes if n.op == "null"}
        extra = [name for name in self.params if name not in var_names]
        if extra:
            more = f", ... ({len(extra)} in all)" if len(extra) > 5 else ""
            raise MXNetFrontendError(
                f"{self.params_path}: arrays the symbol has no variable for: "
                f"{', '.join(extra[:5])}{more}"
            )
        inputs = {n.name for n in _input_vars(nodes, self.params)}
        for name in [*self.input_shapes, *self.inputs]:
            if name not in inputs:
                raise MXNetFrontendError(f"{self.path}: '{name}' is not an input of the symbol")
        for n in nodes:
            wanted = WEIGHT_INPUTS.get(n.op, {})
            for pos, (src, _) in enumerate(n.inputs):
                v = nodes[src]
                if pos not in wanted or v.op != "null" or v.name in self.params or v.name in self.inputs:
                    continue
                where = self.params_path or f"no params file found for {self.path}"
                raise MXNetFrontendError(
                    f"{where}: no array '{v.name}' (the {wanted[pos]} of {n.op} '{n.name}')"
                )
            self._check_shapes(n)
        for n in nodes:
            p = self.params.get(n.name)
            if n.op == "null" and p is not None:
                declared = _dims(n.attrs.get("__shape__"))
                if declared is not None and not _fits(list(p.array.shape), declared):
                    raise self._mismatch(n.name, p, f"the symbol declares {_shape_text(declared)}")

    def _mismatch(self, name: str, p: Param, why: str) -> MXNetFrontendError:
        return MXNetFrontendError(
            f"{self.params_path}: array '{name}' has shape {_shape_text(list(p.array.shape))}, {why}"
        )

    def _check_shapes(self, n: _Node) -> None:
        """The parameter shapes an operator's attributes fix."""
        arrays = [self.params.get(self.nodes[s].name) if self.nodes[s].op == "null" else None
                  for s, _ in n.inputs]

        def want(pos: int, dims: list[int | None], what: str) -> None:
            p = arrays[pos] if pos < len(arrays) else None
            if p is None:
                return
            shape = list(p.array.shape)
            if len(shape) != len(dims) or any(d is not None and d != s for d, s in zip(dims, shape)):
                shown = "(" + ", ".join("?" if d is None else str(d) for d in dims) + ")"
                raise self._mismatch(self.nodes[n.inputs[pos][0]].name, p,
                                     f"{n.op} '{n.name}' needs {shown} for its {what}")

        for pos, dims, what in self._expected_shapes(n, arrays):
            want(pos, dims, what)

    @staticmethod
    def _expected_shapes(n: _Node, arrays: list[Param | None]) -> list[tuple[int, list[int | None], str]]:
        a = n.attrs
        try:
            if n.op in ("Convolution", "Deconvolution"):
                kernel: list[int | None] = list(_dims(a.get("kernel")) or [])
                nf, g = int(a["num_filter"]), int(a.get("num_group", "1"))
                if n.op == "Convolution":
                    return [(1, [nf, None, *kernel], "weight"), (2, [nf], "bias")]
                return [(1, [None, nf // g if nf % g == 0 else None, *kernel], "weight"), (2, [nf], "bias")]
            if n.op == "FullyConnected":
                nh = int(a["num_hidden"])
                return [(1, [nh, None], "weight"), (2, [nh], "bias")]
            if n.op == "Embedding":
                return [(1, [int(a["input_dim"]), int(a["output_dim"])], "weight")]
        except (KeyError, ValueError):
            return []  # the converter reports a bad or missing attribute
        if n.op == "BatchNorm":
            p = arrays[1] if len(arrays) > 1 else None
            c = p.array.shape[0] if p is not None and p.array.ndim == 1 else None
            return [(pos, [c], what) for pos, what in WEIGHT_INPUTS["BatchNorm"].items()]
        return []

    # -- the module ----------------------------------------------------------------------
    def run(self) -> ModuleOp:
        self.check()
        store = weight_store(self.ctx) if self.ctx is not None else None
        values: dict[int, list[SSAValue]] = {}
        ops: list[Operation] = []
        for n in self.nodes:
            if n.op == "null":
                op = self._var(n, store)
            else:
                ins = [values[s][i] for s, i in n.inputs]
                op = NodeOp.make(n.op, n.name, ins, [UnrankedTensorType(f32)] * n.n_out, n.attrs)
            values[n.index] = list(op.results)
            ops.append(op)
        for src, idx in self.heads:
            node = self.nodes[src]
            name = output_names(node.name, idx)[1] if node.op != "null" else node.name
            ops.append(OutputOp(values[src][idx], name))
        return ModuleOp(ops)

    def _var(self, n: _Node, store: Any) -> VarOp:
        p = self.params.get(n.name)
        if p is not None:
            etype = et.from_numpy(p.array.dtype)
            value = make_constant_attr(p.array, etype, store, n.name)
            return VarOp.make(n.name, value.type, n.attrs, value, p.kind)  # type: ignore[attr-defined]
        dims = self._input_dims(n)
        etype = _var_dtype(n.attrs, n.name, self.path)
        t: Attribute = UnrankedTensorType(et.to_xdsl(etype)) if dims is None else tensor(etype, dims)
        return VarOp.make(n.name, t, n.attrs)

    def _input_dims(self, n: _Node) -> list[int] | None:
        if n.name in self.input_shapes and self.input_shapes[n.name] is not None:
            dims = []
            for d in self.input_shapes[n.name]:  # type: ignore[union-attr]
                dims.append(-1 if d is None or isinstance(d, str) or int(d) < 0 else int(d))
            return dims
        return _dims(n.attrs.get("__shape__"))


def _fits(shape: list[int], declared: list[int]) -> bool:
    return len(shape) == len(declared) and all(d < 0 or d == s for d, s in zip(declared, shape))


def _shape_text(dims: Sequence[int]) -> str:
    return "(" + ", ".join("?" if d < 0 else str(d) for d in dims) + ")"


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def load_mxnet(
    model: str | os.PathLike[str],
    ctx: Context | None = None,
    *,
    params: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
    input_shapes: Mapping[str, Sequence[int | str | None] | None] | None = None,
    inputs: Sequence[str] | None = None,
) -> ModuleOp:
    """Load an MXNet checkpoint (``PREFIX-symbol.json`` or ``PREFIX-NNNN.params``)
    into an ``mxnet``-dialect module (see :mod:`xmo.frontends.mxnet`)."""
    if not isinstance(model, str | os.PathLike):
        raise MXNetFrontendError(
            f"cannot load an MXNet model from a {type(model).__name__} (expected a -symbol.json path)"
        )
    symbol, params_path = checkpoint_files(model, params, epoch)
    try:
        return _Loader(symbol, params_path, ctx, input_shapes, inputs).run()
    except ParamsError as e:
        raise MXNetFrontendError(str(e)) from None


def graph_input_shapes(
    model: str | os.PathLike[str], params: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
) -> dict[str, list[int] | None]:
    """Graph input name -> dims (-1 unknown; None: unknown rank, no ``__shape__``)."""
    symbol, params_path = checkpoint_files(model, params, epoch)
    nodes, _ = parse_symbol(_read_symbol(symbol), symbol)
    names = {p.name: p for p in read_params(params_path)} if params_path else {}
    return {n.name: _dims(n.attrs.get("__shape__")) for n in _input_vars(nodes, names)}


__all__ = [
    "LOSS_OPS",
    "MXNetFrontendError",
    "WEIGHT_INPUTS",
    "checkpoint_files",
    "graph_input_shapes",
    "load_mxnet",
    "output_names",
    "parse_symbol",
]
