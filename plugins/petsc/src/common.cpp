// A rank's SeqAIJ block as balsa's CSR (plugins/petsc/src/common.hpp).
#include "common.hpp"

#include <algorithm>

namespace balsa_petsc {

PetscErrorCode local_block(Mat A, const char* who, Mat* local) {
  PetscBool seq = PETSC_FALSE, mpi = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &seq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (seq) {
    *local = A;
  } else if (mpi) {
    PetscCall(MatGetDiagonalBlock(A, local));
  } else {
    MatType type = nullptr;
    PetscCall(MatGetType(A, &type));
    SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
            "balsa: %s needs an AIJ matrix (seqaij, or mpiaij whose diagonal block it takes), not %s", who,
            type ? type : "(no type)");
  }
  PetscFunctionReturn(0);
}

namespace {
// The row pointers and columns of a SeqAIJ matrix, lent by PETSc.
struct RowIJ {
  Mat A;
  PetscInt n = 0;
  const PetscInt *ia = nullptr, *ja = nullptr;
  PetscBool done = PETSC_FALSE;
};
}  // namespace

PetscErrorCode to_csr(Mat A, balsa::Csr<double>& out) {
  RowIJ g{A};
  PetscInt rows = 0, cols = 0;
  const PetscScalar* values = nullptr;
  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &rows, &cols));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &g.n, &g.ia, &g.ja, &g.done));
  PetscCheck(g.done, PETSC_COMM_SELF, PETSC_ERR_SUP, "balsa: MatGetRowIJ is not available for this matrix");
  PetscCall(MatSeqAIJGetArrayRead(A, &values));
  const PetscErrorCode status = guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {  // std::bad_alloc
    const PetscInt nnz = g.ia[rows];
    out.rows = balsa::index_t(rows);
    out.cols = balsa::index_t(cols);
    out.row_ptr.assign(g.ia, g.ia + rows + 1);
    out.col_idx.assign(g.ja, g.ja + nnz);
    out.values.assign(values, values + nnz);
    return 0;
  });
  PetscCall(MatSeqAIJRestoreArrayRead(A, &values));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &g.n, &g.ia, &g.ja, &g.done));
  PetscCall(status);
  PetscFunctionReturn(0);
}

PetscErrorCode same_pattern(Mat A, const balsa::Csr<double>& pattern, PetscBool* same) {
  RowIJ g{A};
  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &g.n, &g.ia, &g.ja, &g.done));
  PetscCheck(g.done, PETSC_COMM_SELF, PETSC_ERR_SUP, "balsa: MatGetRowIJ is not available for this matrix");
  bool eq = g.n == pattern.rows && std::equal(g.ia, g.ia + g.n + 1, pattern.row_ptr.begin());
  eq = eq && std::equal(g.ja, g.ja + g.ia[g.n], pattern.col_idx.begin());
  *same = eq ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &g.n, &g.ia, &g.ja, &g.done));
  PetscFunctionReturn(0);
}

}  // namespace balsa_petsc
