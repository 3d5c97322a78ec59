// A least-squares solve through PETSc with balsa's sparse QR (docs/petsc.md):
// min ||A x - b||_2 for the tall A = [L; I] (L the 2D Laplacian of an
// N x N grid, -n N, default 20, stacked over the identity) and b_i =
// sin(i), on one rank, with the KSP and PC of the command line, e.g.
//   balsa_petsc_lstsq -ksp_type preonly -pc_type qr -pc_factor_mat_solver_type balsa
// Prints ||A^T (b - A x)|| / (||A||_F ||b||) (zero at the minimiser) and exits
// 1 above -tol (default 1e-10).
#include <petscksp.h>

#include <cmath>

#include "balsa_petsc.h"

namespace {

PetscErrorCode stacked_laplacian(PetscInt n, Mat* A) {
  const PetscInt rows = 2 * n * n, cols = n * n;
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, rows, cols, 5, nullptr, A));
  for (PetscInt j = 0; j < n; ++j)
    for (PetscInt i = 0; i < n; ++i) {
      const PetscInt r = j * n + i;
      PetscCall(MatSetValue(*A, r, r, 4.0, INSERT_VALUES));
      if (i > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0, INSERT_VALUES));
      if (i + 1 < n) PetscCall(MatSetValue(*A, r, r + 1, -1.0, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(*A, r, r - n, -1.0, INSERT_VALUES));
      if (j + 1 < n) PetscCall(MatSetValue(*A, r, r + n, -1.0, INSERT_VALUES));
      PetscCall(MatSetValue(*A, cols + r, r, 1.0, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

}  // namespace

int main(int argc, char** argv) {
  Mat A;
  Vec x, b, r, g;
  KSP ksp;
  PetscInt n = 20;
  PetscReal tol = 1e-10;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(BalsaPetscRegister());
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-n", &n, nullptr));
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-tol", &tol, nullptr));
  PetscCall(stacked_laplacian(n, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(x, &g));
  PetscInt m;
  PetscCall(VecGetSize(b, &m));
  for (PetscInt i = 0; i < m; ++i) PetscCall(VecSetValue(b, i, std::sin(PetscReal(i)), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  // g = A^T (b - A x): the normal equations' residual.
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(MatMultTranspose(A, r, g));
  PetscReal gn, an, bn;
  PetscCall(VecNorm(g, NORM_2, &gn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &an));
  const PetscReal optimality = gn / (an * bn);
  PetscInt its;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "least squares %d x %d: iterations %d, optimality %.3e (tolerance %.1e)\n",
                        int(m), int(n * n), int(its), double(optimality), double(tol)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return optimality > tol ? 1 : 0;
}
