"""Atomic memory operations on array elements for Numba's CPU code (Numba has none built in).

Each is a small LLVM intrinsic on the element's address: ``atomic_add`` is ``atomicrmw add``,
``atomic_cas`` is ``cmpxchg``, both sequentially consistent (a full barrier on x86-64, as a
``lock`` prefix is); ``atomic_load`` and ``atomic_store`` are ``monotonic`` (relaxed) accesses,
plain moves on x86-64 that LLVM may neither tear, nor merge, nor keep in a register across
iterations; ``acquire_fence`` after a spin on ``atomic_load`` keeps later reads after it.
They give Hong's lock-free push-relabel (Alvino 2015, §3.1, Algorithm 1) the atomic
read-modify-write it requires, and the parallel pieces (Algorithm 13) their barriers.
Indices are not bounds-checked.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic
from numba.np.arrayobj import make_array


def _operands(context, builder, signature, args):
    """The address of array[index] (the first two arguments), and the other arguments as
    values of the array's element type."""
    array_type = signature.args[0]
    view = make_array(array_type)(context, builder, args[0])
    pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                       wraparound=False)
    values = [context.cast(builder, value, value_type, array_type.dtype)
              for value, value_type in zip(args[2:], signature.args[2:])]
    return pointer, values


def _width(context, element):
    return context.get_abi_sizeof(context.get_data_type(element))


@intrinsic
def atomic_add(typingctx, array, index, value):
    """array[index] += value, atomically; returns the old value."""

    def codegen(context, builder, signature, args):
        pointer, (delta,) = _operands(context, builder, signature, args)
        return builder.atomic_rmw("add", pointer, delta, "seq_cst")

    if isinstance(array.dtype, types.Integer):
        return array.dtype(array, index, value), codegen
    return None


@intrinsic
def atomic_cas(typingctx, array, index, expected, new):
    """If array[index] == expected, make it new, atomically; returns the old value either way."""

    def codegen(context, builder, signature, args):
        pointer, (old, replacement) = _operands(context, builder, signature, args)
        outcome = builder.cmpxchg(pointer, old, replacement, "seq_cst", "seq_cst")
        return builder.extract_value(outcome, 0)

    if isinstance(array.dtype, types.Integer):
        return array.dtype(array, index, expected, new), codegen
    return None


@intrinsic
def atomic_load(typingctx, array, index):
    """array[index], read once from memory (relaxed)."""

    def codegen(context, builder, signature, args):
        pointer, _ = _operands(context, builder, signature, args)
        return builder.load_atomic(pointer, "monotonic", _width(context, array.dtype))

    return array.dtype(array, index), codegen


@intrinsic
def atomic_store(typingctx, array, index, value):
    """array[index] = value, written once to memory (relaxed)."""

    def codegen(context, builder, signature, args):
        pointer, (stored,) = _operands(context, builder, signature, args)
        builder.store_atomic(stored, pointer, "monotonic", _width(context, array.dtype))
        return context.get_dummy_value()

    return types.void(array, index, value), codegen


@intrinsic
def acquire_fence(typingctx):
    """An acquire fence: after a relaxed load that saw another thread's sequentially consistent
    write, nothing this thread reads next may be read before that load (no instruction on
    x86-64, a constraint on the compiler)."""

    def codegen(context, builder, signature, args):
        builder.fence("acquire")
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def yield_thread(typingctx):
    """Give the processor up (POSIX sched_yield): for spin-waits that last, so that a waiting
    thread does not hold a core that the thread it waits for needs."""

    def codegen(context, builder, signature, args):
        function_type = ir.FunctionType(ir.IntType(32), [])
        function = cgutils.get_or_insert_function(builder.module, function_type, "sched_yield")
        builder.call(function, [])
        return context.get_dummy_value()

    return types.void(), codegen
