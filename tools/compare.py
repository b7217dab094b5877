"""``xmo run --compare-with onnxruntime``: find the first tensor where xmo diverges.

The ONNX model runs in onnxruntime with every node output exposed as a graph
output; the converted model runs on xmo's CPU backend with an observer
recording every computed tensor by its tensor names (kept through every pass).
Tensors are compared in the ONNX graph's node order; the first one outside
tolerance is named with its node.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

RTOL, ATOL = 1e-3, 1e-5


def _ort_all_outputs(model_path: Path, feed: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], list[tuple[str, str, str]]]:
    import onnx
    import onnxruntime as ort
    from onnx import shape_inference

    model = onnx.load(str(model_path))
    try:
        model = shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 - types then come from what the model declares
        pass
    typed = {vi.name: vi for vi in list(model.graph.value_info) + list(model.graph.output)}
    order: list[tuple[str, str, str]] = []  # (tensor, node name, op type)
    existing = {o.name for o in model.graph.output}
    for node in model.graph.node:
        for out in node.output:
            if not out:
                continue
            order.append((out, node.name, node.op_type))
            if out not in existing and out in typed:
                model.graph.output.append(typed[out])
                existing.add(out)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    inputs = {i.name: feed[i.name] for i in sess.get_inputs() if i.name in feed}
    values = sess.run(names, inputs)
    return dict(zip(names, values)), order


def compare_with_onnxruntime(model: str | Path, feed: dict[str, Any],
                             rtol: float = RTOL, atol: float = ATOL) -> str:
    """A one-paragraph report: the first diverging tensor, or that all match
    (``rtol`` / ``atol``: the tolerance of float tensors)."""
    import xmo

    path = Path(model)
    if path.suffix.lower() != ".onnx":
        raise ValueError("--compare-with onnxruntime needs an .onnx model")
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        raise ValueError("--compare-with onnxruntime needs the onnxruntime package") from None
    feed = {k: np.asarray(v) for k, v in feed.items()}
    reference, order = _ort_all_outputs(path, feed)

    ours: dict[str, np.ndarray] = {}

    def observe(op, outputs) -> None:  # noqa: ANN001
        for i, arr in enumerate(outputs):
            for n in op.get_tensor_names(i) if hasattr(op, "get_tensor_names") else []:
                ours[n] = arr

    compiled = xmo.compile_model(path)
    compiled(feed, observer=observe)
    compared = 0
    for tensor, node, op_type in order:
        if tensor not in ours or tensor not in reference:
            continue
        a, b = np.asarray(ours[tensor]), np.asarray(reference[tensor])
        compared += 1
        if a.shape != b.shape:
            return (
                f"[ xmo ] first divergent tensor: '{tensor}' (node '{node}', {op_type}): "
                f"shape {list(a.shape)} vs onnxruntime {list(b.shape)}"
            )
        if b.dtype.kind in "fc":
            ok = np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = np.array_equal(a, b)
        if not ok:
            diff = np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.size else 0.0
            return (
                f"[ xmo ] first divergent tensor: '{tensor}' (node '{node}', {op_type}): "
                f"max abs diff {diff:.3g} (rtol {rtol}, atol {atol})"
            )
    return f"[ xmo ] all {compared} tensors computed by both match onnxruntime (rtol {rtol}, atol {atol})"
