// Registration of the PETSc plugin (plugins/petsc/include/balsa_petsc.h): the PC type and
// the solver type, by a linked call or by PETSc's dynamic-library loader.
#include "balsa_petsc.h"

namespace balsa_petsc {
PetscErrorCode PCCreate_Balsa(PC pc);                                    // pc_balsa.cpp
PetscErrorCode MatGetFactor_SeqAIJ_Balsa(Mat A, MatFactorType type, Mat* F);  // mat_solver_balsa.cpp
}  // namespace balsa_petsc

extern "C" PetscErrorCode BalsaPetscRegister(void) {
  static PetscBool registered = PETSC_FALSE;
  PetscFunctionBegin;
  if (registered) PetscFunctionReturn(0);
  // PETSc's own packages first: a solver type registered before the Mat
  // package would hide PETSc's built-in ones (ICC on seqaij not found).
  PetscCall(MatInitializePackage());
  PetscCall(PCInitializePackage());
  PetscCall(PCRegister(PCBALSA, balsa_petsc::PCCreate_Balsa));
  for (MatFactorType type : {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_QR})
    PetscCall(MatSolverTypeRegister(MATSOLVERBALSA, MATSEQAIJ, type, balsa_petsc::MatGetFactor_SeqAIJ_Balsa));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}

// -dll_append .../libbalsa_petsc.so: PETSc calls PetscDLLibraryRegister_<the
// library's name without "lib" and the suffix>.
extern "C" PetscErrorCode PetscDLLibraryRegister_balsa_petsc(void) { return BalsaPetscRegister(); }
