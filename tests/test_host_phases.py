"""scripts/host_phases.py, the README's measure of gpu-sync's host memory by phase, runs on a
small instance and reports every phase."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "host_phases.py"


def test_host_phases_reports_each_phase_of_a_small_instance():
    run = subprocess.run([sys.executable, str(SCRIPT), "washington-rlg:rows=8,levels=8,seed=2"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["m"] > 0 and report["residuals"] == "uint16"  # capacities of the default
    phases = report["host_bytes"]
    assert list(phases) == ["compile", "read", "build", "solve", "check"]
    assert all(size > 0 for size in phases.values())
