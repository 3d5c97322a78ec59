#!/usr/bin/env bash
# On the GPU host, after a build in build-gpu: where TASSL's sub-graph kernel
# (trsv/tassl/tassl.cu) spends its time on one suite case. Prints the SASS of the
# one-warp double kernel and Nsight Compute's warp-state summary of its first
# launch; writes the per-instruction stall samples as CSV.
#   bench/profile-tassl.sh [case-name-filter] [width]   (logs to $OUT or /tmp)
set -uo pipefail
only="${1:-banded-1000000}"; width="${2:-32}"
build=build-gpu; outdir="${OUT:-/tmp}"
lib=$(ls $build/libbalsa.* 2>/dev/null | head -1); [ -n "$lib" ] || lib=$build/balsa
cuobjdump -sass "$lib" >"$outdir/balsa.sass" 2>&1
awk -v f="tassl_subgraph_kernelIdLi${width}E" '$0 ~ "Function : .*"f {p=1; print; next} p && /Function : / {p=0} p' \
  "$outdir/balsa.sass" >"$outdir/tassl_d${width}.sass"
echo "tassl_subgraph_kernel<double,$width>: $(grep -c '^ */\*[0-9a-f]*\*/' "$outdir/tassl_d${width}.sass") instructions"
grep -E "BAR|WARPSYNC|LDG|LDS|STS|STG|DFMA|DADD|MEMBAR|BRA|ISETP" "$outdir/tassl_d${width}.sass" | head -120
run=($build/balsa-bench trsv --only "$only" --algorithms tassl --precision double --repeat 1 --warmup 0 --cpu-repeat 1)
ncu --clock-control none -k "regex:tassl_subgraph" -c 2 --section WarpStateStats --section SchedulerStats \
  --section LaunchStats --section SpeedOfLight "${run[@]}" >"$outdir/ncu-tassl.txt" 2>&1
grep -E "tassl_subgraph|Stall|Warp Cycles|Issued Warp|Duration|Block Size|Registers|No Eligible|SM Frequency" \
  "$outdir/ncu-tassl.txt" | head -60
ncu --clock-control none -k "regex:tassl_subgraph" -c 1 --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv "${run[@]}" >"$outdir/ncu-tassl-source.csv" 2>&1
echo "ncu source page: $(wc -l <"$outdir/ncu-tassl-source.csv") lines"
