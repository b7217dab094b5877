"""The Kaldi converters, one module per family (importing this registers them)."""

from xmo.passes.kaldi_to_ov.families import components, lstm, time

__all__ = ["components", "lstm", "time"]
