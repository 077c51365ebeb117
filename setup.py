"""The packages, found rather than listed: maxflow_cli's, and those of `generators/` and
`kernels/`, which live at the top of the repository but install as subpackages of maxflow_cli
so that they never clash with other distributions' top-level modules (there is a PyPI package
called `kernels`). The rest of the configuration is in pyproject.toml."""

from setuptools import find_packages, setup

MAPPED = ("generators", "kernels")  # folders installed as maxflow_cli.<folder>

setup(
    package_dir={"maxflow_cli": "maxflow_cli"} | {f"maxflow_cli.{top}": top for top in MAPPED},
    packages=find_packages(include=["maxflow_cli", "maxflow_cli.*"])
    + [f"maxflow_cli.{package}"
       for package in find_packages(include=[f"{top}{tail}" for top in MAPPED
                                             for tail in ("", ".*")])],
)
