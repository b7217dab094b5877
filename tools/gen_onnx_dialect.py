"""Generate ``dialects/onnx/ops.py`` from the operator schemas of the installed onnx.

Run from the repository root::

    python tools/gen_onnx_dialect.py          # (re)write dialects/onnx/ops.py
    python tools/gen_onnx_dialect.py --check  # exit 1 if the file is stale

One op class per (domain, op type, since_version) of the default domain (all
versions) and of ``ai.onnx.ml``. The newest version of an op is ``onnx.<Type>``
(class ``<Type>Op``), older ones ``onnx.<Type>_v<N>`` (``<Type>V<N>Op``);
``ai.onnx.ml`` ops are ``onnx.ml.<Type>`` (``ML<Type>Op``) and
``onnx.ml.<Type>_v<N>`` (``ML<Type>V<N>Op``). Output is deterministic: the
same onnx version gives a byte-identical file.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

DOMAINS = ("", "ai.onnx.ml")
_DOMAIN_PREFIX = {"": ("onnx.", ""), "ai.onnx.ml": ("onnx.ml.", "ML")}
_UNBOUNDED = 2**31 - 1
OUT_PATH = Path(__file__).resolve().parent.parent / "dialects" / "onnx" / "ops.py"


def _f32_literal(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else 'float("-inf")'
    return repr(float(str(np.float32(x))))


def _default_literal(attr: Any) -> str:
    """Python literal of an attribute's default value (``None`` when none)."""
    from onnx import AttributeProto, helper

    proto = attr.default_value
    if proto is None or proto.type == AttributeProto.UNDEFINED:
        return "None"
    value = helper.get_attribute_value(proto)
    t = proto.type
    if t == AttributeProto.INT:
        return repr(int(value))
    if t == AttributeProto.FLOAT:
        return _f32_literal(value)
    if t == AttributeProto.STRING:
        return repr(value.decode("utf-8") if isinstance(value, bytes) else str(value))
    if t == AttributeProto.INTS:
        return _tuple_literal([repr(int(v)) for v in value])
    if t == AttributeProto.FLOATS:
        return _tuple_literal([_f32_literal(v) for v in value])
    if t == AttributeProto.STRINGS:
        return _tuple_literal(
            [repr(v.decode("utf-8") if isinstance(v, bytes) else str(v)) for v in value]
        )
    # tensors, graphs...: no Python default (none of the schemas has one)
    return "None"


def _attr_spec(attr: Any) -> str:
    """``AttrSpec(name, kind[, default][, required=True])`` of a schema attribute."""
    args = [repr(attr.name), repr(attr.type.name)]
    default = _default_literal(attr)
    if default != "None":
        args.append(default)
    if attr.required:
        args.append("required=True")
    return "AttrSpec(" + ", ".join(args) + ")"


def _tuple_literal(items: list[str]) -> str:
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def _wrapped(head: str, items: list[str], width: int = 88, tail: str = ",") -> list[str]:
    """``head(items...)`` + tail as one line, or wrapped, indented under ``head``."""
    one = head + (_tuple_literal(items) if items else "()") + tail
    if len(one) <= width:
        return [one]
    indent = " " * (len(head) - len(head.lstrip()))
    pad = indent + "   "
    out, cur = [head + "("], pad
    for it in items:
        if len(cur) + len(it) + 2 > width:
            out.append(cur.rstrip())
            cur = pad
        cur += " " + it + ","
    out.append(cur.rstrip())
    out.append(indent + ")" + tail)
    return out


def _type_ident(type_str: str) -> str:
    out = []
    for c in type_str:
        out.append(c if c.isalnum() else "_")
    ident = "".join(out)
    while "__" in ident:
        ident = ident.replace("__", "_")
    return "_" + ident.strip("_")


def _option(p: Any) -> str:
    from onnx.defs import OpSchema

    return {
        OpSchema.FormalParameterOption.Single: "single",
        OpSchema.FormalParameterOption.Optional: "optional",
        OpSchema.FormalParameterOption.Variadic: "variadic",
    }[p.option]


def _port(p: Any) -> str:
    opt = _option(p)
    if opt == "variadic" and not p.is_homogeneous:
        return f"Port({p.name!r}, {opt!r}, {p.type_str!r}, False)"
    return f"Port({p.name!r}, {opt!r}, {p.type_str!r})"


def _ports(params: Any) -> str:
    return _tuple_literal([_port(p) for p in params]) if params else "()"


def collect_schemas() -> dict[tuple[str, str], list[Any]]:
    """(domain, op type) -> schemas sorted by since_version."""
    from onnx import defs

    by_op: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for s in defs.get_all_schemas_with_history():
        if s.domain in DOMAINS:
            by_op[(s.domain, s.name)].append(s)
    for v in by_op.values():
        v.sort(key=lambda s: s.since_version)
    return dict(sorted(by_op.items()))


def class_and_op_name(domain: str, op_type: str, version: int, newest: bool) -> tuple[str, str]:
    prefix, cls_prefix = _DOMAIN_PREFIX[domain]
    if newest:
        return f"{cls_prefix}{op_type}Op", f"{prefix}{op_type}"
    return f"{cls_prefix}{op_type}V{version}Op", f"{prefix}{op_type}_v{version}"


def generate() -> str:
    """The text of ``dialects/onnx/ops.py`` for the installed onnx."""
    import onnx

    from xmo.dialects.onnx.types import parse_type_str

    by_op = collect_schemas()

    # every type string used by a constraint or a port, once
    type_strs: set[str] = set()
    for schemas in by_op.values():
        for s in schemas:
            for tc in s.type_constraints:
                type_strs.update(tc.allowed_type_strs)
            constraint_names = {tc.type_param_str for tc in s.type_constraints}
            for p in (*s.inputs, *s.outputs):
                if p.type_str not in constraint_names:
                    type_strs.add(p.type_str)
    representable: dict[str, bool] = {}
    for t in sorted(type_strs):
        try:
            parse_type_str(t)
            representable[t] = True
        except ValueError:
            representable[t] = False

    def type_ref(t: str) -> str:
        return _type_ident(t) if representable[t] else repr(t)

    lines: list[str] = [
        f"# Generated by tools/gen_onnx_dialect.py from onnx {onnx.__version__} "
        "operator schemas -- do not edit.",
        f"# Domains: {', '.join(repr(d) for d in DOMAINS)}. "
        "Regenerate: python tools/gen_onnx_dialect.py",
        '"""ONNX operator schemas as ``onnx`` ops (generated, do not edit)."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import ClassVar",
        "",
        "from xdsl.ir import Attribute",
        "",
        "from xmo.dialects.attr_spec import AttrSpec",
        "from xmo.dialects.onnx.base import ONNXOp, Port, onnx_op",
        "from xmo.dialects.onnx.types import parse_type_str",
        "",
        f"ONNX_VERSION = {onnx.__version__!r}",
        "",
        "# Type keys (tensor shapes erased) of every ONNX type the schemas use.",
    ]
    for t in sorted(type_strs):
        if representable[t]:
            lines.append(f"{_type_ident(t)} = parse_type_str({t!r})")
        else:
            lines.append(f"# {t}: no xDSL form, kept as its name")
    lines.append("")

    class_names: list[str] = []
    for (domain, op_type), schemas in by_op.items():
        newest = schemas[-1].since_version
        for s in schemas:
            cls_name, op_name = class_and_op_name(
                domain, op_type, s.since_version, s.since_version == newest
            )
            class_names.append(cls_name)
            constraint_names = {tc.type_param_str for tc in s.type_constraints}
            tcs: list[tuple[str, list[str]]] = [
                (tc.type_param_str, sorted(tc.allowed_type_strs))
                for tc in s.type_constraints
            ]
            literal = sorted(
                {p.type_str for p in (*s.inputs, *s.outputs)} - constraint_names
            )
            tcs.extend((t, [t]) for t in literal)
            attrs = sorted(s.attributes.values(), key=lambda a: a.name)
            regions = [a.name for a in attrs if a.type.name == "GRAPH"]

            lines += ["", "", "@onnx_op", f"class {cls_name}(ONNXOp):"]
            dom = domain or "ai.onnx"
            doc = f"{op_type}-{s.since_version} ({dom})"
            if s.deprecated:
                doc += ", deprecated"
            lines.append(f'    """{doc}."""')
            lines.append("")
            lines.append(f"    name = {op_name!r}")
            lines.append(f"    ONNX_DOMAIN: ClassVar[str] = {domain!r}")
            lines.append(f"    ONNX_TYPE: ClassVar[str] = {op_type!r}")
            lines.append(f"    SINCE_VERSION: ClassVar[int] = {s.since_version}")
            if s.deprecated:
                lines.append("    DEPRECATED: ClassVar[bool] = True")
            for field, params in (("INPUTS", s.inputs), ("OUTPUTS", s.outputs)):
                head = f"    {field}: ClassVar[tuple[Port, ...]] = "
                one = head + _ports(params)
                if len(one) <= 88:
                    lines.append(one)
                else:
                    lines.append(head + "(")
                    lines += [f"        {_port(p)}," for p in params]
                    lines.append("    )")
            max_in = "None" if s.max_input >= _UNBOUNDED else str(s.max_input)
            max_out = "None" if s.max_output >= _UNBOUNDED else str(s.max_output)
            lines.append(f"    MIN_INPUTS: ClassVar[int] = {s.min_input}")
            lines.append(f"    MAX_INPUTS: ClassVar[int | None] = {max_in}")
            lines.append(f"    MIN_OUTPUTS: ClassVar[int] = {s.min_output}")
            lines.append(f"    MAX_OUTPUTS: ClassVar[int | None] = {max_out}")
            if attrs:
                lines.append("    ATTRS: ClassVar[tuple[AttrSpec, ...]] = (")
                for a in attrs:
                    lines.append(f"        {_attr_spec(a)},")
                lines.append("    )")
            if tcs:
                lines.append(
                    "    TYPE_CONSTRAINTS: ClassVar[dict[str, tuple[Attribute | str, ...]]] = {"
                )
                for tname, allowed in tcs:
                    lines += _wrapped(f"        {tname!r}: ", [type_ref(t) for t in allowed])
                lines.append("    }")
            if regions:
                lines.append(
                    f"    REGIONS: ClassVar[tuple[str, ...]] = "
                    f"{_tuple_literal([repr(r) for r in regions])}"
                )

    lines += ["", "", "GENERATED_OPS: tuple[type[ONNXOp], ...] = ("]
    lines += [f"    {c}," for c in class_names]
    lines += [")", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the file is current")
    parser.add_argument("-o", "--output", type=Path, default=OUT_PATH)
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output} ({text.count('@onnx_op')} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
