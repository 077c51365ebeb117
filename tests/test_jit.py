"""The compile step's notice: on a terminal only, and only when compiling takes long."""

import io
import sys
import time

import pytest

from maxflow_cli import jit


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("stream,seconds,shown", [
    (Terminal(), 0.5, True),      # compiling, on a terminal
    (Terminal(), 0.0, False),     # loaded from the cache: quick, nothing to say
    (io.StringIO(), 0.5, False),  # stderr is a file or a pipe: never
])
def test_the_notice_shows_on_a_terminal_while_compiling_is_slow(monkeypatch, stream, seconds,
                                                                shown):
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(jit, "NOTICE_AFTER", 0.1)
    with jit.compile_notice("hipr"):
        time.sleep(seconds)
    time.sleep(0.2)  # a notice cancelled too late would show by now
    expected = ("maxflow: compiling hipr for this machine; this happens once (later runs load it "
                "from Numba's cache)...\n") if shown else ""
    assert stream.getvalue() == expected
