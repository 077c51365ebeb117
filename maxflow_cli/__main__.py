from maxflow_cli.cli import main

main()
