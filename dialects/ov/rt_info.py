"""Runtime info: typed per-op values, their xDSL attributes and their IR text.

Every ``ov`` op has an optional ``rt_info`` property, a ``DictionaryAttr`` from
string keys to typed values (printed in the textual IR, e.g.
``rt_info = {fused_names = ["conv", "relu"], decompression = ""}``). Values:

===========================  ===============================  ==============
Python value                 xDSL attribute                   IR text
===========================  ===============================  ==============
``str`` (``""``: a flag)     ``"text"``                       ``text``
``bool``                     ``true`` (``i1``)                ``true``
``int``                      ``3 : i64``                      ``3``
``float``                    ``0.5 : f64``                    ``0.5``
``list`` of the above        ``["a", "b"]``                   ``a,b``
===========================  ===============================  ==============

In the IR a key is written as ``<attribute name="KEY" version="0"
value="TEXT"/>`` inside the layer's ``<rt_info>`` (no ``value`` for an empty
string: a flag such as ``decompression``). OpenVINO keys its runtime info map
by ``name_version`` (``fused_names_0``); xmo keys by the IR ``name``
(``fused_names``) and accepts the OpenVINO spelling of a known key as an alias.

Known keys (:data:`KNOWN_KEYS`) follow OpenVINO's conventions: their value type
(the reader turns ``fused_names`` text back into a list), whether
:func:`xmo.graph.copy_runtime_info` copies them to new ops, and how values of
several sources merge (``fused_names``: the sorted union). OpenVINO's reader
keeps only the keys it knows (``fused_names``, ``decompression``,
``primitives_priority``, ``old_api_map_order``, ``old_api_map_element_type``);
it drops the others, xmo's reader keeps every key. Register a key of your own
with :func:`register_key` so that its values keep their type through the IR.

Model-level runtime info (the ``<rt_info>`` of ``<net>``: OpenVINO's
``Model.get_rt_info()``) is a nested mapping kept in the module attribute
``ov.rt_info`` (:data:`MODEL_RT_INFO_ATTR`): leaves are the values above,
sections are nested dictionaries, e.g. ``{conversion_parameters = {framework
= "onnx"}, xmo_version = "0.1.0"}``. Use :func:`get_model_rt_info`,
:func:`set_model_rt_info` and :func:`update_model_rt_info`. In the IR a key is
an element of its own (``<framework value="onnx" />``, a section holds its
keys as child elements), or, for a key that is no XML name, OpenVINO's
``<info name="KEY" value="..." />``. The reader keeps leaf values as text, as
OpenVINO does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xmo.errors import XmoError

#: Value kinds of :class:`RtInfoKey` (``flag``: no value, stored as ``""``).
KINDS = ("flag", "str", "bool", "int", "float", "str[]", "int[]")


class RtInfoError(XmoError, ValueError):
    """A runtime info value that cannot be stored."""


# ---------------------------------------------------------------------------
# Python value <-> xDSL attribute
# ---------------------------------------------------------------------------


def to_attr(value: Any) -> Attribute:
    """Python value -> attribute (see the module docstring for the types)."""
    if isinstance(value, Attribute):
        return value
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, list | tuple | np.ndarray):
        items = list(value.tolist() if isinstance(value, np.ndarray) else value)
        if any(isinstance(v, list | tuple | dict) for v in items):
            raise RtInfoError("runtime info lists hold scalars only")
        return ArrayAttr([to_attr(v) for v in items])
    raise RtInfoError(
        f"runtime info values are str, bool, int, float or lists of them, "
        f"got {type(value).__name__}"
    )


def from_attr(attr: Attribute) -> Any:
    """Attribute -> Python value (other attributes come back unchanged)."""
    if isinstance(attr, StringAttr):
        data: Any = attr.data
        # xDSL's parser gives non-ASCII string literals back as UTF-8 bytes
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if isinstance(attr, IntegerAttr):
        t = attr.type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return bool(attr.value.data)
        return int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, ArrayAttr):
        return [from_attr(a) for a in attr.data]
    if isinstance(attr, DictionaryAttr):
        return {k: from_attr(v) for k, v in attr.data.items()}
    return attr


def to_dict_attr(info: Mapping[str, Any]) -> DictionaryAttr:
    """The ``rt_info`` property for ``info`` (keys sorted)."""
    return DictionaryAttr(
        {canonical_key(k): to_attr(v) for k, v in sorted(info.items())}
    )


# ---------------------------------------------------------------------------
# Known keys
# ---------------------------------------------------------------------------


def _union_sorted(values: Sequence[Any]) -> Any:
    names: set[str] = set()
    for v in values:
        names.update(as_name_list(v))
    return sorted(names)


def as_name_list(value: Any) -> list[str]:
    """A ``fused_names``-style value (list or comma-separated text) as a list."""
    if isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    return [str(n) for n in value]


@dataclass(frozen=True)
class RtInfoKey:
    """How one runtime info key is typed, written and propagated."""

    key: str
    kind: str = "str"
    #: IR ``version`` attribute (OpenVINO's key is ``key + "_" + version``).
    version: str = "0"
    #: copied to new ops by ``copy_runtime_info``
    copyable: bool = True
    #: combines the values of several sources (None: equal values survive,
    #: differing ones are dropped)
    merge: Callable[[Sequence[Any]], Any] | None = None

    @property
    def openvino_key(self) -> str:
        return f"{self.key}_{self.version}"


#: Keys with a meaning in OpenVINO. ``fused_names`` is the list of original
#: op names an op stands for (``ov::FusedNames``); ``decompression`` marks the
#: Convert of a compressed weight; ``old_api_map_*`` describe a layout or
#: element type change of a model input or output.
KNOWN_KEYS: dict[str, RtInfoKey] = {
    k.key: k
    for k in (
        RtInfoKey("fused_names", "str[]", merge=_union_sorted),
        RtInfoKey("decompression", "flag", copyable=False),
        RtInfoKey("dequantization", "flag", copyable=False),
        RtInfoKey("keep_const_precision", "flag", copyable=False),
        RtInfoKey("disabled_constant_folding", "flag", copyable=False),
        RtInfoKey("primitives_priority", "str"),
        RtInfoKey("old_api_map_order", "int[]", copyable=False),
        RtInfoKey("old_api_map_element_type", "str", copyable=False),
    )
}

_ALIASES: dict[str, str] = {k.openvino_key: k.key for k in KNOWN_KEYS.values()}


def register_key(spec: RtInfoKey) -> None:
    """Declare a runtime info key (its type survives the IR round trip)."""
    if spec.kind not in KINDS:
        raise RtInfoError(f"unknown runtime info kind '{spec.kind}'")
    KNOWN_KEYS[spec.key] = spec
    _ALIASES[spec.openvino_key] = spec.key


def key_spec(key: str) -> RtInfoKey | None:
    return KNOWN_KEYS.get(canonical_key(key))


def canonical_key(key: str) -> str:
    """xmo's key for ``key`` (``fused_names_0`` -> ``fused_names``)."""
    return _ALIASES.get(key, key)


def is_copyable(key: str) -> bool:
    spec = key_spec(key)
    return spec is None or spec.copyable


def merge_values(key: str, values: Sequence[Any]) -> tuple[bool, Any]:
    """(present, value) of ``key`` merged from several sources' values."""
    spec = key_spec(key)
    if spec is not None and spec.merge is not None:
        return True, spec.merge(values)
    first = values[0]
    if all(v == first for v in values[1:]):
        return True, first
    return False, None


# ---------------------------------------------------------------------------
# IR text
# ---------------------------------------------------------------------------


def _scalar_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def encode_ir(key: str, value: Any) -> tuple[str, str, str | None]:
    """(name, version, value text or None) of the IR ``<attribute>`` for a key."""
    spec = key_spec(key)
    name = canonical_key(key)
    version = spec.version if spec is not None else "0"
    if isinstance(value, list | tuple):
        text = ",".join(_scalar_text(v) for v in value)
    else:
        text = _scalar_text(value)
    if spec is not None and spec.kind == "flag":
        return name, version, None
    return name, version, (text if text != "" else None)


def decode_ir(name: str, version: str | None, text: str | None) -> tuple[str, Any]:
    """(key, typed value) of an IR ``<attribute name version value>``."""
    spec = KNOWN_KEYS.get(name)
    if spec is None and version not in (None, "", "0"):
        spec = KNOWN_KEYS.get(f"{name}_{version}")
    key = spec.key if spec is not None else name
    text = text or ""
    if spec is None or spec.kind in ("str", "flag"):
        return key, text
    try:
        match spec.kind:
            case "bool":
                return key, text.strip().lower() in ("true", "1", "yes")
            case "int":
                return key, int(text)
            case "float":
                return key, float(text)
            case "str[]":
                return key, as_name_list(text)
            case "int[]":
                return key, [int(t) for t in text.replace(" ", "").split(",") if t]
    except ValueError:
        pass
    return key, text


def merge_dicts(infos: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Runtime info of several ops merged (copyable keys only), as
    ``copy_runtime_info`` gives it to a target of several sources."""
    values: dict[str, list[Any]] = {}
    for info in infos:
        for k, v in info.items():
            if is_copyable(k):
                values.setdefault(canonical_key(k), []).append(v)
    out: dict[str, Any] = {}
    for k, vs in values.items():
        present, v = merge_values(k, vs)
        if present:
            out[k] = v
    return out


# ---------------------------------------------------------------------------
# Model-level runtime info (the <rt_info> of <net>)
# ---------------------------------------------------------------------------

#: the module attribute holding the model's runtime info
MODEL_RT_INFO_ATTR = "ov.rt_info"

#: deepest nesting of model runtime info sections (the reader stops there)
MAX_MODEL_RT_INFO_DEPTH = 32

_XML_NAME_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
)


def is_xml_name(key: str) -> bool:
    """Whether OpenVINO writes ``key`` as an element name (``<key .../>``):
    ASCII letters, digits, ``_``, ``-`` and ``.``, starting with a letter or
    ``_``, not with ``xml`` (any case). Other keys are written as
    ``<info name="key" .../>``."""
    return (
        bool(key)
        and (key[0].isascii() and (key[0].isalpha() or key[0] == "_"))
        and all(c in _XML_NAME_CHARS for c in key)
        and key[:3].lower() != "xml"
    )


def _check_model_key(key: Any, path: Sequence[str]) -> str:
    where = "/".join([*path, str(key)])
    if not isinstance(key, str):
        raise RtInfoError(f"model runtime info key '{where}': keys are str, "
                          f"got {type(key).__name__}")
    if not key:
        raise RtInfoError(f"model runtime info key '{where}': empty key")
    bad = [c for c in key if ord(c) < 0x20 or c in "\ufffe\uffff" or "\ud800" <= c <= "\udfff"]
    if bad:
        raise RtInfoError(
            f"model runtime info key {where!r}: character {bad[0]!r} cannot be "
            "written in XML (keys are element names or name attributes)"
        )
    return key


def _model_attr(info: Mapping[str, Any], path: tuple[str, ...]) -> DictionaryAttr:
    if len(path) >= MAX_MODEL_RT_INFO_DEPTH:
        raise RtInfoError(
            f"model runtime info '{'/'.join(path)}': nested deeper than "
            f"{MAX_MODEL_RT_INFO_DEPTH} sections"
        )
    out: dict[str, Attribute] = {}
    for key in sorted(info, key=lambda k: (not isinstance(k, str), str(k))):
        k = _check_model_key(key, path)
        value = info[key]
        if isinstance(value, DictionaryAttr):
            value = {n: v for n, v in value.data.items()}
        if isinstance(value, Mapping):
            out[k] = _model_attr(value, (*path, k))
            continue
        try:
            attr = to_attr(value)
            _model_leaf_text(attr)  # a kind the IR can hold
        except RtInfoError as e:
            raise RtInfoError(f"model runtime info '{'/'.join((*path, k))}': {e}") from None
        out[k] = attr
    return DictionaryAttr(out)


def to_model_attr(info: Mapping[str, Any]) -> DictionaryAttr:
    """The ``ov.rt_info`` module attribute for a nested mapping (sections are
    mappings; keys sorted, as OpenVINO's map orders them)."""
    return _model_attr(info, ())


def get_model_rt_info(module: Any) -> dict[str, Any]:
    """The model's runtime info as a nested dict (``{}`` when it has none)."""
    attr = module.attributes.get(MODEL_RT_INFO_ATTR)
    if attr is None:
        return {}
    if not isinstance(attr, DictionaryAttr):
        raise RtInfoError(
            f"module attribute '{MODEL_RT_INFO_ATTR}' is a {attr.name}, not a dictionary"
        )
    return from_attr(attr)


def set_model_rt_info(module: Any, info: Mapping[str, Any]) -> None:
    """Replace the model's runtime info with ``info`` (empty: remove it).
    Raises :class:`RtInfoError` on a key or value the IR cannot hold; the
    module is unchanged then."""
    attr = to_model_attr(info)
    if attr.data:
        module.attributes[MODEL_RT_INFO_ATTR] = attr
    else:
        module.attributes.pop(MODEL_RT_INFO_ATTR, None)


def _deep_update(base: dict[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    for k, v in new.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            base[k] = _deep_update(base[k], v)
        else:
            base[k] = dict(v) if isinstance(v, Mapping) else v
    return base


def update_model_rt_info(module: Any, info: Mapping[str, Any]) -> None:
    """Merge ``info`` into the model's runtime info: sections merge key by
    key, other values replace the old ones."""
    set_model_rt_info(module, _deep_update(get_model_rt_info(module), info))


def _model_leaf_text(attr: Attribute) -> str:
    if isinstance(attr, ArrayAttr):
        items = [from_attr(a) for a in attr.data]
        if any(isinstance(v, Attribute | list | dict) for v in items):
            raise RtInfoError("runtime info lists hold scalars only")
        return " ".join(_model_scalar_text(v) for v in items)
    value = from_attr(attr)
    if isinstance(value, Attribute | dict):
        raise RtInfoError(
            f"a model runtime info value is str, bool, int, float or a list of "
            f"them, got {attr}"
        )
    return _model_scalar_text(value)


def _model_scalar_text(v: Any) -> str:
    if isinstance(v, bool):
        return "YES" if v else "NO"  # as OpenVINO writes a bool
    if isinstance(v, float):
        return repr(v)
    return str(v)


def encode_model_ir(attr: Attribute) -> str:
    """The IR ``value`` text of a model runtime info leaf (its attribute in
    :func:`to_model_attr`'s dictionary), as OpenVINO writes it: lists
    space-separated, bools ``YES``/``NO``."""
    return _model_leaf_text(attr)


def model_ir_tag(key: str) -> tuple[str, list[tuple[str, str]]]:
    """(element name, attributes) of a model runtime info key in the IR."""
    if is_xml_name(key):
        return key, []
    return "info", [("name", key)]


def model_ir_key(tag: str, name: str | None) -> str:
    """The key of a model runtime info element (``<info name="KEY">``: KEY)."""
    return name if tag == "info" and name else tag
