// MatSolverType "balsa" on SeqAIJ: MAT_FACTOR_LU and MAT_FACTOR_CHOLESKY
// through balsa::DirectSolver (include/balsa/direct.hpp; LU: its Auto
// choice, Cholesky: CHOLMOD), MAT_FACTOR_QR through balsa::SparseQR
// (include/balsa/qr.hpp; m x n, least squares for m > n). The symbolic
// step is balsa's analysis, the numeric step its factorisation of the new
// values (the analysis reused), MatSolve its solve.
#include <petsc/private/matimpl.h>

#include <memory>
#include <span>
#include <vector>

#include "balsa/direct.hpp"
#include "balsa/qr.hpp"
#include "balsa_petsc.h"
#include "common.hpp"

namespace balsa_petsc {
namespace {

// One OpenMP thread per call: MPI ranks share the host's cores.
constexpr int kThreads = 1;

struct Factor {
  std::unique_ptr<balsa::DirectSolver<double>> direct;  // LU, Cholesky
  std::unique_ptr<balsa::SparseQR> qr;
  PetscInt nnz = 0;  // of the analysed pattern
};

Factor& context(Mat F) { return *static_cast<Factor*>(F->data); }

PetscErrorCode MatFactorGetSolverType_Balsa(Mat, MatSolverType* type) {
  PetscFunctionBegin;
  *type = MATSOLVERBALSA;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDestroy_Balsa(Mat F) {
  PetscFunctionBegin;
  delete static_cast<Factor*>(F->data);
  F->data = nullptr;
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", nullptr));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatQRFactorSymbolic_C", nullptr));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatQRFactorNumeric_C", nullptr));
  PetscFunctionReturn(0);
}

// What PCFactor reads after a factorisation (fill ratios): the factor's
// entries as nz_used; the rest zero (balsa's stats have no PETSc counterpart).
PetscErrorCode MatGetInfo_Balsa(Mat F, MatInfoType, MatInfo* info) {
  Factor& f = context(F);
  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(MatInfo)));
  info->block_size = 1.0;
  if (f.direct) info->nz_used = PetscLogDouble(f.direct->stats().factor_entries);
  if (f.qr) info->nz_used = PetscLogDouble(f.qr->stats().r_nnz);
  info->nz_allocated = info->nz_used;
  info->factor_mallocs = 0;
  PetscFunctionReturn(0);
}

// x = A^-1 b (LU, Cholesky) or argmin ||A x - b|| (QR).
PetscErrorCode MatSolve_Balsa(Mat F, Vec b, Vec x) {
  Factor& f = context(F);
  const PetscScalar* in = nullptr;
  PetscScalar* out = nullptr;
  PetscInt m = 0, n = 0;
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(b, &m));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(b, &in));
  PetscCall(VecGetArrayWrite(x, &out));
  const PetscErrorCode status = guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    const std::span<const double> rhs(in, std::size_t(m));
    if (f.qr) {
      const std::vector<double> sol = f.qr->solve(rhs);
      std::copy(sol.begin(), sol.end(), out);
    } else {
      f.direct->solve(rhs, std::span<double>(out, std::size_t(n)));
    }
    return 0;
  });
  PetscCall(VecRestoreArrayWrite(x, &out));
  PetscCall(VecRestoreArrayRead(b, &in));
  PetscCall(status);
  PetscFunctionReturn(0);
}

// The numeric step: new values into the analysed pattern (PETSc calls the
// symbolic step again when the pattern changes).
PetscErrorCode numeric(Mat F, Mat A) {
  Factor& f = context(F);
  PetscFunctionBegin;
  balsa::Csr<double> csr;
  PetscCall(to_csr(A, csr));
  PetscCall(guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    if (f.qr)
      f.qr->factorise(csr);
    else
      f.direct->update_values(csr);
    return 0;
  }));
  F->ops->solve = MatSolve_Balsa;
  F->assembled = PETSC_TRUE;
  F->preallocated = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode MatLUFactorNumeric_Balsa(Mat F, Mat A, const MatFactorInfo*) { return numeric(F, A); }
PetscErrorCode MatCholeskyFactorNumeric_Balsa(Mat F, Mat A, const MatFactorInfo*) { return numeric(F, A); }
PetscErrorCode MatQRFactorNumeric_Balsa(Mat F, Mat A, const MatFactorInfo*) { return numeric(F, A); }

// The symbolic step: balsa's analysis of A's pattern (balsa's checks: a
// rectangular A to LU or Cholesky, a non-finite value, ... are its errors).
PetscErrorCode symbolic(Mat F, Mat A, balsa::DirectMethod method) {
  Factor& f = context(F);
  Mat local = nullptr;
  PetscFunctionBegin;
  PetscCall(local_block(A, "the balsa solver type", &local));
  balsa::Csr<double> csr;
  PetscCall(to_csr(local, csr));
  PetscCall(guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    f.direct.reset();
    f.qr.reset();
    if (F->factortype == MAT_FACTOR_QR)
      f.qr = std::make_unique<balsa::SparseQR>(
          balsa::SparseQR::analyse(csr, {.device = balsa::Device::Cpu, .threads = kThreads}));
    else
      f.direct = std::make_unique<balsa::DirectSolver<double>>(
          csr, balsa::DirectOptions{
                   .method = method, .device = balsa::Device::Cpu, .threads = kThreads, .factorize = false});
    return 0;
  }));
  f.nnz = PetscInt(csr.nnz());
  PetscFunctionReturn(0);
}

PetscErrorCode MatLUFactorSymbolic_Balsa(Mat F, Mat A, IS, IS, const MatFactorInfo*) {
  PetscFunctionBegin;
  PetscCall(symbolic(F, A, balsa::DirectMethod::Auto));
  F->ops->lufactornumeric = MatLUFactorNumeric_Balsa;
  PetscFunctionReturn(0);
}

PetscErrorCode MatCholeskyFactorSymbolic_Balsa(Mat F, Mat A, IS, const MatFactorInfo*) {
  PetscFunctionBegin;
  PetscCall(symbolic(F, A, balsa::DirectMethod::Cholmod));
  F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_Balsa;
  PetscFunctionReturn(0);
}

PetscErrorCode MatQRFactorSymbolic_Balsa(Mat F, Mat A, IS, const MatFactorInfo*) {
  PetscFunctionBegin;
  PetscCall(symbolic(F, A, balsa::DirectMethod::Auto));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatQRFactorNumeric_C", MatQRFactorNumeric_Balsa));
  PetscFunctionReturn(0);
}

}  // namespace

// MatGetFactor for (SeqAIJ, balsa): an empty factor matrix of A's sizes
// whose symbolic step is balsa's.
PetscErrorCode MatGetFactor_SeqAIJ_Balsa(Mat A, MatFactorType type, Mat* F) {
  Mat B = nullptr;
  PetscInt m = 0, n = 0;
  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, m, n, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(PetscStrallocpy(MATSOLVERBALSA, &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  switch (type) {
    case MAT_FACTOR_LU: B->ops->lufactorsymbolic = MatLUFactorSymbolic_Balsa; break;
    case MAT_FACTOR_CHOLESKY: B->ops->choleskyfactorsymbolic = MatCholeskyFactorSymbolic_Balsa; break;
    case MAT_FACTOR_QR:
      PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatQRFactorSymbolic_C", MatQRFactorSymbolic_Balsa));
      break;
    default:
      PetscCall(MatDestroy(&B));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "balsa: the balsa solver type offers LU, Cholesky and QR, not %s",
              MatFactorTypes[type]);
  }
  PetscCall(guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    B->data = new Factor;
    return 0;
  }));
  B->ops->destroy = MatDestroy_Balsa;
  B->ops->getinfo = MatGetInfo_Balsa;
  B->factortype = type;
  B->trivialsymbolic = PETSC_FALSE;
  B->canuseordering = PETSC_FALSE;
  B->assembled = PETSC_TRUE;  // -ksp_view reads it
  B->preallocated = PETSC_TRUE;
  PetscCall(PetscStrallocpy(MATORDERINGEXTERNAL, (char**)&B->preferredordering[type]));
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERBALSA, &B->solvertype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_Balsa));
  *F = B;
  PetscFunctionReturn(0);
}

}  // namespace balsa_petsc
