#!/usr/bin/env python3
"""Digests of the IR xmo writes for a fixed set of models: a refactoring's oracle.

A change meant to keep behaviour (a pass rewritten on another framework, a
driver shared between frontends) must leave every IR byte-identical. This
converts a fixed set of models with ``xmo.convert_model`` + ``xmo.save_model``
and records, per model, the SHA-256 of the ``.xml`` and the ``.bin`` -- or
the one-line error for a model that does not convert (the unsupported-ops
report is behaviour too). The ``.xml`` is hashed without its record of the
``.bin`` (``<?xmo-bin size=... sha256-4mib-blocks=...?>``, see
:mod:`xmo.backends.ir.pair`), which is checked against the ``.bin`` instead:
digests recorded before the record existed stay comparable.

* ``light``: the nine light CNNs of the onnx wheel
* ``tf``: the TensorFlow fixtures of ``tests/data/tf``, also with
  ``--disable_nhwc_to_nchw``, ``--layout``, ``--output`` and fp16 compression
* ``demo``: ``models/demo.onnx`` (and ``models/demo.mlir``)
* ``fft``: the FFT extension example
* ``node``: every ONNX node conformance case (converted in memory)

::

    python tools/ir_digests.py --write /tmp/before.json      # before the change
    python tools/ir_digests.py --check /tmp/before.json      # after: lists what differs

Models are converted with the current directory set to their folder and
named by their file name, so the recorded ``input_model`` does not depend on
where the checkout or the venv lives.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ("light", "tf", "demo", "fft", "node")


@contextlib.contextmanager
def _cwd(folder: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _digest(convert: Callable[[], Any], compress: bool = False) -> str:
    import xmo
    from xmo.backends.ir import pair

    try:
        module = convert()
        with tempfile.TemporaryDirectory(prefix="xmo-digest-") as tmp:
            xml = Path(tmp) / "m.xml"
            xmo.save_model(module, xml, compress_to_fp16=compress)
            text, weights = xml.read_bytes(), xml.with_suffix(".bin").read_bytes()
            with open(xml.with_suffix(".bin"), "rb") as f:
                if pair.read_record(text) != pair.file_digest(f.fileno()):
                    return "error: the .xml does not record its .bin"
            h = hashlib.sha256(pair.strip_record(text)).hexdigest()[:16]
            b = hashlib.sha256(weights).hexdigest()[:16]
            return f"{h} {b}"
    except Exception as e:  # noqa: BLE001 - the error is the behaviour recorded
        text = " ".join(str(e).split()) or type(e).__name__
        return f"error: {type(e).__name__}: {text[:300]}"


def _cases(groups: tuple[str, ...]) -> Iterator[tuple[str, Callable[[], str]]]:
    import xmo

    if "light" in groups:
        import onnx

        light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
        for p in sorted(light.glob("light_*.onnx")):
            def run(p: Path = p) -> str:
                with _cwd(p.parent):
                    return _digest(lambda: xmo.convert_model(p.name))
            yield f"light/{p.stem}", run
    if "tf" in groups:
        tf = ROOT / "tests" / "data" / "tf"
        for p in sorted(tf.glob("*.pb")) + sorted(tf.glob("*.pbtxt")):
            variants: list[tuple[str, dict[str, Any], bool]] = [
                ("", {}, False), ("nhwc", {"disable_nhwc_to_nchw": True}, False),
            ]
            if p.stem in ("cnn", "mobilenetv2"):
                variants += [("layout", {"layout": "nhwc->nchw"}, False), ("fp16", {}, True)]
            for tag, opts, compress in variants:
                def run(p: Path = p, opts: dict = opts, compress: bool = compress) -> str:
                    with _cwd(p.parent):
                        return _digest(lambda: xmo.convert_model(p.name, **opts), compress)
                yield f"tf/{p.name}{'/' + tag if tag else ''}", run

        def cut() -> str:
            with _cwd(tf):
                return _digest(lambda: xmo.convert_model("cnn.pb", output=_first_conv_output()))

        yield "tf/cnn.pb/output", cut
    if "demo" in groups:
        for name in ("demo.onnx", "demo.mlir"):
            def run(name: str = name) -> str:
                with _cwd(ROOT / "models"):
                    return _digest(lambda: xmo.convert_model(name))
            yield f"demo/{name}", run
    if "fft" in groups:
        def fft() -> str:
            ext = os.path.join("..", "..", "..", "examples", "fft_extension")  # recorded as given
            with _cwd(ROOT / "tests" / "data" / "tf"):
                return _digest(lambda: xmo.convert_model("fft_mri.pb", extensions=[ext]))
        yield "fft/fft_mri.pb+fft_extension", fft
    if "node" in groups:
        sys.path.insert(0, str(ROOT / "tools"))
        import onnx_conformance as conf
        for name in conf.case_names("node"):
            def run(name: str = name) -> str:
                model = conf.load_case("node", name)[0]
                return _digest(lambda: xmo.convert_model(model))
            yield f"node/{name}", run


def _first_conv_output() -> str:
    """A tensor inside the cnn fixture to cut at (its first ReLU)."""
    from xmo.frontends.tf import load_tf
    from xmo.context import make_context

    module = load_tf("cnn.pb", make_context())
    for op in module.body.block.ops:
        if op.name == "tf.Relu":
            return op.properties["node_name"].data  # type: ignore[union-attr]
    raise RuntimeError("cnn.pb has no Relu")


def collect(groups: tuple[str, ...], verbose: bool = False) -> dict[str, str]:
    import logging

    logging.disable(logging.CRITICAL)
    out: dict[str, str] = {}
    t0 = time.perf_counter()
    for key, run in _cases(groups):
        out[key] = run()
        if verbose:
            print(f"{key}: {out[key]}", file=sys.stderr)
    print(f"{len(out)} models in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--groups", default=",".join(GROUPS), help=f"comma-separated, of {', '.join(GROUPS)}")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE", help="record the digests")
    g.add_argument("--check", metavar="FILE", help="compare with recorded digests")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    groups = tuple(x.strip() for x in args.groups.split(",") if x.strip())
    bad = [x for x in groups if x not in GROUPS]
    if bad:
        ap.error(f"unknown groups: {', '.join(bad)}")
    now = collect(groups, args.verbose)
    if args.write:
        Path(args.write).write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        return 0
    before = json.loads(Path(args.check).read_text())
    keys = [k for k in before if k.split("/", 1)[0] in groups]
    diff = [k for k in keys if now.get(k) != before[k]]
    for k in diff:
        print(f"DIFFERS {k}\n   before: {before[k]}\n   now:    {now.get(k)}")
    print(f"{len(keys) - len(diff)} of {len(keys)} identical")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
