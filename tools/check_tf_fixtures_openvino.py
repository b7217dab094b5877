#!/usr/bin/env python3
"""Cross-check the TensorFlow fixtures with OpenVINO's own TensorFlow frontend.

Runs in the project venv (OpenVINO, NumPy; no TensorFlow)::

    .venv/bin/python tools/check_tf_fixtures_openvino.py [--dir tests/data/tf] [name ...]

For every model of ``manifest.json`` (written by ``tools/make_tf_fixtures.py``)
it converts ``<name>.pb`` (and the ``.pbtxt`` twin if any) with
``openvino.convert_model``, compiles it on CPU with f32 inference precision,
feeds ``<name>.inputs.npz`` and compares with ``<name>.outputs.npz``
(rtol 1e-3, atol 1e-4; integer outputs must match exactly).  Prints per model:
pass/fail, max abs diff, op counts and Transpose counts of the converted model
(and of the CPU runtime graph), and the layers of its IR (``<layer>`` elements,
those inside Loop / If bodies included).  Exit status 1 if any model fails.

``--record`` writes what it found into ``manifest.json``, per model (its
``.pb``): ``"openvino": {"converts", "matches", "max_abs_diff", "layers",
"top_level_layers"}`` (or ``{"converts": false, "error": ...}``), so tests can
compare layer counts without converting with OpenVINO.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "tf"
RTOL, ATOL = 1e-3, 1e-4


def _match_output(compiled, tensor_name: str, index: int):
    candidates = (tensor_name, tensor_name.split(":")[0])
    for cand in candidates:
        for out in compiled.outputs:
            if cand in out.get_names():
                return out
    return compiled.outputs[index]


def _input_port(compiled, name: str):
    for cand in (name, f"{name}:0"):
        for port in compiled.inputs:
            if cand in port.get_names():
                return port
    raise KeyError(f"no OpenVINO input named {name}")


def strip_experimental_type(text: str) -> tuple[str, int]:
    """Drop ``experimental_type { ... }`` blocks (NodeDef full-type info).

    TensorFlow >= 2.7 writes them (e.g. on Shape); OpenVINO's bundled
    GraphDef schema does not know the field, and unknown fields are an error
    in text format (the binary parser skips them).
    """
    out, skip_depth, dropped = [], 0, 0
    for line in text.splitlines(keepends=True):
        if skip_depth:
            skip_depth += line.count("{") - line.count("}")
            continue
        if line.strip() == "experimental_type {":
            skip_depth, dropped = 1, dropped + 1
            continue
        out.append(line)
    return "".join(out), dropped


def _ir_layers(ov, model) -> int:
    """``<layer>`` elements of the model's IR, those of bodies included."""
    import tempfile
    import xml.etree.ElementTree as ET

    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "m.xml"
        ov.save_model(model, str(xml), compress_to_fp16=False)
        return sum(1 for _ in ET.parse(xml).getroot().iter("layer"))


def check_file(core, path: Path, entry: dict, folder: Path) -> dict:
    import tempfile

    import openvino as ov

    info = {"note": ""}
    if path.suffix == ".pbtxt":
        text, dropped = strip_experimental_type(path.read_text())
        if dropped:
            info["note"] = f"(stripped {dropped} experimental_type block(s) for OpenVINO)"
            with tempfile.TemporaryDirectory() as tmp:
                tmp_path = Path(tmp) / path.name
                tmp_path.write_text(text)
                model = ov.convert_model(str(tmp_path))
        else:
            model = ov.convert_model(str(path))
    else:
        model = ov.convert_model(str(path))
    ops = model.get_ordered_ops()
    kinds = [op.get_type_name() for op in ops]
    info.update({
        "layers": _ir_layers(ov, model),
        "ops": len(ops),
        "compute_ops": sum(k not in ("Parameter", "Result", "Constant") for k in kinds),
        "transposes": kinds.count("Transpose"),
    })
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    runtime_types = [op.get_rt_info()["layerType"].astype(str)
                     for op in compiled.get_runtime_model().get_ordered_ops()]
    info["runtime_transposes"] = sum(t == "Transpose" for t in runtime_types)

    inputs = np.load(folder / entry["inputs_file"], allow_pickle=False)
    refs = np.load(folder / entry["outputs_file"], allow_pickle=False)
    feeds = {_input_port(compiled, i["name"]): inputs[i["name"]] for i in entry["inputs"]}
    result = compiled(feeds)
    worst, ok, problems = 0.0, True, []
    for idx, o in enumerate(entry["outputs"]):
        ref = refs[o["name"]]
        got = np.asarray(result[_match_output(compiled, o["name"], idx)])
        if got.shape != ref.shape:
            ok = False
            problems.append(f"{o['name']}({o.get('label', '')}): shape {got.shape} != {ref.shape}")
            continue
        if ref.dtype.kind in "iu":
            diff = float(np.abs(got.astype(np.int64) - ref.astype(np.int64)).max()) if ref.size else 0.0
            good = diff == 0
        else:
            diff = float(np.abs(got.astype(np.float64) - ref).max()) if ref.size else 0.0
            good = bool(np.allclose(got, ref, rtol=RTOL, atol=ATOL))
        worst = max(worst, diff)
        if not good:
            ok = False
            problems.append(f"{o['name']}({o.get('label', '')}): max abs diff {diff:.3g}")
    info.update(ok=ok, max_abs_diff=worst, problems=problems)
    return info


def main(argv: list[str] | None = None) -> int:
    import openvino as ov

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("names", nargs="*", help="models to check (default: all)")
    ap.add_argument("--record", action="store_true",
                    help="write the results into manifest.json (\"openvino\" per model)")
    args = ap.parse_args(argv)
    manifest = json.loads((args.dir / "manifest.json").read_text())
    core = ov.Core()
    print(f"OpenVINO {ov.get_version()}")
    failed = 0
    for name, entry in manifest["models"].items():
        if args.names and name not in args.names:
            continue
        files = [entry["file"]] + ([entry["text_file"]] if "text_file" in entry else [])
        for fname in files:
            try:
                info = check_file(core, args.dir / fname, entry, args.dir)
            except Exception as exc:  # noqa: BLE001 - report and go on
                failed += 1
                msg = str(exc).strip().splitlines()
                print(f"{fname:22s} ERROR {msg[0] if msg else type(exc).__name__}")
                for line in msg[1:6]:
                    print(f"{'':22s}   {line}")
                if fname == entry["file"]:
                    entry["openvino"] = {"converts": False,
                                         "error": msg[0] if msg else type(exc).__name__}
                continue
            failed += not info["ok"]
            if fname == entry["file"]:
                entry["openvino"] = {
                    "converts": True, "matches": info["ok"],
                    "max_abs_diff": float(f"{info['max_abs_diff']:.3g}"),
                    "layers": info["layers"], "top_level_layers": info["ops"],
                }
            print(f"{fname:22s} {'PASS' if info['ok'] else 'FAIL'}  max|diff| {info['max_abs_diff']:.3g}"
                  f"  layers {info['layers']}  ops {info['ops']} (non-const {info['compute_ops']})"
                  f"  Transpose {info['transposes']} (CPU runtime {info['runtime_transposes']})"
                  f" {info['note']}".rstrip())
            for p in info["problems"]:
                print(f"{'':22s}   {p}")
    if args.record:
        path = args.dir / "manifest.json"
        path.write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"recorded in {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
