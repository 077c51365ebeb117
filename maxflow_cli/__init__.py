"""maxflow: solve and benchmark maximum-flow problems on DIMACS instances."""

__version__ = "0.1.0"

from maxflow_cli.api import FlowResult, maximum_flow  # noqa: E402

__all__ = ["FlowResult", "maximum_flow"]
