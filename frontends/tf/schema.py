"""TensorFlow GraphDef protobuf messages, declared by xmo itself (no TensorFlow, no protoc).

The messages a frozen GraphDef needs are described here as a
``descriptor_pb2.FileDescriptorProto`` built in Python -- field names, numbers
and types as in TensorFlow's public ``.proto`` files (``graph.proto``,
``node_def.proto``, ``attr_value.proto``, ``tensor.proto``,
``tensor_shape.proto``, ``types.proto``, ``versions.proto``) -- and turned into
message classes with the protobuf runtime (a private ``DescriptorPool`` +
``message_factory.GetMessageClass``), so TensorFlow's own pool is never touched
even when TensorFlow is imported in the same process.

Exported classes (package ``tensorflow``, so ``.pbtxt`` files parse with
``google.protobuf.text_format``)::

    GraphDef          node (1), library (2), version (3, deprecated), versions (4),
                      debug_info (5, unknown)
    FunctionDefLibrary  function (1); gradient (2) / registered_gradients (3) unknown
    FunctionDef       signature (1, an OpDef), attr (5), arg_attr (7, map<uint32,
                      ``FunctionDef.ArgAttrs``>), node_def (3), ret (4), control_ret (6);
                      resource_arg_unique_id (8) unknown
    OpDef             name, input_arg / output_arg (``OpDef.ArgDef``: name, type,
                      type_attr, number_attr, type_list_attr, is_ref), attr
                      (``OpDef.AttrDef``: name, type, default_value), is_stateful,
                      control_output; the documentation fields unknown
    NodeDef           name, op, input, device, attr (map<string, AttrValue>),
                      experimental_debug_info (6); experimental_type (7) unknown
    AttrValue         oneof value: list (1), s, i, f, b, type, shape, tensor,
                      placeholder (9), func (10); nested ``AttrValue.ListValue``
    NameAttrList      name, attr (map<string, AttrValue>)
    TensorProto       dtype, tensor_shape, version_number, tensor_content,
                      float/double/int/string/scomplex/int64/bool/dcomplex/half/
                      uint32/uint64 ``_val`` fields, float8_val;
                      resource_handle_val (14) / variant_val (15) unknown
    TensorShapeProto  dim (``TensorShapeProto.Dim``: size, name), unknown_rank
    VersionDef        producer, min_consumer, bad_consumers
    DataType          the enum (``DataType.DT_FLOAT``, ``DataType.Name(1)``, ...)

The schema is deliberately partial: fields it does not declare are kept as
unknown fields by the binary parser (so every GraphDef parses, and
re-serializing keeps them); :func:`parse_text` skips them in text files.

Helpers: :func:`parse_binary`, :func:`parse_text`, :func:`has_function_library`,
:data:`FILE_DESCRIPTOR` (the FileDescriptorProto itself).
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from google.protobuf.internal import enum_type_wrapper

__all__ = [
    "AttrValue",
    "DataType",
    "FILE_DESCRIPTOR",
    "FunctionDef",
    "FunctionDefLibrary",
    "GraphDef",
    "LIBRARY_FIELD_NUMBER",
    "NameAttrList",
    "OpDef",
    "NodeDef",
    "TensorProto",
    "TensorShapeProto",
    "VersionDef",
    "has_function_library",
    "parse_binary",
    "parse_text",
]

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "tensorflow"

#: GraphDef field number of ``library`` (a FunctionDefLibrary)
LIBRARY_FIELD_NUMBER = 2

#: DataType enum values (types.proto). ``*_REF`` types are the value + 100.
_DATA_TYPES: tuple[tuple[str, int], ...] = (
    ("DT_INVALID", 0), ("DT_FLOAT", 1), ("DT_DOUBLE", 2), ("DT_INT32", 3),
    ("DT_UINT8", 4), ("DT_INT16", 5), ("DT_INT8", 6), ("DT_STRING", 7),
    ("DT_COMPLEX64", 8), ("DT_INT64", 9), ("DT_BOOL", 10), ("DT_QINT8", 11),
    ("DT_QUINT8", 12), ("DT_QINT32", 13), ("DT_BFLOAT16", 14), ("DT_QINT16", 15),
    ("DT_QUINT16", 16), ("DT_UINT16", 17), ("DT_COMPLEX128", 18), ("DT_HALF", 19),
    ("DT_RESOURCE", 20), ("DT_VARIANT", 21), ("DT_UINT32", 22), ("DT_UINT64", 23),
    ("DT_FLOAT8_E5M2", 24), ("DT_FLOAT8_E4M3FN", 25), ("DT_FLOAT8_E4M3FNUZ", 26),
    ("DT_FLOAT8_E4M3B11FNUZ", 27), ("DT_FLOAT8_E5M2FNUZ", 28), ("DT_INT4", 29),
    ("DT_UINT4", 30), ("DT_INT2", 31), ("DT_UINT2", 32), ("DT_FLOAT4_E2M1FN", 33),
)  # fmt: skip


# ---------------------------------------------------------------------------
# Building the FileDescriptorProto
# ---------------------------------------------------------------------------


def _field(
    msg: descriptor_pb2.DescriptorProto,
    name: str,
    number: int,
    ftype: int,
    *,
    repeated: bool = False,
    type_name: str | None = None,
    oneof: int | None = None,
    packed: bool = False,
    deprecated: bool = False,
) -> None:
    f = msg.field.add()
    f.name = name
    f.number = number
    f.type = ftype
    f.label = _F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL
    f.json_name = _json_name(name)
    if type_name is not None:
        f.type_name = f".{_PACKAGE}.{type_name}"
    if oneof is not None:
        f.oneof_index = oneof
    if packed:
        f.options.packed = True
    if deprecated:
        f.options.deprecated = True


def _json_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _map_entry(
    parent: descriptor_pb2.DescriptorProto,
    entry_name: str,
    value_type: str | None,
    key_type: int = _F.TYPE_STRING,
) -> None:
    """``map<key_type, value_type>``: a nested ``<Name>Entry`` message (key 1,
    value 2); ``value_type`` None: a string value."""
    e = parent.nested_type.add()
    e.name = entry_name
    e.options.map_entry = True
    _field(e, "key", 1, key_type)
    if value_type is None:
        _field(e, "value", 2, _F.TYPE_STRING)
    else:
        _field(e, "value", 2, _F.TYPE_MESSAGE, type_name=value_type)


def _build_file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto()
    fd.name = "xmo/frontends/tf/graph_subset.proto"
    fd.package = _PACKAGE
    fd.syntax = "proto3"

    # enum DataType
    en = fd.enum_type.add()
    en.name = "DataType"
    for name, number in _DATA_TYPES:
        v = en.value.add()
        v.name, v.number = name, number
    for name, number in _DATA_TYPES[1:]:
        v = en.value.add()
        v.name, v.number = name + "_REF", number + 100

    # message TensorShapeProto { message Dim; repeated Dim dim = 2; bool unknown_rank = 3; }
    shape = fd.message_type.add()
    shape.name = "TensorShapeProto"
    dim = shape.nested_type.add()
    dim.name = "Dim"
    _field(dim, "size", 1, _F.TYPE_INT64)
    _field(dim, "name", 2, _F.TYPE_STRING)
    _field(shape, "dim", 2, _F.TYPE_MESSAGE, repeated=True, type_name="TensorShapeProto.Dim")
    _field(shape, "unknown_rank", 3, _F.TYPE_BOOL)

    # message TensorProto (resource_handle_val = 14 and variant_val = 15 left unknown)
    tensor = fd.message_type.add()
    tensor.name = "TensorProto"
    _field(tensor, "dtype", 1, _F.TYPE_ENUM, type_name="DataType")
    _field(tensor, "tensor_shape", 2, _F.TYPE_MESSAGE, type_name="TensorShapeProto")
    _field(tensor, "version_number", 3, _F.TYPE_INT32)
    _field(tensor, "tensor_content", 4, _F.TYPE_BYTES)
    for name, number, ftype in (
        ("half_val", 13, _F.TYPE_INT32),
        ("float_val", 5, _F.TYPE_FLOAT),
        ("double_val", 6, _F.TYPE_DOUBLE),
        ("int_val", 7, _F.TYPE_INT32),
    ):
        _field(tensor, name, number, ftype, repeated=True, packed=True)
    _field(tensor, "string_val", 8, _F.TYPE_BYTES, repeated=True)
    for name, number, ftype in (
        ("scomplex_val", 9, _F.TYPE_FLOAT),
        ("int64_val", 10, _F.TYPE_INT64),
        ("bool_val", 11, _F.TYPE_BOOL),
        ("dcomplex_val", 12, _F.TYPE_DOUBLE),
        ("uint32_val", 16, _F.TYPE_UINT32),
        ("uint64_val", 17, _F.TYPE_UINT64),
    ):
        _field(tensor, name, number, ftype, repeated=True, packed=True)
    _field(tensor, "float8_val", 18, _F.TYPE_BYTES)

    # message AttrValue { message ListValue; oneof value {...} }
    attr = fd.message_type.add()
    attr.name = "AttrValue"
    lst = attr.nested_type.add()
    lst.name = "ListValue"
    _field(lst, "s", 2, _F.TYPE_BYTES, repeated=True)
    _field(lst, "i", 3, _F.TYPE_INT64, repeated=True, packed=True)
    _field(lst, "f", 4, _F.TYPE_FLOAT, repeated=True, packed=True)
    _field(lst, "b", 5, _F.TYPE_BOOL, repeated=True, packed=True)
    _field(lst, "type", 6, _F.TYPE_ENUM, repeated=True, packed=True, type_name="DataType")
    _field(lst, "shape", 7, _F.TYPE_MESSAGE, repeated=True, type_name="TensorShapeProto")
    _field(lst, "tensor", 8, _F.TYPE_MESSAGE, repeated=True, type_name="TensorProto")
    _field(lst, "func", 9, _F.TYPE_MESSAGE, repeated=True, type_name="NameAttrList")
    attr.oneof_decl.add().name = "value"
    _field(attr, "s", 2, _F.TYPE_BYTES, oneof=0)
    _field(attr, "i", 3, _F.TYPE_INT64, oneof=0)
    _field(attr, "f", 4, _F.TYPE_FLOAT, oneof=0)
    _field(attr, "b", 5, _F.TYPE_BOOL, oneof=0)
    _field(attr, "type", 6, _F.TYPE_ENUM, oneof=0, type_name="DataType")
    _field(attr, "shape", 7, _F.TYPE_MESSAGE, oneof=0, type_name="TensorShapeProto")
    _field(attr, "tensor", 8, _F.TYPE_MESSAGE, oneof=0, type_name="TensorProto")
    _field(attr, "list", 1, _F.TYPE_MESSAGE, oneof=0, type_name="AttrValue.ListValue")
    _field(attr, "func", 10, _F.TYPE_MESSAGE, oneof=0, type_name="NameAttrList")
    _field(attr, "placeholder", 9, _F.TYPE_STRING, oneof=0)

    # message NameAttrList { string name = 1; map<string, AttrValue> attr = 2; }
    nal = fd.message_type.add()
    nal.name = "NameAttrList"
    _field(nal, "name", 1, _F.TYPE_STRING)
    _map_entry(nal, "AttrEntry", "AttrValue")
    _field(nal, "attr", 2, _F.TYPE_MESSAGE, repeated=True, type_name="NameAttrList.AttrEntry")

    # message NodeDef (experimental_type = 7, a FullTypeDef, left unknown)
    node = fd.message_type.add()
    node.name = "NodeDef"
    _field(node, "name", 1, _F.TYPE_STRING)
    _field(node, "op", 2, _F.TYPE_STRING)
    _field(node, "input", 3, _F.TYPE_STRING, repeated=True)
    _field(node, "device", 4, _F.TYPE_STRING)
    _map_entry(node, "AttrEntry", "AttrValue")
    _field(node, "attr", 5, _F.TYPE_MESSAGE, repeated=True, type_name="NodeDef.AttrEntry")
    dbg = node.nested_type.add()
    dbg.name = "ExperimentalDebugInfo"
    _field(dbg, "original_node_names", 1, _F.TYPE_STRING, repeated=True)
    _field(dbg, "original_func_names", 2, _F.TYPE_STRING, repeated=True)
    _field(
        node, "experimental_debug_info", 6, _F.TYPE_MESSAGE,
        type_name="NodeDef.ExperimentalDebugInfo",
    )  # fmt: skip

    # message VersionDef
    ver = fd.message_type.add()
    ver.name = "VersionDef"
    _field(ver, "producer", 1, _F.TYPE_INT32)
    _field(ver, "min_consumer", 2, _F.TYPE_INT32)
    _field(ver, "bad_consumers", 3, _F.TYPE_INT32, repeated=True, packed=True)

    # message OpDef (the signature of a FunctionDef; documentation fields left unknown)
    opdef = fd.message_type.add()
    opdef.name = "OpDef"
    argdef = opdef.nested_type.add()
    argdef.name = "ArgDef"
    _field(argdef, "name", 1, _F.TYPE_STRING)
    _field(argdef, "type", 3, _F.TYPE_ENUM, type_name="DataType")
    _field(argdef, "type_attr", 4, _F.TYPE_STRING)
    _field(argdef, "number_attr", 5, _F.TYPE_STRING)
    _field(argdef, "type_list_attr", 6, _F.TYPE_STRING)
    _field(argdef, "is_ref", 16, _F.TYPE_BOOL)
    attrdef = opdef.nested_type.add()
    attrdef.name = "AttrDef"
    _field(attrdef, "name", 1, _F.TYPE_STRING)
    _field(attrdef, "type", 2, _F.TYPE_STRING)
    _field(attrdef, "default_value", 3, _F.TYPE_MESSAGE, type_name="AttrValue")
    _field(opdef, "name", 1, _F.TYPE_STRING)
    _field(opdef, "input_arg", 2, _F.TYPE_MESSAGE, repeated=True, type_name="OpDef.ArgDef")
    _field(opdef, "output_arg", 3, _F.TYPE_MESSAGE, repeated=True, type_name="OpDef.ArgDef")
    _field(opdef, "control_output", 20, _F.TYPE_STRING, repeated=True)
    _field(opdef, "attr", 4, _F.TYPE_MESSAGE, repeated=True, type_name="OpDef.AttrDef")
    _field(opdef, "is_stateful", 17, _F.TYPE_BOOL)

    # message FunctionDef (resource_arg_unique_id = 8 left unknown)
    func = fd.message_type.add()
    func.name = "FunctionDef"
    argattrs = func.nested_type.add()
    argattrs.name = "ArgAttrs"
    _map_entry(argattrs, "AttrEntry", "AttrValue")
    _field(argattrs, "attr", 1, _F.TYPE_MESSAGE, repeated=True, type_name="FunctionDef.ArgAttrs.AttrEntry")
    _map_entry(func, "AttrEntry", "AttrValue")
    _map_entry(func, "ArgAttrEntry", "FunctionDef.ArgAttrs", key_type=_F.TYPE_UINT32)
    _map_entry(func, "RetEntry", None)
    _map_entry(func, "ControlRetEntry", None)
    _field(func, "signature", 1, _F.TYPE_MESSAGE, type_name="OpDef")
    _field(func, "attr", 5, _F.TYPE_MESSAGE, repeated=True, type_name="FunctionDef.AttrEntry")
    _field(func, "arg_attr", 7, _F.TYPE_MESSAGE, repeated=True, type_name="FunctionDef.ArgAttrEntry")
    _field(func, "node_def", 3, _F.TYPE_MESSAGE, repeated=True, type_name="NodeDef")
    _field(func, "ret", 4, _F.TYPE_MESSAGE, repeated=True, type_name="FunctionDef.RetEntry")
    _field(func, "control_ret", 6, _F.TYPE_MESSAGE, repeated=True,
           type_name="FunctionDef.ControlRetEntry")

    # message FunctionDefLibrary (gradient = 2 and registered_gradients = 3 left unknown)
    lib = fd.message_type.add()
    lib.name = "FunctionDefLibrary"
    _field(lib, "function", 1, _F.TYPE_MESSAGE, repeated=True, type_name="FunctionDef")

    # message GraphDef (debug_info = 5 left unknown)
    graph = fd.message_type.add()
    graph.name = "GraphDef"
    _field(graph, "node", 1, _F.TYPE_MESSAGE, repeated=True, type_name="NodeDef")
    _field(graph, "library", 2, _F.TYPE_MESSAGE, type_name="FunctionDefLibrary")
    _field(graph, "versions", 4, _F.TYPE_MESSAGE, type_name="VersionDef")
    _field(graph, "version", 3, _F.TYPE_INT32, deprecated=True)
    return fd


#: The schema as a FileDescriptorProto (inspect it, or add it to another pool).
FILE_DESCRIPTOR: descriptor_pb2.FileDescriptorProto = _build_file()

_POOL = descriptor_pool.DescriptorPool()
_FILE = _POOL.Add(FILE_DESCRIPTOR)


def _message(name: str) -> type:
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{_PACKAGE}.{name}"))


GraphDef = _message("GraphDef")
FunctionDefLibrary = _message("FunctionDefLibrary")
FunctionDef = _message("FunctionDef")
OpDef = _message("OpDef")
NodeDef = _message("NodeDef")
AttrValue = _message("AttrValue")
NameAttrList = _message("NameAttrList")
TensorProto = _message("TensorProto")
TensorShapeProto = _message("TensorShapeProto")
VersionDef = _message("VersionDef")
#: ``DataType.DT_FLOAT == 1``, ``DataType.Name(1) == "DT_FLOAT"``, ``DataType.Value(...)``
DataType = enum_type_wrapper.EnumTypeWrapper(_POOL.FindEnumTypeByName(f"{_PACKAGE}.DataType"))


# ---------------------------------------------------------------------------
# Parsing helpers
# ---------------------------------------------------------------------------


def parse_binary(data: bytes | bytearray | memoryview) -> GraphDef:  # type: ignore[valid-type]
    """A GraphDef from its binary encoding (raises ``google.protobuf.message.DecodeError``)."""
    g = GraphDef()
    g.ParseFromString(data if isinstance(data, bytes | memoryview) else memoryview(data))
    return g


def parse_text(text: str | bytes) -> GraphDef:  # type: ignore[valid-type]
    """A GraphDef from protobuf text format (``.pbtxt``); fields this schema does
    not declare (``experimental_type``, ``debug_info``...) are skipped.

    Raises ``google.protobuf.text_format.ParseError``.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    g = GraphDef()
    text_format.Parse(text, g, allow_unknown_field=True)
    return g


def has_function_library(graph: GraphDef) -> bool:  # type: ignore[valid-type]
    """True when the GraphDef carries functions (FunctionDefLibrary, field 2)."""
    return len(graph.library.function) > 0  # type: ignore[attr-defined]
