# TEMPORARY hand stub, replaced by tools/gen_ov_opset.py output.
from typing import ClassVar
from xmo.dialects.ov.base import OVOp, ov_op
from xmo.dialects.ov.attributes import AttrSpec


@ov_op
class AddOp(OVOp):
    name = "ov.Add"
    OV_TYPE: ClassVar[str] = "Add"
    OV_VERSION: ClassVar[str] = "opset1"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("a", "b")
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = (AttrSpec("auto_broadcast", "str", "numpy"),)


GENERATED_OPS = (AddOp,)
