"""The race: rivals on threads, the first good answer taken, the others told to stop,
failures passed over; real rivals stop when told; and the rivals' names checked."""

import gc
import multiprocessing
import threading
import time
import weakref
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from maxflow_cli import generators, race
from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.network import Network
from maxflow_cli.race import Race, entrants, rival_names, rival_solvers
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult

GRAPH = build_residual(Network.from_arcs(4, 0, 3, [(0, 1, 3), (1, 2, 2), (2, 3, 5), (0, 2, 1),
                                                   (1, 3, 1)]))


def _rival(name, seconds=0.0, fails=False, stopped=None, helped=None, ran=None, gives_up=None):
    """A rival that answers 7 with residuals all `len(name)` after `seconds` (or fails),
    looking at options.stop every millisecond; `stopped` is set if it was told to stop. It
    calls options.call_for_help(1000) after `helped` seconds (None: never) and sets `ran` (an
    event) when it starts. Given a budget (a relay's helper), it gives up after `gives_up`
    seconds (None: never), noting the budget in `ran.budget`."""
    def solve(graph, options):
        nonlocal helped
        started = time.perf_counter()
        if ran is not None:
            ran.budget = int(options.budget[0])
            ran.set()
        while time.perf_counter() < started + seconds:
            if helped is not None and time.perf_counter() >= started + helped:
                options.call_for_help(1000)
                helped = None
            if gives_up is not None and options.budget[0] >= 0 and \
                    time.perf_counter() >= started + gives_up:
                options.stop[0] = 1
            if options.stop[0]:
                stopped.set()
                return None
            time.sleep(0.001)
        if fails:
            raise RuntimeError("no")
        res = np.full(graph.cap.shape[0], len(name), np.int64)
        return SolveResult(name, 7, res, False, {"stage1": seconds}, {"steps": 1})
    return SimpleNamespace(name=name, solve=solve, gives_up=gives_up is not None), SolveOptions()


def _on(threads, rival):
    """`rival` noting in `threads` the thread that runs it."""
    spec, options = rival
    return SimpleNamespace(name=spec.name, gives_up=spec.gives_up, solve=lambda graph, options: (
        threads.append(threading.current_thread()) or spec.solve(graph, options))), options


def test_the_first_answer_wins_and_the_others_are_stopped():
    stopped = threading.Event()
    started = time.perf_counter()
    with Race([_rival("slow", 30, stopped=stopped), _rival("quick", 0.05)], GRAPH) as race:
        answer = race.first()
    assert time.perf_counter() - started < 10
    assert (answer.solver, answer.flow_value, answer.counters) == ("quick", 7, {"steps": 1})
    assert answer.res.tolist() == [5] * GRAPH.cap.shape[0]
    assert 0.05 <= answer.times["stage1"] < 10 and list(answer.times) == ["stage1"]
    assert stopped.wait(5)


def test_the_first_to_finish_wins_and_stops_the_others_before_anyone_looks():
    stopped = threading.Event()
    with Race([_rival("later", 30, stopped=stopped), _rival("sooner", 0.05)], GRAPH) as race:
        assert stopped.wait(5)
        time.sleep(0.1)  # both have ended before anyone looks
        assert race.winner().solver == "sooner" and race.winner() is None


def test_a_flag_given_to_stopping_is_set_by_the_first_answer():
    """gpu-sync's CPU phase ends with the race: the first answer sets the flag it holds, and
    a flag given after an answer is set at once; outside the block it is left alone."""
    with Race([_rival("quick", 0.05)], GRAPH) as race:
        with race.stopping(np.zeros(1, np.uint8)) as flag:
            ends = time.perf_counter() + 10
            while not flag[0] and time.perf_counter() < ends:
                time.sleep(0.001)
            assert flag[0] == 1
        with race.stopping(np.zeros(1, np.uint8)) as late:
            assert late[0] == 1
    with Race([_rival("slow", 0.2)], GRAPH) as race:
        with race.stopping(np.zeros(1, np.uint8)) as left:
            pass  # left before the answer
        race.first()
    assert left[0] == 0


def test_races_reuse_their_threads():
    threads = []
    for _ in range(20):
        with Race([_on(threads, _rival("one")), _on(threads, _rival("two"))], GRAPH) as race:
            race.first()
    # Without reuse, 40 threads. A loser's worker may still be ending its job when the next
    # race starts (it then takes a new worker), more often on a loaded machine: a few more.
    assert len(threads) >= 20 and len(set(threads)) <= 10


def _race_in_a_child():
    with Race([_rival("child", 0.01)], GRAPH) as race:
        assert race.first().solver == "child"


def test_a_forked_child_races_on_threads_of_its_own():
    with Race([_rival("parent", 0.01)], GRAPH) as race:
        race.first()
    child = multiprocessing.get_context("fork").Process(target=_race_in_a_child)
    child.start()
    child.join(30)
    child.kill()  # one that hangs (an ended one is left as it is)
    assert child.exitcode == 0


def test_a_failed_rival_is_passed_over():
    with Race([_rival("broken", fails=True), _rival("late", 0.2)], GRAPH) as race:
        assert race.first().solver == "late"
    with Race([_rival("broken", fails=True)], GRAPH) as race:
        with pytest.raises(MaxflowError, match="every solver of the race failed"):
            race.first()


def test_winner_looks_without_waiting():
    stopped = threading.Event()
    with Race([_rival("slow", 30, stopped=stopped)], GRAPH) as race:
        started = time.perf_counter()
        assert race.winner() is None
        assert time.perf_counter() - started < 1
    assert stopped.wait(5)


def test_real_rivals_answer_the_maximum_flow():
    with Race(entrants("hipr+hpf", True), GRAPH) as race:
        answer = race.first()
    assert answer.solver in ("hipr", "hpf") and answer.flow_value == 4 and answer.is_flow
    assert {"stage1", "stage2"} <= set(answer.times) <= {"stage1", "setup", "settle", "stage2"}
    assert answer.times["stage1"] > 0


@pytest.mark.parametrize("name", ["hipr", "hpf", "eibfs"])
def test_a_rival_stops_when_told(name):
    """Told to stop before it starts, a rival returns at its first look, without stage 2:
    its flow value (what reached the sink so far) falls short of the maximum."""
    graph = build_residual(generators.make("genrmf", a=6, b=8, seed=1))
    spec = get_solver(name)
    whole = spec.solve(graph, spec.resolve(SolveOptions(want_flow=True)))
    stop = np.ones(1, np.uint8)
    cut_short = spec.solve(graph, spec.resolve(SolveOptions(want_flow=True, stop=stop)))
    assert cut_short.flow_value < whole.flow_value and "stage2" not in cut_short.times


def test_rival_names():
    assert rival_names("none") == ()
    assert rival_names("hipr+hpf") == ("hipr", "hpf")
    assert set(rival_solvers()) >= {"hipr", "hpf"}
    assert not {"mpi", "gpu-sync", "auto", "lockfree"} & set(rival_solvers())
    for text in ("hipr,hpf", "", "gpu-sync", "mpi"):
        with pytest.raises(ParameterError, match="cannot race"):
            rival_names(text)


def test_a_relay_runs_the_next_rival_only_where_one_calls_for_help():
    """auto on the CPU: the rivals run in turn on the calling thread. The first answers alone
    and keeps its own times; where it calls for help it is stopped and the next takes over,
    the race's wall time counting; where it fails, the next takes over too; the last one's
    call is not answered."""
    ran, threads = threading.Event(), []
    with Race([_rival("alone", 0.05), _rival("next", 0.01, ran=ran)], GRAPH,
              relay=True) as race:
        answer = race.first()
    assert (answer.solver, answer.times, race.called_in) == ("alone", {"stage1": 0.05}, False)
    assert not ran.is_set()
    stopped = threading.Event()
    with Race([_on(threads, _rival("first", 30, stopped=stopped, helped=0.05)),
               _on(threads, _rival("next", 0.1))], GRAPH, relay=True) as race:
        answer = race.first()
    assert (answer.solver, race.called_in) == ("next", True) and stopped.is_set()
    assert 0.15 <= answer.times["stage1"] < 10
    assert threads == [threading.current_thread()] * 2
    with Race([_rival("broken", fails=True), _rival("late", 0.05)], GRAPH, relay=True) as race:
        assert race.first().solver == "late" and not race.called_in
    with Race([_rival("last", 0.1, helped=0.01)], GRAPH, relay=True) as race:
        assert race.first().solver == "last" and not race.called_in


def test_a_relays_helper_that_gives_up_leaves_its_caller_to_go_on():
    """A helper that can give up runs within the call, given HELP_BUDGET times the caller's
    work; where it gives up, the caller goes on from where it called and answers with its own
    times; a rival left after the helper does not run. Where it answers, the caller stops."""
    helper_ran, last_ran, stopped = threading.Event(), threading.Event(), threading.Event()
    with Race([_rival("first", 0.2, helped=0.02),
               _rival("helper", 30, stopped=stopped, ran=helper_ran, gives_up=0.05),
               _rival("last", 0.01, ran=last_ran)], GRAPH, relay=True) as relay:
        answer = relay.first()
    assert (answer.solver, answer.times) == ("first", {"stage1": 0.2})
    assert (relay.called_in, relay.gave_up) == (False, "helper") and stopped.is_set()
    assert helper_ran.budget == race.HELP_BUDGET * 1000 and not last_ran.is_set()
    stopped.clear()
    with Race([_rival("first", 30, helped=0.02, stopped=stopped),
               _rival("helper", 0.05, gives_up=10)], GRAPH, relay=True) as relay:
        assert relay.first().solver == "helper" and relay.called_in and not relay.gave_up
    assert stopped.is_set()


def test_hipr_gives_up_past_its_push_budget():
    """hipr as a relay's helper: past options.budget's pushes it sets its stop flag and
    returns; a negative budget, or one it stays within, leaves it to answer."""
    network = generators.make("washington", function=10, dim1=300, dim2=0)
    graph, hipr = build_residual(network), get_solver("hipr")
    alone = hipr.solve(graph, hipr.resolve(SolveOptions()))
    for budget, gives_up in ((-1, False), (alone.counters["pushes"], False), (50, True)):
        stop = np.zeros(1, np.uint8)
        options = replace(hipr.resolve(SolveOptions()), stop=stop, budget=np.array([budget]))
        answer = hipr.solve(graph, options)
        assert bool(stop[0]) == gives_up
        if gives_up:
            assert 50 < answer.counters["pushes"] < alone.counters["pushes"]
        else:
            assert answer.counters == alone.counters


def test_a_winners_other_phases_stay_out_of_the_races_stage_one():
    """Its set-up, settling and stage 2 are its own phases, beside the race's stage 1, as
    they are where it runs alone."""
    def solve(graph, options):
        time.sleep(0.15)
        res = np.zeros(graph.cap.shape[0], np.int64)
        return SolveResult("phased", 7, res, False, {"setup": 0.1, "stage1": 0.03, "settle":
                                                     0.01, "stage2": 0.01}, {})
    phased = SimpleNamespace(name="phased", solve=solve, gives_up=False)
    with Race([(phased, SolveOptions())], GRAPH) as race:
        times = race.first().times
    assert list(times) == ["setup", "stage1", "settle", "stage2"]
    assert 0.03 <= times["stage1"] < 0.03 + 5
    assert (times["setup"], times["settle"], times["stage2"]) == (0.1, 0.01, 0.01)


def test_a_relay_lets_its_rivals_and_answers_go_when_it_ends():
    """A relay's rivals hold its call for help: they and the answers they hold are freed as
    the race ends, not at the next garbage collection (a later solve's arrays took fresh
    memory meanwhile)."""
    gc.disable()
    try:
        with Race([_rival("alone"), _rival("next")], GRAPH, relay=True) as relay:
            first_rival = weakref.ref(relay._all[0])
            relay.first()
        del relay
        assert first_rival() is None
    finally:
        gc.enable()


def test_a_relay_starts_no_worker_threads(monkeypatch):
    """auto on the CPU runs its rivals on the calling thread: its compile step starts no
    worker, where a race's starts one a rival."""
    monkeypatch.setattr(race, "_WORKERS", race._Workers())
    before = threading.active_count()
    race.prepare(entrants("hpf+hipr", False), relay=True)
    assert threading.active_count() == before
    race.prepare(entrants("hpf+hipr", False))
    assert threading.active_count() == before + 2


def test_only_the_rivals_that_take_a_wide_graph_enter_its_race():
    network = Network.from_arcs(3, 0, 2, [(0, 1, 2), (1, 2, 1)])
    rivals = entrants("hpf+hipr", False)
    assert race.able(rivals, build_residual(network)) == list(rivals)
    wide = build_residual(network, arc_type=np.int64)
    assert [spec.name for spec, _ in race.able(rivals, wide)] == ["hipr"]


def test_the_entrants_are_resolved_once_and_kept():
    assert entrants("hpf+hipr", False) is entrants("hpf+hipr", False)
    assert entrants("hpf+hipr", True) is not entrants("hpf+hipr", False)
    assert [options.want_flow for _, options in entrants("hpf+hipr", True)] == [True, True]
