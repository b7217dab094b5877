"""Compile-time pre-computation of constant sub-graphs of the schedule.

This is not ``ov-constant-fold`` (:mod:`xmo.passes.ov_constant_fold`) run
again, and cannot be that pass:

* it never changes the module: a compiled model runs the IR it was given, and
  with an observer (``model(inputs, observer=...)``, used to find where
  results diverge) every op still runs and is observed with its own result;
  the pre-computed values only replace steps of the fused schedule;
* it has no size guard: the pass keeps an op whose result would be much larger
  than its inputs (a Broadcast or Tile of a scalar) to keep the IR file small,
  while here trading memory for time per call is the point;
* modules that did not go through the pass (``.xml`` IR written by another
  tool, ``.mlir`` files, hand-built modules) keep e.g. their weight
  decompression sub-graphs (Convert, Subtract, Multiply of constants), which
  are computed here once instead of on every call.

Both evaluate ops with the same kernels. Only the cheap layout and
elementwise ops of :data:`FOLDABLE` are pre-computed (the sub-graphs left
in converted models); an op whose kernel fails on its constant inputs is left
to fail, or not, at run time.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from xmo.backends.cpu.errors import KERNEL_INPUT_ERRORS
from xmo.backends.cpu.node import KernelCall, checked_outputs

#: op types computed once at compile time when all their inputs are constants
FOLDABLE = frozenset({
    "Broadcast", "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Convert",
    "Add", "Subtract", "Multiply", "Divide", "Sqrt",
})


def fold_constants(
    steps: list[KernelCall],
    consts: Mapping[int, np.ndarray],
) -> dict[int, np.ndarray]:
    """Outputs (slot -> read-only array) of the :data:`FOLDABLE` steps whose
    inputs are all constants (or folded), evaluated once with their kernels."""
    known = dict(consts)
    folded: dict[int, np.ndarray] = {}
    for node, kernel, args, outs in steps:
        if node.type not in FOLDABLE or not outs or not all(a in known for a in args):
            continue
        if node.op.name not in (f"ov.{node.type}", f"ov.{node.type}_opset1"):
            continue
        try:
            with np.errstate(all="ignore"):
                res = checked_outputs(node, kernel(node, *[known[a] for a in args]))
        except KERNEL_INPUT_ERRORS:
            continue
        for o, arr in zip(outs, res):
            arr = np.array(arr)  # own copy: never a view of a constant
            arr.flags.writeable = False
            known[o] = folded[o] = arr
    return folded
