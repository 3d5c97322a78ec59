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
outdir="${OUT:-/tmp}"
step "ctest -L gpu"; ctest --test-dir $build -L gpu --output-on-failure -j 4 >"$outdir/ctest-gpu.log" 2>&1; echo "exit $?"
grep -E "tests passed|Failed|Not Run" "$outdir/ctest-gpu.log"
step "ctest (all)"; ctest --test-dir $build --output-on-failure -j 16 >"$outdir/ctest-all.log" 2>&1; echo "exit $?"
grep -E "tests passed|Failed|Not Run" "$outdir/ctest-all.log"
# The out-of-memory test fails a cudaMalloc on purpose; memcheck would count it.
# Racecheck runs twice: on balsa's kernels only (cuSPARSE's excluded), which
# must be clean, and on everything, to record what vendor kernels report.
sanitize() {  # tool label extra-args...
  local tool=$1 label=$2; shift 2
  for t in $build/tests/gpu_*_test; do
    local name; name="$(basename "$t")"
    step "compute-sanitizer --tool $tool $* $name"
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" "$t" --gtest_brief=1 \
      --gtest_filter=-GpuErrors.OutOfMemoryIsAClearError >"$outdir/$label-$name.log" 2>&1
    echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED" "$outdir/$label-$name.log"
    grep -E "^========= +(Invalid|Error|Program hit)" "$outdir/$label-$name.log" | sed -E 's/\+0x[0-9a-f]+//' |
      cut -c1-160 | sort | uniq -c | sort -rn | head -5
  done
}
sanitize memcheck memcheck
sanitize racecheck racecheck-balsa --kernel-name-exclude kns=cusparse
sanitize racecheck racecheck-all
step "ncu: balsa's SpMV kernel (27-point Laplacian 40^3 and random shapes, double)"
ncu --clock-control none --kernel-name regex:spmv_csr_kernel --launch-count 4 --section SpeedOfLight \
  $build/tests/gpu_cuda_test --gtest_filter='GpuTyped/1.SpmvMatchesCpuOnRandomShapes' >"$outdir/ncu-spmv.log" 2>&1
echo "exit $?"; grep -E "spmv_csr_kernel|Memory Throughput|DRAM Throughput|Duration|Compute \(SM\)" "$outdir/ncu-spmv.log" | head -24
step "balsa run (default job)"; $build/balsa run
step "balsa run --precision float"; $build/balsa run --precision float
step "reader speed"
$build/balsa gen laplace3d --nx 150 -o /tmp/lap150.mtx && ls -l /tmp/lap150.mtx && $build/balsa info /tmp/lap150.mtx | head -3
$build/balsa gen random-spd -n 2000000 --per-row 6 -o /tmp/spd2m.mtx && ls -l /tmp/spd2m.mtx && $build/balsa info /tmp/spd2m.mtx | head -3
