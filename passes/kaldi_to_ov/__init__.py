"""Conversion Kaldi -> ov (``convert-kaldi-to-ov``).

* :mod:`.convert` -- the pass: the Kaldi hooks of the shared driver
  (:mod:`xmo.passes.to_ov.driver`), :class:`~.convert.KaldiNode` (a
  converter node that knows the time margins of its inputs), the
  attribute reader of ``kaldi.Component`` fields;
* :mod:`.registry` -- ``@kaldi_converter``, keyed by component type or
  descriptor kind;
* :mod:`.families` -- the converters: :mod:`.families.components` (affine,
  nonlinearities, normalizations, identities), :mod:`.families.time`
  (Append / Offset / Sum / Scale / DimRange descriptors, nnet1 Splice,
  TdnnComponent), :mod:`.families.lstm` (nnet1 LstmProjected).

Context (time) handling: an explicit window. A graph input is
``[frames, features]`` with any number of frames ``N``; every value carries
its margins ``(left, right)``: its row ``i`` is input frame ``i + left`` and
it has ``N - left - right`` rows. ``Offset(x, k)`` only shifts the margins;
``Append``/``Sum`` (and Splice, TdnnComponent) slice each input to the frames
all of them have, so an output has ``N - L - R`` rows for the network's
total left / right context ``L`` / ``R``: one call computes the frames whose
whole context is in the window, with no state. Recurrences (nnet1
LstmProjected) run over the window's frames in a ``TensorIterator`` from a
zero state.
"""

from xmo.passes.kaldi_to_ov.convert import ConvertKaldiToOVPass, KaldiNode, convert_kaldi_to_ov

__all__ = ["ConvertKaldiToOVPass", "KaldiNode", "convert_kaldi_to_ov"]
