"""Helpers shared by converter families: ONNX data types -> OpenVINO element
types, string attribute values."""

from __future__ import annotations

from xmo.passes.to_ov.builder import NotConvertible, ConverterNode

#: onnx.TensorProto.DataType -> OpenVINO element type
_ONNX_DTYPES = {
    1: "f32", 2: "u8", 3: "i8", 4: "u16", 5: "i16", 6: "i32", 7: "i64",
    9: "boolean", 10: "f16", 11: "f64", 12: "u32", 13: "u64", 16: "bf16",
    22: "i4", 21: "u4", 25: "u2",
    17: "f8e4m3", 19: "f8e5m2", 24: "f8e8m0", 23: "f4e2m1",
}  # fmt: skip


def onnx_dtype_to_etype(node: ConverterNode, dtype: int) -> str:
    try:
        return _ONNX_DTYPES[int(dtype)]
    except KeyError:
        raise NotConvertible(f"ONNX data type {dtype} has no OpenVINO element type") from None


def attr_str(v) -> str:  # noqa: ANN001
    """A string attribute's value as ``str`` (ONNX gives bytes)."""
    return v.decode() if isinstance(v, bytes) else str(v)
