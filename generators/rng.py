"""Bit-exact copies of the two C library generators the 1991 DIMACS generators called.

* ``drand48`` (POSIX 48-bit linear congruential generator), used by genrmf.
* glibc ``random()`` (TYPE_3: additive lagged Fibonacci generator, lags 3 and 31, seeded by
  ``srandom`` with a Lehmer sequence and 310 discarded outputs), used by Anderson's washington
  and Setubal's ac. The originals ran on glibc, so this is the stream their files came from.

The step functions are Numba functions, so the generators call them inside their own compiled
loops; :func:`drand48` and :func:`glibc_random` give a bulk stream (tests, acyclic-dense).
The generators' outputs in data/generator-vectors/ check both streams byte for byte.
"""

import numba
import numpy as np

_DRAND48_A = np.uint64(0x5DEECE66D)
_DRAND48_C = np.uint64(0xB)
_DRAND48_MASK = np.uint64((1 << 48) - 1)
_TWO_TO_48 = float(1 << 48)


@numba.njit(cache=True)
def drand48_seed(seed):
    """The state after ``srand48(seed)``: the low 32 bits of the seed, then 0x330E."""
    return np.uint64(((np.int64(seed) & 0xFFFFFFFF) << 16) | 0x330E)


@numba.njit(cache=True)
def drand48_next(state):
    """One ``drand48()`` draw: returns (new state, u in [0, 1)); u = X / 2^48 exactly."""
    state = (state * _DRAND48_A + _DRAND48_C) & _DRAND48_MASK  # uint64 wraps: harmless
    return state, state / _TWO_TO_48


@numba.njit(cache=True)
def drand48(seed, count):
    """The first ``count`` values of ``drand48()`` after ``srand48(seed)``."""
    out = np.empty(count, np.float64)
    state = drand48_seed(seed)
    for k in range(count):
        state, out[k] = drand48_next(state)
    return out


@numba.njit(cache=True)
def glibc_seed(seed):
    """The 31-word ring after ``srandom(seed)`` (glibc turns 0 into 1; 1 <= seed < 2^31).

    Word ``i % 31`` holds r[i] of the recurrence for i = 313..343, the last 31 values before
    the first output; :func:`glibc_next` advances it in place.
    """
    r = np.empty(344, np.uint32)
    word = np.int64(seed) if seed != 0 else np.int64(1)
    r[0] = word
    for i in range(1, 31):
        word = (16807 * word) % 2147483647
        r[i] = word
    for i in range(31, 34):
        r[i] = r[i - 31]
    for i in range(34, 344):
        r[i] = r[i - 3] + r[i - 31]  # uint32 arithmetic wraps mod 2^32
    ring = np.empty(31, np.uint32)
    for i in range(313, 344):
        ring[i % 31] = r[i]
    return ring


@numba.njit(cache=True)
def glibc_next(ring, k):
    """The k-th output of ``random()`` (call with k = 0, 1, 2, ... in turn), in [0, 2^31)."""
    i = k + 344
    ring[i % 31] += ring[(i - 3) % 31]  # r[i] = r[i-31] + r[i-3] mod 2^32
    return np.int64(ring[i % 31] >> 1)


@numba.njit(cache=True)
def glibc_random(seed, count):
    """The first ``count`` outputs of ``random()`` after ``srandom(seed)``, as int64."""
    ring = glibc_seed(seed)
    out = np.empty(count, np.int64)
    for k in range(count):
        out[k] = glibc_next(ring, k)
    return out
