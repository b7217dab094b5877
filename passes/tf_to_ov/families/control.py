"""TF1 control flow of frozen graphs: Switch and Merge (``tf.cond`` lowered).

A ``Switch`` whose predicate folds to a constant forwards its data to the
taken port (1 when the predicate is true) and returns
:data:`~xmo.passes.tf_to_ov.builder.DEAD` for the other; convert-tf-to-ov
propagates deadness through the untaken branch (see its module docstring)
and a ``Merge`` forwards its one live input (output 1, ``value_index``, is
that input's index). A predicate known only at run time is unsupported:
OpenVINO's ``If`` would need the branches as sub-graphs, which a frozen
graph's flat Switch/Merge form does not delimit.
"""

from __future__ import annotations

import numpy as np
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import DEAD, ConverterNode


@tf_converter("Switch")
def switch(node: ConverterNode, b: TFBuilder):
    pred = node.const(1)
    if pred is None:
        raise node.unsupported(
            "the predicate is not a constant (TF1 control flow converts only when its "
            "predicate folds to a constant, e.g. a PlaceholderWithDefault learning phase "
            "that is not made an input)"
        )
    if pred.size != 1:
        raise node.unsupported("the predicate must be a scalar")
    data = node.input(0)
    return [DEAD, data] if bool(np.asarray(pred).reshape(-1)[0]) else [data, DEAD]


@tf_converter("Merge")
def merge(node: ConverterNode, b: TFBuilder):
    taken = [i for i in range(node.num_inputs) if not node.is_dead(i)]
    if len(taken) != 1:
        raise node.unsupported(
            f"{len(taken)} of its inputs are live (a Merge converts when the constant "
            "predicates of the Switches before it leave one)"
        )
    i = taken[0]
    return [node.input(i), b.i32(i)]
