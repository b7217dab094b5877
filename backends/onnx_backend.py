"""xmo as an ONNX backend (``onnx.backend.base.Backend``).

onnx's own backend test runner can drive xmo: each model is converted with
:func:`xmo.convert_model` and executed on xmo's CPU backend::

    import onnx.backend.test
    import xmo.backends.onnx_backend as backend

    backend_test = onnx.backend.test.BackendTest(backend, __name__)
    globals().update(backend_test.enable_report().test_cases)

or directly::

    rep = backend.prepare(model_proto)
    outputs = rep.run([x])            # a namedtuple-like list of outputs
    outputs = backend.run_model(model_proto, [x])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict


class XmoRep(BackendRep):
    """A converted model ready to run on xmo's CPU backend."""

    def __init__(self, compiled: Any, output_names: Sequence[str]) -> None:
        self.compiled = compiled
        self.output_names = list(output_names)

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        elif isinstance(inputs, dict):
            inputs = dict(inputs)
        else:
            inputs = list(inputs)
        outs = self.compiled(inputs)
        return namedtupledict("Outputs", self.output_names)(*list(outs))


class XmoBackend(Backend):
    """Converts with xmo, runs on xmo's CPU backend (device ``CPU``)."""

    @classmethod
    def is_compatible(cls, model: Any, device: str = "CPU", **kwargs: Any) -> bool:
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> XmoRep:
        import xmo

        super().prepare(model, device, **kwargs)  # checks the model
        compiled = xmo.compile_model(model, **kwargs)
        names = [o.name for o in model.graph.output]
        return XmoRep(compiled, names)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: Any, inputs: Any, device: str = "CPU", outputs_info: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError("xmo runs whole models; build a model around the node")

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU


prepare = XmoBackend.prepare
run_model = XmoBackend.run_model
run_node = XmoBackend.run_node
supports_device = XmoBackend.supports_device
is_compatible = XmoBackend.is_compatible
