"""The types of the fields of a ``maxflow bench --json`` document that ``bench compare`` reads.

Each check gives one line per problem: where (``result 3: 'median'``), what was expected and
what was there, so that a hand-edited file fails with words rather than a traceback, and a
median of 0, below 0 or NaN cannot pass as "faster".
"""

import math


def _number(value) -> bool:
    """A finite JSON number (true and false are not numbers)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _string(value) -> bool:
    return isinstance(value, str)


def _or_null(check):
    return lambda value: value is None or check(value)


def _positive(value) -> bool:
    return _number(value) and value > 0


def _non_negative(value) -> bool:
    return _number(value) and value >= 0


def _samples(value) -> bool:
    return value is None or isinstance(value, list) and all(map(_non_negative, value))


def _gpus(value) -> bool:
    keys = {"name", "driver", "max_sm_clock_mhz"}
    return isinstance(value, list) and all(
        isinstance(gpu, dict) and keys <= gpu.keys() for gpu in value)


def _git(value) -> bool:
    return isinstance(value, dict) and (not value or (
        _string(value.get("commit")) and isinstance(value.get("dirty"), bool)))


STRING = (_string, "a string")
ENVIRONMENT = {
    "cpu": (lambda value: isinstance(value, dict) and {"model", "cores"} <= value.keys(),
            "an object with 'model' and 'cores'"),
    "gpus": (_gpus, "a list of objects with 'name', 'driver' and 'max_sm_clock_mhz'"),
    "maxflow": STRING, "python": STRING, "numba": (_or_null(_string), "a string or null"),
}
RESULT = {
    "instance": STRING, "family": STRING, "solver": STRING,
    "median": (_or_null(_positive), "a finite number > 0 or null (a failed cell)"),
    "samples": (_samples, "a list of finite numbers >= 0"),
}
MAD = (_non_negative, "a finite number >= 0 (null only where the median is)")


def _problem(where: str, value, expected: str) -> str:
    shown = repr(value)
    return f"{where}: expected {expected}, not {shown[:40] + '...' if len(shown) > 40 else shown}"


def environment_problems(env: dict) -> list[str]:
    """What is wrong with the fields of ``environment`` that describe_environment reads."""
    problems = [_problem(f"'environment.{key}'", env[key], expected)
                for key, (check, expected) in ENVIRONMENT.items() if not check(env[key])]
    git = env["git"]
    if not isinstance(git, dict):
        problems.append(_problem("'environment.git'", git, "an object"))
    elif not _git(git):
        field = "commit" if not _string(git.get("commit")) else "dirty"
        problems.append(_problem(f"'environment.git.{field}'", git.get(field),
                                 "a string" if field == "commit" else "true or false"))
    return problems


def results_problems(results: list[dict]) -> list[str]:
    """What is wrong with the fields of each result that compare reads (each a dict holding
    them: see results._missing_keys)."""
    problems = []
    for number, entry in enumerate(results, 1):
        checks = {**RESULT, "mad": MAD if entry["median"] is not None
                  else (_or_null(_non_negative), MAD[1])}
        problems += [_problem(f"result {number}: '{key}'", entry.get(key), expected)
                     for key, (check, expected) in checks.items() if not check(entry.get(key))]
    return problems
