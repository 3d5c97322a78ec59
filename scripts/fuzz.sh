#!/usr/bin/env bash
# Build and run the libFuzzer harnesses (fuzz/; docs/reliability.md).
#   scripts/fuzz.sh [HARNESS|all] [SECONDS|-runs=N]
# HARNESS: fuzz_mps, fuzz_mtx_stream, fuzz_mtx_file or fuzz_cli (default all);
# each runs SECONDS (default 60) or N executions, with -timeout=10 and
# -rss_limit_mb=2048, under ASan+UBSan (a UBSan report halts the run). The
# build is its own folder, build-fuzz (BALSA_FUZZ_BUILD_DIR), made with clang
# (scripts/install-deps.sh --fuzz, which this runs first) and without CUDA. Seeds come
# from tests/data at run time (fuzz/make_seeds.py); the corpus grows in
# build-fuzz/fuzz-corpus/HARNESS, findings go to build-fuzz/fuzz-artifacts/HARNESS/,
# each run's log to build-fuzz/fuzz-logs/HARNESS.log. At the end a table:
# executions, exec/s, crashes, leaks, timeouts, out-of-memory; the exit code is
# 1 when any harness found something.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${BALSA_FUZZ_BUILD_DIR:-$root/build-fuzz}")"
all=(fuzz_mps fuzz_mtx_stream fuzz_mtx_file fuzz_cli)
which="${1:-all}"
limit="${2:-60}"
if [ "$which" = all ]; then harnesses=("${all[@]}"); else harnesses=("$which"); fi
for h in "${harnesses[@]}"; do
  case " ${all[*]} " in *" $h "*) ;; *) echo "fuzz.sh: unknown harness '$h' (${all[*]} or all)" >&2; exit 2 ;; esac
done
case "$limit" in
  -runs=[0-9]*) budget=("$limit") ;;
  [0-9]*) budget=("-max_total_time=$limit") ;;
  *) echo "fuzz.sh: the limit is SECONDS or -runs=N, got '$limit'" >&2; exit 2 ;;
esac
"$root/scripts/install-deps.sh" --fuzz || exit 1

# ---- build ------------------------------------------------------------------
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
  -DBALSA_CUDA=OFF -DBALSA_FUZZ=ON -DBALSA_BUILD_TESTS=OFF -DBALSA_PYTHON=OFF ${BALSA_CMAKE_ARGS:-} >/dev/null || exit 1
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${harnesses[@]}" || exit 1

# ---- seeds ------------------------------------------------------------------
rm -rf "$build/fuzz-seeds"
python3 "$root/fuzz/make_seeds.py" "$root" "$build/fuzz-seeds" || exit 1

# ---- runs -------------------------------------------------------------------
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
mkdir -p "$build/fuzz-logs"
status=0
rows=()
for h in "${harnesses[@]}"; do
  corpus="$build/fuzz-corpus/$h" artifacts="$build/fuzz-artifacts/$h" log="$build/fuzz-logs/$h.log"
  mkdir -p "$corpus" "$artifacts"
  dict=()
  [ "$h" != fuzz_cli ] && dict=("-dict=$root/fuzz/mtx_mps.dict")
  echo "fuzz.sh: $h ${budget[*]} (log: $log)"
  start=$(date +%s)
  "$build/fuzz/$h" "$corpus" "$build/fuzz-seeds/$h" "${budget[@]}" "${dict[@]}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  rc=$?
  seconds=$(($(date +%s) - start))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  count() { find "$artifacts" -name "$1-*" | wc -l; }
  crashes=$(count crash) leaks=$(count leak) timeouts=$(count timeout) ooms=$(count oom)
  # A run that ended without its final stats or with a finding but no artifact still fails.
  if [ "$rc" -ne 0 ] || [ -z "$execs" ] || [ $((crashes + leaks + timeouts + ooms)) -ne 0 ]; then status=1; fi
  rows+=("$(printf '%-16s %12s %8s %8s %6s %9s %5s %8s %s' "$h" "${execs:-?}" "${rate:-?}" "$crashes" "$leaks" \
    "$timeouts" "$ooms" "$seconds" "$rc")")
done
printf '%-16s %12s %8s %8s %6s %9s %5s %8s %s\n' harness executions exec/s crashes leaks timeouts ooms seconds rc
printf '%s\n' "${rows[@]}"
exit "$status"
