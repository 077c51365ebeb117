"""`maxflow paths --bench` (Table 1) on the CPU: a row per network, every share timed, the
published row printed above ours; the CLI's JSON."""

import json

from click.testing import CliRunner

from maxflow_cli.cli import main
from maxflow_cli.paths.search import SHARES
from maxflow_cli.paths.table1 import PUBLISHED, measure


def test_the_published_table_has_every_share_of_every_network():
    assert len(PUBLISHED) == 11
    assert all(len(mps) == len(SHARES) for _, mps in PUBLISHED.values())


def test_a_row_times_every_share_and_every_reference():
    row = measure("abilene", 5, 1, "cpu")
    assert (row["n"], row["arcs"], row["pairs"]) == (12, 30, 132)
    assert list(row["mps"]) == [str(share) for share in SHARES]
    assert all(row[name] > 0 for name in ("yen", "cpu_yen", "networkx_yen"))


def test_the_cli_prints_published_and_ours():
    result = CliRunner().invoke(main, ["paths", "--bench", "sndlib:polska", "--k", "3",
                                       "--repeat", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("polska" in line and "published" in line and "578.32" in line for line in lines)
    assert any(line.split()[:2] == ["132", "ours"] for line in lines)
    result = CliRunner().invoke(main, ["paths", "--bench", "sndlib:polska", "--k", "3",
                                       "--repeat", "1", "--json"])
    assert json.loads(result.output)["rows"][0]["paths"] > 0
