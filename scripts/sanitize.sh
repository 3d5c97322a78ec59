#!/usr/bin/env bash
# Build the library, the programs and the tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (BALSA_SANITIZE, CPU only) in build-asan
# (BALSA_ASAN_BUILD_DIR), then run every CPU test (label `cpu`) under them:
# a finding halts the process with its stack, leaks included. Extra
# arguments go to ctest (e.g. -R matrix_market). docs/reliability.md.
#   BALSA_SANITIZE (default address,undefined)
# Left out: install.find_package (label `install`: it builds a consumer
# without the sanitizers' link flags, against the instrumented library).
# Prints ctest's count of tests passed and the number of sanitizer reports;
# the exit code is 1 when a test failed or a report was written.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${BALSA_ASAN_BUILD_DIR:-$root/build-asan}")"
sanitizers="${BALSA_SANITIZE:-address,undefined}"
jobs="$(nproc 2>/dev/null || echo 2)"
"$root/scripts/install-deps.sh" || exit 1
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBALSA_CUDA=OFF -DBALSA_PYTHON=OFF \
  "-DBALSA_SANITIZE=$sanitizers" ${BALSA_CMAKE_ARGS:-} >/dev/null || exit 1
cmake --build "$build" -j "$jobs" || exit 1

# Halt on the first report, with its stack; abort (a signal), so that a test
# expecting exit code 1 cannot mistake a report for its own failure. Reports
# go to files of their own (log_path), counted at the end: a test that
# checks only its output (PASS_REGULAR_EXPRESSION) would not fail on one.
reports="$build/sanitizer-reports"
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:log_path=$reports/asan}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$reports/ubsan}"
log="$build/sanitize-ctest.log"
start=$(date +%s)
ctest --test-dir "$build" -L cpu -LE install -j "$jobs" --output-on-failure "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
seconds=$(($(date +%s) - start))
found=$(find "$reports" -type f -size +0 | wc -l)
for f in $(find "$reports" -type f -size +0 | head -3); do echo "== $f" && head -40 "$f"; done
echo "sanitize.sh: -fsanitize=$sanitizers: $(grep -E 'tests passed' "$log" | tail -1);" \
  "sanitizer reports: $found (in $reports); ctest ${seconds} s"
[ "$rc" -eq 0 ] && [ "$found" -eq 0 ]
