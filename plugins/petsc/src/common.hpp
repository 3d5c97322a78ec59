// Internal to the PETSc plugin: balsa calls inside PETSc callbacks (a balsa
// exception becomes a PETSc error carrying balsa's message; nothing crosses
// into PETSc un-caught) and a rank's SeqAIJ block as a balsa::Csr.
#pragma once

#include <petscmat.h>

#include <exception>
#include <string>
#include <type_traits>

#include "balsa/error.hpp"
#include "balsa/sparse.hpp"

namespace balsa_petsc {

static_assert(std::is_same_v<PetscScalar, double>, "the balsa plugin needs PETSc built with real double scalars");
static_assert(sizeof(PetscInt) == sizeof(balsa::index_t), "the balsa plugin needs PETSc's 32-bit indices (balsa's index_t)");

// Runs f (which returns a PetscErrorCode) and turns any exception into a
// PETSc error on comm: PETSC_ERR_LIB ("error in external library") with
// "balsa: " and the exception's message.
template <class F>
PetscErrorCode guarded(MPI_Comm comm, F&& f) {
  std::string message;
  try {
    return f();
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown exception";
  }
  SETERRQ(comm, PETSC_ERR_LIB, "balsa: %s", message.c_str());
}

// The rank's sequential AIJ block of A: A itself (SeqAIJ) or its diagonal
// block (MPIAIJ); any other type is a PETSc error naming it.
PetscErrorCode local_block(Mat A, const char* who, Mat* local);

// A copy of a SeqAIJ matrix as CSR (PETSc keeps each row's columns sorted).
PetscErrorCode to_csr(Mat A, balsa::Csr<double>& out);

// True when A's pattern is `pattern`'s (row pointers and columns).
PetscErrorCode same_pattern(Mat A, const balsa::Csr<double>& pattern, PetscBool* same);

}  // namespace balsa_petsc
