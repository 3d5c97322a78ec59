#!/usr/bin/env bash
# Bundle the library packages of deps/debian-packages.txt (not the build
# tools, which the GPU host has) into .gpu-deps/ for a GPU host without a
# package registry; there, `source .gpu-deps/env.sh` (scripts/gpu-host.sh does).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fetch="${BALSA_FETCH_DEBS:-$root/../shared/gpu/fetch-debs.sh}"
mapfile -t libs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' deps/debian-packages.txt | grep -v '^$' |
                    grep -Ev '^(cmake|ninja-build|g\+\+)$')
"$fetch" "${libs[@]}"
