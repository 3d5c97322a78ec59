#!/usr/bin/env bash
# The Python environment of the build: a virtual environment at $1 with the
# packages of python/requirements-test.txt (PyPI). Prints its interpreter.
# Kept between builds; refreshed when the requirements file changes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$1"
req="$root/python/requirements-test.txt"
py="${BALSA_PYTHON_INTERPRETER:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv" >&2 || {
    echo "balsa: error: cannot create a Python virtual environment with $py (Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
if ! cmp -s "$req" "$venv/.requirements"; then
  echo "balsa: installing the Python tooling into $venv (python/requirements-test.txt)" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
  cp "$req" "$venv/.requirements"
fi
echo "$venv/bin/python"
