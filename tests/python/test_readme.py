"""The SciPy user script of README.md's "Python" section runs as written
(from the repository root) and its residuals are small."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_script():
    text = (ROOT / "README.md").read_text()
    start = text.index("```python", text.index("## Quick start: Python")) + len("```python\n")
    return text[start:text.index("```", start)]


def test_readme_python_script_runs():
    done = subprocess.run([sys.executable, "-c", readme_script()], cwd=ROOT, env=dict(os.environ),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split()
    assert float(lines[0]) <= 1e-8  # balsa.solve's relative residual
    assert float(lines[-1]) <= 1e-8  # PCG's true residual
