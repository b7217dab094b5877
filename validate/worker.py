"""Validation tasks, inside an isolated worker process (see :mod:`.isolation`).

    python -m xmo.validate.worker REPLY_FD

reads tasks from stdin, one JSON line each (``{"task": ..., "result":
"RESULT.json"}``), runs each, writes its result file and then one line to the
file descriptor ``REPLY_FD``; it ends at the end of stdin. A task is a model
(:class:`Task`: :func:`validate`) or a named function (:class:`CallTask`:
:func:`run_call`).

A model's validation:

Steps: convert with xmo (timed, with the per-pass times of ``--time-passes``)
and optionally with OpenVINO's converter; count layers by type; build the
inputs (given ``.npy`` / ``.npz``, else ``arange(n)/n`` data as ``xmo run``);
run the reference (onnxruntime for ONNX models, or the given outputs); run the
IR on OpenVINO (CPU, f32) and/or xmo's CPU backend; compare; on a mismatch
name the first diverging tensor (as ``xmo run --compare-with onnxruntime``).

The result file is rewritten after every step, so what was measured before
a crash, a timeout or an out-of-memory kill is kept.
"""

from __future__ import annotations

import io
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from xmo.validate.manifest import CallTask, Task, task_from_json

#: statuses, best first
STATUSES = ("pass", "mismatch", "unsupported", "error", "crash", "timeout", "oom")
#: runs timed for the latency (after one warm-up run)
LATENCY_RUNS = 5


_RecordT = TypeVar("_RecordT", bound="JsonRecord")


class JsonRecord:
    """A dataclass written to and read from JSON (fields unknown to this
    version are ignored when read)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_json(cls: type[_RecordT], d: dict[str, Any]) -> _RecordT:
        known = set(cls.__dataclass_fields__)  # type: ignore[attr-defined]
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class Result(JsonRecord):
    name: str
    model: str
    key: str = ""
    status: str = "error"
    #: one line (the whole unsupported-ops report is in ``details``)
    error: str = ""
    details: str = ""
    #: the step the worker was in (what a crash or a timeout interrupted)
    step: str = ""
    model_bytes: int = 0
    convert_s: float | None = None
    pass_seconds: dict[str, float] = field(default_factory=dict)
    layers: int | None = None
    transposes: int | None = None
    layers_by_type: dict[str, int] = field(default_factory=dict)
    ovc_convert_s: float | None = None
    ovc_layers: int | None = None
    ovc_transposes: int | None = None
    ovc_by_type: dict[str, int] = field(default_factory=dict)
    ovc_error: str = ""
    max_abs: float | None = None
    max_rel: float | None = None
    #: runtime -> median latency (ms)
    latency_ms: dict[str, float] = field(default_factory=dict)
    divergence: str = ""
    peak_rss: int | None = None
    seconds: float | None = None
    finished: float | None = None


@dataclass
class CallResult(JsonRecord):
    """The result of a :class:`CallTask`: ``data`` is what its function returned."""

    name: str
    kind: str
    key: str = ""
    status: str = "error"
    error: str = ""
    step: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    peak_rss: int | None = None
    seconds: float | None = None
    finished: float | None = None


def result_from_json(d: dict[str, Any]) -> Result | CallResult:
    """The result of :meth:`Result.to_json` or :meth:`CallResult.to_json`."""
    return CallResult.from_json(d) if "kind" in d else Result.from_json(d)


def new_result(task: Task | CallTask, key: str = "") -> Result | CallResult:
    """The result of ``task`` before anything ran (status ``error``); ``key``: its :meth:`key`."""
    if isinstance(task, CallTask):
        return CallResult(task.name, task.kind, key=key)
    return Result(task.name, task.model, key=key)


def one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:500]


class _Recorder:
    """Writes the result after each step (atomically)."""

    def __init__(self, result: Result | CallResult, path: Path) -> None:
        self.result, self.path = result, path

    def step(self, name: str) -> None:
        self.result.step = name
        self.save()

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.result.to_json()))
        os.replace(tmp, self.path)


def validate(task: Task, rec: _Recorder, work: Path) -> None:
    """Fill ``rec.result``; the status stays "error" until a step decides it."""
    import xmo
    from xmo.budget import MemoryLimitError
    from xmo.passes.debug import session
    from xmo.passes.to_ov.report import UnsupportedOpsError
    from xmo.tools.compare_ir import IRStats

    r = rec.result
    r.model_bytes = os.path.getsize(task.model) if os.path.isfile(task.model) else 0
    rec.step("convert")
    xml = work / "xmo.xml"
    t0 = time.perf_counter()
    try:
        with session(time_passes=True, stream=io.StringIO()) as dbg:
            module = xmo.convert_model(task.model, input=task.input, extensions=task.extensions or None,
                                       memory_limit=task.memory_limit or None)
            xmo.save_model(module, xml)
            timings = dict(dbg.timings)
        del module
    except UnsupportedOpsError as e:
        r.status, r.error, r.details = "unsupported", _first_line(e), str(e)
        return
    except (MemoryLimitError, MemoryError) as e:
        r.status, r.error = "oom", one_line(e)
        return
    except Exception as e:  # noqa: BLE001 - any failure of the conversion is the model's status
        r.status, r.error = "error", "convert: " + one_line(e)
        return
    r.convert_s = time.perf_counter() - t0
    top = sorted(((k, sum(v)) for k, v in timings.items()), key=lambda kv: -kv[1])[:8]
    r.pass_seconds = {k: round(v, 4) for k, v in top}
    stats = IRStats.of(xml)
    r.layers, r.transposes, r.layers_by_type = stats.non_constant, stats.transposes, stats.by_type
    if task.with_ovc:
        rec.step("ovc")
        _convert_with_ovc(task, r, work / "ovc.xml")
    rec.step("inputs")
    try:
        feed = _feed(xml, task)
        rec.step("reference")
        reference = _reference(task, feed)
    except Exception as e:  # noqa: BLE001 - recorded as the model's error
        r.status, r.error = "error", f"{r.step}: {one_line(e)}"
        return
    runtimes = ["openvino", "cpu"] if task.runtime == "both" else [task.runtime]
    worst: tuple[bool, float, float] = (True, 0.0, 0.0)
    for rt in runtimes:
        rec.step(f"run {rt}")
        try:
            got, times = _run(rt, xml, feed)
        except Exception as e:  # noqa: BLE001 - recorded as the model's error
            r.status, r.error = "error", f"run {rt}: {one_line(e)}"
            return
        r.latency_ms[rt] = round(statistics.median(times) * 1e3, 4) if times else None
        if reference is None:
            continue
        ok, max_abs, max_rel, why = compare(got, reference, task.rtol, task.atol)
        worst = (worst[0] and ok, max(worst[1], max_abs), max(worst[2], max_rel))
        if not ok and not r.error:
            r.error = f"{rt}: {why}"
    if reference is None:
        r.status = "error"
        r.error = "no reference outputs: give 'outputs' (.npy/.npz) in the manifest"
        return
    r.max_abs, r.max_rel = worst[1], worst[2]
    if worst[0]:
        r.status = "pass"
        return
    r.status = "mismatch"
    if Path(task.model).suffix.lower() == ".onnx":
        rec.step("divergence")
        from xmo.tools.compare import compare_with_onnxruntime

        try:
            text = compare_with_onnxruntime(task.model, feed, rtol=task.rtol, atol=task.atol)
        except Exception as e:  # noqa: BLE001 - the locating is best effort; the mismatch stands
            text = f"could not locate the first diverging tensor: {one_line(e)}"
        r.divergence = text.removeprefix("[ xmo ] ")


def _first_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):  # "List of operations ...:" then the ops
        return lines[0] + " " + "; ".join(lines[1:])[:400]
    return one_line(e)


def _convert_with_ovc(task: Task, r: Result, xml: Path) -> None:
    from xmo.tools.compare_ir import IRStats

    t0 = time.perf_counter()
    try:
        import openvino as ov

        opts = {}
        if task.input:
            from xmo.options import parse_input_spec

            opts["input"] = [n if s is None else (n, [-1 if d is None else d for d in s])
                             for n, s in parse_input_spec(task.input).items()]
        ov.save_model(ov.convert_model(task.model, **opts), str(xml), compress_to_fp16=False)
    except Exception as e:  # noqa: BLE001 - ovc's failure is a note, not the model's status
        r.ovc_error = one_line(e)
        return
    r.ovc_convert_s = time.perf_counter() - t0
    stats = IRStats.of(xml)
    r.ovc_layers, r.ovc_transposes, r.ovc_by_type = stats.non_constant, stats.transposes, stats.by_type


def _load_arrays(path: str | None) -> dict[str, Any]:
    """``.npz``: by name; ``.npy``: the one array under the key ``""``."""
    import numpy as np

    if not path:
        return {}
    if path.lower().endswith(".npz"):
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    return {"": np.load(path, allow_pickle=False)}


def _feed(xml: Path, task: Task) -> dict[str, Any]:
    """Given inputs by name, plus ``arange(n)/n`` data for the others (dynamic dims as 1)."""
    import numpy as np

    from xmo.backends.openvino_runner import default_input

    ports = parameters(xml)
    given = _load_arrays(task.inputs)
    if "" in given:
        if len(ports) != 1:
            raise ValueError(f"a .npy input file for a model with {len(ports)} inputs: use .npz")
        given = {ports[0][0]: given[""]}
    feed = {}
    for name, shape, dtype in ports:
        if name in given:
            feed[name] = np.asarray(given[name])
        else:
            feed[name] = default_input(tuple(1 if d is None else d for d in shape), dtype)
    return feed


#: IR element types -> numpy dtype names (inputs of other types get float32 data)
_DTYPES = {"f64": "float64", "f32": "float32", "f16": "float16", "i64": "int64", "i32": "int32",
           "i16": "int16", "i8": "int8", "u64": "uint64", "u32": "uint32", "u16": "uint16",
           "u8": "uint8", "boolean": "bool"}


def parameters(xml: Path) -> list[tuple[str, list[int | None], Any]]:
    """(tensor name, shape with None for dynamic dims, numpy dtype) of the IR's inputs."""
    import xml.etree.ElementTree as ET

    import numpy as np

    from xmo.tools.compare_ir import IRGraph

    graph = IRGraph.read(xml)
    out = []
    for la in ET.parse(xml).getroot().find("layers"):  # type: ignore[union-attr]
        if la.get("type") != "Parameter":
            continue
        data = la.find("data")
        attrs = data.attrib if data is not None else {}
        names = next(iter(graph.layers[la.get("id", "")].outputs.values()), [])
        shape_text = attrs.get("shape", "")
        shape = [int(d) if d.lstrip("-").isdigit() and int(d) >= 0 else None
                 for d in shape_text.split(",") if d.strip()] if shape_text else []
        dtype = np.dtype(_DTYPES.get(attrs.get("element_type", "f32"), "float32"))
        out.append((names[0] if names else la.get("name", ""), shape, dtype))
    return out


def _reference(task: Task, feed: dict[str, Any]) -> dict[str, Any] | None:
    given = _load_arrays(task.outputs)
    if given:
        return given
    if Path(task.model).suffix.lower() != ".onnx":
        return None
    import onnxruntime as ort

    sess = ort.InferenceSession(task.model, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    values = sess.run(names, {i.name: feed[i.name] for i in sess.get_inputs()})
    return dict(zip(names, values))


def _run(runtime: str, xml: Path, feed: dict[str, Any]) -> tuple[dict[str, Any], list[float]]:
    if runtime == "openvino":
        from xmo.backends.openvino_runner import run_with_openvino

        return run_with_openvino(xml, feed, LATENCY_RUNS)
    import xmo

    compiled = xmo.compile_model(xml)
    got = compiled(feed).to_dict()
    times = []
    for _ in range(LATENCY_RUNS):
        t0 = time.perf_counter()
        compiled(feed)
        times.append(time.perf_counter() - t0)
    return got, times


def compare(got: dict[str, Any], want: dict[str, Any], rtol: float, atol: float
            ) -> tuple[bool, float, float, str]:
    """(within tolerance, max abs error, max rel error, why not) over the
    reference outputs, matched by name (else by position)."""
    import numpy as np

    got_list = list(got.items())
    ok, max_abs, max_rel, why = True, 0.0, 0.0, ""
    for i, (name, w) in enumerate(want.items()):
        if name in got:
            g = got[name]
        elif i < len(got_list):
            g = got_list[i][1]
        else:
            return False, max_abs, max_rel, f"no output '{name}' (the IR has {len(got)})"
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return False, max_abs, max_rel, f"output '{name}': shape {list(g.shape)} vs {list(w.shape)}"
        if w.dtype.kind not in "fc":
            if not np.array_equal(g, w):
                ok, why = False, why or f"output '{name}': {int(np.sum(g != w))} of {w.size} values differ"
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        diff = np.abs(g64 - w64)
        finite = np.isfinite(diff)
        if diff.size and finite.any():
            max_abs = max(max_abs, float(diff[finite].max()))
            max_rel = max(max_rel, float((diff[finite] / (np.abs(w64[finite]) + atol)).max()))
        if not np.allclose(g64, w64, rtol=rtol, atol=atol, equal_nan=True):
            bad = int((~np.isclose(g64, w64, rtol=rtol, atol=atol, equal_nan=True)).sum())
            ok = False
            why = why or (f"output '{name}': {bad} of {w.size} values differ "
                          f"(max abs {float(diff[finite].max()) if finite.any() else float('nan'):.3g}, "
                          f"rtol {rtol:g}, atol {atol:g})")
    return ok, max_abs, max_rel, why


_FUNCTIONS: dict[str, Any] = {}


def _function(spec: str) -> Any:  # noqa: ANN401 - any task function
    """``module:name`` or ``path/to/file.py:name`` (the file imported once per process, by
    :func:`xmo.extensions.import_extension_file`)."""
    if spec not in _FUNCTIONS:
        import importlib

        where, _, name = spec.rpartition(":")
        if where.endswith(".py"):
            from xmo.extensions import import_extension_file

            module = import_extension_file(where)  # the one place xmo imports Python files
        else:
            module = importlib.import_module(where)
        _FUNCTIONS[spec] = getattr(module, name)
    return _FUNCTIONS[spec]


def run_call(task: CallTask, rec: _Recorder) -> None:
    """Call the task's function; what it returns is the result's ``data``, its
    ``status`` and ``error`` the result's (an exception is an ``error``)."""
    r = rec.result
    rec.step("call")
    try:
        data = _function(task.function)(**task.args)
    except Exception as e:  # noqa: BLE001 - the task's failure is its status
        r.status, r.error = "error", f"{type(e).__name__}: {one_line(e)}"
        return
    r.data = dict(data)
    r.status, r.error = str(data.get("status", "error")), str(data.get("error") or "")


def run_one(task_json: dict[str, Any], result_file: Path) -> None:
    task = task_from_json(task_json)
    t0 = time.perf_counter()
    result = new_result(task)
    rec = _Recorder(result, result_file)
    if isinstance(task, CallTask):
        run_call(task, rec)  # type: ignore[arg-type]
    else:
        with tempfile.TemporaryDirectory(prefix="xmo-validate-") as tmp:
            validate(task, rec, Path(tmp))
    result.seconds = time.perf_counter() - t0
    result.step = "done"
    rec.save()


def main(argv: list[str] | None = None) -> int:
    reply_fd = int((argv if argv is not None else sys.argv[1:])[0])
    logging.disable(logging.CRITICAL)
    with os.fdopen(reply_fd, "wb", buffering=0) as reply:
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            request = json.loads(line)
            run_one(request["task"], Path(request["result"]))
            reply.write(b"done\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
