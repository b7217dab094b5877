"""TensorFlow frontend: a frozen GraphDef -> a ``tf``-dialect module (no TensorFlow needed).

:func:`load_tf` reads a ``.pb`` (binary) / ``.pbtxt`` (text) file, serialized
bytes or a GraphDef message into a ``builtin.module`` whose body is one flat
block:

* one op per NodeDef, in topological order (data and control edges; ties keep
  graph order): the generated ``tf.<Type>`` op (:mod:`xmo.dialects.tf`) or
  ``tf.Unknown`` (any other op type, with all its attributes). Properties:
  ``node_name``, ``control_inputs`` (``^name`` inputs; not operands), and the
  TF attributes (``_``-prefixed ones dropped);
* ``tf.Placeholder`` results are ranked from the ``shape`` attr (or
  ``_output_shapes``; ``input_shapes`` overrides both and rewrites ``shape``),
  ``tf.Const`` results have the constant's type, every other result is an
  unranked tensor of the OpDef's element type (``!tf.unknown`` if unknown);
* a ``PlaceholderWithDefault`` (e.g. Keras' ``keras_learning_phase``) stays
  one -- its default value flows through -- unless ``inputs`` or
  ``input_shapes`` names it: then it loads as a ``tf.Placeholder``, a graph
  input, as OpenVINO's frontend does when the user overrides the inputs;
* then one ``tf.Output`` per graph output: the ``outputs`` asked for (the
  graph is pruned to their ancestors), else port 0 of every node nobody
  consumes (Const, Placeholder and no-output nodes excepted), graph order;
* the functions of the GraphDef's library (``FunctionDef``) that the kept
  nodes call (``While``/``StatelessWhile`` ``cond``/``body``, ``If``/
  ``StatelessIf`` branches, ``PartitionedCall`` ``f``...), and those these
  call, come first: one ``tf.Function`` each (a module symbol; its block's
  arguments are the function's inputs, typed from the signature's dtypes and
  the ``_output_shapes`` arg attrs; its nodes load as a graph's, a node
  output ``node:out_arg:index`` becoming a port of the node's OpDef; it ends
  with ``tf.Return``). Call ops keep their ``#tf.func<"name">`` attrs: the
  verifier checks that they name a function taking and returning what the
  call passes (``xmo.dialects.tf.FUNCTION_CALLS``). Functions are symbols
  rather than regions of their callers because one function may be called
  from several places and the GraphDef names them: conversion looks them up.

Constants: ``tensor_content`` is viewed in place (``np.frombuffer``); typed
value fields are decoded once, short lists broadcast as TensorFlow does (see
:mod:`.tensors`). Large payloads go into the context's weight store.

Modules: :mod:`.schema` (the protobuf messages, declared in Python),
:mod:`.loader`, :mod:`.attrs` (AttrValue <-> attribute), :mod:`.tensors`
(TensorProto -> payload -> attribute).

Every malformed graph raises :class:`TFFrontendError` (a ``ValueError``) with a
one-line message naming the file, node or tensor.
"""

from __future__ import annotations

from xmo.frontends.tf.loader import (
    TFFrontendError,
    graph_input_shapes,
    load_tf,
    read_graph_def,
)

__all__ = ["TFFrontendError", "graph_input_shapes", "load_tf", "read_graph_def"]
