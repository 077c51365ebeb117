"""The network: its capacities narrowed to int32 where every one fits, held as the graph holds
them; its arrays saved and loaded."""

import numpy as np
import pytest

from maxflow_cli.limits import INT32_MAX, int_type
from maxflow_cli.network import Network, capacity_type, narrowed


def test_int32_holds_every_value_up_to_its_maximum_and_no_more():
    assert int_type(0) is int_type(INT32_MAX) is np.int32
    assert int_type(INT32_MAX + 1) is np.int64


@pytest.mark.parametrize("values,dtype", [([0, 5, INT32_MAX], np.int32), ([], np.int32),
                                          ([3, INT32_MAX + 1], np.int64), ([-1, 4], np.int64)])
def test_capacities_are_narrowed_only_where_every_one_fits(values, dtype):
    caps = np.array(values, np.int64)
    narrow = narrowed(caps)
    assert narrow.dtype == dtype and narrow.tolist() == values
    assert capacity_type(narrow) is dtype


def test_int32_capacities_are_not_copied_again():
    caps = np.array([1, 2], np.int32)
    assert narrowed(caps) is caps
    assert capacity_type(np.array([1], np.int16)) is np.int64


def test_network_arrays_saved_load_as_they_were(tmp_path):
    network = Network.from_arcs(3, 0, 2, [(0, 1, 5), (1, 2, 2**40), (1, 1, 0)])
    network.save(str(tmp_path))
    loaded = Network.load(str(tmp_path))
    assert (loaded.n, loaded.source, loaded.sink) == (3, 0, 2)
    for name in ("tails", "heads", "caps"):
        assert (getattr(loaded, name) == getattr(network, name)).all()
        assert getattr(loaded, name).dtype == getattr(network, name).dtype
