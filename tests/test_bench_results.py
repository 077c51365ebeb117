"""bench.results: the JSON document's schema, the CSV, loading, and comparisons of two runs."""

import csv
import json
import subprocess

import pytest

from maxflow_cli.bench import results
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bench.report import describe_environment
from maxflow_cli.bench.results import (
    CSV_COLUMNS,
    SCHEMA,
    compare,
    comparison_document,
    document,
    environment,
    load,
    write_csv,
    write_json,
)
from maxflow_cli.bench.runner import Settings, choose_solvers, run_benchmark
from maxflow_cli.bench.stats import summarize
from maxflow_cli.errors import InputError

ENTRY_FIELDS = {"instance", "family", "group", "solver", "kind", "device", "params", "vertices",
                "arcs", "runs", "warmup", "timed", "samples", "wall_samples", "median", "mad",
                "min", "max", "unstable", "speedup", "relative", "fastest", "flow_value",
                "mismatch", "failure", "phases", "counters", "trace", "peak_host_bytes",
                "peak_gpu_bytes", "winners"}


@pytest.fixture(scope="module")
def doc():
    run = run_benchmark(parse_instance("genrmf:a=3,b=4,seed=1..2"),
                        choose_solvers(None, "hipr", False),
                        Settings(repeat=2, warmup=0, min_time=0.0))
    return document(run, None, environment())


def test_the_document_has_the_documented_fields(doc):
    assert doc["schema"] == SCHEMA == 1
    assert {"schema", "created", "settings", "environment", "compile", "instances", "results",
            "problems", "complete"} <= set(doc)
    assert doc["complete"] is True
    env = doc["environment"]
    assert {"cpu", "gpus", "python", "numpy", "numba", "pycuda", "maxflow", "git"} <= set(env)
    assert env["cpu"]["cores"] >= 1 and env["cpu"]["model"]
    assert doc["settings"]["repeat"] == 2 and doc["settings"]["baseline"] == "hipr"
    assert len(doc["results"]) == 2
    for entry in doc["results"]:
        assert set(entry) == ENTRY_FIELDS
        assert len(entry["samples"]) == entry["runs"] == 2
        assert entry["min"] <= entry["median"] <= entry["max"]
        assert isinstance(entry["flow_value"], int) and entry["speedup"] == 1.0
        assert entry["relative"] == 1.0 and entry["fastest"] is True
        assert entry["peak_host_bytes"] > 0 and entry["peak_gpu_bytes"] is None
        assert (entry["kind"], entry["device"], entry["timed"], entry["failure"]) == (
            "solver", "cpu", "stage1", None)
        assert entry["params"] == {"global_update_frequency": 0.5, "alpha": 6, "beta": 12,
                                   "initial_update": 0}
        assert all(wall >= stage1 for wall, stage1 in zip(entry["wall_samples"], entry["samples"]))
    assert doc["settings"]["configurations"] == {
        "hipr": {"kind": "solver", "solver": "hipr", "device": "cpu", "params": {}}}
    assert all(instance["check"]["ok"] for instance in doc["instances"])
    assert set(doc["settings"]["memory"]) == {"peak_host_bytes", "peak_gpu_bytes"}


def test_json_round_trip(doc, tmp_path):
    path = tmp_path / "run.json"
    write_json(doc, str(path))
    assert load(str(path)) == json.loads(json.dumps(doc))


def test_csv_has_one_row_per_cell(doc, tmp_path):
    path = tmp_path / "run.csv"
    write_csv(doc, str(path))
    with open(path, newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 2
    assert [float(x) for x in rows[0]["samples"].split()] == doc["results"][0]["samples"]


@pytest.mark.parametrize("text, message", [
    ("not json", "not JSON"),
    ('{"a": 1}', "not a 'maxflow bench --json' document"),
    ('{"schema": 99, "results": []}', "schema version 99"),
])
def test_load_refuses_other_files(tmp_path, text, message):
    path = tmp_path / "other.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load(str(path))


@pytest.mark.parametrize("drop, message", [
    (("environment",), "no 'environment'"),
    (("environment", "cpu"), "'environment' lacks 'cpu'"),
    (("results", 0, "family"), "result 1 lacks 'family'"),
    (("results", 1, "median"), "result 2 lacks 'median'"),
    (("results", 0, "mad"), "result 1 lacks 'mad'"),
])
def test_load_refuses_documents_lacking_what_compare_reads(doc, tmp_path, drop, message):
    incomplete = json.loads(json.dumps(doc))
    parent = incomplete
    for key in drop[:-1]:
        parent = parent[key]
    del parent[drop[-1]]
    path = tmp_path / "incomplete.json"
    write_json(incomplete, str(path))
    with pytest.raises(InputError, match=f"incomplete.json: not a complete .*: {message}$"):
        load(str(path))


def test_compare_marks_noise_and_lists_cells_in_one_file_only(doc):
    old = json.loads(json.dumps(doc))
    for entry in old["results"]:
        entry["median"], entry["mad"] = 1.0, 0.01
    new = json.loads(json.dumps(old))
    new["results"][0]["median"] = 2.0
    new["results"].append(dict(new["results"][1], instance="elsewhere"))
    changes, only_old, only_new = compare(old, new)
    assert [(c.ratio, c.noise) for c in changes] == [(2.0, False), (1.0, True)]
    assert only_old == [] and only_new == ["elsewhere (hipr)"]


def samples_doc(doc, samples: list[list[float]]) -> dict:
    """``doc`` with these samples, median and MAD per cell."""
    changed = json.loads(json.dumps(doc))
    for entry, values in zip(changed["results"], samples):
        stats = summarize(values)
        entry["samples"], entry["median"], entry["mad"] = values, stats.median, stats.mad
    return changed


def test_a_change_is_significant_when_the_mad_rule_and_the_test_agree(doc):
    old = samples_doc(doc, [[1.0, 1.01, 0.99, 1.005, 1.02]] * 2)
    new = samples_doc(doc, [[2.0, 2.01, 1.99, 2.005, 2.02],  # beyond noise, p = 2/252
                            [1.0, 1.01, 0.99, 1.005, 2.02]])  # within noise
    slower, same = compare(old, new)[0]
    assert (slower.noise, slower.u, slower.significant) == (False, 25, True)
    assert slower.p == pytest.approx(2 / 252)
    assert same.noise and not same.significant and same.p > 0.05
    # with 5 runs a side no p falls below 2/252: at alpha 0.005 the noise rule decides alone
    assert compare(old, new, alpha=0.005)[0][0].significant


def test_alpha_decides_where_the_samples_overlap(doc):
    old = samples_doc(doc, [[1.0, 1.01, 0.99, 1.005, 1.02]] * 2)
    new = samples_doc(doc, [[2.0, 2.01, 1.99, 2.005, 1.0]] * 2)  # beyond noise, p = 0.075
    assert not compare(old, new)[0][0].significant
    assert compare(old, new, alpha=0.1)[0][0].significant


def test_too_few_samples_fall_back_on_the_noise_rule(doc):
    old = samples_doc(doc, [[1.0, 1.1]] * 2)
    new = samples_doc(doc, [[3.0, 3.1], [1.0, 1.1]])  # 2 against 2: p >= 1/3 whatever they are
    slower, same = compare(old, new)[0]
    assert not slower.noise and slower.p == pytest.approx(1 / 3) and slower.significant
    assert same.noise and not same.significant


def test_the_comparison_document_has_every_change(doc):
    changes, only_old, only_new = compare(doc, doc)
    written = comparison_document("a.json", "b.json", changes, only_old, only_new, 0.01)
    assert (written["old"], written["new"], written["alpha"]) == ("a.json", "b.json", 0.01)
    assert "p < 0.01" in written["significance_rule"] and "MAD" in written["noise_rule"]
    assert set(written["changes"][0]) == {"instance", "family", "solver", "old", "new", "ratio",
                                          "noise", "u", "p", "significant"}
    assert written["changes"][0]["p"] == 1.0 and written["changes"][0]["noise"] is True
    json.dumps(written, allow_nan=False)


def test_gpus_come_from_nvidia_smi(monkeypatch):
    line = "NVIDIA H100 80GB HBM3, 580.159.04, 405, 2619, 1980, 81559\n"  # as an H100 answers
    monkeypatch.setattr(results.subprocess, "run",
                        lambda *args, **kwargs: subprocess.CompletedProcess(args, 0, line))
    env = environment()
    assert env["gpus"] == [{"name": "NVIDIA H100 80GB HBM3", "driver": "580.159.04",
                            "sm_clock_mhz": "405",
                            "memory_clock_mhz": "2619", "max_sm_clock_mhz": "1980",
                            "memory_mib": "81559"}]
    assert ("NVIDIA H100 80GB HBM3 (driver 580.159.04, SM clock up to 1980 MHz)"
            in describe_environment(env))
