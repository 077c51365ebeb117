"""The subcommands of `maxflow`, one module each."""
