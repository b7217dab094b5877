"""MXNet frontend: a checkpoint (``PREFIX-symbol.json`` + ``PREFIX-NNNN.params``)
-> an ``mxnet``-dialect module (no MXNet needed).

:func:`load_mxnet` reads the JSON symbol graph (``nodes``, ``arg_nodes``,
``heads``; attributes under ``attrs``, ``attr`` or ``param`` depending on the
MXNet version that wrote it; input entries ``[node, index(, version)]``) and
the ``.params`` file (:mod:`.params`: the NDArray list format, arrays viewed
in the mapped file) into one flat block:

* one ``mxnet.Var`` per variable (``null`` node): a parameter when the params
  file has an array of its name (``arg:``/``aux:`` prefixes, or none), else a
  graph input, ranked from ``input_shapes`` or its ``__shape__`` attribute
  (``__dtype__`` gives its type; f32 by default);
* one ``mxnet.Node`` per operator node, known or not (op type, name, string
  attributes); results: ``1 +`` the highest output index used;
* one ``mxnet.Output`` per head, named ``<node>_output`` (``<node>_output<k>``
  for output k).

The params file is ``params`` when given (``xmo convert --input_params``),
else ``PREFIX-NNNN.params`` of ``epoch`` (``--epoch``), else the newest epoch
beside the symbol; a ``PREFIX-NNNN.params`` model path finds its symbol.

Label variables of loss layers (``softmax_label`` of ``SoftmaxOutput``...)
load but are not graph inputs: inference does not use them.

Every malformed pair raises :class:`MXNetFrontendError` (a ``ModelError``)
with one line: bad JSON, a graph that is not in topological order, an input
entry naming no node, a truncated or corrupt params file, an array the
symbol has no variable for, a weight the params file lacks, a weight whose
shape the operator's attributes contradict (``num_filter``, ``kernel``,
``num_hidden``, ``input_dim``/``output_dim``, BatchNorm channels) or the
variable's ``__shape__``.
"""

from __future__ import annotations

from xmo.frontends.mxnet.loader import (
    MXNetFrontendError,
    checkpoint_files,
    graph_input_shapes,
    load_mxnet,
)
from xmo.frontends.mxnet.params import ParamsError, read_params, write_params

__all__ = [
    "MXNetFrontendError",
    "ParamsError",
    "checkpoint_files",
    "graph_input_shapes",
    "load_mxnet",
    "read_params",
    "write_params",
]
