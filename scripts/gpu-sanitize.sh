#!/usr/bin/env bash
# compute-sanitizer's four tools (memcheck, racecheck, synccheck, initcheck)
# over every __global__ kernel of the repository, on the GPU host
# (docs/reliability.md). scripts/gpu-sanitize-kernels.txt maps each kernel to
# a GPU test and a gtest filter that launches it at a small size; each tool
# runs, per test program, the union of its filters. Then a table (tool, test,
# filter, tests passed, errors/hazards, exit code, seconds) and a coverage
# check: the kernels found by grep that the map leaves out, that the test
# programs do not contain (cuobjdump -symbols) and that no run launched
# (Nsight Compute, ncu, listing the first launch of each kernel). The exit
# code is 1 on any error, hazard, failed test or kernel not covered.
#   scripts/gpu-sanitize.sh [TOOL...]        (default: all four)
#   scripts/gpu-sanitize.sh --coverage       (the coverage check alone)
#   BALSA_GPU_BUILD_DIR (default build-gpu; configured and built here)
#   OUT (default /tmp): the logs go to $OUT/gpu-sanitize/
# A new kernel needs a line in scripts/gpu-sanitize-kernels.txt (the coverage
# check names it).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
# The GPU host's Debian libraries, bundled by scripts/gpu-bundle.sh (scripts/gpu-host.sh).
# shellcheck disable=SC1091
[ -f .gpu-deps/env.sh ] && source .gpu-deps/env.sh
command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
build="${BALSA_GPU_BUILD_DIR:-build-gpu}"
logs="${OUT:-/tmp}/gpu-sanitize"
mkdir -p "$logs" && rm -f "$logs"/*.log "$logs"/symbols-*.txt
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
[ "${tools[0]}" = --coverage ] && tools=()
for t in "${tools[@]+"${tools[@]}"}"; do
  case "$t" in memcheck | racecheck | synccheck | initcheck) ;; *) echo "gpu-sanitize.sh: unknown tool '$t'" >&2; exit 2 ;; esac
done
if ! command -v compute-sanitizer >/dev/null 2>&1; then
  echo "gpu-sanitize.sh: compute-sanitizer not found (CUDA toolkit's bin/ on PATH?)" >&2
  exit 1
fi

# ---- the kernels (scripts/gpu-sanitize-kernels.txt: FILE NAME TEST FILTER
# [SLOW_FILTER], one a line; its comments say more).
kernel_map() { grep -v '^#' "$root/scripts/gpu-sanitize-kernels.txt"; }

# Every kernel in the sources: FILE NAME NAMESPACE (the innermost named
# namespace around it, which tells apart kernels of one name).
grep_kernels() {
  python3 - "$root" <<'EOF'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
kernel = re.compile(r'__global__\s+(?:static\s+)?void\s+(?:__launch_bounds__\s*\((?:[^()]|\([^()]*\))*\)\s*)?(\w+)\s*\(')
space = re.compile(r'\bnamespace\s+([\w:]+)\s*\{')
for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in ('tests', 'build') and not p.name.startswith(('.', 'build'))):
    for p in sorted(folder.rglob('*')):
        if p.suffix not in ('.cu', '.cuh', '.hpp', '.cpp'):
            continue
        text = p.read_text(errors='replace')
        for m in kernel.finditer(text):
            spaces = space.findall(text[:m.start()])
            print(p.relative_to(root), m.group(1), spaces[-1].split('::')[-1] if spaces else '-')
EOF
}

# ---- build ------------------------------------------------------------------------
tests=$(kernel_map | awk '$3 != "balsa" {print $3}' | sort -u)
echo "=== configure and build ($build)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  -DBALSA_PYTHON=OFF >"$logs/configure.log" 2>&1 || { tail -20 "$logs/configure.log"; exit 1; }
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target balsa_cli $tests >"$logs/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$logs/build.log" | head -20; exit 1; }

# ---- runs ----------------------------------------------------------------------------
# The sync-free kernels spin; under racecheck a wait takes orders of magnitude
# longer: the tests' watchdog is raised (tests/support, BALSA_TEST_WATCHDOG_MS).
export BALSA_TEST_WATCHDOG_MS=600000
# cuSPARSE's csrmv kernel reports hazards of its own
# (bench/results/2026-11-22-foundation.md): memcheck, racecheck and synccheck
# look at balsa's kernels only (CUB's launched by balsa included). initcheck
# sees every kernel: one left out would not mark what it writes as set.
filter_for() { [ "$1" = initcheck ] && return; echo "--kernel-name kns=balsa"; }
seconds_for() { case "$1" in racecheck | initcheck) echo 240 ;; *) echo 150 ;; esac; }

# The count of errors (memcheck, synccheck, initcheck) or hazards (racecheck)
# in a log: its summary's, or, in a log cut short before the summary (a
# timeout), its reports' ("[48 hazards]" counts 48).
findings() {
  if grep -qE '(ERROR|RACECHECK) SUMMARY' "$1"; then
    grep -oE '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$1" | grep -oE '[0-9]+$' | awk '{s += $1} END {print s + 0}'
  else
    local hazards
    hazards=$(grep -oE '\[[0-9]+ hazards?\]' "$1" | grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}')
    [ "$hazards" -gt 0 ] && echo "$hazards" || grep -cE '^========= +(Error|Warning|Invalid)' "$1"
  fi
}

small_matrix="$root/tests/data/jagmesh7.mtx"
rows=()
status=0
for tool in "${tools[@]+"${tools[@]}"}"; do
  column=4; [ "$tool" = racecheck ] || [ "$tool" = initcheck ] && column=5
  for t in $tests balsa; do
    filter=$(kernel_map | awk -v t="$t" -v c=$column '$3 == t {print (NF >= c && $c != "-") ? $c : $4}' |
      sort -u | paste -sd: -)
    log="$logs/$tool-$t.log"
    if [ "$t" = balsa ]; then
      cmd=("$build/balsa" trsv "$small_matrix" --explain --microbench --device cuda)
    else
      cmd=("$build/tests/$t" --gtest_brief=1 "--gtest_filter=$filter")
    fi
    start=$(date +%s)
    # shellcheck disable=SC2046
    timeout "$(seconds_for "$tool")" compute-sanitizer --tool "$tool" --error-exitcode 9 $(filter_for "$tool") \
      "${cmd[@]}" >"$log" 2>&1
    rc=$?
    passed=$(grep -oE 'PASSED +\] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    found=$(findings "$log")
    [ "$rc" -ne 0 ] || [ "$found" -ne 0 ] && status=1
    rows+=("$(printf '%-10s %-26s %-40.40s %6s %8s %4s %5s' "$tool" "$t" "$filter" "${passed:--}" "$found" "$rc" \
      $(($(date +%s) - start)))")
  done
done

echo
printf '%-10s %-26s %-40s %6s %8s %4s %5s\n' tool test filter passed findings exit s
[ ${#rows[@]} -eq 0 ] || printf '%s\n' "${rows[@]}"

# ---- coverage --------------------------------------------------------------------------
echo
echo "=== coverage: every kernel mapped, compiled into its program, launched"
grep_kernels >"$logs/kernels.txt"
missing=0
while read -r file name ns; do
  test=$(kernel_map | awk -v f="$file" -v n="$name" '$1 == f && $2 == n {print $3}')
  if [ -z "$test" ]; then
    echo "NOT COVERED: $file $name (no line in scripts/gpu-sanitize-kernels.txt)"; missing=$((missing + 1)); continue
  fi
  binary="$build/tests/$test"; [ "$test" = balsa ] && binary="$build/balsa"
  symbols="$logs/symbols-$test.txt"
  command -v cuobjdump >/dev/null 2>&1 && [ ! -f "$symbols" ] && cuobjdump -symbols "$binary" >"$symbols" 2>&1
  # Itanium mangling: each name as <length><name>, the namespace before the kernel.
  if [ -f "$symbols" ] && ! grep -qE "${#ns}${ns}.*${#name}${name}" "$symbols"; then
    echo "NOT COVERED: $file $name ($ns::) is not in $binary (cuobjdump -symbols)"; missing=$((missing + 1))
  fi
done <"$logs/kernels.txt"
echo "$(wc -l <"$logs/kernels.txt") kernels in the sources, $(kernel_map | wc -l) in the map"

# Launched: each program's filters once more under Nsight Compute, which
# profiles only the first launch of each kernel (--kernel-id ::regex:.:1, by
# the demangled name): the names it lists were launched. By name alone: ncu
# shortens the namespaces (balsa::<unnamed>::, sap::<unnamed>::), so the
# three gather_kernel, two solve_kernel and two convert_kernel count as one
# each here (cuobjdump above tells them apart in their programs).
if command -v ncu >/dev/null 2>&1; then
  : >"$logs/launched.txt"
  for t in $tests balsa; do
    filter=$(kernel_map | awk -v t="$t" '$3 == t {print $4}' | sort -u | paste -sd: -)
    if [ "$t" = balsa ]; then
      cmd=("$build/balsa" trsv "$small_matrix" --explain --microbench --device cuda)
    else
      cmd=("$build/tests/$t" --gtest_brief=1 "--gtest_filter=$filter")
    fi
    timeout 300 ncu --kernel-name-base demangled --kernel-id ::regex:.:1 --section LaunchStats --csv \
      "${cmd[@]}" >"$logs/ncu-$t.csv" 2>"$logs/ncu-$t.log"
    grep -E '^"[0-9]' "$logs/ncu-$t.csv" >>"$logs/launched.txt"
  done
  while read -r file name ns; do
    grep -qE "\\b${name}[<(]" "$logs/launched.txt" ||
      { echo "NOT LAUNCHED: $file $name ($ns::) by its filter (ncu)"; missing=$((missing + 1)); }
  done <"$logs/kernels.txt"
else
  echo "(ncu not found: launches not checked; the map and the programs' symbols are)"
fi
echo "kernels not covered: $missing"
[ "$missing" -eq 0 ] || status=1
echo "logs: $logs"
exit "$status"
