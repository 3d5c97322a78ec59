// Internal: the SuiteSparse factorisations behind balsa::DirectSolver
// (include/balsa/direct.hpp). Each backend analyses A's pattern once (a
// prediction of the factor's size, flops and peak memory), factorises any
// number of value arrays of that pattern, and solves n x k blocks in place.
//
// A's CSR arrays are the CSC arrays of A^T: UMFPACK and KLU factor A^T and
// solve its transposed system (A x = b); CHOLMOD reads them as the CSC of a
// symmetric A (one triangle).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "balsa/direct.hpp"
#include "balsa/error.hpp"

namespace balsa::direct {

// A's CSR arrays with 64-bit indices (SuiteSparse's *_l_ / *_dl_
// interfaces: the 32-bit ones overflow on large fills) and double values
// (float A is factorised in double). Owned by the solver, stable in memory
// for the backend's life.
struct Matrix {
  std::int64_t n = 0;
  std::vector<std::int64_t> ptr, idx;
  std::vector<double> values;
};

// What an analysis predicts, and then what a factorisation measured (each
// backend documents which of its fields are estimates).
struct FactorCounts {
  std::int64_t factor_entries = 0;
  double flops = 0;
  double peak_bytes = 0;
  double rcond = 0;  // after a factorisation only
};

// CHOLMOD found A not positive definite: the front end's Auto switches to
// UMFPACK; an explicit Cholmod reports it as the MatrixError it is.
class NotPositiveDefinite : public MatrixError {
 public:
  NotPositiveDefinite(std::int64_t column, const std::string& what) : MatrixError(what), column_(column) {}
  std::int64_t column() const noexcept { return column_; }

 private:
  std::int64_t column_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DirectMethod method() const = 0;
  // The prediction of the analysis done by the factory.
  virtual FactorCounts predicted() const = 0;
  // The numeric factorisation of A.values (the analysed pattern). Throws
  // SingularMatrix, NotPositiveDefinite (CHOLMOD), HostOutOfMemory.
  virtual FactorCounts factorize() = 0;
  // B (n x k, column-major, leading dimension n) overwritten by A^-1 B.
  virtual void solve(double* B, std::int64_t k) = 0;
};

// Analyse A (its pattern; UMFPACK also reads the values for its strategy).
// A must outlive the backend. StructurallySingular from KLU's BTF.
std::unique_ptr<Backend> make_cholmod(const Matrix& A);
std::unique_ptr<Backend> make_umfpack(const Matrix& A);
std::unique_ptr<Backend> make_klu(const Matrix& A);

// "<method>: A is structurally singular: structural rank r < n ...".
[[noreturn]] void throw_structurally_singular(const char* method, std::int64_t rank, std::int64_t n);
// "<method>: A is numerically singular (a zero pivot at row i of A)" (i < 0: not known).
[[noreturn]] void throw_singular(const char* method, std::int64_t row, const std::string& where = "row");
// "<method>: out of host memory <doing> (n = .., nnz = ..)".
[[noreturn]] void throw_out_of_memory(const char* method, const char* doing, const Matrix& A);

}  // namespace balsa::direct
