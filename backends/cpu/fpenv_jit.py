"""The x86-64 MXCSR swap behind :mod:`xmo.backends.cpu.fpenv` (numba).

Imported only on x86-64 (the intrinsics name SSE instructions). Module level:
numba's disk cache keys a function defined inside another by the objects its
closure holds, made anew in every process, so a nested ``swap`` was compiled
again and added to the cache by every process that flushed denormals.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from xmo.backends.cpu import vector_width

vector_width.configure()  # before the first kernel: numba's vector width


def _csr_call(builder: Any, name: str, slot: Any) -> None:
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()])
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    builder.call(fn, [builder.bitcast(slot, ir.IntType(8).as_pointer())])


@intrinsic
def _stmxcsr(typingctx):  # type: ignore[no-untyped-def]
    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        _csr_call(builder, "llvm.x86.sse.stmxcsr", slot)
        return builder.zext(builder.load(slot), ir.IntType(64))

    return types.int64(), codegen


@intrinsic
def _ldmxcsr(typingctx, value):  # type: ignore[no-untyped-def]
    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        builder.store(builder.trunc(args[0], ir.IntType(32)), slot)
        _csr_call(builder, "llvm.x86.sse.ldmxcsr", slot)
        return context.get_dummy_value()

    return types.void(types.int64), codegen


@njit("int64(int64, int64)", cache=True, nogil=True)
def swap(bits, mask):  # pragma: no cover (compiled)
    # the calling thread's MXCSR with the mask bits set to those of bits;
    # returns the previous MXCSR
    old = _stmxcsr()
    _ldmxcsr((old & ~mask) | (bits & mask))
    return old
