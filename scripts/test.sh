#!/usr/bin/env bash
# Quick start 2: set up, build, and run the tests. GPU tests (label `gpu`)
# report "skipped" where there is no GPU. Extra arguments go to ctest
# (e.g. -L gpu).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${BALSA_BUILD_DIR:-$root/build}")"
"$root/scripts/build.sh"
jobs="$(nproc 2>/dev/null || echo 2)"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
