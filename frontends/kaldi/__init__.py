"""Kaldi frontend: nnet1 / nnet3 models (text or binary) -> ``kaldi``-dialect module.

No Kaldi needed. :func:`load_kaldi` reads a ``.nnet`` (nnet1), ``.raw``
(nnet3) or ``.mdl`` (a transition model, skipped, then an nnet3 or nnet1
network) file:

* :mod:`.reader` -- Kaldi's text and binary serialization (tokens, numbers,
  integer vectors, ``FM``/``DM``/``FV``/``DV`` matrices and vectors as numpy
  views of the file);
* :mod:`.model` -- the file -> plain records (:class:`~.model.KaldiModel`):
  nnet3 config lines and descriptors, components with the fields
  :data:`xmo.dialects.kaldi.COMPONENTS` declares; an nnet1 chain as the same
  records;
* :mod:`.loader` -- the records -> a ``kaldi`` module (:mod:`xmo.dialects.kaldi`).

Every malformed file raises :class:`KaldiFrontendError` (a
:class:`~xmo.errors.ModelError`) with one line naming the file and the
byte offset.
"""

from __future__ import annotations

from xmo.frontends.kaldi.loader import graph_input_shapes, load_kaldi
from xmo.frontends.kaldi.model import KaldiModel, read_kaldi
from xmo.frontends.kaldi.reader import KaldiFrontendError

__all__ = ["KaldiFrontendError", "KaldiModel", "graph_input_shapes", "load_kaldi", "read_kaldi"]
