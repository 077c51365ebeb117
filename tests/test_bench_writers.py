"""bench's output writers: one table drives the options, and an interrupted run writes only
the formats that keep a finished part."""

from click.testing import CliRunner

from maxflow_cli.bench import writers
from maxflow_cli.cli import main


def test_every_writer_is_an_option_of_bench():
    help_text = CliRunner().invoke(main, ["bench", "--help"]).output
    for writer in writers.WRITERS:
        assert f"{writer.option} {writer.metavar}" in help_text


def test_an_interrupted_run_skips_the_writers_without_a_partial_form(monkeypatch):
    calls = []
    monkeypatch.setattr(writers, "WRITERS", (
        writers.Writer("a", "FILE", "", lambda run, doc, path: calls.append((path, doc())),
                       partial=True),
        writers.Writer("b", "FILE", "", lambda run, doc, path: calls.append((path, doc())),
                       partial=False)))
    documents = []
    monkeypatch.setattr(writers.results, "document",
                        lambda run, suite, env: documents.append(run) or {"run": run})
    paths = {"a": "a.out", "b": "b.out"}
    assert writers.write_outputs("R", paths, None, {}, partial=True) == ["a.out"]
    assert writers.write_outputs("R", paths, None, {}) == ["a.out", "b.out"]
    assert calls == [("a.out", {"run": "R"}), ("a.out", {"run": "R"}), ("b.out", {"run": "R"})]
    assert len(documents) == 2  # once per call, shared by its writers
