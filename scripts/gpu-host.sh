#!/usr/bin/env bash
# One call on the GPU host (no package registry there). Stages:
#   scripts/gpu-host.sh tests   build (sm_90), GPU tests, all tests,
#                               compute-sanitizer memcheck + racecheck, balsa run
#   scripts/gpu-host.sh racecheck  build, racecheck on small cases of the trsv kernels
#   scripts/gpu-host.sh bench   build, balsa-bench trsv (default suite) [extra args]
#   scripts/gpu-host.sh all     both
#   scripts/gpu-host.sh sparse  build, balsa-bench sparse [extra args]
#   scripts/gpu-host.sh quick   build, ctest -L gpu, then the bench [extra args] (no sanitizers)
#   scripts/gpu-host.sh qr [bench args]  build, the QR tests (CPU and GPU), memcheck and
#                               racecheck of gpu_qr_test, then balsa-bench qr --fronts and
#                               balsa-bench qr [bench args]
#   scripts/gpu-host.sh sequence [bench args]  build, the trsv/TASSL tests (CPU
#                               and GPU), memcheck and racecheck of
#                               gpu_trsv_update_test, balsa-bench sequence [args]
#   scripts/gpu-host.sh lp [bench args]  build, the LP tests (CPU and GPU), memcheck
#                               of gpu_lp_test, HiGHS on .lp-data, balsa-bench lp [args]
#   scripts/gpu-host.sh python [vs-cupy args]  build with the Python extension
#                               (the host's python3: nanobind, CuPy, pytest),
#                               the Python tests (CPU and GPU), the stream tests
#                               with memcheck and racecheck, every GPU test, then
#                               bench/python_overhead.py and bench/python_vs_cupy.py
#   scripts/gpu-host.sh answer  build with the Python extension, the tests of
#                               balsa::solve, DirectSolver and the Krylov solvers
#                               (CPU and GPU) and the Python ones (memcheck of
#                               gpu_sparse_solve_test with ANSWER_SANITIZE=1),
#                               then time to the answer: balsa run auto against
#                               the presets in ANSWER_METHODS (default: cg; 3 runs
#                               each, GPU and CPU), bench sparse (balsa only) on the
#                               >= 1e6-row systems, Python balsa.solve against CuPy's cg
#   scripts/gpu-host.sh compare OLD [run|cases]  against another source tree OLD
#                               (e.g. `git archive` of an earlier commit): its
#                               balsa built beside this one, then balsa run three
#                               times and balsa-bench trsv on the default suite
#                               (double; COMPARE_CASES: groups 0-7) case by case,
#                               the two builds alternating on the same GPU
#   scripts/gpu-host.sh chains [bench args]  build, the triangular-solve tests (CPU
#                               and GPU), memcheck and racecheck of
#                               gpu_trsv_spike_test, balsa-bench trsv [args]
#   scripts/gpu-host.sh krylov [FILES...]  build, ctest -L gpu, balsa-bench solve
#                               on the 3D Laplacians and on FILES (symmetric:
#                               pcg-ic0, pcg-chebyshev, cg), balsa-bench setup,
#                               then the four sanitizers on the Chebyshev and
#                               device level-set kernels
#   scripts/gpu-host.sh krylov-final [FILES...]  build, ctest -L gpu, the streams
#                               test twice alone, balsa-bench solve (GPU only) on
#                               the 3D Laplacians and FILES, balsa run (auto),
#                               memcheck and racecheck of the Chebyshev and
#                               device-matrix tests
#   scripts/gpu-host.sh ecosystem  build with the Python extension, ctest -L gpu,
#                               ctest -L python (CuPy tests included)
#   scripts/gpu-host.sh ecosystem-final [bench args]  build, the four sanitizers
#                               on the GMRES/MINRES and device-operator tests,
#                               bench/scipy_way_bench.py (against cupyx, SciPy)
#   scripts/gpu-host.sh multigpu [banded bench args]  (issue 42) build with the
#                               Python extension, GPU topology, ctest -L gpu and the
#                               Python tests, the four sanitizers on the multi-device
#                               SaP and standalone preconditioner tests, balsa-bench
#                               precond (a PETSc rank's block), then balsa-bench banded
#                               --devices over every GPU (MULTIGPU_N, MULTIGPU_K) and
#                               balsa solve --method sap-d/sap-c on MULTIGPU_SPARSE
#                               (a generated system) with 1 and all GPUs
#   scripts/gpu-host.sh kernel NAMES [bench args]
#                               build, ctest -L gpu, memcheck and racecheck of
#                               gpu_trsv_algorithms_test restricted to the
#                               comma-separated algorithm NAMES (its
#                               BALSA_TEST_ALGORITHMS), then the bench [args]
# Bundle the Debian libraries first, on the development machine:
# scripts/gpu-bundle.sh. Logs and results go to $OUT (or /tmp).
set -uo pipefail
stage="${1:-all}"; shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
outdir="${OUT:-/tmp}"
exec > >(tee "$outdir/gpu-host-$stage.log") 2>&1
# shellcheck disable=SC1091
source .gpu-deps/env.sh
# HiGHS (highspy) for scripts/lp-highs.py, `balsa-bench lp`'s second baseline:
# when python3 cannot import it, the wheel bundled by scripts/gpu-bundle.sh
# (.gpu-deps/wheels), into site-packages if writable, else into $pydir (on PYTHONPATH).
pydir=/tmp/balsa-python
on_pythonpath() { [[ ":${PYTHONPATH:-}:" == *":$pydir:"* ]] || export PYTHONPATH="$pydir${PYTHONPATH:+:$PYTHONPATH}"; }
[ -d "$pydir/highspy" ] && on_pythonpath
if ! python3 -c 'import highspy' 2>/dev/null; then
  pipi=(env PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check --no-index --no-deps
        --no-compile --no-cache-dir --find-links .gpu-deps/wheels)
  if python3 -c 'import os, sys, sysconfig; sys.exit(not os.access(sysconfig.get_paths()["purelib"], os.W_OK))'; then
    "${pipi[@]}" highspy
  else
    "${pipi[@]}" --upgrade --target "$pydir" highspy && on_pythonpath
  fi || echo "warning: highspy not installed (no wheel for $(python3 -V 2>&1) in .gpu-deps/wheels?)"
fi
build=build-gpu
step() { echo; echo "=== $*"; }
step "device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
if [ "$stage" = compare ]; then  # the other tree builds beside this one
  old="$1"
  (cmake -S "$old" -B "$old/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real" \
     -DBALSA_BUILD_TESTS=OFF >/dev/null && cmake --build "$old/build-gpu" -j 8 --target balsa_cli >"$outdir/old-build.log" 2>&1 &&
     { cmake --build "$old/build-gpu" -j 8 --target balsa_bench_cli >>"$outdir/old-build.log" 2>&1 || true; }) &
  old_build=$!
fi
step "configure and build (sm_90)"
python_args=()
# The extension is a shared module: the bundle's libz.a is not position
# independent (and its libz.so points at a path the host lacks): the host's libz.so.1.
case "$stage" in python | answer | ecosystem* | multigpu) python_args=(-DBALSA_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)"
  "-DZLIB_LIBRARY_RELEASE=$(ls /lib/x86_64-linux-gnu/libz.so.1 /usr/lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1)") ;;
esac
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  "${python_args[@]}" >/dev/null &&
  cmake --build $build -j 16 2>&1 | grep -E "error|warning|Linking CXX executable balsa$" || true
[ -x $build/balsa ] || { echo "BUILD FAILED"; exit 1; }

run_gpu_tests() {
  step "ctest -L gpu"; ctest --test-dir $build -L gpu --output-on-failure -j 4 --timeout 300 >"$outdir/ctest-gpu.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout" "$outdir/ctest-gpu.log" | head -30
}

run_tests() {
  run_gpu_tests
  step "ctest (all)"; ctest --test-dir $build --output-on-failure -j 16 --timeout 300 >"$outdir/ctest-all.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout" "$outdir/ctest-all.log" | head -30
  # The out-of-memory test fails a cudaMalloc on purpose; memcheck would count it.
  # Racecheck (run_racecheck below: small cases, the full programs take too
  # long under it) covers balsa's kernels (cuSPARSE's excluded: its csrmv kernel
  # reports hazards of its own, recorded in bench/results/2026-11-22-foundation.md).
  for tool in memcheck; do
    for t in $build/tests/gpu_*_test; do
      step "compute-sanitizer --tool $tool $(basename "$t")"
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name-exclude kns=cusparse "$t" \
        --gtest_brief=1 --gtest_filter=-GpuErrors.OutOfMemoryIsAClearError >"$outdir/sanitizer.tmp" 2>&1
      echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED" "$outdir/sanitizer.tmp"
      grep -E "^========= +(Invalid|Error|Program hit)" "$outdir/sanitizer.tmp" | sed -E 's/\+0x[0-9a-f]+//' |
        cut -c1-160 | sort | uniq -c | sort -rn | head -5
      { echo "### $tool $(basename "$t")"; cat "$outdir/sanitizer.tmp"; } >>"$outdir/sanitizer.log"
    done
  done
  rm -f "$outdir/sanitizer.tmp"
  run_racecheck
  step "balsa run (default job)"; $build/balsa run
  step "balsa run --precision float"; $build/balsa run --precision float
}

# Racecheck slows the spinning sync-free kernels by orders of magnitude: small
# cases only, and a watchdog long enough not to fire (BALSA_TEST_WATCHDOG_MS).
run_racecheck() {
  export BALSA_TEST_WATCHDOG_MS=600000
  for spec in "gpu_trsv_algorithms_test:*StarTwoLevels*:*BlockDiagonal*:*OneByOneAndEmpty*:*0.Laplacian3d*:*0.Chain*" \
              "gpu_trsv_solver_test:*BadInputIsNamedOnTheGpuPath*"; do
    t="${spec%%:*}"; filter="${spec#*:}"
    step "compute-sanitizer --tool racecheck $t --gtest_filter=$filter"
    timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name-exclude kns=cusparse \
      "$build/tests/$t" --gtest_brief=1 --gtest_filter="$filter" >"$outdir/racecheck.tmp" 2>&1
    echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED|Race reported" "$outdir/racecheck.tmp" | sort | uniq -c | head
    { echo "### racecheck $t $filter"; cat "$outdir/racecheck.tmp"; } >>"$outdir/racecheck.log"
  done
  rm -f "$outdir/racecheck.tmp"
}

run_bench() {
  step "balsa-bench trsv $*"
  $build/balsa-bench trsv --data-dir tests/data --json "$outdir/bench-trsv.json" --markdown "$outdir/bench-trsv.md" "$@"
  echo "exit $?"
}

# Issue 28: the spike solver's tests and sanitizers, then bench trsv [args].
run_chains() {
  step "ctest -R Trsv|Spike|Tassl"; ctest --test-dir $build -R "Trsv|Spike|Tassl|trsv" --output-on-failure -j 4 \
    --timeout 300 >"$outdir/ctest-chains.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout" "$outdir/ctest-chains.log" | head -30
  for tool in memcheck racecheck; do
    local filter='*'; [ $tool = racecheck ] && filter='*DeviceValueUpdates*:*Tiny*'
    step "compute-sanitizer --tool $tool gpu_trsv_spike_test --gtest_filter=$filter"
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name-exclude kns=cusparse \
      $build/tests/gpu_trsv_spike_test --gtest_brief=1 --gtest_filter="$filter" >"$outdir/sanitizer.tmp" 2>&1
    echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED|Race reported" "$outdir/sanitizer.tmp" | sort | uniq -c | head
    { echo "### $tool gpu_trsv_spike_test"; cat "$outdir/sanitizer.tmp"; } >>"$outdir/sanitizer.log"
  done
  rm -f "$outdir/sanitizer.tmp"
  run_bench "$@"
}

# memcheck (every test) and racecheck (generated cases) of the named variants.
run_kernel_sanitizers() {
  export BALSA_TEST_ALGORITHMS="$1" BALSA_TEST_WATCHDOG_MS=600000
  local t=$build/tests/gpu_trsv_algorithms_test
  for tool in memcheck racecheck; do
    local filter='*'; [ $tool = racecheck ] && filter='*StarTwoLevels*:*Chain*:*BlockDiagonal*:*OneByOne*:*RandomBanded*'
    step "compute-sanitizer --tool $tool $(basename "$t") (BALSA_TEST_ALGORITHMS=$1, filter $filter)"
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --gtest_brief=1 --gtest_filter="$filter" \
      >"$outdir/sanitizer.tmp" 2>&1
    echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED|Race reported" "$outdir/sanitizer.tmp" | sort | uniq -c | head
    { echo "### $tool $1"; cat "$outdir/sanitizer.tmp"; } >>"$outdir/sanitizer.log"
  done
  rm -f "$outdir/sanitizer.tmp"
  unset BALSA_TEST_ALGORITHMS
}

# balsa-bench sparse (issue 23): balsa::solve beside UMFPACK and SuperLU on
# the host's cores; [extra args], e.g. --suite real. The real matrices:
# SPARSE_DATA_DIR, else tests/data (a missing folder is an error).
run_sparse() {
  step "balsa-bench sparse $*"
  $build/balsa-bench sparse --data-dir "${SPARSE_DATA_DIR:-tests/data}" --json "$outdir/bench-sparse.json" \
    --markdown "$outdir/bench-sparse.md" "$@"
  echo "exit $?"
}

# Same GPU, same session: the binaries alternate so drift hits both.
run_compare() {
  local old="$1/build-gpu/balsa" new="$build/balsa"
  wait "$old_build"  # (a bare wait would wait for the log's tee too)
  [ -x "$old" ] || { echo "OLD BUILD FAILED"; tail -20 "$outdir/old-build.log"; return 1; }
  local part="${2:-all}"
  if [ "$part" = all ] || [ "$part" = run ]; then
    for i in 1 2 3; do
      for who in old new; do
        local b=$old; [ $who = new ] && b=$new
        step "$who: balsa run ($i)"; timeout 60 $b run 2>&1 | tail -12
      done
    done
  fi
  # balsa-bench trsv on the default suite (double), case by case, the two
  # builds alternating; COMPARE_CASES picks groups (1-8: the generated cases,
  # real: the matrices of tests/data). bench/compare_trsv_runs.py sums up.
  local -a groups=(lap2d-5pt lap3d-7pt lap3d-27pt banded-1000000 banded-4000000 blockdiag-16x blockdiag-512x
    Franz6,Pd,arrow,bayer10,bcsstk13,cryg2500,dwt_992,hangGlider_2,jagmesh7,lp_e226,nnc1374,olm1000,rajat01,temp,watt_2,west0479,zenios)
  [ "$part" = run ] && return 0
  for g in ${COMPARE_CASES:-0 1 2 3 4 5 6 7}; do
    for who in old new; do
      local b=$old; [ $who = new ] && b=$new
      # balsa-bench beside balsa; an older tree's balsa has the benchmarks as `balsa bench`.
      local bb="$(dirname "$b")/balsa-bench"; [ -x "$bb" ] || bb="$b bench"
      step "$who: trsv ${groups[$g]:0:40}"
      $bb trsv --only "${groups[$g]}" --precision double --repeat ${COMPARE_REPEAT:-10} --cpu-repeat 3 \
        --data-dir tests/data --json "$outdir/compare-$who-$g.json" >"$outdir/compare-$who-$g.txt" 2>&1
      echo "exit $?"
    done
  done
  step "old against new (bench/compare_trsv_runs.py)"
  python3 bench/compare_trsv_runs.py "$outdir"/compare-old-*.json -- "$outdir"/compare-new-*.json | tail -40
}

# compute-sanitizer TOOL on tests/TEST restricted to gtest FILTER, at most
# SECONDS: its summary lines here, the whole output appended to sanitizer.log.
sanitize() {
  local tool="$1" test="$2" filter="$3" seconds="$4"
  step "compute-sanitizer --tool $tool $test ($filter)"
  # cuSPARSE's csrmv kernel reports hazards of its own (bench/results/2026-11-22-foundation.md).
  timeout "$seconds" compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name-exclude kns=cusparse \
    "$build/tests/$test" --gtest_brief=1 \
    --gtest_filter="$filter" >"$outdir/sanitizer.tmp" 2>&1
  echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED|Race reported" "$outdir/sanitizer.tmp" | sort | uniq -c | head
  { echo "### $tool $test"; cat "$outdir/sanitizer.tmp"; } >>"$outdir/sanitizer.log"
  rm -f "$outdir/sanitizer.tmp"
}

# Multifrontal QR on the GPU (issue 24): tests, sanitizers, the front-class
# comparison and the bench against SPQR.
run_qr() {
  step "QR tests"
  ctest --test-dir $build -R "Qr|QR|Bucket|GpuPlan|cli.qr|cli.lsq" --output-on-failure -j 8 --timeout 600 >"$outdir/ctest-qr.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout|\*\*\*" "$outdir/ctest-qr.log" | head -30
  sanitize memcheck gpu_qr_test 'GpuQr.TaskKernel*:GpuQr.Wide*:GpuQr.Dead*' 400
  sanitize racecheck gpu_qr_test 'GpuQr.LaunchByLaunch*' 400
  step "balsa-bench qr --fronts"
  $build/balsa-bench qr --fronts --json "$outdir/bench-qr-fronts.json" --markdown "$outdir/bench-qr-fronts.md"
  echo "exit $?"; cat "$outdir/bench-qr-fronts.md" | grep "^|"
  step "balsa-bench qr $*"
  $build/balsa-bench qr --suite-dir .bench-data --json "$outdir/bench-qr.json" --markdown "$outdir/bench-qr.md" "$@"
  echo "exit $?"; grep "^|" "$outdir/bench-qr.md"
}

# Incremental TASSL analysis (issue 25, thesis ch. 6): the trsv tests (CPU
# and GPU), memcheck and racecheck of the GPU update test, then the bench.
run_sequence() {
  step "trsv and TASSL tests"
  ctest --test-dir $build -R "Trsv|Tassl|trsv|tassl|Generator" --output-on-failure -j 8 --timeout 600 \
    >"$outdir/ctest-sequence.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout|\*\*\*Failed" "$outdir/ctest-sequence.log" | head -30
  for tool in memcheck racecheck; do sanitize $tool gpu_trsv_update_test '*/1.RealMatrixTriangles' 200; done
  step "balsa-bench sequence $*"
  $build/balsa-bench sequence --json "$outdir/bench-sequence.json" --markdown "$outdir/bench-sequence.md" "$@"
  echo "exit $?"; grep -E "^\||^Mean" "$outdir/bench-sequence.md"
}

# Linear programming (issue 26, thesis ch. 7): the LP tests (CPU and GPU),
# memcheck of the GPU basis solves, HiGHS on every LP (scripts/lp-highs.py),
# then balsa-bench lp against CLP with HiGHS' results beside. The LPs: a copy
# of shared/data/lp carried as .lp-data (LP_DIR overrides).
run_lp() {
  local dir="${LP_DIR:-.lp-data}"
  step "LP tests"
  ctest --test-dir $build -R "Lp|lp|Mps|mps|info" --output-on-failure -j 8 --timeout 600 >"$outdir/ctest-lp.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout|\*\*\*Failed" "$outdir/ctest-lp.log" | head -30
  for tool in memcheck racecheck; do sanitize $tool gpu_lp_test 'LpGpu.BasisSolves*' 400; done
  [ -n "${LP_SKIP_HIGHS:-}" ] && [ -f "$outdir/highs.json" ] || {
  step "HiGHS (scripts/lp-highs.py)"
  python3 scripts/lp-highs.py --repeat "${LP_REPEAT:-3}" --json "$outdir/highs.json" "$dir"/*.mps.gz "$dir"/infeasible/*.mps.gz \
    >"$outdir/highs.txt" 2>&1
  echo "exit $?"; tail -3 "$outdir/highs.txt"
  }
  step "balsa-bench lp --dir $dir $*"
  $build/balsa-bench lp --dir "$dir" --highs-json "$outdir/highs.json" --json "$outdir/bench-lp.json" \
    --markdown "$outdir/bench-lp.md" "$@"
  echo "exit $?"; grep -E "^\||^Status" "$outdir/bench-lp.md" | tail -90
}

# The Python package (issue 27): its tests from the build tree, the streams'
# tests under the sanitizers, every GPU test, the overhead and CuPy benchmarks.
run_python() {
  local pp="$root/python:$root/$build/python"
  step "ctest -L python"
  ctest --test-dir $build -L python --output-on-failure -j 4 --timeout 600 >"$outdir/ctest-python.log" 2>&1
  echo "exit $?"; grep -E "tests passed|Failed|Not Run|Timeout|passed|failed|skipped" "$outdir/ctest-python.log" | head -30
  # The legacy-stream test times the work against a blocked legacy stream:
  # the sanitizers serialise every stream, so it runs outside them (ctest).
  sanitize memcheck gpu_streams_test '-*NothingWaitsForTheLegacyDefaultStream' 300
  sanitize racecheck gpu_streams_test '-*NothingWaitsForTheLegacyDefaultStream' 300
  ctest --test-dir $build -R Streams --output-on-failure 2>&1 | grep -E "tests passed|Failed|\*\*\*"
  [ "${PY_GPU_TESTS:-1}" = 1 ] && run_gpu_tests  # PY_GPU_TESTS=0: not every GPU test again
  step "bench/python_overhead.py"
  PYTHONPATH=$pp python3 bench/python_overhead.py --json "$outdir/python-overhead.json"
  echo "exit $?"
  step "bench/python_vs_cupy.py $*"
  PYTHONPATH=$pp python3 bench/python_vs_cupy.py --json "$outdir/python-vs-cupy.json" \
    --markdown "$outdir/python-vs-cupy.md" "$@"
  echo "exit $?"
}

# Issue 41: the SciPy-convention Krylov layer. `ecosystem`: every GPU test and
# the Python ones (CuPy operators included); `ecosystem-final`: the four
# sanitizers on the GMRES/MINRES kernels and the device-operator path, then
# bench/scipy_way_bench.py (balsa.cg/gmres/minres against cupyx and SciPy).
run_ecosystem() {
  [ "${ECOSYSTEM_GPU_TESTS:-1}" = 1 ] && run_gpu_tests  # 0: the Python tests alone
  step "ctest -L python"
  ctest --test-dir $build -L python --output-on-failure -j 4 --timeout 300 >"$outdir/ctest-python.log" 2>&1
  echo "exit $?"; grep -E "tests passed|\*\*\*Failed|Not Run|Timeout|[0-9]+ (passed|failed)" "$outdir/ctest-python.log" | head -30
}
run_ecosystem_final() {
  local tool gm='GmresMinresGpu/1.BreakdownsAndDeviceVectorsMatchTheCpu:GmresMinresGpu/1.AbsoluteTolerance*'
  for tool in memcheck racecheck synccheck initcheck; do
    sanitize $tool gpu_krylov_gmres_minres_test "$gm" 150
    sanitize $tool gpu_krylov_operator_test 'KrylovOperatorGpu/1.*' 120
  done
  step "bench/scipy_way_bench.py $*"
  PYTHONPATH="$root/python:$root/$build/python" python3 bench/scipy_way_bench.py \
    --json "$outdir/scipy-way.json" --markdown "$outdir/scipy-way.md" "$@"
  echo "exit $?"
}

# Issue 42: SaP over the GPUs of one host, the PETSc plugin's per-rank path.
run_multigpu() {
  local gpus ids pp="$root/python:$root/$build/python"
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
  ids=$(seq -s, 0 $((gpus - 1)))
  step "topology ($gpus GPUs)"; nvidia-smi topo -m 2>&1 | head -8
  run_gpu_tests
  step "python tests"; ctest --test-dir $build -L python --output-on-failure -j 8 --timeout 300 >"$outdir/ctest-python.log" 2>&1
  echo "exit $?"; grep -E "tests passed|\\*\\*\\*Failed|Not Run|Timeout" "$outdir/ctest-python.log" | head -20
  local tool
  for tool in memcheck racecheck synccheck initcheck; do
    sanitize $tool gpu_sap_multi_device_test 'SapMultiDevice.Small*:SapMultiDevice.ApplicationsWriteEveryRowAndNothingWhenStopped' 200
    sanitize $tool gpu_standalone_preconditioner_test '*' 200
  done
  step "balsa-bench precond --grid 64"
  $build/balsa-bench precond --grid 64 --json "$outdir/precond.json" --markdown "$outdir/precond.md" >/dev/null
  echo "exit $?"; cat "$outdir/precond.md"
  step "balsa-bench banded --devices $ids --n ${MULTIGPU_N:-10000000} --k ${MULTIGPU_K:-50,200} $*"
  $build/balsa-bench banded --devices "$ids" --n "${MULTIGPU_N:-10000000}" --k "${MULTIGPU_K:-50,200}" --partitions 0 \
    --no-baseline --repeat 1 --json "$outdir/banded-devices.json" --markdown "$outdir/banded-devices.md" "$@" >/dev/null
  echo "exit $?"; cat "$outdir/banded-devices.md"
  if [ -n "${MULTIGPU_SPARSE:-}" ]; then
    local m
    for m in sap-d sap-c; do
      for d in 0 "$ids"; do
        step "balsa solve $MULTIGPU_SPARSE --method $m --devices $d"
        $build/balsa solve "$MULTIGPU_SPARSE" --method $m --devices "$d" --rhs ones --json "$outdir/solve-$m-$d.json" 2>&1 | tail -6
      done
    done
  fi
}

# Issue 37: time to the answer. `balsa run` (auto, then each preset it weighs)
# three times each, as JSON lines, on the GPU and on the host's cores; bench
# sparse on the generated systems of >= 1e6 rows; Python against CuPy.
run_answer() {
  local pp="$root/python:$root/$build/python"
  step "tests: solve, direct, Python"
  ctest --test-dir $build -R "Solve|Direct|python\\.test_(iterative|direct|gpu)" --output-on-failure -j 8 --timeout 300 \
    >"$outdir/ctest-answer.log" 2>&1
  echo "exit $?"; grep -E "tests passed|\\*\\*\\*Failed|Not Run|Timeout" "$outdir/ctest-answer.log" | head -30
  [ "${ANSWER_SANITIZE:-0}" = 1 ] && sanitize memcheck gpu_sparse_solve_test '*' 400
  for device in cuda cpu; do
    for method in ${ANSWER_METHODS:-auto cg}; do
      step "balsa run --device $device --method $method (3 runs)"
      for i in 1 2 3; do
        $build/balsa run --device $device --method $method --json >"$outdir/run.tmp" 2>&1
        python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps({k: j.get(k) for k in ('method','device','iterations','setup_seconds','solve_seconds','total_seconds','plan_seconds','true_residual','backward_error')}))" "$outdir/run.tmp" \
          | tee -a "$outdir/answer-run.jsonl" || tail -3 "$outdir/run.tmp"
      done
    done
  done
  rm -f "$outdir/run.tmp"
  step "balsa run (text, default)"; $build/balsa run
  step "balsa-bench sparse --suite generated --only ${ANSWER_SPARSE:-cd2d-1024 cd3d-100} (balsa only)"
  $build/balsa-bench sparse --suite generated --only ${ANSWER_SPARSE:-cd2d-1024 cd3d-100} --repeat 1 --no-baselines \
    --json "$outdir/answer-sparse-1e6.json" --markdown "$outdir/answer-sparse-1e6.md" >/dev/null 2>&1
  echo "exit $?"; python3 -c "import json,sys; [print(s['name'], s['n'], {k: (v.get('seconds'), v.get('method'), v.get('device')) for k, v in s.items() if isinstance(v, dict) and 'seconds' in v}) for s in json.load(open(sys.argv[1]))['systems']]" "$outdir/answer-sparse-1e6.json"
  step "bench/python_vs_cupy.py (the Laplacian 100^3)"
  PYTHONPATH=$pp python3 bench/python_vs_cupy.py --matrices /nonexistent --solves 1 --repeat 3 \
    --json "$outdir/answer-python-vs-cupy.json" --markdown "$outdir/answer-python-vs-cupy.md" 2>&1 | tail -12
  echo "exit $?"
}

# balsa-bench solve on the 3D Laplacians and on the files "$@" (after any
# leading options, e.g. --no-cpu, which both runs take).
krylov_solve_benches() {
  local opts=()
  while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do opts+=("$1"); shift; done
  step "balsa-bench solve --only lap3d ${opts[*]}"
  $build/balsa-bench solve --only lap3d "${opts[@]}" --json "$outdir/solve-lap3d.json" \
    --markdown "$outdir/solve-lap3d.md" >"$outdir/solve-lap3d.log" 2>&1
  echo "exit $?"; grep -E "^\| lap3d" "$outdir/solve-lap3d.md" | cut -d'|' -f2,5-10
  step "balsa-bench solve ${opts[*]} (real matrices)"
  $build/balsa-bench solve --suite none "${opts[@]}" "$@" --json "$outdir/solve-real.json" \
    --markdown "$outdir/solve-real.md" >"$outdir/solve-real.log" 2>&1
  echo "exit $?"; grep -E "pcg-chebyshev|\| cg \|" "$outdir/solve-real.md" | cut -d'|' -f2,5-10
}

# compute-sanitizer's TOOLS (a space-separated list) on each TEST:FILTER
# spec, SECONDS at most a run; logs appended to sanitizer-krylov.log.
krylov_sanitizers() {
  local tools="$1" seconds="$2"; shift 2
  for tool in $tools; do
    for spec in "$@"; do
      local t="${spec%%:*}" filter="${spec#*:}"
      step "compute-sanitizer --tool $tool $t --gtest_filter=$filter"
      timeout "$seconds" compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name-exclude kns=cusparse \
        "$build/tests/$t" --gtest_brief=1 --gtest_filter="$filter" >"$outdir/san.tmp" 2>&1
      echo "exit $?"; grep -E "SUMMARY|PASSED|FAILED|Race reported" "$outdir/san.tmp" | sort | uniq -c | head -5
      { echo "### $tool $t $filter"; cat "$outdir/san.tmp"; } >>"$outdir/sanitizer-krylov.log"
    done
  done
  rm -f "$outdir/san.tmp"
}

# The Krylov stage (see the top).
run_krylov() {
  run_gpu_tests
  krylov_solve_benches "$@"
  step "balsa-bench setup --suite none"
  $build/balsa-bench setup --suite none --json "$outdir/setup.json" --markdown "$outdir/setup.md" >"$outdir/setup.log" 2>&1
  echo "exit $?"; grep -E "^\|" "$outdir/setup.md" | head -30
  krylov_sanitizers "memcheck racecheck synccheck initcheck" 60 "gpu_krylov_test:*Chebyshev*" \
    "gpu_levels_device_test:GpuLevelsDevice.EmptyRowsAndTinyPatterns"
}

# The last Krylov check (see the top).
run_krylov_final() {
  run_gpu_tests
  for i in 1 2; do
    step "gpu_streams_test alone ($i)"; $build/tests/gpu_streams_test --gtest_brief=1 2>&1 | tail -3
  done
  krylov_solve_benches --no-cpu "$@"
  step "balsa run (auto)"; $build/balsa run 2>&1 | tail -14
  krylov_sanitizers "memcheck racecheck" 90 "gpu_krylov_test:*Chebyshev*:*DeviceMatrix*"
}

case "$stage" in
  krylov-final) run_krylov_final "$@" ;;
  krylov) run_krylov "$@" ;;
  answer) run_answer "$@" ;;
  python) run_python "$@" ;;
  ecosystem) run_ecosystem ;;
  ecosystem-final) run_ecosystem_final "$@" ;;
  multigpu) run_multigpu "$@" ;;
  qr) run_qr "$@" ;;
  sequence) run_sequence "$@" ;;
  lp) run_lp "$@" ;;
  compare) run_compare "$@" ;;
  tests) run_tests ;;
  racecheck) run_racecheck ;;
  bench) run_bench "$@" ;;
  sparse) run_sparse "$@" ;;
  all) run_tests; run_bench "$@" ;;
  quick) run_gpu_tests; run_bench "$@" ;;
  chains) run_chains "$@" ;;
  kernel) names="$1"; shift; run_gpu_tests; run_kernel_sanitizers "$names"; run_bench "$@" ;;
  *) echo "unknown stage $stage"; exit 2 ;;
esac
