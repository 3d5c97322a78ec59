// balsa as the local solver of a distributed PETSc solve (docs/petsc.md):
// a 3D Poisson problem (7-point Laplacian, Dirichlet boundary eliminated)
// or a convection-diffusion one (the same with first-order upwind
// convection along x, Peclet number -peclet) on a DMDA, solved by the KSP
// and PC named on the command line, e.g.
//   mpiexec -n 4 balsa_petsc_poisson -n 32 -ksp_type cg -pc_type bjacobi -sub_pc_type balsa -sub_pc_balsa_method ic0
// Options: -n N (each rank's block is N^3: the grid is N x N x (N ranks),
//          split along z), or -global_n N (an N^3 grid, PETSc's split);
//          -problem poisson|convdiff; -peclet P (convdiff, default 10);
//          -save FILE (the solution, natural order, PETSc binary);
//          -compare FILE (the largest difference from a saved solution,
//          relative to its largest entry; exit 1 above -compare_tol, 1e-6);
//          -resolve (a second solve with A scaled by 2: the same pattern,
//          so a balsa PC updates its values and keeps its analysis);
//          -resolve_new_pattern (a second solve after adding the entries
//          (r, r + 2) and (r + 2, r), r each rank's first row: a new pattern,
//          so a balsa PC is built again).
// b = A x* with x*(i, j, k) = 1 + sin(i + 2j + 3k) (so the answer is known);
// prints the iterations, ||x - x*||_inf / ||x*||_inf and KSP's solve time.
// balsa's types come from BalsaPetscRegister() (linked); a run with
// -dll_append .../libbalsa_petsc.so and -no_link_register takes them from
// the dynamic library instead.
#include <petscdmda.h>
#include <petscksp.h>

#include <cmath>

#include "balsa_petsc.h"

namespace {

struct Problem {
  PetscBool convdiff = PETSC_FALSE;
  PetscReal peclet = 10;
};

// Row (i, j, k) of the operator: 6 on the diagonal, -1 to each neighbour
// inside the grid; convdiff adds upwind convection along x (h * peclet to
// the diagonal and to the west neighbour's -1).
PetscErrorCode assemble(DM da, Mat A, const Problem& p) {
  DMDALocalInfo info;
  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscReal c = p.convdiff ? p.peclet / PetscReal(info.mx + 1) : 0;
  for (PetscInt k = info.zs; k < info.zs + info.zm; ++k)
    for (PetscInt j = info.ys; j < info.ys + info.ym; ++j)
      for (PetscInt i = info.xs; i < info.xs + info.xm; ++i) {
        MatStencil row{k, j, i, 0}, col[7];
        PetscScalar v[7];
        PetscInt n = 0;
        const PetscInt d[6][3] = {{0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0}};
        for (const auto& s : d) {
          const PetscInt kk = k + s[0], jj = j + s[1], ii = i + s[2];
          if (ii < 0 || jj < 0 || kk < 0 || ii >= info.mx || jj >= info.my || kk >= info.mz) continue;
          col[n] = MatStencil{kk, jj, ii, 0};
          v[n++] = s[2] == -1 ? -1 - c : -1;
        }
        col[n] = row;
        v[n++] = 6 + c;
        PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode exact_solution(DM da, Vec x) {
  DMDALocalInfo info;
  PetscScalar*** a;
  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  PetscCall(DMDAVecGetArray(da, x, &a));
  for (PetscInt k = info.zs; k < info.zs + info.zm; ++k)
    for (PetscInt j = info.ys; j < info.ys + info.ym; ++j)
      for (PetscInt i = info.xs; i < info.xs + info.xm; ++i) a[k][j][i] = 1 + std::sin(PetscReal(i + 2 * j + 3 * k));
  PetscCall(DMDAVecRestoreArray(da, x, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode relative_difference(Vec x, Vec reference, PetscReal* diff) {
  Vec d;
  PetscReal num, den;
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &d));
  PetscCall(VecWAXPY(d, -1.0, reference, x));
  PetscCall(VecNorm(d, NORM_INFINITY, &num));
  PetscCall(VecNorm(reference, NORM_INFINITY, &den));
  *diff = num / den;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

PetscErrorCode make_grid(DM* da) {
  PetscMPIInt size;
  PetscInt n = 16, global_n = 0;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-n", &n, nullptr));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-global_n", &global_n, nullptr));
  if (global_n > 0)
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR,
                           global_n, global_n, global_n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, nullptr,
                           nullptr, nullptr, da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n,
                           n, n * size, 1, 1, size, 1, 1, nullptr, nullptr, nullptr, da));
  PetscCall(DMSetFromOptions(*da));  // -dm_mat_type ...
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

// -save FILE / -compare FILE (natural order: DMDA vectors are viewed and loaded so).
PetscErrorCode save_or_compare(DM da, Vec x, PetscBool* failed) {
  char file[PETSC_MAX_PATH_LEN];
  PetscBool set;
  PetscViewer v;
  PetscFunctionBeginUser;
  *failed = PETSC_FALSE;
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-save", file, sizeof file, &set));
  if (set) {
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &v));
    PetscCall(VecView(x, v));
    PetscCall(PetscViewerDestroy(&v));
  }
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-compare", file, sizeof file, &set));
  if (!set) PetscFunctionReturn(0);
  PetscReal tol = 1e-6, diff;
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-compare_tol", &tol, nullptr));
  Vec reference;
  PetscCall(DMCreateGlobalVector(da, &reference));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
  PetscCall(VecLoad(reference, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(relative_difference(x, reference, &diff));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "difference from %s: %.3e (tolerance %.1e)\n", file, double(diff),
                        double(tol)));
  *failed = diff > tol ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VecDestroy(&reference));
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  DM da;
  Mat A;
  Vec x, b, exact;
  KSP ksp;
  Problem p;
  char problem[32] = "poisson";
  PetscBool no_link = PETSC_FALSE, failed = PETSC_FALSE;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-no_link_register", &no_link, nullptr));
  if (!no_link) PetscCall(BalsaPetscRegister());
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-problem", problem, sizeof problem, nullptr));
  PetscCall(PetscStrcmp(problem, "convdiff", &p.convdiff));
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-peclet", &p.peclet, nullptr));
  PetscCall(make_grid(&da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(assemble(da, A, p));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &exact));
  PetscCall(exact_solution(da, exact));
  PetscCall(MatMult(A, exact, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscLogDouble t0, t1;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t1));
  PetscInt its;
  KSPConvergedReason reason;
  PetscReal err;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(relative_difference(x, exact, &err));
  PetscInt N;
  PetscCall(VecGetSize(x, &N));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem %s, unknowns %d, reason %s, iterations %d, error %.3e, "
                        "solve %.4f s, per iteration %.3e s\n", problem, int(N), KSPConvergedReasons[reason],
                        int(its), double(err), double(t1 - t0), double(t1 - t0) / double(its > 0 ? its : 1)));
  PetscBool resolve = PETSC_FALSE, new_pattern = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-resolve", &resolve, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-resolve_new_pattern", &new_pattern, nullptr));
  if (resolve || new_pattern) {  // (2A) x = 2b, or A + E with b = (A + E) x*: the same x
    if (new_pattern) {
      PetscInt r, end;
      PetscCall(MatGetOwnershipRange(A, &r, &end));
      PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      if (end - r > 2) {
        PetscCall(MatSetValue(A, r, r + 2, 0.01, ADD_VALUES));
        PetscCall(MatSetValue(A, r + 2, r, 0.01, ADD_VALUES));
      }
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatMult(A, exact, b));
    } else {
      PetscCall(MatScale(A, 2.0));
      PetscCall(VecScale(b, 2.0));
    }
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(relative_difference(x, exact, &err));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "second solve (%s): reason %s, iterations %d, error %.3e\n",
                          new_pattern ? "new pattern" : "2A", KSPConvergedReasons[reason], int(its), double(err)));
  }
  PetscCall(save_or_compare(da, x, &failed));
  if (reason < 0) failed = PETSC_TRUE;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&exact));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
