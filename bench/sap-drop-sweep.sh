#!/bin/bash
# SaP-D alone over the real square matrices, for several drop tolerances.
# Output per line: matrix, drop tolerance, outcome, iterations, set-up s, solve s, k (or rcN: the run failed or
# passed its 20 s limit). Used to choose SparseSapOptions::drop_tolerance (bench/results/2026-11-25-sap-drop-sweep-cpu.md).
B=${BALSA:-build-cpu/balsa}; DATA=${DATA:-../shared/data/matrices}
for f in $DATA/*.mtx.gz; do
  n=$(basename $f .mtx.gz)
  for d in 0.01 0.05 0.2; do
    out=$(timeout 20 $B solve $f --method sap-d --drop $d --device cpu --max-iterations 1000 --rtol 1e-8 --json 2>/dev/null)
    rc=$?
    echo "$out" | python3 -c "
import json,sys
try:
  j=json.load(sys.stdin); print('$n', '$d', j['outcome'], j['iterations'], round(j['sap']['t_setup'],3), round(j['solve_seconds'],3), j['sap']['k'])
except Exception: print('$n', '$d', 'rc$rc')
"
  done
done
