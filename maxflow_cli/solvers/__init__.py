"""The solvers: each module is a host loop and its registration (maxflow_cli.registry finds
the modules). Solver modules build on maxflow_cli.pushrelabel and never import each other."""
