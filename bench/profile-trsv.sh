#!/usr/bin/env bash
# On the GPU host, after a build in build-gpu: where the level-set solver's
# kernels spend their time on one matrix. Prints the SASS of the thin-run
# kernel around its barrier and Nsight Compute's warp-state summary.
#   bench/profile-trsv.sh FILE.mtx [kernel-regex]   (logs to $OUT or /tmp)
set -uo pipefail
file="$1"; kernel="${2:-thin_run_kernel}"
build=build-gpu; outdir="${OUT:-/tmp}"
lib=$(ls $build/libbalsa.* 2>/dev/null | head -1); [ -n "$lib" ] || lib=$build/balsa
cuobjdump -sass "$lib" >"$outdir/balsa.sass" 2>&1
awk '/Function : .*thin_run_kernelIdLi1E/{p=1} p&&/Function : /&&!/thin_run_kernelIdLi1E/{p=0} p' "$outdir/balsa.sass" \
  >"$outdir/thin_run_d1.sass"
echo "thin_run_kernel<double,1>: $(grep -c '^ */\*[0-9a-f]*\*/' "$outdir/thin_run_d1.sass") instructions"
grep -nE "BAR|LDG|LDS|STS|STG|DEPBAR|MEMBAR|MUFU|CALL" "$outdir/thin_run_d1.sass" | head -60
ncu --clock-control none -k "regex:$kernel" -c 3 --section WarpStateStats --section SchedulerStats \
  --section LaunchStats --section Occupancy \
  $build/balsa-bench trsv "$file" --suite none --algorithms level-set --precision double --repeat 1 --warmup 0 \
  --cpu-repeat 1 >"$outdir/ncu.txt" 2>&1
grep -E "thin_run|Stall|Warp Cycles|Issued Warp|Duration|Block Size|Registers|One or More|No Eligible" "$outdir/ncu.txt" | head -60
# Per-instruction stall sampling of the first matching kernel (CSV; analyse off the GPU host).
ncu --clock-control none -k "regex:$kernel" -c 1 --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv \
  $build/balsa-bench trsv "$file" --suite none --algorithms level-set --precision double --repeat 1 --warmup 0 \
  --cpu-repeat 1 >"$outdir/ncu-source.csv" 2>&1
echo "ncu source page: $(wc -l <"$outdir/ncu-source.csv") lines"
