// balsa: sparse direct solvers behind one interface: CHOLMOD's supernodal
// Cholesky (symmetric positive definite A), UMFPACK's multifrontal LU and KLU
// (left-looking LU after a block triangular form: circuit matrices), all from
// SuiteSparse, on the CPU. Analyse once, factorise, solve any number of
// right-hand sides; new values of the same pattern are factorised again
// without a new analysis.
//
//   balsa::DirectSolver<double> lu(A);             // analyse + factorise (Auto: CHOLMOD, KLU or UMFPACK)
//   lu.solve(std::span<const double>(b), std::span<double>(x));
//   lu.solve(B, X);                                // n x k right-hand sides, one factorisation
//   lu.update_values(A2);                          // same pattern: factorised again, no new analysis
//   lu.stats().factor_entries, .flops, .factor_seconds ...
//
// The analysis alone (DirectOptions::factorize = false) is cheap and says
// what the factorisation would cost (stats().factor_entries, flops,
// peak_bytes): balsa::solve's Auto weighs it against the iterative methods.
// A factorisation whose predicted memory does not fit the host is refused
// before it starts (HostOutOfMemory naming the sizes).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "balsa/core.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class DirectMethod { Auto, Cholmod, Umfpack, Klu };
template <>
struct EnumNames<DirectMethod> {
  static constexpr const char* what = "direct method";
  static constexpr EnumName<DirectMethod> names[] = {{DirectMethod::Auto, "auto"},
                                                     {DirectMethod::Cholmod, "cholmod"},
                                                     {DirectMethod::Umfpack, "umfpack"},
                                                     {DirectMethod::Klu, "klu"}};
};

struct DirectOptions {
  // Auto: CHOLMOD when A is symmetric with a positive diagonal (UMFPACK
  // when CHOLMOD then finds A not positive definite), else KLU, or UMFPACK
  // when KLU's analysis predicts many flops (direct/direct_choice.cpp).
  DirectMethod method = DirectMethod::Auto;
  // The factorisations run on the CPU: Auto and Cpu run there, Cuda is an
  // Error (no GPU sparse direct solver is available to balsa).
  Device device = Device::Auto;
  // Host threads of the factorisation and solves (OpenMP and BLAS); 0: the
  // process's current setting.
  int threads = 0;
  // false: analyse only (stats() holds the prediction); factorize() later.
  bool factorize = true;
  // Refuse a factorisation predicted to need more bytes than this (0: the
  // memory available now, balsa's available_memory()).
  std::size_t memory_limit = 0;
  StreamHandle stream = nullptr;  // not used (CPU only); kept for a uniform options shape
};

struct DirectStats {
  DirectMethod method = DirectMethod::Auto;  // the method that ran (never Auto)
  Device device = Device::Cpu;
  index_t n = 0;
  std::int64_t nnz = 0;
  // From the analysis (a prediction until factorised, then the factor's own):
  std::int64_t factor_entries = 0;  // nnz(L) (Cholesky) or nnz(L) + nnz(U)
  double flops = 0;                 // of one numeric factorisation
  // The best estimate of `flops` before factorising: the analysis' own for
  // CHOLMOD and KLU (within 1.3x in the median); for UMFPACK, whose analysis
  // gives an upper bound (11x too many in the median, up to 15,500x:
  // bench/results/2026-11-29-direct-cpu.md), KLU's prediction when Auto
  // analysed with KLU first, else UMFPACK's bound / 11. The factor's own
  // count once factorised.
  double expected_flops = 0;
  double peak_bytes = 0;            // memory of the factorisation
  bool factorized = false;
  double rcond = 0;                 // reciprocal condition estimate of the last factorisation (0: not known)
  std::string note;                 // e.g. why Auto left CHOLMOD for UMFPACK
  double analyse_seconds = 0;       // the symbolic analysis (ordering included)
  double factor_seconds = 0;        // the last numeric factorisation
  double solve_seconds = 0;         // the last solve call (all its columns)
  int factorizations = 0;           // numeric factorisations so far
  std::int64_t columns_solved = 0;  // right-hand sides solved so far
};

template <class T>
class DirectSolver {
 public:
  // A square and canonical (sorted, no duplicates), finite. Analyses, and
  // factorises unless options.factorize is false. A structurally singular
  // A is a StructurallySingular, a numerically singular one SingularMatrix
  // (balsa/error.hpp).
  explicit DirectSolver(const Csr<T>& A, const DirectOptions& options = {});
  ~DirectSolver();
  DirectSolver(DirectSolver&&) noexcept;
  DirectSolver& operator=(DirectSolver&&) noexcept;

  // The numeric factorisation with the values given last (after an
  // analysis-only construction; again after update_values does it itself).
  void factorize();
  // New values of the same pattern (A's, or the values array in its CSR
  // order): factorised again, no new analysis.
  void update_values(const Csr<T>& A);
  void update_values(std::span<const T> values);

  // x = A^-1 b (x may not alias b).
  void solve(std::span<const T> b, std::span<T> x);
  // X = A^-1 B for n x k column-major B, one factorisation.
  void solve(const DenseMatrix<T>& B, DenseMatrix<T>& X);

  const DirectStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace balsa
