"""Passes: canonicalization, legalization to ``ov``, middle and back phases."""
