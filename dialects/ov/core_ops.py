"""Hand-written ``ov`` ops whose data lives in their types: Parameter, Constant, Result.

Every other opset op is generated into :mod:`xmo.dialects.ov.ops`.

A model is a ``builtin.module`` whose body holds ``ov`` ops: its inputs are the
``ov.Parameter`` ops and its outputs the ``ov.Result`` ops, each in the order they
appear. ``Parameter``'s ``shape``/``element_type`` and ``Constant``'s
``element_type``/``shape`` attributes of the IR are taken from the result type.

Parameter and Result are the graph's inputs and outputs: they have effects (on
the model interface) and are never removed as dead; Constant is ``Pure`` and
``ConstantLike``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    TensorType,
)
from xdsl.ir import SSAValue
from xdsl.irdl import prop_def, traits_def
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.ov.base import OVOp, ov_op, tensor
from xmo.dialects.ov.traits import (
    ConstantFolder,
    HasShapeInference,
    ModelInput,
    ModelOutput,
)
from xmo.dialects.ov.weights import WeightStore, constant_array, make_constant_attr


@ov_op
class ParameterOp(OVOp):
    """A model input (OpenVINO Parameter-1); its result type is the input's type."""

    name = "ov.Parameter"
    OV_TYPE: ClassVar[str] = "Parameter"
    OV_VERSION: ClassVar[str] = "opset1"
    OV_FAMILY: ClassVar[str] = "core"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ()
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)

    traits = traits_def(ModelInput())

    @staticmethod
    def new(
        etype: str,
        shape: list[int] | None,
        name: str | None = None,
        tensor_names: list[str] | None = None,
    ) -> ParameterOp:
        return ParameterOp.make(
            [],
            result_types=[tensor(etype, shape)],
            name=name,
            tensor_names=[tensor_names or []],
        )


@ov_op
class ConstantOp(OVOp):
    """A constant tensor (OpenVINO Constant-1).

    ``value`` is an inline ``dense<...>`` for small data or a
    ``dense_resource<handle>`` whose payload is a numpy array in the weight store.
    """

    name = "ov.Constant"
    OV_TYPE: ClassVar[str] = "Constant"
    OV_VERSION: ClassVar[str] = "opset1"
    OV_FAMILY: ClassVar[str] = "core"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ()
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)

    value = prop_def(DenseIntOrFPElementsAttr | DenseResourceAttr)

    traits = traits_def(Pure(), ConstantLike(), ConstantFolder())

    @staticmethod
    def from_array(
        array: np.ndarray,
        element_type: str | None = None,
        store: WeightStore | None = None,
        name: str | None = None,
        tensor_names: list[str] | None = None,
    ) -> ConstantOp:
        """Constant holding ``array``; large arrays go to ``store`` by reference."""
        attr = make_constant_attr(
            np.asarray(array), element_type, store, name_hint=name or "w"
        )
        assert isinstance(attr, DenseIntOrFPElementsAttr | DenseResourceAttr)
        op = ConstantOp.create(
            result_types=[attr.type], properties={"value": attr}
        )
        if name is not None:
            op.set_friendly_name(name)
        if tensor_names:
            op.set_tensor_names(0, tensor_names)
        return op

    def get_array(self) -> np.ndarray:
        """The constant's value as a numpy array (a view, not a copy)."""
        return constant_array(self.value)

    def verify_(self) -> None:
        super().verify_()
        vt = self.value.type
        rt = self.results[0].type
        if vt != rt:
            raise VerifyException(
                f"ov.Constant: value has type {vt}, result has type {rt}"
            )
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            assert isinstance(vt, TensorType)
            n = int(np.prod(vt.get_shape(), dtype=np.int64))
            have = len(self.value)
            if have not in (1, n) or (have == 1 and n == 0):
                raise VerifyException(
                    f"ov.Constant: {have} values for a {vt} (needs {n} or a splat)"
                )


@ov_op
class ResultOp(OVOp):
    """A model output (OpenVINO Result-1). It has no SSA results."""

    name = "ov.Result"
    OV_TYPE: ClassVar[str] = "Result"
    OV_VERSION: ClassVar[str] = "opset1"
    OV_FAMILY: ClassVar[str] = "core"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ()

    traits = traits_def(ModelOutput(), HasShapeInference())

    @staticmethod
    def new(value: SSAValue, name: str | None = None) -> ResultOp:
        return ResultOp.make([value], result_types=[], name=name)
