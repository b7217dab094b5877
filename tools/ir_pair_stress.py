"""Concurrent writers of one IR output path: is the ``.xml``/``.bin`` pair there always one pair?

``--writers`` processes (default 4), each with a model of its own, write to one
output path at the same time, ``--rounds`` times (default 100). The models
have the same graph (``x + w``) and differ only in their weights (``w`` is
``k + 1`` everywhere for writer ``k``) and in their name (``m<k>``), so that a
``.xml`` of one model with the ``.bin`` of another is the worst case: it reads
and runs, with the wrong weights. Half of the writers hold weights
memory-mapped from an IR of their own (the serializer copies those in-kernel),
the other half in memory. After every round the pair at the path must be
consistent:

* its ``.bin`` holds exactly the weights of the model its ``.xml`` names
  (checked byte for byte, independently of xmo's reader),
* xmo's reader accepts it and gives that model's weights,
* OpenVINO computes ``x + k + 1`` with it (``--openvino``, the default).

Meanwhile a reader process reads the path with xmo's reader in a loop: every
read it accepts must be consistent the same way (reads it refuses are
counted, not errors). ``--cli`` makes the writers ``xmo convert`` processes
(one process per write: slower, closer to the reported failure).

    python -m xmo.tools.ir_pair_stress --rounds 100 --writers 4
    python -m xmo.tools.ir_pair_stress --rounds 5 --cli

``tests/test_ir_pair.py`` runs a bounded version of both.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: floats in each model's weights (1 MiB: large enough for the in-kernel copy)
N = 1 << 18


class Inconsistent(AssertionError):
    """The pair at the output path is not one model's pair."""


def mlir_text(k: int, n: int = N) -> str:
    """Model ``k`` as textual ``ov`` IR (for ``xmo convert``)."""
    t = f"tensor<{n}xf32>"
    return (
        f"builtin.module @m{k} {{\n"
        f'  %0 = "ov.Parameter"() <{{friendly_name = "x"}}> : () -> {t}\n'
        f'  %1 = "ov.Constant"() <{{value = dense<{k + 1}.0> : {t}}}> : () -> {t}\n'
        f'  %2 = "ov.Add"(%0, %1) : ({t}, {t}) -> {t}\n'
        f'  "ov.Result"(%2) : ({t}) -> ()\n'
        "}\n"
    )


def make_module(k: int, n: int = N, mapped_from: Path | None = None) -> Any:
    """Model ``k`` (see the module docstring). With ``mapped_from`` (an
    ``.xml`` path) it is first written there and read back, so that its
    weights are memory-mapped."""
    from xdsl.dialects.builtin import ModuleOp, StringAttr

    from xmo.backends.ir import read_ir, serialize
    from xmo.context import attach_context, make_context, weight_store
    from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class

    ctx = make_context()
    p = ParameterOp.new("f32", [n], name="x", tensor_names=["x"])
    c = ConstantOp.from_array(np.full(n, k + 1, np.float32), store=weight_store(ctx), name="w")
    a = op_class("Add").make([p.results[0], c.results[0]])
    module = ModuleOp([p, c, a, ResultOp.new(a.results[0], name="y")], sym_name=StringAttr(f"m{k}"))
    attach_context(module, ctx)
    if mapped_from is None:
        return module
    serialize(module, mapped_from)
    return read_ir(mapped_from, ctx=make_context())


def _net_name(xml: Path) -> str:
    with open(xml, "rb") as f:
        head = f.read(4096).decode("utf-8", "replace")
    start = head.find("<net name=\"")
    if start < 0:
        raise Inconsistent(f"{xml.name}: no <net name=...> at its start")
    start += len("<net name=\"")
    return head[start : head.index('"', start)]


def pair_model(xml: Path, n: int = N) -> int | None:
    """The model ``k`` whose pair is at ``xml`` (None when neither file is
    there); :class:`Inconsistent` when the ``.bin`` is not model ``k``'s."""
    bin_ = xml.with_suffix(".bin")
    if not xml.exists() and not bin_.exists():
        return None
    if not xml.exists() or not bin_.exists():
        raise Inconsistent(f"only {xml.name if xml.exists() else bin_.name} is there")
    name = _net_name(xml)
    k = int(name[1:])
    data = np.fromfile(bin_, dtype=np.float32)
    if data.size != n or not np.all(data == k + 1):
        vals = np.unique(data)[:4].tolist() if data.size else []
        raise Inconsistent(f"{xml.name} is model {name}, its .bin holds {data.size} floats {vals}")
    return k


def module_model(module: Any, n: int = N) -> int:
    """The model ``k`` of a module read back; :class:`Inconsistent` when its
    weights are not model ``k``'s."""
    from xmo.dialects.ov.base import constant_value_of

    k = int(module.sym_name.data[1:])
    for op in module.body.block.ops:
        if op.name == "ov.Constant":
            w = constant_value_of(op.results[0])
            if w is None or w.size != n or not np.all(w == k + 1):
                raise Inconsistent(f"xmo's reader gave model m{k} with other weights")
            return k
    raise Inconsistent(f"model m{k} read back without its constant")


def openvino_model(xml: Path, k: int, n: int = N) -> None:
    """OpenVINO computes model ``k`` with the pair at ``xml``."""
    import openvino as ov

    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU")
    x = np.arange(n, dtype=np.float32)
    y = np.asarray(compiled([x])[compiled.outputs[0]])
    if not np.array_equal(y, x + (k + 1)):
        raise Inconsistent(f"OpenVINO computes model m{k} with other weights")


def check_pair(xml: Path, n: int = N, openvino: bool = True) -> int | None:
    """The model ``k`` whose pair is at ``xml`` (None when neither file is
    there) as xmo's reader reads it (it finishes a write that was
    interrupted), then the files themselves (:func:`pair_model`) and
    (``openvino``) OpenVINO agree."""
    from xmo.backends.ir import read_ir

    if not xml.exists() and not xml.with_suffix(".bin").exists():
        return None
    k = module_model(read_ir(xml), n)
    if pair_model(xml, n) != k:
        raise Inconsistent(f"xmo's reader gave model m{k}, the files are another")
    if openvino:
        openvino_model(xml, k, n)
    return k


# -- processes -----------------------------------------------------------------------


def forkserver() -> Any:
    """The multiprocessing context of the writers: a fork server that has
    imported xmo's IR backend once (a process per write starts in
    milliseconds, with default signal handlers)."""
    mp = multiprocessing.get_context("forkserver")
    mp.set_forkserver_preload([__name__, "xmo.backends.ir", "xmo.dialects.ov"])
    return mp


def write_once(k: int, xml: str, fault: str | None = None, n: int = N, src: str | None = None,
               tmpfile: bool = True, bin_path: str | None = None) -> None:
    """Write model ``k`` to ``xml`` (and ``bin_path``) as a fresh process
    would (default signal dispositions), with the serializer's test hook set
    to ``fault`` (``XMO_TEST_IR_FAULT``, e.g. ``journal:kill``). With ``src``
    (an ``.xml`` path) the weights are memory-mapped from there (see
    :func:`make_module`); ``tmpfile=False`` writes as on a file system without
    ``O_TMPFILE`` (named temporaries)."""
    import signal

    from xmo.backends.ir import serialize

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    module = make_module(k, n, mapped_from=Path(src) if src else None)
    if not tmpfile and hasattr(os, "O_TMPFILE"):
        del os.O_TMPFILE
    if fault:
        os.environ["XMO_TEST_IR_FAULT"] = fault
    serialize(module, xml, bin_path)


def write_noting_sigterm(k: int, xml: str, fault: str) -> None:
    """Write model ``k`` to ``xml`` in a process whose own SIGTERM handler only
    takes note, with the hook's ``fault`` (a ``term`` action): exits with 0
    when the handler ran once, 3 otherwise (a process of its own: the signal
    is sent to the writing process, never to the test runner's)."""
    import signal

    from xmo.backends.ir import serialize

    seen: list[int] = []
    signal.signal(signal.SIGTERM, lambda s, f: seen.append(s))
    module = make_module(k)
    os.environ["XMO_TEST_IR_FAULT"] = fault
    serialize(module, xml)
    if seen != [signal.SIGTERM]:
        sys.exit(3)


def _writer(k: int, xml: str, rounds: int, barrier: Any, errors: Any, mapped: bool,
            seed: int) -> None:
    from xmo.backends.ir import serialize

    rng = random.Random(seed * 1000 + k)
    with tempfile.TemporaryDirectory(prefix="xmo-stress-src-") as src:
        try:
            module = make_module(k, mapped_from=Path(src) / "src.xml" if mapped else None)
        except Exception as e:  # noqa: BLE001 - reported to the parent
            errors.put(f"writer {k}: cannot make its model: {type(e).__name__}: {e}")
            barrier.abort()
            return
        for r in range(rounds):
            barrier.wait()
            time.sleep(rng.random() * 0.002)
            try:
                serialize(module, xml)
            except Exception as e:  # noqa: BLE001 - reported to the parent
                errors.put(f"round {r}: writer {k}: {type(e).__name__}: {e}")
            barrier.wait()


def _reader(xml: str, stop: Any, results: Any) -> None:
    from xmo.backends.ir import IRReadError, read_ir

    accepted = refused = 0
    bad: list[str] = []
    while not stop.is_set():
        try:
            module = read_ir(xml)
        except IRReadError:
            refused += 1
            continue
        accepted += 1
        try:
            module_model(module)
        except Inconsistent as e:
            bad.append(str(e))
    results.put((accepted, refused, bad[:5], len(bad)))


@dataclass
class Report:
    rounds: int = 0
    consistent: int = 0
    problems: list[str] = field(default_factory=list)
    reads_accepted: int = 0
    reads_inconsistent: int = 0
    reads_refused: int = 0
    seconds: float = 0.0

    def ok(self) -> bool:
        return not self.problems and self.consistent == self.rounds

    def __str__(self) -> str:
        lines = [
            f"{self.consistent} of {self.rounds} rounds left a consistent pair "
            f"in {self.seconds:.1f} s; "
            f"concurrent reader: {self.reads_accepted} reads accepted, "
            f"{self.reads_inconsistent} of them inconsistent, {self.reads_refused} refused",
        ]
        lines += [f"  PROBLEM: {p}" for p in self.problems[:20]]
        return "\n".join(lines)


def _check_round(r: int, xml: Path, openvino: bool, report: Report, seen: set[int]) -> None:
    try:
        k = check_pair(xml, openvino=openvino)
    except Inconsistent as e:
        report.problems.append(f"round {r}: {e}")
        return
    except Exception as e:  # noqa: BLE001 - the reader refusing a pair is a problem too
        report.problems.append(f"round {r}: {type(e).__name__}: {e}")
        return
    if k is None:
        report.problems.append(f"round {r}: no pair at the path")
        return
    seen.add(k)
    report.consistent += 1


def run(rounds: int = 100, writers: int = 4, folder: Path | None = None, openvino: bool = True,
        reader: bool = True, seed: int = 0) -> Report:
    """``writers`` processes write to one path ``rounds`` times (see the module docstring)."""
    mp = forkserver()
    report = Report(rounds=rounds)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="xmo-stress-", dir=folder) as tmp:
        xml = Path(tmp) / "out.xml"
        barrier = mp.Barrier(writers + 1)
        errors = mp.Queue()
        procs = [mp.Process(target=_writer,
                            args=(k, str(xml), rounds, barrier, errors, k % 2 == 1, seed))
                 for k in range(writers)]
        for p in procs:
            p.start()
        stop = mp.Event()
        results = mp.Queue()
        read_proc = mp.Process(target=_reader, args=(str(xml), stop, results)) if reader else None
        seen: set[int] = set()
        try:
            for r in range(rounds):
                try:
                    barrier.wait(timeout=300)
                    if r == 0 and read_proc is not None:
                        read_proc.start()
                    barrier.wait(timeout=300)
                except threading.BrokenBarrierError:
                    report.problems.append(f"round {r}: a writer failed")
                    break
                _check_round(r, xml, openvino, report, seen)
        finally:
            stop.set()
            if read_proc is not None and read_proc.pid is not None:
                accepted, refused, bad, nbad = results.get(timeout=300)
                read_proc.join()
                report.reads_accepted, report.reads_refused = accepted, refused
                report.reads_inconsistent = nbad
                report.problems += [f"concurrent reader accepted an inconsistent pair: {b}"
                                    for b in bad]
                if nbad > len(bad):
                    report.problems.append(f"... {nbad - len(bad)} more inconsistent reads")
            for p in procs:
                p.join(timeout=60)
                if p.is_alive():
                    p.kill()
        while not errors.empty():
            report.problems.append(errors.get())
        report.problems += _leftovers(Path(tmp), "out")
    report.seconds = time.perf_counter() - t0
    return report


def run_cli(rounds: int = 5, writers: int = 4, folder: Path | None = None,
            openvino: bool = True) -> Report:
    """As :func:`run`, each write an ``xmo convert`` process of its own."""
    report = Report(rounds=rounds)
    t0 = time.perf_counter()
    xmo = [sys.executable, "-m", "xmo.tools.xmo_main"]
    env = dict(os.environ, XMO_NO_PROGRESS="1")
    with tempfile.TemporaryDirectory(prefix="xmo-stress-", dir=folder) as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for k in range(writers):
            (src / f"m{k}.mlir").write_text(mlir_text(k))
        xml = Path(tmp) / "out.xml"
        seen: set[int] = set()
        for r in range(rounds):
            procs = [subprocess.Popen([*xmo, "convert", str(src / f"m{k}.mlir"), "-o", str(xml)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
                     for k in range(writers)]
            for k, p in enumerate(procs):
                _, err = p.communicate(timeout=600)
                if p.returncode != 0:
                    report.problems.append(f"round {r}: xmo convert m{k}: exit {p.returncode}: "
                                           f"{err.decode(errors='replace').strip()[-300:]}")
            _check_round(r, xml, openvino, report, seen)
        report.problems += _leftovers(Path(tmp), "out", keep={"src"})
    report.seconds = time.perf_counter() - t0
    return report


def _leftovers(folder: Path, stem: str, keep: set[str] | None = None) -> list[str]:
    names = sorted(os.listdir(folder))
    extra = [n for n in names if n not in {f"{stem}.xml", f"{stem}.bin", *(keep or ())}]
    return [f"left in the output folder: {', '.join(extra)}"] if extra else []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--cli", action="store_true", help="writers are `xmo convert` processes")
    ap.add_argument("--no-openvino", dest="openvino", action="store_false",
                    help="do not check each pair with OpenVINO")
    ap.add_argument("--dir", type=Path, default=None, help="where the output folder is made")
    args = ap.parse_args(argv)
    if args.cli:
        report = run_cli(args.rounds, args.writers, args.dir, args.openvino)
    else:
        report = run(args.rounds, args.writers, args.dir, args.openvino)
    print(report)
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
