#!/usr/bin/env bash
# One call on the GPU host (no package registry there): unpack the bundled
# Debian dependencies, build for sm_90, run the GPU tests, compute-sanitizer
# (memcheck, racecheck) on them, the main job, and the reader's speed.
# Bundle first, on the development machine: ../shared/gpu/fetch-debs.sh
# Output goes to stdout and, when $OUT is set, to $OUT/gpu-host.log.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log="${OUT:-/tmp}/gpu-host.log"
exec > >(tee "$log") 2>&1
# shellcheck disable=SC1091
source .gpu-deps/env.sh
build=build-gpu
step() { echo; echo "=== $*"; }
step "device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
step "configure and build (sm_90)"
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" >/dev/null &&
  cmake --build $build -j 16 2>&1 | tail -3 || { echo "BUILD FAILED"; exit 1; }
step "ctest -L gpu"; ctest --test-dir $build -L gpu --output-on-failure -j 4 2>&1 | tail -15
step "ctest (all)"; ctest --test-dir $build --output-on-failure -j 16 2>&1 | tail -6
for tool in memcheck racecheck; do
  for t in $build/tests/gpu_*_test; do
    step "compute-sanitizer --tool $tool $(basename "$t")"
    compute-sanitizer --tool $tool --error-exitcode 9 "$t" --gtest_brief=1 2>&1 | tail -4; echo "exit ${PIPESTATUS[0]}"
  done
done
step "balsa run (default job)"; $build/balsa run
step "balsa run --precision float"; $build/balsa run --precision float
step "reader speed"
$build/balsa gen laplace3d --nx 150 -o /tmp/lap150.mtx && ls -l /tmp/lap150.mtx && $build/balsa info /tmp/lap150.mtx | head -3
$build/balsa gen random-spd -n 2000000 --per-row 6 -o /tmp/spd2m.mtx && ls -l /tmp/spd2m.mtx && $build/balsa info /tmp/spd2m.mtx | head -3
