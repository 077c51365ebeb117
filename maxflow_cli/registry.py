"""The solver registry: every solver is a SolverSpec, called the same way.

The solver modules (every module of maxflow_cli/solvers/, found by solver_modules) register
themselves when they are imported, with register_compiled or register_with_kernels and the
shared parameter definitions below; they are imported the first time the registry is asked
for a solver.

``spec.prepare(options)`` compiles what the solver needs (Numba functions, CUDA kernels) and
returns the seconds it took, so that compile time stays out of solve times;
``spec.solve(graph, options)`` returns a SolveResult. ``spec.unavailable(options)`` says why
a solver cannot run here (no GPU, no PyCUDA), or None.
"""

import functools
import importlib
import math
import pkgutil
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numba
import numpy as np

from maxflow_cli.errors import ParameterError, SolverUnavailable
from maxflow_cli.kernels.devices import default_device, device_unavailable
from maxflow_cli.limits import INT32_MAX, MAX_NARROW_ARCS, arc_index_type
from maxflow_cli.network import Network
from maxflow_cli.residual import (
    HIPR_ORDER,
    INPUT_ORDER,
    ResidualGraph,
    build_residual,
    residual_type,
)
from maxflow_cli.result import SolveResult


def flag_of(name: str) -> str:
    """The command-line flag of a parameter's python name: "--global-update-frequency"."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Parameter:
    """A tuning value a solver takes, exposed on the command line as ``--name``."""

    name: str  # python name, e.g. "global_update_frequency"
    type: type
    default: Any
    help: str
    minimum: Any = None  # the smallest value accepted (None: no bound)
    maximum: Any = None  # the largest value accepted (None: no bound)
    choices: tuple = ()  # the values accepted (empty: any)

    @property
    def flag(self) -> str:
        return flag_of(self.name)

    def parse(self, text: str):
        """``text`` (as ``bench --solvers`` gives it) as the parameter's type, checked."""
        try:
            value = self.type(text)
        except ValueError:
            kind = {int: "an integer", float: "a number"}.get(self.type, self.type.__name__)
            raise ParameterError(f"{self.name}={text!r} is not {kind}") from None
        self.check(value)
        return value

    def check(self, value) -> None:
        """ParameterError unless minimum <= value <= maximum, a float is finite (every
        comparison with nan is false, so bounds alone let it through) and the value is one of
        the choices where there are some."""
        if self.choices and value not in self.choices:
            raise ParameterError(f"{self.flag} {value!r}: must be one of "
                                 f"{', '.join(map(str, self.choices))}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ParameterError(f"{self.flag} {value}: must be a finite number")
        if (self.minimum is not None and value < self.minimum) or \
                (self.maximum is not None and value > self.maximum):
            bounds = f"{'' if self.minimum is None else self.minimum}.." \
                     f"{'' if self.maximum is None else self.maximum}"
            raise ParameterError(f"{self.flag} {value}: must be in {bounds}")


@dataclass
class SolveOptions:
    """How to solve: whether a flow (stage 2) is wanted, where, and solver parameters."""

    want_flow: bool = False
    device: str | None = None  # "cpu" or "gpu" for solvers that have both; None: the default
    params: dict[str, Any] = field(default_factory=dict)
    # A stoppable solver (SolverSpec.stoppable) returns soon after another thread sets
    # stop[0] (a race's loser); its answer is then incomplete. None: nobody stops it.
    stop: Any = None
    # A relay's next rival (Race, relay): a solver that can tell that the shape is bad for
    # it (hpf: its pushes) calls this once with its work so far, and goes on unless stopped.
    # None: nobody to call.
    call_for_help: Callable[[int], None] | None = None
    # A relay's helper: a one-element int64 array, the pushes after which a solver that can
    # give up (hipr) sets stop[0] and returns (its answer dropped). None, or below 0: none.
    budget: Any = None


def search_calling_for_help(step: Callable, start, bound, no_bound, stop,
                            call_for_help: Callable[[int], None] | None,
                            work: Callable[[], int]) -> None:
    """A search that can pause (hpf's phase 1, eibfs's search) run for a relay:
    step(bound, state) runs from `state` (`start` at first) until it ends, stop[0] is set or
    its work passes `bound`, and returns the state to resume from (falsy where it ended).
    Where it paused at the bound, call_for_help(work()) is called once and the search goes
    on without one (until stop[0], which the call may set). No bound where nobody is
    called."""
    if call_for_help is None:
        step(no_bound, start)
        return
    state = step(bound, start)
    if state and not stop[0]:
        call_for_help(work())
        step(no_bound, state)


@dataclass(frozen=True)
class SolverSpec:
    name: str
    summary: str
    citation: str
    solve: Callable[[ResidualGraph, SolveOptions], SolveResult]
    prepare: Callable[[SolveOptions], float]
    parameters: tuple[Parameter, ...] = ()
    # What `prepare` leaves to the first solve that needs it (compile_once; auto: eibfs, which
    # only some shapes run), or None: `maxflow bench` compiles it too before it times
    # anything, so that no run compiles it (a child's run under --timeout would count it).
    prepare_rest: Callable[[SolveOptions], float] | None = None
    devices: tuple[str, ...] = ("cpu",)
    unavailable: Callable[[SolveOptions], str | None] = lambda options: None
    default_device: Callable[[], str] | None = None  # None: the first of `devices`
    # Solvers run on several processes (under mpiexec): on a process that is not the leader,
    # follower(options) does that process's share and returns True; it then reports nothing.
    follower: Callable[[SolveOptions], bool] | None = None
    # False for solvers that `maxflow bench` runs only when named: kept for the record,
    # without their parameters the same work as another solver, or made for shapes that the
    # default (quick) suite does not hold.
    in_default_bench: bool = True
    # True for a solver that runs on the CPU where no GPU is usable (auto), rather than
    # refusing to (the solvers with kernels, whose CPU twins only run when asked for).
    falls_back_to_cpu: bool = False
    # True for a CPU solver that honours SolveOptions.stop and releases the GIL while it
    # works, so that it can race on a thread (maxflow_cli.race).
    stoppable: bool = False
    # True for a stoppable solver that gives up past SolveOptions.budget's pushes (hipr): a
    # relay's helper that can be tried within a budget while its caller waits (race.Race).
    gives_up: bool = False
    # The order the builder leaves each vertex's arcs in (residual.ORDERS): hi_pr's parser's,
    # which the hi_pr-derived solvers need for operation counts equal to hi_pr's (and the
    # default, so that a solver that says nothing keeps them), or input order, built with
    # every pass in parallel, for solvers that count nothing against a C code's.
    arc_order: str = HIPR_ORDER
    # The order on the GPU device where it differs (auto: gpu-sync's, the engine it runs there).
    gpu_arc_order: str | None = None
    # True for a solver that takes a wide graph (ResidualGraph.wide: arcs indexed by int64,
    # past limits.MAX_NARROW_ARCS input arcs); the others refuse one (refuse_wide).
    wide_arcs: bool = False

    def arc_order_on(self, device: str | None) -> str:
        """The arc order of this solver's graphs on `device` (None: the default order)."""
        return self.gpu_arc_order if device == "gpu" and self.gpu_arc_order else self.arc_order

    def build(self, network: Network, device: str | None = None) -> ResidualGraph:
        """The residual graph of `network` in this solver's arc order on `device` (refused
        before it is built where it would be wide and the solver cannot take it)."""
        if not self.wide_arcs:
            refuse_wide(self.name, network.m, arc_index_type(network.m) == np.int64)
        return build_residual(network, self.arc_order_on(device))

    def resolve(self, options: SolveOptions) -> SolveOptions:
        """Options with defaults filled in; refuses parameters and devices this solver lacks."""
        known = {p.name: p for p in self.parameters}
        for name, value in options.params.items():
            if name not in known:
                raise ParameterError(f"{flag_of(name)} does not apply to solver '{self.name}'")
            known[name].check(value)
        device = options.device or (self.default_device() if self.default_device
                                    else self.devices[0])
        if device not in self.devices:
            raise ParameterError(
                f"solver '{self.name}' runs on {', '.join(self.devices)}, not on '{device}'")
        params = {name: p.default for name, p in known.items()}
        params.update(options.params)
        resolved = SolveOptions(options.want_flow, device, params, options.stop)
        reason = self.unavailable(resolved)
        if reason:
            raise SolverUnavailable(f"solver '{self.name}' cannot run here: {reason}")
        return resolved

    def resolve_where_asked(self, options: SolveOptions, twin: str) -> SolveOptions:
        """resolve(), a solver with GPU kernels on the GPU where ``options`` names no device:
        its CPU twin runs only when asked for (``twin`` says how), so that no GPU here is an
        error, not a slow run."""
        if options.device is not None or "gpu" not in self.devices or self.falls_back_to_cpu:
            return self.resolve(options)
        try:
            return self.resolve(replace(options, device="gpu"))
        except SolverUnavailable as error:
            raise SolverUnavailable(f"{error}; {twin} runs its CPU twin") from None


DEFAULT_SOLVER = "auto"  # what `maxflow solve` runs without --solver (see the README)

_REGISTRY: dict[str, SolverSpec] = {}
_loaded = False


def register(spec: SolverSpec) -> SolverSpec:
    """Add `spec` to the registry; its solve refuses a wide graph unless it declares wide_arcs
    (its compiled code takes arc numbers as 32-bit integers)."""
    if not spec.wide_arcs:
        spec = replace(spec, solve=_narrow_only(spec.name, spec.solve))
    _REGISTRY[spec.name] = spec
    return spec


def _narrow_only(name: str, solve: Callable) -> Callable:
    """`solve`, refusing a wide graph (refuse_wide)."""
    @functools.wraps(solve)
    def narrow_solve(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
        refuse_wide(name, graph.m, graph.wide)
        return solve(graph, options)
    return narrow_solve


def refuse_wide(name: str, m: int, wide: bool) -> None:
    """ParameterError where solver `name` is given a wide graph of m input arcs."""
    if wide:
        able = ", ".join(spec.name for spec in solvers().values() if spec.wide_arcs)
        raise ParameterError(f"solver '{name}' indexes arcs with 32-bit integers: at most "
                             f"{MAX_NARROW_ARCS:,} arcs, not {m:,} ({able} take more)")


def solver_modules() -> list[str]:
    """The modules of maxflow_cli/solvers/, each registering its solvers, by name (found, not
    listed: a new solver's module joins by being there)."""
    package = importlib.import_module("maxflow_cli.solvers")
    return [module.name for module in pkgutil.iter_modules(package.__path__)]


def solvers() -> dict[str, SolverSpec]:
    """Every registered solver by name, the solver modules imported on the first call."""
    global _loaded
    if not _loaded:
        for module in solver_modules():
            importlib.import_module(f"maxflow_cli.solvers.{module}")
        _loaded = True
    return _REGISTRY


def get_solver(name: str) -> SolverSpec:
    registry = solvers()
    if name not in registry:
        raise ParameterError(f"unknown solver '{name}'; known: {', '.join(registry)}")
    return registry[name]


def all_parameters() -> dict[str, Parameter]:
    """Every solver parameter by name (solvers that share a name share its meaning), its help
    each solver's own: 'hipr, lockfree: HELP; gpu-sync: OTHER HELP'."""
    table: dict[str, Parameter] = {}
    helps: dict[str, dict[str, list[str]]] = {}  # name -> help -> the solvers that give it
    for spec in solvers().values():
        for parameter in spec.parameters:
            table.setdefault(parameter.name, parameter)
            helps.setdefault(parameter.name, {}).setdefault(parameter.help, []).append(spec.name)
    return {name: replace(parameter, help="; ".join(
        f"{', '.join(names)}: {text}" for text, names in helps[name].items()))
        for name, parameter in table.items()}


def parameter_defaults(name: str) -> str:
    """The default of a parameter, per solver where solvers' defaults differ: '32' or
    'cuda 32, gpu-bfs 1024'."""
    defaults = {spec.name: p.default for spec in solvers().values() for p in spec.parameters
                if p.name == name}
    if len(set(map(repr, defaults.values()))) == 1:
        return str(next(iter(defaults.values())))
    return ", ".join(f"{solver} {default}" for solver, default in defaults.items())


_COMPILED_ONCE: set = set()  # the keys compile_once has compiled for in this process


def compile_once(key, compile: Callable[[], float]) -> float:
    """Run `compile` (which returns the seconds it took) the first time `key` comes in this
    process, marked before, so that a compile that solves does not come back here; its
    seconds, 0 after. For what a prepare step leaves out because few solves need it."""
    if key in _COMPILED_ONCE:
        return 0.0
    _COMPILED_ONCE.add(key)
    return compile()


def compile_on_tiny_graph(solve, options: SolveOptions, arc_type=None, res_type=None) -> float:
    """Run `solve` on a 4-vertex network (see tiny_graph) so that every Numba function it
    uses is compiled (or loaded from the disk cache); return the seconds that took. Stage 2
    only when the options want a flow: a first run without one does not compile it."""
    started = time.perf_counter()
    solve(tiny_graph(arc_type, res_type), options)
    return time.perf_counter() - started


def compile_for_graph(name: str, solve, options: SolveOptions, graph: ResidualGraph) -> float:
    """`solve` (solver `name`) compiled for the graph's arc numbers and residual type
    (residual.residual_type), on a tiny graph of both, the first time they come in this
    process: the seconds it took, 0 after. For the solvers whose compiled code depends on
    both (gpu-sync, eibfs): their prepare step compiles for the tiny graph's own, and a
    graph of other types compiles its own before its stage 1, reported as `compile`."""
    arc_type, res_type = graph.rev.dtype.type, residual_type(graph)
    bare = SolveOptions(options.want_flow, options.device, options.params)
    return compile_once((name, options.device, options.want_flow, arc_type, res_type),
                        lambda: compile_on_tiny_graph(solve, bare, arc_type, res_type))


TINY_CAPACITY_SCALE = {None: 1, np.uint16: 1, np.int32: 2**15, np.int64: 2**30}
"""What the tiny graph's capacities (at most 5) are multiplied by for its residuals to take
each type (residual.residual_type)."""


def tiny_graph(arc_type=None, res_type=None) -> ResidualGraph:
    """The 4-vertex network solvers compile on, its arcs indexed by `arc_type`s (None: int32;
    int64 compiles for wide graphs), its capacities such that its residuals take `res_type`
    (None: the narrowest, uint16)."""
    scale = TINY_CAPACITY_SCALE[res_type]
    arcs = [(0, 1, 3), (1, 2, 2), (2, 1, 1), (1, 3, 1), (2, 3, 5), (0, 2, 1)]
    return build_residual(Network.from_arcs(4, 0, 3, [(u, v, c * scale) for u, v, c in arcs]),
                          arc_type=arc_type)


HIPR_PARAMETERS = (
    Parameter("global_update_frequency", float, 0.5,
              "global update when work * this > alpha * n + m (hi_pr's 0.5; 0: never)",
              minimum=0.0, maximum=1e6),
    Parameter("alpha", int, 6, "weight of n in the global update threshold (hi_pr's 6)",
              minimum=0, maximum=10**6),
    Parameter("beta", int, 12, "work charged per relabel besides its arc scans (hi_pr's 12)",
              minimum=0, maximum=10**6),
)


def register_compiled(name: str, summary: str, citation: str, solve,
                      parameters: tuple[Parameter, ...], prepare=None, **devices) -> None:
    """Register a solver whose prepare step compiles it on a tiny graph (or is `prepare`);
    `devices` are further SolverSpec fields (its devices, for solvers that also run elsewhere
    than on the CPU)."""
    register(SolverSpec(name, summary, citation, solve,
                        prepare=prepare or (lambda options: compile_on_tiny_graph(solve, options)),
                        parameters=parameters, **devices))


def register_with_kernels(name: str, summary: str, citation: str, solve,
                          parameters: tuple[Parameter, ...], **more) -> None:
    """Register a solver whose kernels run on the GPU (the default where one can) or, with
    --device cpu, as their Numba twins; `more` are further SolverSpec fields. Their graphs
    are built in input order (SolverSpec.arc_order): no count of theirs is hi_pr's."""
    register_compiled(name, summary, citation, solve, parameters, devices=("gpu", "cpu"),
                      unavailable=device_unavailable, default_device=default_device,
                      **({"arc_order": INPUT_ORDER} | more))


def cycles_parameter(name: str, default: int, help: str) -> Parameter:
    """A count of kernel iterations or launches: at least 1 (a kernel that runs no cycle
    never ends), at most INT32_MAX (the kernels take it as an int)."""
    return Parameter(name, int, default, help, minimum=1, maximum=INT32_MAX)


KERNEL_CYCLES = cycles_parameter(
    "kernel_cycles", 4096,
    "push/relabel iterations per thread per kernel launch (He & Hong's "
    "KERNEL_CYCLES: 4096 for Genrmf and Washington-RLG, 32 for Acyclic-Dense)")


def block_size_parameter(default: int, why: str = "") -> Parameter:
    """--block-size for the solvers with kernels, each with its seed's default (and why). The
    range is checked with the other parameters, the multiple of 32 by open_device."""
    return Parameter("block_size", int, default, "threads per CUDA block, a multiple of 32"
                     + (f" ({default}: {why})" if why else ""), minimum=32, maximum=1024)


THREADS_PARAMETER = Parameter(
    "threads", int, 0,
    "CPU threads for the parallel loops, at most "
    "NUMBA_NUM_THREADS; 0: the cores free when the solve starts (those this process may use "
    "less the threads other processes keep running)", minimum=0,
    maximum=numba.config.NUMBA_NUM_THREADS)
