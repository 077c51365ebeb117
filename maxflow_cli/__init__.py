"""maxflow: solve and benchmark maximum-flow problems on DIMACS instances.

``maximum_flow`` and ``FlowResult`` (maxflow_cli.api) load on first use, so that importing a
light module of the package (the process helper a guardian runs, say) does not load the
solvers and Numba."""

__version__ = "0.1.0"

__all__ = ["FlowResult", "maximum_flow"]


def __getattr__(name: str):
    if name in __all__:
        from maxflow_cli import api

        return getattr(api, name)
    raise AttributeError(f"module 'maxflow_cli' has no attribute {name!r}")
