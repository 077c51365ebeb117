"""maxflow: solve and benchmark maximum-flow problems on DIMACS instances."""

__version__ = "0.1.0"
