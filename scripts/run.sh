#!/usr/bin/env bash
# Quick start 1: set up, build, and run the main job on the built-in default
# problem (GPU when present, CPU otherwise). Extra arguments go to `balsa run`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
exec "${BALSA_BUILD_DIR:-$root/build}/balsa" run "$@"
