"""Run a model through the real OpenVINO runtime (CPU plugin, f32).

Used by ``xmo run`` and the tests. Models that are not IR yet (``.mlir``) are
serialized to a temporary IR first, so what runs is exactly what xmo writes.
The CPU plugin defaults to bf16 on some machines: inference precision is pinned
to f32.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from xmo.errors import BackendError, printable
from xmo.input_files import check_regular

F32_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


def default_input(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``arange(n).reshape(shape) / n`` (the light-model convention)."""
    n = int(np.prod(shape)) if shape else 1
    data = np.arange(n, dtype=np.float64).reshape(shape) / max(n, 1)
    return data.astype(dtype)


def run_with_openvino(
    model: str | os.PathLike[str],
    inputs: Mapping[str, Any],
    benchmark_runs: int = 0,
) -> tuple[dict[str, np.ndarray], list[float]]:
    """Outputs (by name) of ``model`` on ``inputs``, and per-run latencies."""
    try:
        import openvino as ov
    except ImportError:
        raise RuntimeError(
            "running a model needs the openvino package (pip install openvino)"
        ) from None
    path = Path(model)
    with tempfile.TemporaryDirectory(prefix="xmo-run-") as tmp:
        if path.suffix.lower() != ".xml":
            import xmo

            xml = Path(tmp) / "model.xml"
            xmo.save_model(xmo.convert_model(path), xml)
            path = xml
        check_regular(path)  # OpenVINO would wait on a FIFO forever
        if os.path.lexists(path.with_suffix(".bin")):
            check_regular(path.with_suffix(".bin"))
        try:
            return _run(ov, path, inputs, benchmark_runs)
        except RuntimeError as e:  # OpenVINO's: its C++ locations on lines of their own
            raise OpenVINOError(one_line_openvino_error(e)) from e


class OpenVINOError(BackendError, RuntimeError):
    """An error of the OpenVINO runtime, as one line."""


def one_line_openvino_error(e: BaseException) -> str:
    """OpenVINO's message without the lines naming its C++ source locations
    ("Exception from src/...", "Check '...' failed at src/..."), on one line."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    what = [ln for ln in lines
            if not ln.startswith("Exception from ")
            and not (ln.startswith("Check '") and " failed at " in ln)
            and not ln.startswith("FrontEnd API failed with ")]
    return "OpenVINO: " + printable("; ".join(what or lines[-1:]) or type(e).__name__)


def _run(
    ov: Any, path: Path, inputs: Mapping[str, Any], benchmark_runs: int
) -> tuple[dict[str, np.ndarray], list[float]]:
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(path)), "CPU", F32_CONFIG)
    feed: dict[int, np.ndarray] = {}
    for i, port in enumerate(compiled.inputs):
        names = port.get_names()
        value = next((inputs[n] for n in names if n in inputs), None)
        if value is None:
            shape = tuple(
                d.get_length() if d.is_static else 1 for d in port.get_partial_shape()
            )
            value = default_input(shape, port.get_element_type().to_dtype())
        feed[i] = np.asarray(value)
    unknown = set(inputs) - {n for p in compiled.inputs for n in p.get_names()}
    if unknown:
        raise ValueError(f"model has no input named {', '.join(sorted(unknown))}")
    request = compiled.create_infer_request()
    request.infer(feed)
    results = {}
    for i, port in enumerate(compiled.outputs):
        names = sorted(port.get_names())
        results[names[0] if names else f"output{i}"] = np.array(
            request.get_output_tensor(i).data
        )
    timings = []
    for _ in range(benchmark_runs):
        t0 = time.perf_counter()
        request.infer(feed)
        timings.append(time.perf_counter() - t0)
    return results, timings
