"""Every examples/*.py script runs on the CPU and exits 0 (each checks its
own answer and exits non-zero when the check fails)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_"))


def test_there_is_one_script_per_capability():
    names = {p.stem for p in SCRIPTS}
    assert {"trsv", "krylov", "solve", "banded", "lstsq", "linprog", "gpu_cupy"} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=dict(os.environ), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
