"""Bit counting on int64 masks, as single machine instructions (LLVM ctpop / cttz)."""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from acesim.kernels.jit import njit


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@njit(cache=True, inline="always")
def popcount(x):
    """The number of set bits of ``x`` (x >= 0)."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_set(x):
    """The index of the lowest set bit of ``x`` (x > 0)."""
    return _cttz(x)
