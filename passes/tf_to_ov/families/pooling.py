"""Pooling: MaxPool, MaxPoolV2, AvgPool, MaxPool3D, AvgPool3D.

TF's SAME pooling pads the end more (``same_upper``) and its average excludes
the padding (``exclude-pad``); windows never start in the padding, so the
output size rounds down.
"""

from __future__ import annotations

from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.families.conv import padding_attrs
from xmo.passes.tf_to_ov.layout import Layout, spatial
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode


def _pool_attrs(node: ConverterNode, rank: int, ksize: list[int], strides: list[int]) -> dict:
    attrs = padding_attrs(node, rank)
    attrs["kernel"] = spatial(node, ksize, rank, "ksize")
    attrs["strides"] = spatial(node, strides, rank, "strides")
    attrs["rounding_type"] = "floor"
    return attrs


def _rank(node: ConverterNode, default: int) -> int:
    r = node.rank(0)
    if r is not None and r != default:
        raise node.unsupported(f"input must have rank {default}")
    return default


def _max_pool(node: ConverterNode, b: TFBuilder, rank: int, ksize: list[int], strides: list[int]):
    attrs = _pool_attrs(node, rank, ksize, strides)
    attrs["dilations"] = [1] * (rank - 2)
    attrs["index_element_type"] = "i64"
    attrs["axis"] = 0
    lay = Layout(node, b, rank)
    y = b.op("MaxPool", [lay.enter(node.input(0))], attrs).results[0]
    return lay.leave(y)


def _avg_pool(node: ConverterNode, b: TFBuilder, rank: int):
    attrs = _pool_attrs(node, rank, node.int_list("ksize"), node.int_list("strides"))
    attrs["exclude-pad"] = True
    lay = Layout(node, b, rank)
    return lay.leave(b.out("AvgPool", [lay.enter(node.input(0))], attrs))


@tf_converter("MaxPool")
def max_pool(node: ConverterNode, b: TFBuilder):
    r = _rank(node, 4)
    return _max_pool(node, b, r, node.int_list("ksize"), node.int_list("strides"))


@tf_converter("MaxPoolV2")
def max_pool_v2(node: ConverterNode, b: TFBuilder):
    r = _rank(node, 4)
    return _max_pool(node, b, r, node.const_ints(1, "ksize"), node.const_ints(2, "strides"))


@tf_converter("MaxPool3D")
def max_pool_3d(node: ConverterNode, b: TFBuilder):
    r = _rank(node, 5)
    return _max_pool(node, b, r, node.int_list("ksize"), node.int_list("strides"))


@tf_converter("AvgPool")
def avg_pool(node: ConverterNode, b: TFBuilder):
    return _avg_pool(node, b, _rank(node, 4))


@tf_converter("AvgPool3D")
def avg_pool_3d(node: ConverterNode, b: TFBuilder):
    return _avg_pool(node, b, _rank(node, 5))
