/* balsa inside PETSc (plugins/petsc, docs/petsc.md): the preconditioner type
   "balsa" (PCBALSA) for a rank's local SeqAIJ block, and the solver type
   "balsa" (MATSOLVERBALSA) of MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY and
   MAT_FACTOR_QR on SeqAIJ matrices.

   Register them once after PetscInitialize, either by linking
   libbalsa_petsc and calling BalsaPetscRegister(), or without linking, with
   the run-time option -dll_append /path/to/libbalsa_petsc.so (PETSc then
   calls PetscDLLibraryRegister_balsa_petsc). Calling it twice is harmless. */
#ifndef BALSA_PETSC_H
#define BALSA_PETSC_H

#include <petscksp.h>

#define PCBALSA        "balsa"
#define MATSOLVERBALSA "balsa"

#ifdef __cplusplus
extern "C" {
#endif

PetscErrorCode BalsaPetscRegister(void);
PetscErrorCode PetscDLLibraryRegister_balsa_petsc(void);

#ifdef __cplusplus
}
#endif

#endif
