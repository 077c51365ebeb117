from maxflow_cli.cli import run

run()
