"""Generate ``dialects/tf/ops.py`` from TensorFlow's own OpDef registry.

Needs TensorFlow (only here: xmo never imports it at run time) and no xDSL::

    /work/tfenv/bin/python tools/gen_tf_dialect.py          # (re)write dialects/tf/ops.py
    /work/tfenv/bin/python tools/gen_tf_dialect.py --check  # exit 1 if the file is stale
    /work/tfenv/bin/python tools/gen_tf_dialect.py --list   # print the curated op types

One op class per op type in :data:`OPS` (a curated list of inference ops):
``tf.<Type>`` / class ``<Type>Op`` (internal ops such as ``_FusedConv2D``:
class ``Internal<Type>Op``). The class carries the OpDef facts the dialect
needs at run time (see ``dialects/tf/base.py``): input/output args and their
type rules, attrs with their kinds and defaults (Python values, types as xmo
type names), required attrs, allowed values, minimums, statefulness.
Output is deterministic: the same TensorFlow version gives a byte-identical
file. To add an op, append it to :data:`OPS` and rerun.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT_PATH = ROOT / "dialects" / "tf" / "ops.py"

#: Curated op types, by family (order here does not matter: output is sorted).
OPS: dict[str, tuple[str, ...]] = {
    "graph structure": (
        "Placeholder", "PlaceholderWithDefault", "Const", "Identity", "IdentityN",
        "NoOp", "Snapshot", "StopGradient", "PreventGradient", "CheckNumerics",
        "EnsureShape", "Assert", "Print", "PrintV2",
    ),
    "convolution": (
        "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Conv2DBackpropInput",
        "Conv3DBackpropInputV2", "DepthwiseConv2dNativeBackpropInput", "BiasAdd",
        "BiasAddV1", "_FusedConv2D", "_FusedDepthwiseConv2dNative",
    ),
    "normalization": (
        "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3",
        "BatchNormWithGlobalNormalization", "LRN", "L2Loss",
    ),
    "activations": (
        "Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Sigmoid", "Tanh", "Softplus",
        "Softsign", "Softmax", "LogSoftmax",
    ),
    "pooling": ("MaxPool", "MaxPoolV2", "AvgPool", "MaxPool3D", "AvgPool3D", "MaxPoolWithArgmax"),
    "reductions": (
        "Mean", "Sum", "Max", "Min", "Prod", "Any", "All", "EuclideanNorm",
        "ArgMax", "ArgMin", "Cumsum", "Cumprod",
    ),
    "matrix": (
        "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum",
        "_FusedMatMul", "MatrixBandPart",
    ),
    "binary elementwise": (
        "Add", "AddV2", "AddN", "Sub", "Mul", "Div", "RealDiv", "DivNoNan",
        "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod", "Mod", "Pow",
        "Maximum", "Minimum", "SquaredDifference", "Atan2", "BiasAddGrad",
    ),
    "unary elementwise": (
        "Abs", "Neg", "Exp", "Expm1", "Log", "Log1p", "Floor", "Ceil", "Round",
        "Rint", "Sign", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Inv", "Sin",
        "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
        "Atanh", "Erf", "Erfc", "IsNan", "IsInf", "IsFinite", "ClipByValue",
        "ZerosLike", "OnesLike",
    ),
    "comparison and logic": (
        "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual",
        "LogicalAnd", "LogicalOr", "LogicalNot", "Select", "SelectV2", "Where",
    ),
    "shape and layout": (
        "Shape", "ShapeN", "Size", "Rank", "Reshape", "Transpose", "Squeeze",
        "ExpandDims", "Fill", "Tile", "BroadcastTo", "BroadcastArgs", "ConcatV2",
        "Concat", "Pack", "Unpack", "Split", "SplitV", "StridedSlice", "Slice",
        "Pad", "PadV2", "MirrorPad", "ReverseV2", "ReverseSequence", "Roll",
        "SpaceToDepth", "DepthToSpace", "SpaceToBatchND", "BatchToSpaceND",
        "InvertPermutation", "Cast", "Bitcast", "Range", "LinSpace",
    ),
    "indexing": (
        "Gather", "GatherV2", "GatherNd", "ScatterNd", "TensorScatterUpdate",
        "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax", "TensorScatterMin",
        "OneHot", "TopKV2", "Unique", "UnsortedSegmentSum", "UnsortedSegmentProd",
        "UnsortedSegmentMax", "UnsortedSegmentMin", "SegmentSum", "SparseToDense",
        "Bucketize",
    ),
    "image": (
        "ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea",
        "CropAndResize", "ExtractImagePatches", "NonMaxSuppression", "NonMaxSuppressionV2",
        "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
        "CombinedNonMaxSuppression",
    ),
    "quantization": (
        "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel",
        "FakeQuantWithMinMaxArgs", "QuantizeV2", "Dequantize",
    ),
    "control flow and functions": (
        "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
        "If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall",
        "StatefulPartitionedCall",
    ),
    # TF2 tensor lists (TensorArray in functional while loops) and TF1 tensor arrays
    "tensor lists and arrays": (
        "TensorListFromTensor", "TensorListReserve", "TensorListGetItem", "TensorListSetItem",
        "TensorListStack", "TensorListLength", "TensorListElementShape", "TensorListPushBack",
        "TensorListPopBack", "TensorListGather", "TensorListScatterIntoExistingList",
        "EmptyTensorList", "TensorArrayV3", "TensorArrayReadV3", "TensorArrayWriteV3",
        "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArraySizeV3",
    ),
    "variables": ("VariableV2", "VarHandleOp", "ReadVariableOp", "Assign"),
    # a training branch's dropout (not converted: a frozen graph keeps it in
    # the untaken branch of a learning-phase tf.cond)
    "random": ("RandomUniform",),
}

#: Hand-written base classes (in dialects/tf/base.py) of special ops
SPECIAL_BASES = {"Placeholder": "PlaceholderBase", "Const": "ConstBase"}


def all_ops() -> list[str]:
    ops = sorted({o for fam in OPS.values() for o in fam})
    return ops


def _load_dtypes() -> Any:
    """dialects/tf/dtypes.py, loaded by path (the TF venv has no xDSL/xmo)."""
    spec = importlib.util.spec_from_file_location(
        "_xmo_tf_dtypes", ROOT / "dialects" / "tf" / "dtypes.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # NamedTuple needs its module registered
    spec.loader.exec_module(mod)
    return mod


def class_name(op_type: str) -> str:
    if op_type.startswith("_"):
        return "Internal" + op_type.lstrip("_") + "Op"
    return op_type + "Op"


def _f32_literal(x: float) -> str:
    import numpy as np

    x = float(x)
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else 'float("-inf")'
    return repr(float(str(np.float32(x))))


def _tuple(items: list[str]) -> str:
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def _shape_literal(shape: Any) -> str:
    if shape.unknown_rank:
        return "None"
    return _tuple([str(int(d.size)) for d in shape.dim]) if shape.dim else "()"


def _scalar_literal(kind: str, v: Any, dt: Any) -> str:
    if kind == "int":
        return repr(int(v))
    if kind == "float":
        return _f32_literal(v)
    if kind == "bool":
        return repr(bool(v))
    if kind == "string":
        return repr(v.decode("utf-8") if isinstance(v, bytes) else str(v))
    if kind == "type":
        return repr(dt.xmo_name(int(v)))
    if kind == "shape":
        return _shape_literal(v)
    if kind == "func":
        return repr(v.name)
    raise ValueError(kind)


_LIST_FIELD = {
    "int": "i", "float": "f", "bool": "b", "string": "s", "type": "type",
    "shape": "shape", "tensor": "tensor", "func": "func",
}  # fmt: skip


def default_literal(attr: Any, dt: Any) -> str | None:
    """Python literal of an OpDef attr default (None: no default)."""
    if not attr.HasField("default_value"):
        return None
    dv = attr.default_value
    kind = attr.type
    if kind.startswith("list("):
        inner = kind[5:-1]
        if inner == "tensor":
            return "()"  # never used with a value by the registry
        vals = getattr(dv.list, _LIST_FIELD[inner])
        return _tuple([_scalar_literal(inner, v, dt) for v in vals]) if len(vals) else "()"
    if kind == "tensor":
        return "None"  # no tensor default in the curated ops (see --check)
    field = {"int": "i", "float": "f", "bool": "b", "string": "s", "type": "type",
             "shape": "shape", "func": "func"}[kind]  # fmt: skip
    if dv.WhichOneof("value") != field:
        return "None"
    return _scalar_literal(kind, getattr(dv, field), dt)


def allowed_literal(attr: Any, dt: Any) -> str | None:
    if not attr.HasField("allowed_values"):
        return None
    lst = attr.allowed_values.list
    inner = attr.type[5:-1] if attr.type.startswith("list(") else attr.type
    if inner == "type":
        return _tuple([repr(dt.xmo_name(int(t))) for t in lst.type])
    if inner == "string":
        return _tuple([repr(s.decode("utf-8")) for s in lst.s])
    return None


def _rule(arg: Any, dt: Any) -> str:
    parts: list[str] = []
    if arg.type:
        parts.append(f"type={dt.xmo_name(int(arg.type))!r}")
    if arg.type_attr:
        parts.append(f"type_attr={arg.type_attr!r}")
    if arg.number_attr:
        parts.append(f"number_attr={arg.number_attr!r}")
    if arg.type_list_attr:
        parts.append(f"type_list_attr={arg.type_list_attr!r}")
    if arg.is_ref:
        parts.append("is_ref=True")
    return f"TypeRule({', '.join(parts)})"


def _arg(arg: Any) -> str:
    kind = "variadic" if (arg.number_attr or arg.type_list_attr) else "single"
    return f"Arg({arg.name!r}, {kind!r})"


def _emit_tuple(lines: list[str], head: str, items: list[str]) -> None:
    one = f"    {head} = {_tuple(items) if items else '()'}"
    if len(one) <= 88:
        lines.append(one)
        return
    lines.append(f"    {head} = (")
    lines += [f"        {it}," for it in items]
    lines.append("    )")


def generate() -> str:
    """The text of ``dialects/tf/ops.py`` for the installed TensorFlow."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry

    dt = _load_dtypes()
    lines: list[str] = [
        f"# Generated by tools/gen_tf_dialect.py from the OpDef registry of TensorFlow "
        f"{tf.__version__} -- do not edit.",
        "# Regenerate (needs TensorFlow): python tools/gen_tf_dialect.py",
        '"""TensorFlow OpDefs as ``tf`` ops (generated, do not edit; see ``base.py``)."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, ClassVar",
        "",
        "from xmo.dialects.attr_spec import AttrSpec",
        "from xmo.dialects.tf.base import (",
        "    Arg,",
        "    ConstBase,",
        "    PlaceholderBase,",
        "    TFOp,",
        "    TypeRule,",
        "    tf_op,",
        ")",
        "",
        f"TF_VERSION = {tf.__version__!r}",
    ]
    classes: list[str] = []
    for op_type in all_ops():
        od = op_def_registry.get(op_type)
        if od is None:
            raise SystemExit(f"TensorFlow {tf.__version__} has no op '{op_type}'")
        cname = class_name(op_type)
        classes.append(cname)
        base = SPECIAL_BASES.get(op_type, "TFOp")
        lines += ["", "", "@tf_op", f"class {cname}({base}):"]
        lines.append(f'    """TensorFlow ``{op_type}`` (generated from its OpDef)."""')
        lines.append("")
        lines.append(f"    name = {'tf.' + op_type!r}")
        lines.append(f"    TF_TYPE: ClassVar[str] = {op_type!r}")
        _emit_tuple(lines, "INPUTS: ClassVar[tuple[Arg, ...]]", [_arg(a) for a in od.input_arg])
        _emit_tuple(lines, "OUTPUTS: ClassVar[tuple[Arg, ...]]", [_arg(a) for a in od.output_arg])
        _emit_tuple(
            lines, "INPUT_TYPES: ClassVar[tuple[TypeRule, ...]]", [_rule(a, dt) for a in od.input_arg]
        )
        _emit_tuple(
            lines, "OUTPUT_TYPES: ClassVar[tuple[TypeRule, ...]]", [_rule(a, dt) for a in od.output_arg]
        )
        attrs = list(od.attr)
        if attrs:
            lines.append("    ATTRS: ClassVar[tuple[AttrSpec, ...]] = (")
            for a in attrs:
                args = [repr(a.name), repr(a.type)]
                d = default_literal(a, dt)
                if d is None:  # no OpDef default: required
                    args.append("required=True")
                elif d != "None":
                    args.append(d)
                one = f"        AttrSpec({', '.join(args)}),"
                if len(one) <= 88:
                    lines.append(one)
                else:
                    lines.append("        AttrSpec(")
                    lines += [f"            {x}," for x in args]
                    lines.append("        ),")
            lines.append("    )")
        allowed = [(a.name, allowed_literal(a, dt)) for a in attrs]
        allowed = [(n, v) for n, v in allowed if v is not None]
        if allowed:
            lines.append("    ALLOWED_VALUES: ClassVar[dict[str, tuple[Any, ...]]] = {")
            for n, v in allowed:
                one = f"        {n!r}: {v},"
                if len(one) <= 88:
                    lines.append(one)
                else:
                    lines.append(f"        {n!r}: (")
                    inner = v[1:-1].split(", ")
                    cur = "           "
                    for it in inner:
                        it = it.rstrip(",")
                        if len(cur) + len(it) + 2 > 88:
                            lines.append(cur.rstrip())
                            cur = "           "
                        cur += " " + it + ","
                    lines.append(cur.rstrip())
                    lines.append("        ),")
            lines.append("    }")
        mins = [(a.name, int(a.minimum)) for a in attrs if a.has_minimum]
        if mins:
            lines.append(
                "    MINIMUMS: ClassVar[dict[str, int]] = {"
                + ", ".join(f"{n!r}: {m}" for n, m in mins)
                + "}"
            )
        if od.is_stateful:
            lines.append("    IS_STATEFUL: ClassVar[bool] = True")
    lines += ["", "", "GENERATED_OPS: tuple[type[TFOp], ...] = ("]
    lines += [f"    {c}," for c in classes]
    lines += [")", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the file is current")
    parser.add_argument("--list", action="store_true", help="print the curated op types")
    parser.add_argument("-o", "--output", type=Path, default=OUT_PATH)
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(all_ops()))
        return 0
    text = generate()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output} ({text.count('@tf_op')} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
