#!/usr/bin/env bash
# Install missing Debian dependencies, configure and build balsa.
#   BALSA_BUILD_DIR (default: build)   BALSA_CMAKE_ARGS (extra cmake arguments)
# CUDA is used when nvcc is found (on PATH or in /usr/local/cuda/bin).
# The Python extension and its tests come with it: their tools (PyPI) go into
# a virtual environment in the build folder (scripts/python-env.sh);
# BALSA_PYTHON=0 builds without them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${BALSA_BUILD_DIR:-$root/build}")"  # absolute: the Python interpreter path must be
# one CMake can run from anywhere (a relative BALSA_BUILD_DIR is from the current directory)
"$root/scripts/install-deps.sh"
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
jobs="$(nproc 2>/dev/null || echo 2)"
python_args=(-DBALSA_PYTHON=OFF)
if [ "${BALSA_PYTHON:-1}" != 0 ]; then
  python="$("$root/scripts/python-env.sh" "$build/python-env")"
  python_args=(-DBALSA_PYTHON=ON "-DPython_EXECUTABLE=$python")
fi
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${python_args[@]}" ${BALSA_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
