"""Small models that ask for huge resources: shape, constant and unrolling bombs.

Each builder returns a :class:`Bomb` (the model's files, and whether the
conversion must fail whatever the memory limit). They reproduce issue #15's
inputs and feed the fuzzer (:mod:`xmo.tools.fuzz_inputs`, kind ``bombs``,
drawn by :func:`random_bomb`) and ``tests/test_memory_budget.py``
(:data:`ISSUE_INPUTS`):

* :func:`doubling_chain`: a chain of Concats doubling a value: a graph input,
  a constant, or a value whose length only ONNX data propagation knows;
* :func:`constant_of_shape`: ``ConstantOfShape`` (or Expand / Tile / Range
  of constants) of a huge size feeding an Add, or a MatMul weight (which
  constant folding would keep constant);
* :func:`computed_shape`: the same with the size computed from the input's
  shape (``Shape -> Mul``), so only data propagation sees it;
* :func:`nested_loops`, :func:`loop_doubling`, :func:`loop_body`: ONNX Loops
  nested, doubling their state, or unrolling a large body;
* :func:`many_initializers`: an ONNX model with many tiny unused initializers;
* :func:`tf_strings`, :func:`tf_values`: TensorFlow Consts expanded from a
  few bytes (string tensors, value lists);
* :func:`ir_dims`: an OpenVINO IR whose port dims are beyond int64 / OpenVINO.

A conversion of any of them must end with exit 0 and an IR OpenVINO reads, or
exit 1 and one line, under a 2 GiB address-space cap, within 30 s.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: the largest static dimension OpenVINO accepts (see ``xmo.budget.MAX_DIM``)
_MAX_DIM = (1 << 63) - 2
#: the longest Range OpenVINO accepts (``xmo.dialects.ov.shape_inference.generation``)
_MAX_RANGE = (1 << 32) - 1


@dataclass
class Bomb:
    kind: str  # file kind: "onnx", "pb", "ir"
    name: str
    model: str  # file name of the model among ``files``
    files: dict[str, bytes]
    must_fail: bool = False


def _model(nodes, inputs, outputs, inits=()) -> bytes:  # noqa: ANN001
    from onnx import helper

    g = helper.make_graph(nodes, "bomb", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m.SerializeToString()


def _onnx(name: str, data: bytes, must_fail: bool = False) -> Bomb:
    return Bomb("onnx", name, "m.onnx", {"m.onnx": data}, must_fail)


def _vi(name: str, elem: int, shape: Sequence[int] | None):  # noqa: ANN202
    from onnx import helper

    return helper.make_tensor_value_info(name, elem, shape)


def _t(array: np.ndarray, name: str):  # noqa: ANN202
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(array), name)


# ---------------------------------------------------------------------------
# ONNX: shapes and constants
# ---------------------------------------------------------------------------


def _data_derived(nodes: list, length_name: str = "len1") -> None:
    """Nodes computing a 1-element float vector whose length only data
    propagation knows: ConstantOfShape(Unsqueeze(Gather(Shape(x), 0)))."""
    from onnx import helper

    nodes += [
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Gather", ["xs", "zero"], ["x0"], axis=0),
        helper.make_node("Unsqueeze", ["x0", "axis0"], [length_name]),
        helper.make_node("ConstantOfShape", [length_name], ["base"],
                         value=_t(np.array([1.0], np.float32), "v")),
    ]


def doubling_chain(n: int, base: str = "input", k: int = 1, tail: str = "add") -> Bomb:
    """``n`` Concats doubling ``base`` (``input``: a graph input of ``k``
    elements; ``constant``: an initializer of ``k`` elements; ``data``: a
    value whose length only data propagation knows), then an Add of the
    input (``tail="add"``) or its Shape (``"shape"``)."""
    from onnx import TensorProto, helper

    nodes: list = []
    inits = [_t(np.array(0, np.int64), "zero"), _t(np.array([0], np.int64), "axis0")]
    if base == "input":
        prev = "x"
    elif base == "constant":
        inits.append(_t(np.ones([k], np.float32), "c"))
        prev = "c"
    else:
        _data_derived(nodes)
        prev = "base"
    for i in range(n):
        nodes.append(helper.make_node("Concat", [prev, prev], [f"d{i}"], axis=0, name=f"cat{i}"))
        prev = f"d{i}"
    if tail == "shape":
        nodes.append(helper.make_node("Shape", [prev], ["y"]))
        out = _vi("y", TensorProto.INT64, None)
    else:
        nodes.append(helper.make_node("Add", [prev, "x"], ["y"]))
        out = _vi("y", TensorProto.FLOAT, None)
    x_shape = [k] if base == "input" else [1]
    data = _model(nodes, [_vi("x", TensorProto.FLOAT, x_shape)], [out], inits)
    length = (k if base != "data" else 1) << n
    return _onnx(f"doubling_chain:{base}:{n}", data, must_fail=length > _MAX_DIM)


def constant_of_shape(elements: int, op: str = "ConstantOfShape", feed: str = "add") -> Bomb:
    """A float tensor of ``elements`` values made from constants by ``op``
    (ConstantOfShape, Expand, Tile, Range), fed to an Add with the input or
    used as a MatMul weight (``feed="matmul"``: ``[elements // 2, 2]``)."""
    from onnx import TensorProto, helper

    one = _t(np.array([1.0], np.float32), "one")
    size = _t(np.array([elements], np.int64), "size")
    if op == "ConstantOfShape":
        nodes = [helper.make_node("ConstantOfShape", ["size"], ["big"],
                                  value=_t(np.array([1.0], np.float32), "v"))]
    elif op == "Expand":
        nodes = [helper.make_node("Expand", ["one", "size"], ["big"])]
    elif op == "Tile":
        nodes = [helper.make_node("Tile", ["one", "size"], ["big"])]
    else:  # Range
        nodes = [helper.make_node("Range", ["start", "limit", "delta"], ["big"])]
    inits = [one, size, _t(np.array(0.0, np.float32), "start"),
             _t(np.array(float(elements), np.float32), "limit"),
             _t(np.array(1.0, np.float32), "delta")]
    if feed == "matmul":
        inits.append(_t(np.array([max(elements // 2, 1), 2], np.int64), "wshape"))
        nodes += [helper.make_node("Reshape", ["big", "wshape"], ["w"]),
                  helper.make_node("MatMul", ["x", "w"], ["y"])]
        x_shape = [1, max(elements // 2, 1)]
    else:
        nodes.append(helper.make_node("Add", ["big", "x"], ["y"]))
        x_shape = [1]
    data = _model(nodes, [_vi("x", TensorProto.FLOAT, x_shape)],
                  [_vi("y", TensorProto.FLOAT, None)], inits)
    return _onnx(f"constant_of_shape:{op}:{feed}:{elements}", data,
                 must_fail=elements > (_MAX_RANGE if op == "Range" else _MAX_DIM))


def computed_shape(log2: int, op: str = "ConstantOfShape") -> Bomb:
    """A 1-D float tensor whose length ``2**log2`` is computed from the
    input's shape (``Shape(x)[0] * 2**a * 2**b``), made by ``op``
    (ConstantOfShape or Expand) and read by an Add."""
    from onnx import TensorProto, helper

    a = log2 // 2
    nodes = [
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Mul", ["xs", "fa"], ["m1"]),
        helper.make_node("Mul", ["m1", "fb"], ["m2"]),
    ]
    if op == "ConstantOfShape":
        nodes.append(helper.make_node("ConstantOfShape", ["m2"], ["big"],
                                      value=_t(np.array([1.0], np.float32), "v")))
    else:
        nodes.append(helper.make_node("Expand", ["one", "m2"], ["big"]))
    nodes.append(helper.make_node("Add", ["big", "big"], ["y"]))
    inits = [_t(np.array([1 << a], np.int64), "fa"), _t(np.array([1 << (log2 - a)], np.int64), "fb"),
             _t(np.array([1.0], np.float32), "one")]
    data = _model(nodes, [_vi("x", TensorProto.FLOAT, [1])], [_vi("y", TensorProto.FLOAT, None)],
                  inits)
    # int64 products wrap: 2**63 is negative (refused), 2**64 and beyond are 0 (an empty tensor)
    length = (1 << log2) % (1 << 64)
    length -= (1 << 64) if length >= 1 << 63 else 0
    return _onnx(f"computed_shape:{op}:2^{log2}", data, must_fail=not 0 <= length <= _MAX_DIM)


def many_initializers(n: int) -> Bomb:
    """A Relu model with ``n`` tiny initializers nothing reads (the protobuf
    written directly: building ``n`` TensorProtos in Python takes long)."""
    from onnx import TensorProto, helper

    head = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", TensorProto.FLOAT, [1])],
                  [_vi("y", TensorProto.FLOAT, [1])])

    def varint(v: int) -> bytes:
        out = bytearray()
        while True:
            b = v & 0x7F
            v >>= 7
            out.append(b | (0x80 if v else 0))
            if not v:
                return bytes(out)

    def field(num: int, payload: bytes) -> bytes:  # length-delimited
        return varint(num << 3 | 2) + varint(len(payload)) + payload

    # GraphProto.initializer (5) = TensorProto: dims (1) = [1], data_type (2) =
    # FLOAT, name (8) = "u<i>" (short: one-byte lengths), raw_data (9) = 1.0
    def init(i: int) -> bytes:
        name = b"u%d" % i
        t = b"\x08\x01\x10\x01\x42" + bytes((len(name),)) + name + b"\x4a\x04\0\0\x80\x3f"
        return b"\x2a" + bytes((len(t),)) + t

    extra = b"".join(map(init, range(n)))
    # append the initializers to the graph: ModelProto.graph is field 7
    from onnx import ModelProto

    m = ModelProto()
    m.ParseFromString(head)
    graph = m.graph.SerializeToString() + extra
    m.ClearField("graph")
    data = m.SerializeToString() + field(7, graph)
    return _onnx(f"many_initializers:{n}", data)


# ---------------------------------------------------------------------------
# ONNX: loops
# ---------------------------------------------------------------------------


def _loop_body(name: str, inner: list, state_shape: Sequence[int] | None):  # noqa: ANN202
    from onnx import TensorProto, helper

    return helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), *inner], name,
        [_vi("it", TensorProto.INT64, []), _vi("cond_in", TensorProto.BOOL, []),
         _vi("s_in", TensorProto.FLOAT, state_shape)],
        [_vi("cond_out", TensorProto.BOOL, []), _vi("s_out", TensorProto.FLOAT, state_shape)],
    )


def nested_loops(trips: Sequence[int]) -> Bomb:
    """Loops nested ``len(trips)`` deep (outermost first), the innermost
    adding 1 to the state."""
    from onnx import TensorProto, helper

    body = _loop_body("b0", [helper.make_node("Add", ["s_in", "one"], ["s_out"])], [1])
    for level in range(len(trips) - 1, 0, -1):
        loop = helper.make_node("Loop", [f"n{level}", "", "s_in"], ["s_out"], body=body,
                                name=f"loop{level}")
        body = _loop_body(f"b{level}", [loop], [1])
    nodes = [helper.make_node("Loop", ["n0", "", "x"], ["y"], body=body, name="loop0")]
    inits = [_t(np.array(t, np.int64), f"n{i}") for i, t in enumerate(trips)]
    inits.append(_t(np.ones([1], np.float32), "one"))
    data = _model(nodes, [_vi("x", TensorProto.FLOAT, [1])], [_vi("y", TensorProto.FLOAT, [1])],
                  inits)
    # unrolled up to MAX_NESTED_UNROLL iterations, loops with bodies beyond
    return _onnx(f"nested_loops:{'x'.join(map(str, trips))}", data)


def loop_doubling(trip: int) -> Bomb:
    """A Loop whose state doubles (Concat with itself) ``trip`` times."""
    from onnx import TensorProto, helper

    body = _loop_body("b", [helper.make_node("Concat", ["s_in", "s_in"], ["s_out"], axis=0)], None)
    nodes = [helper.make_node("Loop", ["n", "", "x"], ["y"], body=body, name="loop")]
    data = _model(nodes, [_vi("x", TensorProto.FLOAT, [1])], [_vi("y", TensorProto.FLOAT, None)],
                  [_t(np.array(trip, np.int64), "n")])
    return _onnx(f"loop_doubling:{trip}", data, must_fail=trip > 62)


def loop_body(ops: int, trip: int) -> Bomb:
    """A Loop of ``trip`` iterations over a body of ``ops`` Adds."""
    from onnx import TensorProto, helper

    inner = []
    prev = "s_in"
    for i in range(ops):
        out = "s_out" if i == ops - 1 else f"a{i}"
        inner.append(helper.make_node("Add", [prev, "one"], [out]))
        prev = out
    body = _loop_body("b", inner, [1])
    nodes = [helper.make_node("Loop", ["n", "", "x"], ["y"], body=body, name="loop")]
    data = _model(nodes, [_vi("x", TensorProto.FLOAT, [1])], [_vi("y", TensorProto.FLOAT, [1])],
                  [_t(np.array(trip, np.int64), "n"), _t(np.ones([1], np.float32), "one")])
    return _onnx(f"loop_body:{ops}x{trip}", data)


# ---------------------------------------------------------------------------
# TensorFlow constants
# ---------------------------------------------------------------------------


def _tf_graph(consts: Sequence[tuple[int, int, Callable]]) -> bytes:
    """A GraphDef: a Placeholder and, per (dtype, elements, fill), a Const of
    that many elements (``fill(tensor)`` sets its values) read by an Identity."""
    from xmo.frontends.tf import schema

    g = schema.GraphDef()
    ph = g.node.add(name="x", op="Placeholder")
    ph.attr["dtype"].type = 1
    ph.attr["shape"].shape.dim.add(size=1)
    for i, (dtype, n, fill) in enumerate(consts):
        c = g.node.add(name=f"c{i}", op="Const")
        c.attr["dtype"].type = dtype
        t = c.attr["value"].tensor
        t.dtype = dtype
        t.tensor_shape.dim.add(size=n)
        fill(t)
        a = g.node.add(name=f"a{i}", op="Identity", input=[f"c{i}"])
        a.attr["T"].type = dtype
    return g.SerializeToString()


def tf_strings(n: int, value: bytes = b"") -> Bomb:
    """A string Const of ``n`` copies of ``value`` (one ``string_val``, or none)."""
    data = _tf_graph([(7, n, lambda t: t.string_val.append(value) if value else None)])
    return Bomb("pb", f"tf_strings:{n}", "m.pb", {"m.pb": data})


def tf_values(count: int, elements: int, dtype: int = 1) -> Bomb:
    """``count`` Consts of ``elements`` values each, expanded from one value
    (``dtype``: 1 float, 3 int32, 9 int64)."""
    def fill(t):  # noqa: ANN001, ANN202
        if dtype == 1:
            t.float_val.append(1.5)
        elif dtype == 9:
            t.int64_val.append(7)
        else:
            t.int_val.append(7)

    data = _tf_graph([(dtype, elements, fill)] * count)
    return Bomb("pb", f"tf_values:{count}x{elements}:{dtype}", "m.pb", {"m.pb": data})


# ---------------------------------------------------------------------------
# OpenVINO IR
# ---------------------------------------------------------------------------


def ir_dims(dims: Sequence[int], where: str = "both") -> Bomb:
    """A Parameter -> ReLU -> Result IR with these dims on the Parameter's
    ``shape`` and every port (``where="ports"``: the ports only, the shape
    ``1``)."""
    shape = ",".join(map(str, dims)) if where == "both" else "1"
    port = "".join(f"<dim>{d}</dim>" for d in dims)
    xml = f"""<?xml version="1.0"?>
<net name="bomb" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="{shape}" element_type="f32" />
      <output><port id="0" precision="FP32" names="x">{port}</port></output>
    </layer>
    <layer id="1" name="y" type="ReLU" version="opset1">
      <input><port id="0" precision="FP32">{port}</port></input>
      <output><port id="1" precision="FP32" names="y">{port}</port></output>
    </layer>
    <layer id="2" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32">{port}</port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0" />
  </edges>
</net>
"""
    elements = int(np.prod([int(d) for d in dims], dtype=object))
    bad = any(d > _MAX_DIM for d in dims) or elements > (1 << 63) - 1
    return Bomb("ir", f"ir_dims:{where}:{'x'.join(map(str, dims))}", "m.xml",
                {"m.xml": xml.encode(), "m.bin": b""}, must_fail=bad)


# ---------------------------------------------------------------------------
# The issue's inputs, and random ones
# ---------------------------------------------------------------------------

#: issue #15's measured inputs (the doubling and loop sizes it names)
ISSUE_INPUTS: dict[str, Callable[[], Bomb]] = {
    "concat_doubling_40": lambda: doubling_chain(40),
    "concat_doubling_70": lambda: doubling_chain(70),
    "concat_doubling_data_40": lambda: doubling_chain(40, base="data", tail="shape"),
    "constant_of_shape_3gb": lambda: constant_of_shape(3 * (1 << 30) // 4),
    "constant_doubling": lambda: doubling_chain(30, base="constant", k=4),
    "computed_shape_2^40": lambda: computed_shape(40),
    "nested_loops_256^3": lambda: nested_loops([256, 256, 256]),
    "loop_doubling_200": lambda: loop_doubling(200),
    "loop_body_200x256": lambda: loop_body(200, 256),
    "tf_strings_2^28": lambda: tf_strings(1 << 28),
    "tf_floats_3x1gib": lambda: tf_values(3, 1 << 28),
    "unused_initializers_1e6": lambda: many_initializers(10**6),
    "ir_dims_2^63": lambda: ir_dims([1, 1 << 63]),
}


def random_bomb(rng: random.Random) -> Bomb:
    """One bomb with random parameters (every builder above)."""
    kind = rng.choice((
        "doubling_chain", "constant_of_shape", "computed_shape", "nested_loops",
        "loop_doubling", "loop_body", "many_initializers", "tf_strings", "tf_values", "ir_dims",
    ))  # fmt: skip
    if kind == "doubling_chain":
        base = rng.choice(("input", "constant", "data"))
        return doubling_chain(rng.choice((8, 20, 33, 40, 62, 63, 70, 90)), base=base,
                              k=rng.choice((1, 3, 4)), tail=rng.choice(("add", "shape")))
    if kind == "constant_of_shape":
        return constant_of_shape(
            rng.choice((1 << 10, 1 << 20, 1 << 28, 3 << 28, 1 << 40, 1 << 62)),
            op=rng.choice(("ConstantOfShape", "Expand", "Tile", "Range")),
            feed=rng.choice(("add", "matmul")),
        )
    if kind == "computed_shape":
        return computed_shape(rng.choice((10, 24, 31, 40, 62, 63, 80)),
                              op=rng.choice(("ConstantOfShape", "Expand")))
    if kind == "nested_loops":
        depth = rng.choice((2, 3, 4))
        return nested_loops([rng.choice((1, 2, 16, 64, 256)) for _ in range(depth)])
    if kind == "loop_doubling":
        return loop_doubling(rng.choice((5, 30, 62, 63, 100, 200, 256)))
    if kind == "loop_body":
        return loop_body(rng.choice((1, 10, 50, 200)), rng.choice((16, 128, 256)))
    if kind == "many_initializers":
        return many_initializers(rng.choice((1000, 10**4, 10**5)))
    if kind == "tf_strings":
        return tf_strings(rng.choice((1 << 10, 1 << 20, 1 << 24, 1 << 28, 1 << 31)),
                          rng.choice((b"", b"x", b"abc" * 10)))
    if kind == "tf_values":
        return tf_values(rng.choice((1, 2, 3, 8)), rng.choice((1 << 10, 1 << 20, 1 << 26, 1 << 28)),
                         rng.choice((1, 3, 9)))
    big = rng.choice((1 << 31, 1 << 62, (1 << 63) - 2, (1 << 63) - 1, 1 << 63, 1 << 64))
    dims = rng.choice(([1, big], [big], [4, 1 << 62], [1 << 32, 1 << 32]))
    return ir_dims(dims, rng.choice(("both", "ports")))


__all__ = [
    "ISSUE_INPUTS",
    "Bomb",
    "computed_shape",
    "constant_of_shape",
    "doubling_chain",
    "ir_dims",
    "loop_body",
    "loop_doubling",
    "many_initializers",
    "nested_loops",
    "random_bomb",
    "tf_strings",
    "tf_values",
]
