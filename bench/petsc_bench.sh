#!/usr/bin/env bash
# The PETSc plugin's CPU benchmark (issue 42's target; docs/petsc.md): the
# distributed 3D Poisson problem of examples/petsc (7-point, N^3 unknowns per
# rank, CG, rtol 1e-8) with block Jacobi, each rank's block solved by
# balsa's IC(0) (-sub_pc_type balsa -sub_pc_balsa_method ic0) and by PETSc's
# own (-sub_pc_type icc); iterations, KSPSolve and PCApply times from
# -log_view, and the example's time per iteration, for each.
#   bench/petsc_bench.sh [BUILD_DIR] [RANKS] [N] [extra PETSc options...]
# defaults: build 4 64. Writes the raw output to stdout (redirect it into
# bench/results/). Open MPI: --oversubscribe when the ranks outnumber the
# cores, and root allowed through the environment (this script only).
set -euo pipefail
build="${1:-build}"; ranks="${2:-4}"; n="${3:-64}"; shift $(( $# < 3 ? $# : 3 ))
program="$build/plugins/petsc/balsa_petsc_poisson"
[ -x "$program" ] || { echo "petsc_bench.sh: $program not built (ninja -C $build balsa_petsc_poisson)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
echo "# $(date -u "+%Y-%m-%d %H:%M UTC"), $(getconf _NPROCESSORS_ONLN) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $ranks ranks, $n^3 per rank"
for sub in "balsa -sub_pc_balsa_method ic0" "icc"; do
  echo
  echo "## -sub_pc_type $sub"
  # shellcheck disable=SC2086
  cmd=(mpiexec -n "$ranks" "$program" -n "$n" -ksp_type cg -pc_type bjacobi -sub_pc_type $sub -log_view "$@")
  echo "\$ ${cmd[*]}"
  "${cmd[@]}" 2>&1 | grep -E "^problem|^KSPSolve |^PCApply |^PCSetUp |^PCSetUpOnBlocks |^MatMult |^KSPSetUp " || true
done
