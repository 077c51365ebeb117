"""The CPU atomics (maxflow_cli.atomics): right values, and no update lost under threads."""

import numba
import numpy as np
from numba import prange

from maxflow_cli.atomics import acquire_fence, atomic_add, atomic_cas, atomic_load, atomic_store


@numba.njit(parallel=True)
def _add_from_threads(array, times):
    for i in prange(times):
        atomic_add(array, i % array.shape[0], 1)


@numba.njit(parallel=True)
def _claim_from_threads(owner, times):
    """Each of `times` iterations tries to claim every slot; returns the claims won."""
    won = 0
    for i in prange(times):
        for slot in range(owner.shape[0]):
            if atomic_cas(owner, slot, -1, i) == -1:
                won += 1
    return won


@numba.njit
def _single(array):
    acquire_fence()  # orders the accesses only: it must change nothing
    old_add = atomic_add(array, 0, -5)
    missed = atomic_cas(array, 1, 99, 7)
    hit = atomic_cas(array, 2, 3, 8)
    atomic_store(array, 3, 42)
    return old_add, missed, hit, atomic_load(array, 3)


def test_each_operation_returns_the_old_value_and_writes():
    array = np.array([10, 1, 3, 0], np.int64)
    assert _single(array) == (10, 1, 3, 42)
    assert array.tolist() == [5, 1, 8, 42]


def test_int32_arrays_work_too():
    array = np.array([10, 1, 3, 0], np.int32)
    assert _single(array) == (10, 1, 3, 42)
    assert array.tolist() == [5, 1, 8, 42]


def test_concurrent_adds_lose_nothing():
    array = np.zeros(3, np.int64)
    _add_from_threads(array, 300_000)
    assert array.tolist() == [100_000] * 3


def test_each_slot_is_claimed_once():
    owner = np.full(50, -1, np.int64)
    assert _claim_from_threads(owner, 4 * numba.get_num_threads()) == 50
    assert (owner >= 0).all()
