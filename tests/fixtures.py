"""Test instances with known maximum flow values.

- `data/*.max`: the project's small instances, each with a `c expected flow: VALUE` line;
- `data/generator-vectors/` and its `washington/`: outputs of the original DIMACS generators
  (washington: all its functions), values in FLOWS.tsv;
- `../shared/peer-fixtures/`: other projects' instances (kept out of this repository), used
  when that folder sits beside the checkout, as it does in CI.
"""

import csv
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
VECTORS = DATA / "generator-vectors"
PEERS = ROOT.parent / "shared" / "peer-fixtures"


def expected_from_comment(path: Path) -> int:
    match = re.search(rb"^c expected flow: (\d+)", path.read_bytes(), re.MULTILINE)
    assert match, f"{path} has no 'c expected flow:' line"
    return int(match.group(1))


def _from_table(folder: Path, table: str, value_column: int):
    if not (folder / table).exists():
        return []
    with open(folder / table, newline="") as stream:
        rows = list(csv.reader(stream, delimiter="\t"))[1:]
    return [(folder / row[0], int(row[value_column])) for row in rows]


def known_instances() -> list[tuple[Path, int]]:
    """(path, maximum flow value) for every instance with a known value."""
    own = [(path, expected_from_comment(path)) for path in sorted(DATA.glob("*.max"))]
    return (own + _from_table(VECTORS, "FLOWS.tsv", 1)
            + _from_table(VECTORS / "washington", "FLOWS.tsv", 1)
            + _from_table(PEERS, "expected.tsv", 1))
