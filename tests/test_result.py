"""result: the timing helper the solvers record their phases with."""

import time

from maxflow_cli.result import timed


def test_timed_returns_the_value_and_records_its_phase_beside_the_others():
    times = {"stage1": 5.0}
    assert timed(times, "setup", lambda seconds, value: time.sleep(seconds) or value,
                 0.01, 7) == 7
    assert times["stage1"] == 5.0
    assert 0.01 <= times["setup"] < 5.0
