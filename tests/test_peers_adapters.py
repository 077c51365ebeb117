"""The peer adapters of scripts/peers (conversion, parsing, range checks, failures), with a
fake peer program standing in for the binaries, so that no peer needs to be built."""

import gzip
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from maxflow_cli.network import Network

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "scripts" / "peers"
DATA = ROOT / "data"
sys.path.insert(0, str(PEERS))
import peerlib  # noqa: E402

CLRS = "p max 6 10\nn 1 s\nn 6 t\na 1 2 16\na 1 3 13\na 2 4 12\na 3 2 4\na 2 3 10\n" \
       "a 3 5 14\na 4 3 9\na 4 6 20\na 5 4 7\na 5 6 4\n"


def fake(tmp_path, body: str) -> str:
    """A fake peer: a Python script that ignores or inspects its arguments and prints body."""
    path = tmp_path / "fakepeer"
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)
    return str(path)


def run(adapter: str, *args, stdin: str | None = None):
    return subprocess.run([sys.executable, str(PEERS / adapter), *args], input=stdin,
                          capture_output=True, text=True)


def instance(tmp_path, text=CLRS) -> str:
    path = tmp_path / "g.max"
    path.write_text(text)
    return str(path)


def load_text(tmp_path, text: str):
    return peerlib.load(instance(tmp_path, text))


def test_load_and_bounds(tmp_path):
    g = load_text(tmp_path, CLRS)
    assert (g.n, g.source, g.sink, g.m) == (6, 0, 5, 10)  # the project's reader: 0-based
    assert peerlib.terminal_sums(g) == (29, 24)
    with pytest.raises(peerlib.PeerError, match=r"vertex id '3' outside 1\.\.2"):
        load_text(tmp_path, "p max 2 1\nn 1 s\nn 2 t\na 1 3 5\n")


def test_terminal_sums_exact_past_int64():
    # data/huge-capacities.max: 2^62 + 2^61 + 5 out of s, 2 * 2^62 = 2^63 into t, which an
    # int64 sum would wrap to a negative number
    g = peerlib.load(str(DATA / "huge-capacities.max"))
    assert peerlib.terminal_sums(g) == (2**62 + 2**61 + 5, 2**63)
    with pytest.raises(peerlib.OutOfRange, match="2\\^31-1"):
        peerlib.check_int32(g, flows_too=False)
    assert peerlib.exact_sum(np.array([2**62] * 4, dtype=np.int64)) == 2**64
    # into t: 2^62 on each of two nodes, which fit int64 one by one though not together
    form = peerlib.terminal_form(g)
    assert form.source_caps.tolist() == [2**62, 2**61 + 5]
    assert form.sink_caps.tolist() == [2**62, 2**62]
    g = Network.from_arcs(4, 0, 3, [(0, 1, 2**62), (1, 3, 2**62), (2, 3, 2**62),
                                    (0, 2, 2**62 - 1), (2, 3, 2**62 - 1)])
    assert peerlib.terminal_form(g).sink_caps.tolist() == [2**62, 2**63 - 1]
    g = Network.from_arcs(3, 0, 2, [(0, 1, 1), (1, 2, 2**62), (1, 2, 2**62)])
    with pytest.raises(peerlib.OutOfRange, match="9223372036854775808"):
        peerlib.terminal_form(g)
    assert peerlib.exact_sum(np.array([], dtype=np.int64)) == 0


def test_pbbs_flow_graph(tmp_path):
    g = load_text(tmp_path, "p max 3 3\nn 1 s\nn 3 t\na 2 3 7\na 1 2 5\na 1 3 4\n")
    path = tmp_path / "g.flow"
    peerlib.write_pbbs_flow_graph(g, str(path))
    data = path.read_bytes()
    assert data[:8] == b"FLOWFLOW"
    words = struct.unpack("<" + "q" * ((len(data) - 8) // 8), data[8:])
    # n, m, S, T (0-based); offsets per vertex; (head, cap) grouped by tail, input order kept
    assert words == (3, 3, 0, 2, 0, 2, 3, 1, 5, 2, 4, 2, 7)


def test_pbbs_flow_graph_matches_a_plain_loop(tmp_path):
    rng = np.random.default_rng(7)
    n, m = 50, 400
    arcs = zip(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 2**40, m))
    g = Network.from_arcs(n, 3, 9, arcs)
    path = tmp_path / "g.flow"
    peerlib.write_pbbs_flow_graph(g, str(path))
    words = np.fromfile(path, dtype="<i8", offset=8)
    expected = [n, m, 3, 9]
    by_tail = [[] for _ in range(n)]
    for u, v, c in zip(g.tails.tolist(), g.heads.tolist(), g.caps.tolist()):
        by_tail[u].append((v, c))
    expected += np.cumsum([0] + [len(out) for out in by_tail[:-1]]).tolist()
    expected += [x for out in by_tail for pair in out for x in pair]
    assert words.tolist() == expected


def test_terminal_form_drops_arcs_into_s_and_out_of_t(tmp_path):
    g = load_text(tmp_path, "p max 4 8\nn 1 s\nn 4 t\na 1 2 5\na 1 2 1\na 2 1 9\na 2 4 3\n"
                            "a 4 3 8\na 3 3 2\na 1 4 6\na 2 3 4\n")
    form = peerlib.terminal_form(g)
    # inner nodes 2 -> 0 and 3 -> 1, plus one node for the s->t arc of capacity 6
    assert form.n == 3
    assert form.source_caps.tolist() == [6, 0, 6] and form.sink_caps.tolist() == [3, 0, 6]
    assert list(zip(form.arc_tails.tolist(), form.arc_heads.tolist(),
                    form.arc_caps.tolist())) == [(0, 1, 4)]
    assert form.dropped == 3


def test_terminal_form_with_the_source_and_sink_inside(tmp_path):
    # s = 3, t = 2 (1-based): inner nodes 1 -> 0, 4 -> 1, 5 -> 2; parallel s->v arcs summed
    g = load_text(tmp_path, "p max 5 7\nn 3 s\nn 2 t\na 3 4 2\na 3 4 3\na 4 5 1\na 5 2 7\n"
                            "a 1 2 9\na 2 1 4\na 5 1 8\n")
    form = peerlib.terminal_form(g)
    assert form.n == 3 and form.dropped == 1
    assert form.source_caps.tolist() == [0, 5, 0]
    assert form.sink_caps.tolist() == [9, 0, 7]
    assert list(zip(form.arc_tails.tolist(), form.arc_heads.tolist(),
                    form.arc_caps.tolist())) == [(1, 2, 1), (2, 0, 8)]


def test_bbk_layout(tmp_path):
    form = peerlib.TerminalForm(2, np.array([5, 0]), np.array([0, 7]), np.array([0]),
                                np.array([1]), np.array([3]), 0)
    path = tmp_path / "g.bbk"
    peerlib.write_bbk(form, str(path))
    data = path.read_bytes()
    assert data[:5] == b"BBQ\x05\x07"
    assert struct.unpack_from("<3Q", data, 5) == (2, 2, 1)
    assert struct.unpack_from("<Qqq Qqq", data, 29) == (0, 5, 0, 1, 0, 7)
    assert struct.unpack_from("<QQii", data, 77) == (0, 1, 3, 0)
    assert len(data) == 101


def test_bbk_refuses_a_64_bit_arc_capacity(tmp_path):
    form = peerlib.TerminalForm(2, np.array([5, 0]), np.array([0, 7]), np.array([0]),
                                np.array([1]), np.array([2**31]), 0)
    with pytest.raises(peerlib.OutOfRange):
        peerlib.write_bbk(form, str(tmp_path / "g.bbk"))


def test_hpf_parses_pbbs_output(tmp_path):
    program = fake(tmp_path, "assert open(sys.argv[1],'rb').read(8) == b'FLOWFLOW'\n"
                             "print('reading time: 0.1\\nPBBS-time: 0.25\\nflow=23')")
    done = run("hpf.py", "--program", program, instance(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "c flow: 23" and lines[1] == "c cut tm: 0.250000"
    assert lines[2].startswith("c convert tm: ")


def test_stdin_and_threads(tmp_path):
    program = fake(tmp_path, "import os\n"
                             "print('PBBS-time: 1\\nflow=' + os.environ['OMP_NUM_THREADS'])")
    done = run("syncpar.py", "--program", program, "--threads", "7", stdin=CLRS)
    assert done.returncode == 0, done.stderr
    assert "c flow: 7" in done.stdout


def test_eibfs_passes_algorithm_and_bbk(tmp_path):
    program = fake(tmp_path, "assert sys.argv[1] == 'eibfs_i'\n"
                             "assert open(sys.argv[2],'rb').read(3) == b'BBQ'\n"
                             "print('c flow: 23\\nc init tm: 0.5\\nc cut tm: 0.125')")
    done = run("eibfs.py", "--program", program, "--algo", "eibfs_i", instance(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "c cut tm: 0.125000" in done.stdout and "c init tm: 0.500000" in done.stdout


def test_a_conversion_is_kept_in_the_instance_folder_bench_names(tmp_path, monkeypatch):
    """Under `maxflow bench` (MAXFLOW_INSTANCE_CACHE) an instance is converted once; a new
    file (another size or modification time) is converted again; elsewhere, every time."""
    calls = []

    def convert(graph, path):
        calls.append(path)
        Path(path).write_text(str(graph.m))

    work, folder, file = tmp_path / "work", tmp_path / "cache", instance(tmp_path)
    work.mkdir()
    path, _ = peerlib.converted(file, str(work), "g.txt", convert)
    assert Path(path).parent == work and len(calls) == 1
    folder.mkdir()
    monkeypatch.setenv(peerlib.INSTANCE_CACHE, str(folder))
    kept = [peerlib.converted(file, str(work), "g.txt", convert)[0] for _ in range(3)]
    assert len(set(kept)) == 1 and Path(kept[0]).parent == folder and len(calls) == 2
    assert Path(kept[0]).read_text() == "10" and sorted(os.listdir(folder)) == [
        Path(kept[0]).name]
    instance(tmp_path, CLRS.replace("a 5 6 4\n", "a 5 6 4\na 5 6 1\n").replace(
        "p max 6 10", "p max 6 11"))  # the same path, rewritten
    again, _ = peerlib.converted(file, str(work), "g.txt", convert)
    assert again != kept[0] and Path(again).read_text() == "11" and len(calls) == 3
    assert peerlib.converted(file, str(work), "other.txt", convert)[0] not in (kept[0], again)


def test_a_refused_conversion_leaves_nothing_in_the_instance_folder(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv(peerlib.INSTANCE_CACHE, str(folder))
    text = "p max 4 4\nn 1 s\nn 4 t\na 1 2 2000000000\na 1 3 2000000000\na 2 4 5\na 3 4 5\n"
    program = fake(tmp_path, "raise SystemExit('must not run')")
    for _ in range(2):
        done = subprocess.run([sys.executable, str(PEERS / "hpf.py"), "--program", program,
                               instance(tmp_path, text)], capture_output=True, text=True,
                              env=os.environ | {peerlib.INSTANCE_CACHE: str(folder)})
        assert done.returncode == 2 and "2^31-1" in done.stderr
    assert os.listdir(folder) == []


def test_wbpr_parses_kernel_time(tmp_path):
    program = fake(tmp_path, "assert sys.argv[1:4] == ['-v', '2', '-f']\n"
                             "print('Total kernel time: 12.5 ms')\n"
                             "print('The maximum flow value of this flow network as calculated "
                             "by the parallel implementation is 23, 29')")
    done = run("wbpr.py", "--program", program, instance(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["c flow: 23", "c cut tm: 0.012500"]


@pytest.mark.parametrize("adapter", ["hpf.py", "wbpr.py"])
def test_int32_refusal(tmp_path, adapter):
    program = fake(tmp_path, "raise SystemExit('must not run')")
    text = "p max 4 4\nn 1 s\nn 4 t\na 1 2 2000000000\na 1 3 2000000000\na 2 4 5\na 3 4 5\n"
    done = run(adapter, "--program", program, instance(tmp_path, text))
    assert done.returncode == 2
    assert "2^31-1" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_eibfs_takes_a_64_bit_terminal_arc_and_refuses_a_64_bit_inner_one(tmp_path):
    """Terminal arcs become the .bbk's int64 terminal capacities; inner arcs stay int32."""
    program = fake(tmp_path, "print('c flow: 10\\nc init tm: 0\\nc cut tm: 0')")
    text = "p max 4 4\nn 1 s\nn 4 t\na 1 2 3000000000\na 1 3 5\na 2 4 5\na 3 4 5\n"
    done = run("eibfs.py", "--program", program, instance(tmp_path, text))
    assert done.returncode == 0, done.stderr
    inner = text.replace("p max 4 4", "p max 4 5") + "a 2 3 3000000000\n"
    done = run("eibfs.py", "--program", program, instance(tmp_path, inner))
    assert done.returncode == 2 and "2^31-1" in done.stderr


def test_capacity_refusal_only_for_64_bit_flows(tmp_path):
    program = fake(tmp_path, "print('PBBS-time: 1\\nflow=10')")
    text = "p max 4 4\nn 1 s\nn 4 t\na 1 2 2000000000\na 1 3 2000000000\na 2 4 5\na 3 4 5\n"
    assert run("syncpar.py", "--program", program, instance(tmp_path, text)).returncode == 0
    text = text.replace("2000000000", "3000000000", 1)
    assert run("syncpar.py", "--program", program, instance(tmp_path, text)).returncode == 2


def test_failing_peer(tmp_path):
    program = fake(tmp_path, "print('partial'); sys.stderr.write('boom\\n'); sys.exit(3)")
    done = run("hpf.py", "--program", program, instance(tmp_path))
    assert done.returncode == 1
    assert "exited with status 3: boom" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_peer_without_value(tmp_path):
    program = fake(tmp_path, "print('PBBS-time: 1')")
    done = run("hpf.py", "--program", program, instance(tmp_path))
    assert done.returncode == 1 and "no 'flow=' line" in done.stderr


def test_missing_program(tmp_path):
    done = run("eibfs.py", "--program", os.path.join(tmp_path, "absent"), instance(tmp_path))
    assert done.returncode == 1 and "cannot start" in done.stderr


def test_bk_adapter():
    pytest.importorskip("maxflow")
    done = run("bk.py", stdin=CLRS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "c flow: 23"


def test_malformed_instance(tmp_path):
    program = fake(tmp_path, "raise SystemExit('must not run')")
    done = run("hpf.py", "--program", program, instance(tmp_path, "p max 2 1\nn 1 s\na 1 2 5\n"))
    assert done.returncode == 1
    assert "no sink ('n ID t') line" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_compressed_instance_to_eibfs_and_wbpr(tmp_path):
    path = tmp_path / "g.max.gz"
    path.write_bytes(gzip.compress(CLRS.encode()))
    program = fake(tmp_path, "data = open(sys.argv[2],'rb').read()\n"
                             "assert data[:3] == b'BBQ' and len(data) == 29 + 4 * 24 + 6 * 24\n"
                             "print('c flow: 23\\nc init tm: 0\\nc cut tm: 0')")
    done = run("eibfs.py", "--program", program, str(path))
    assert done.returncode == 0, done.stderr
    # wbpr reads plain text only: a compressed instance is written out plain
    program = fake(tmp_path, "text = open(sys.argv[4]).read()\n"
                             "assert text.startswith('p max 6 10\\nn 1 s\\nn 6 t\\na 1 2 16\\n')\n"
                             "print('Total kernel time: 1 ms')\n"
                             "print('The maximum flow value of this flow network as calculated "
                             "by the parallel implementation is 23, 29')")
    done = run("wbpr.py", "--program", program, str(path))
    assert done.returncode == 0, done.stderr
    done = run("wbpr.py", "--program", program, stdin=CLRS)
    assert done.returncode == 0, done.stderr
