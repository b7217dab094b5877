"""Op replacement: ``ComplexAbs`` -> sqrt(ReduceSum(x * x, last axis)).

After ``FFT`` a complex tensor is a real tensor [..., 2]; its magnitude is
the square root of the sum of squares over the last axis.
"""

from xmo.passes.phases import FRONT, OpReplacement


class ComplexAbsToSqrt(OpReplacement):
    id = "complex-abs"
    phase = FRONT
    op = "ComplexAbs"

    def replace_op(self, node, b):
        x = node.input(0)
        square = b.out("Multiply", [x, x])
        total = b.out("ReduceSum", [square, b.i64([-1])], {"keep_dims": False})
        return b.out("Sqrt", [total])
