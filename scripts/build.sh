#!/usr/bin/env bash
# Install missing Debian dependencies, configure and build balsa.
#   BALSA_BUILD_DIR (default: build)   BALSA_CMAKE_ARGS (extra cmake arguments)
# CUDA is used when nvcc is found (on PATH or in /usr/local/cuda/bin).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BALSA_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
jobs="$(nproc 2>/dev/null || echo 2)"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${BALSA_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
