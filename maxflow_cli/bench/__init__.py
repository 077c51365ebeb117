"""Benchmarking, in pyperf's layers: what to run (``instances``, ``suites``, ``published``),
how (``runner``), the numbers (``stats``), the files (``results``: versioned JSON, CSV) and
what is shown (``report``: tables, plot). ``maxflow_cli.commands.bench`` is the CLI.
"""
