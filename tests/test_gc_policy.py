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


def test_leave_to_os_spares_the_last_collection():
    """What a command built is frozen at its end: a cycle made during the
    run is no longer the collector's (the interpreter's last collection
    skips it), and the command's exit code is kept."""
    import subprocess
    import sys

    code = (
        "import gc, sys\n"
        "from xmo import gc_policy\n"
        "from xmo.tools import xmo_main\n"
        "class Node:\n"
        "    pass\n"
        "def main():\n"
        "    a, b = Node(), Node()\n"
        "    a.other, b.other = b, a\n"
        "    global frozen_before\n"
        "    frozen_before = gc.get_freeze_count()\n"
        "    return 3\n"
        "xmo_main.main = main\n"
        "xmo_main.bus_error.install = lambda name: None\n"
        "rc = xmo_main.cli()\n"
        "assert gc.get_freeze_count() >= frozen_before + 2, (frozen_before, gc.get_freeze_count())\n"
        "assert gc.collect() == 0\n"
        "sys.exit(rc)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 3, r.stderr
