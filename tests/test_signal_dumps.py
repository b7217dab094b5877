"""tests/signal_dumps.py: a test process that a watched signal ends leaves
its stacks (then dies of the signal as before); a handler of the process's
own is left alone."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import signal_dumps

HERE = Path(__file__).resolve().parent


def _run(folder: Path, body: str) -> subprocess.CompletedProcess:
    code = ("import os, signal, sys\n"
            f"sys.path.insert(0, {str(HERE)!r})\n"
            "from pathlib import Path\n"
            "import signal_dumps\n"
            f"folder = Path({str(folder)!r})\n" + body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)


def _innermost_frame(name: str) -> str:
    return f"def {name}():\n    os.kill(os.getpid(), signal.SIGTERM)\n"


def test_a_watched_signal_leaves_the_stacks_and_still_ends_the_process(tmp_path):
    r = _run(tmp_path, _innermost_frame("in_some_test") + "signal_dumps.arm(folder)\nin_some_test()\n")
    assert r.returncode == -signal.SIGTERM, r.stderr
    (text,) = signal_dumps.report(tmp_path)
    assert "received SIGTERM" in text and "in_some_test" in text, text


def test_the_default_put_back_by_a_test_is_watched_again(tmp_path):
    r = _run(tmp_path, _innermost_frame("later") +
             "signal_dumps.arm(folder)\n"
             "signal.signal(signal.SIGTERM, lambda s, f: None)\n"  # a test's own handler ...
             "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"  # ... and the default back
             "signal_dumps.arm(folder)\nlater()\n")
    assert r.returncode == -signal.SIGTERM, r.stderr
    (text,) = signal_dumps.report(tmp_path)
    assert "later" in text


def test_a_handler_of_the_processs_own_is_left_alone(tmp_path):
    r = _run(tmp_path, "seen = []\n"
             "signal.signal(signal.SIGTERM, lambda s, f: seen.append(s))\n"
             "signal_dumps.arm(folder)\n"
             "os.kill(os.getpid(), signal.SIGTERM)\n"
             "assert seen == [signal.SIGTERM], seen\n")
    assert r.returncode == 0, r.stderr
    assert signal_dumps.report(tmp_path) == []
