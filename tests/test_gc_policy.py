"""gc_policy: relaxed collector thresholds during a conversion, restored after."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from xmo.gc_policy import RELAXED_THRESHOLDS, relaxed_gc


def test_thresholds_relaxed_inside_and_restored_after():
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with relaxed_gc():
            assert gc.get_threshold() == RELAXED_THRESHOLDS
            with relaxed_gc():  # nesting keeps them
                assert gc.get_threshold() == RELAXED_THRESHOLDS
            assert gc.get_threshold() == RELAXED_THRESHOLDS
        assert gc.get_threshold() == (700, 10, 10)
        with pytest.raises(RuntimeError), relaxed_gc():
            raise RuntimeError("conversion failed")
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(0, 10, 10)  # automatic collection off: left so
        with relaxed_gc():
            assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)


def test_convert_and_save_restore_the_callers_thresholds(tmp_path):
    import xmo

    before = gc.get_threshold()
    try:
        gc.set_threshold(1234, 11, 12)
        module = xmo.convert_model(Path(xmo.__file__).parent / "models" / "demo.onnx")
        assert gc.get_threshold() == (1234, 11, 12)
        xmo.save_model(module, tmp_path / "demo.xml")
        assert gc.get_threshold() == (1234, 11, 12)
    finally:
        gc.set_threshold(*before)


def test_configure_process_freezes_and_relaxes():
    from xmo.gc_policy import configure_process

    before = gc.get_threshold()
    try:
        configure_process()
        assert gc.get_threshold() == RELAXED_THRESHOLDS
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
