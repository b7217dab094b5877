"""Hand-written ``ov``-dialect models (tests/data/models/*.mlir) against OpenVINO.

Each model is parsed and verified, serialized to IR with xmo's serializer, read
and compiled by OpenVINO (CPU, f32) and run on seeded random inputs. The same
graph is built directly with OpenVINO's Python API and run the same way; the
outputs must agree (rtol 1e-5 / atol 1e-6 for floats, exact for ints and bools).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
import openvino.opset16 as ops  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402
from xdsl.parser import Parser  # noqa: E402

from xmo.context import make_context  # noqa: E402

MODELS = Path(__file__).parent / "data" / "models"

#: Every op type the models together must cover (SoftMax is OpenVINO's
#: Softmax, matched case-insensitively).
REQUIRED_OPS = """
Parameter Result Constant Convert Add Subtract Multiply Divide Power Maximum Minimum
SquaredDifference Equal NotEqual Less Greater LogicalAnd LogicalOr LogicalNot Select
Relu Sigmoid Tanh Exp Log Sqrt Abs Negative Floor Ceiling Clamp Erf Gelu Swish HSwish
HSigmoid Mish SoftPlus Elu PRelu SoftMax LogSoftmax Convolution GroupConvolution
ConvolutionBackpropData MaxPool AvgPool MatMul Reshape Transpose Concat Split
VariadicSplit Squeeze Unsqueeze Gather GatherND ScatterUpdate StridedSlice Slice Pad
Broadcast Tile ShapeOf Range ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd
ReduceL2 Interpolate TopK MVN NormalizeL2 BatchNormInference DepthToSpace
SpaceToDepth DFT IDFT RDFT IRDFT
""".split()


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def pat(shape, k: int = 7, s: float = 0.25) -> np.ndarray:
    """The constant pattern the model files were written with."""
    n = int(np.prod(shape)) if shape else 1
    return ((np.arange(n) % k - k // 2) * s).astype(np.float32).reshape(shape)


def c(value, dtype=np.float32):
    return ops.constant(np.asarray(value, dtype=dtype))


def i64(value):
    return c(value, np.int64)


def param(name: str, shape, dtype=np.float32):
    p = ops.parameter(shape, dtype, name=name)
    p.output(0).get_tensor().set_names({name})
    return p


def parse(path: Path) -> ModuleOp:
    module = Parser(make_context(), path.read_text(), str(path)).parse_module()
    module.verify()
    return module


def run(model, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer({name: value for name, value in inputs.items()})
    return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]


def make_model(params, outputs) -> "ov.Model":
    return ov.Model([ops.result(o) for o in outputs], params)


# ---------------------------------------------------------------------------
# Builders: the same graphs written with OpenVINO's Python API
# ---------------------------------------------------------------------------


def build_conv_block():
    x = param("x", [1, 2, 8, 8])
    conv = ops.convolution(x, c(pat([4, 2, 3, 3])), [1, 1], [1, 1], [1, 1], [1, 1])
    biased = ops.add(conv, c(pat([1, 4, 1, 1], 5, 0.5)))
    bn = ops.batch_norm_inference(
        biased, c([1.0, 0.5, 2.0, 1.5]), c([0.0, 0.25, -0.5, 1.0]),
        c([0.5, -0.5, 0.25, 0.0]), c([1.0, 2.0, 0.5, 4.0]), 1e-5,
    )
    relu = ops.relu(bn)
    gconv = ops.group_convolution(relu, c(pat([2, 2, 2, 3, 3], 5, 0.25)), [1, 1], [1, 1], [1, 1], [1, 1])
    prelu = ops.prelu(gconv, c([0.1, 0.2, 0.3, 0.4]))
    avg = ops.avg_pool(prelu, [1, 1], [1, 1], [1, 1], [3, 3], True, dilations=[1, 1])
    pool = ops.max_pool(avg, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], index_element_type="i64")
    clamp = ops.clamp(pool.output(0), -2.0, 2.0)
    return make_model([x], [clamp, pool.output(1)])


def build_activations():
    x = param("x", [2, 3, 4])
    outs = [
        ops.sigmoid(x), ops.tanh(x), ops.exp(x), ops.negative(x), ops.floor(x),
        ops.ceiling(x), ops.erf(x), ops.gelu(x, "erf"), ops.gelu(x, "tanh"),
        ops.swish(x), ops.hswish(x), ops.hsigmoid(x), ops.mish(x), ops.softplus(x),
        ops.elu(x, 0.5), ops.relu(x), ops.swish(x, c(0.75)),
    ]
    pos = ops.add(ops.abs(x), c(1.0))
    outs += [ops.log(pos), ops.sqrt(pos)]
    return make_model([x], outs)


def build_arithmetic():
    a, b = param("a", [2, 3]), param("b", [3])
    add, sub = ops.add(a, b), ops.subtract(a, b)
    div = ops.divide(ops.multiply(add, sub), c([2.0, 4.0, 8.0]))
    mx, mn = ops.maximum(a, b), ops.minimum(a, b)
    sqd = ops.squared_difference(mx, mn)
    pw = ops.power(ops.add(ops.abs(a), c(0.5)), c([0.5, 2.0, 3.0]))
    ia = ops.convert(ops.multiply(a, c(10.0)), "i32")
    idiv = ops.divide(ia, c([3, -4, 5], np.int32))
    idiv.set_attribute("m_pythondiv", True)
    back = ops.convert(idiv, "f32")
    return make_model([a, b], [div, sqd, pw, back, ia])


def build_boolean_logic():
    a, b = param("a", [2, 4]), param("b", [2, 4])
    ia, ib = param("ia", [2, 4], np.int32), param("ib", [4], np.int32)
    eq, ne = ops.equal(ia, ib), ops.not_equal(ia, ib)
    lt, gt = ops.less(a, b), ops.greater(a, c(0.0))
    lor = ops.logical_or(ops.logical_and(lt, gt), eq)
    sel = ops.select(ops.logical_not(lor), a, b)
    mask = ops.convert(ne, "f32")
    return make_model([a, b, ia, ib], [sel, mask, lor])


def build_attention():
    x = param("x", [1, 4, 8])
    qkv = ops.matmul(x, c(pat([8, 24], 11, 0.125)), False, False)
    axis2 = i64(2)
    split = ops.split(qkv, axis2, 3)
    heads, perm = i64([1, 4, 2, 4]), i64([0, 2, 1, 3])
    q, k, v = (ops.transpose(ops.reshape(split.output(i), heads, False), perm) for i in range(3))
    scores = ops.matmul(q, k, False, True)
    probs = ops.softmax(ops.multiply(scores, c(0.5)), -1)
    ctx = ops.transpose(ops.matmul(probs, v, False, False), perm)
    merged = ops.reshape(ctx, i64([0, 0, -1]), True)
    vs = ops.variadic_split(merged, axis2, i64([3, -1]))
    swapped = ops.concat([vs.output(1), vs.output(0)], 2)
    logp = ops.log_softmax(swapped, 2)
    return make_model([x], [logp, probs])


def build_shape_subgraph():
    x = param("x", [2, 3, 4])
    shape = ops.shape_of(x)
    ax0 = i64(0)
    batch = ops.gather(shape, i64([0]), ax0)
    target = ops.concat([batch, i64([-1])], 0)
    flat = ops.reshape(x, target, False)
    sq = ops.squeeze(ops.unsqueeze(x, ax0), ax0)
    ramp = ops.range(c(0.0), c(2.0), c(0.5), "f32")
    shifted = ops.add(sq, ramp)
    bc = ops.broadcast(c(pat([3, 1], 3, 1.0)), i64([2, 3, 4]))
    tiled = ops.tile(ops.add(shifted, bc), i64([1, 2, 1]))
    return make_model([x], [flat, tiled, shape])


def build_detection():
    scores, boxes = param("scores", [1, 10]), param("boxes", [10, 4])
    top = ops.topk(scores, i64(3), 1, "max", "value", "i32")
    ax0 = i64(0)
    idx1 = ops.squeeze(top.output(1), ax0)
    sel = ops.gather(boxes, idx1, ax0)
    corners = ops.gather_nd(boxes, i64([[0, 1], [2, 3], [9, 0]]))
    upd = ops.scatter_update(boxes, idx1, ops.multiply(sel, c(0.5)), ax0)
    return make_model([scores, boxes], [top.output(0), top.output(1), corners, upd])


def build_slicing_layout():
    x = param("x", [1, 4, 6, 6])
    ss = ops.strided_slice(
        x, i64([0, 0, 1, 0]), i64([1, 4, 5, 6]), i64([1, 1, 1, 2]), [1, 1, 0, 0], [1, 1, 0, 0]
    )
    sl = ops.slice(x, i64([5, 1]), i64([0, 4]), i64([-2, 1]), i64([3, 1]))
    pb, pe = i64([0, 0, 1, 2]), i64([0, 0, 2, 1])
    padc = ops.pad(x, pb, pe, "constant", c(0.5))
    padr = ops.pad(x, pb, pe, "reflect")
    d2s = ops.depth_to_space(x, "blocks_first", 2)
    s2d = ops.space_to_depth(x, "depth_first", 3)
    return make_model([x], [ss, sl, padc, padr, d2s, s2d])


def build_reductions_norm():
    x = param("x", [2, 3, 4, 5])
    a1, a23, am1 = i64([1]), i64([2, 3]), i64(-1)
    outs = [
        ops.reduce_sum(x, a1, True),
        ops.reduce_mean(x, a23, False),
        ops.reduce_max(x, am1, False),
        ops.reduce_min(x, c(0, np.int32), True),
        ops.reduce_prod(x, am1, False),
        ops.reduce_l2(x, a1, False),
        ops.mvn(x, a23, True, 1e-9, "inside_sqrt"),
        ops.mvn(x, a1, False, 1e-5, "outside_sqrt"),
        ops.normalize_l2(x, a1, 1e-12, "add"),
    ]
    return make_model([x], outs)


def build_fft():
    cx, r = param("c", [2, 8, 2]), param("r", [2, 8])
    ax = i64([1])
    dft = ops.dft(cx, ax)
    idft = ops.idft(dft, ax)
    dft6 = ops.dft(cx, ax, i64([6]))
    rdft = ops.rdft(r, ax)
    irdft = ops.irdft(rdft, ax)
    return make_model([cx, r], [dft, idft, dft6, rdft, irdft])


def build_interpolate():
    x = param("x", [1, 2, 4, 4])
    axes = i64([2, 3])
    near = ops.interpolate(
        x, i64([8, 6]), "nearest", "sizes", axes=axes,
        coordinate_transformation_mode="asymmetric", nearest_mode="floor",
    )
    lin = ops.interpolate(
        x, c([2.0, 1.5]), "linear_onnx", "scales", axes=axes,
        coordinate_transformation_mode="half_pixel",
    )
    up = ops.convolution_backprop_data(
        x, c(pat([2, 3, 3, 3], 5, 0.25)), [2, 2],
        pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1], output_padding=[1, 1],
    )
    return make_model([x], [near, up, lin])


BUILDERS: dict[str, Callable[[], "ov.Model"]] = {
    "conv_block": build_conv_block,
    "activations": build_activations,
    "arithmetic": build_arithmetic,
    "boolean_logic": build_boolean_logic,
    "attention": build_attention,
    "shape_subgraph": build_shape_subgraph,
    "detection": build_detection,
    "slicing_layout": build_slicing_layout,
    "reductions_norm": build_reductions_norm,
    "fft": build_fft,
    "interpolate": build_interpolate,
}

#: Models with a known xmo bug: name -> reason (strict xfail).
KNOWN_BUGS: dict[str, str] = {}


def _params(names):
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[n]))
        if n in KNOWN_BUGS else n
        for n in names
    ]


def random_inputs(model: "ov.Model", seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = {}
    for p in model.get_parameters():
        name = p.output(0).get_any_name()
        shape = list(p.get_output_shape(0))
        et = p.get_element_type()
        if et == ov.Type.f32:
            inputs[name] = rng.uniform(-2.0, 2.0, shape).astype(np.float32)
        elif et == ov.Type.boolean:
            inputs[name] = rng.integers(0, 2, shape).astype(bool)
        else:
            inputs[name] = rng.integers(0, 4, shape).astype(et.to_dtype())
    return inputs


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


def test_every_model_has_a_builder():
    assert sorted(p.stem for p in MODELS.glob("*.mlir")) == sorted(BUILDERS)
    assert len(BUILDERS) >= 10


def test_models_cover_the_op_list():
    from xmo.dialects.ov.base import OVOp

    seen: set[str] = set()
    for path in MODELS.glob("*.mlir"):
        for op in parse(path).walk():
            if isinstance(op, OVOp):
                seen.add(op.OV_TYPE.lower())
    missing = [t for t in REQUIRED_OPS if t.lower() not in seen]
    assert not missing, f"op types not covered by any model: {missing}"


@pytest.mark.parametrize("name", _params(sorted(BUILDERS)))
def test_model_matches_openvino(name: str, tmp_path: Path):
    ir = pytest.importorskip("xmo.backends.ir")

    module = parse(MODELS / f"{name}.mlir")
    xml = tmp_path / "m.xml"
    ir.serialize(module, xml)
    ours = ov.Core().read_model(str(xml))
    reference = BUILDERS[name]()

    ours_names = sorted(p.output(0).get_any_name() for p in ours.get_parameters())
    ref_names = sorted(p.output(0).get_any_name() for p in reference.get_parameters())
    assert ours_names == ref_names
    assert len(ours.outputs) == len(reference.outputs)

    inputs = random_inputs(reference, seed=sum(map(ord, name)))
    got, want = run(ours, inputs), run(reference, inputs)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"output {i}: shape {g.shape} vs {w.shape}"
        assert g.dtype == w.dtype, f"output {i}: dtype {g.dtype} vs {w.dtype}"
        if np.issubdtype(w.dtype, np.floating):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"output {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {i}")


_AVGPOOL_NO_DILATIONS = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x8x8xf32>
  %r = "ov.Relu"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = "ov.AvgPool"(%r) <{kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, "exclude-pad" = true}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  "ov.Result"(%y) : (tensor<1x4x8x8xf32>) -> ()
}
"""

_COMPILE_AND_RUN = """
import sys, numpy as np, openvino as ov
compiled = ov.Core().compile_model(sys.argv[1], "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
compiled({"x": np.ones([1, 4, 8, 8], np.float32)})
"""


def test_avgpool_without_dilations_runs(tmp_path: Path):
    import subprocess
    import sys

    ir = pytest.importorskip("xmo.backends.ir")
    module = Parser(make_context(), _AVGPOOL_NO_DILATIONS).parse_module()
    module.verify()
    ir.serialize(module, tmp_path / "m.xml")
    # In a child process: the failure mode is a segmentation fault.
    proc = subprocess.run(
        [sys.executable, "-c", _COMPILE_AND_RUN, str(tmp_path / "m.xml")],
        capture_output=True, timeout=300,
    )
    assert proc.returncode == 0, f"compile/run exited with {proc.returncode}"
