// balsa: sparse triangular solve (analysis once, then solve many times).
//
//   balsa::TriangularSolver<double> L_solve(L, {.algorithm = balsa::TrsvAlgorithm::Auto,
//                                              .device = balsa::Device::Cuda});
//   L_solve.solve(b, x);                 // host or device vectors, any number of times
//   L_solve.update_values(new_values);   // same pattern, new numbers
//   L_solve.stats();                     // what the analysis found, times
//
// Algorithms (DESIGN.md, trsv/):
//   Reference  serial substitution on the CPU (the oracle of every test)
//   LevelSet   level scheduling: rows of one dependency level in parallel;
//              OpenMP on the CPU; on the GPU thin levels are merged into
//              single-block launches and the launch sequence is a CUDA graph
//   SyncFree   GPU only: synchronization-free, each row waits for its own
//              dependencies (CSR; Liu et al. 2016 style, no level barrier)
//   SyncFreeCsc GPU only: Liu et al.'s warp-per-column CSC algorithm with
//              in-degree counters
//   Cusparse   GPU only: cuSPARSE SpSV (the baseline)
//   Auto       chosen from the analysis statistics (see trsv/auto_choice)
#pragma once

#include <span>
#include <string>

#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class DiagonalKind { NonUnit, Unit };
enum class Device { Cpu, Cuda };
enum class Operation { NonTranspose, Transpose };
enum class TrsvAlgorithm { Auto, Reference, LevelSet, SyncFree, SyncFreeCsc, Cusparse };

const char* to_string(TrsvAlgorithm a);
const char* to_string(Device d);

struct TrsvOptions {
  TrsvAlgorithm algorithm = TrsvAlgorithm::Auto;
  Device device = Device::Cuda;
  Triangle triangle = Triangle::Lower;  // which triangle A holds
  DiagonalKind diagonal = DiagonalKind::NonUnit;
  Operation operation = Operation::NonTranspose;  // solve with A or with A^T
};

struct TrsvStats {
  TrsvAlgorithm algorithm = TrsvAlgorithm::Auto;  // the one chosen
  Device device = Device::Cpu;
  index_t rows = 0;
  index_t nnz = 0;
  index_t levels = 0;        // dependency levels of the system actually solved
  index_t widest_level = 0;  // rows in the widest level
  double mean_level_width = 0.0;
  double analysis_seconds = 0.0;    // constructor (checks, analysis, uploads)
  double last_solve_seconds = 0.0;  // wall time of the last solve() call
  int solves = 0;
};

// Solves A x = b (or A^T x = b) for a triangular canonical CSR matrix A.
// The constructor checks A (check_triangular_system) and analyses it; every
// bad input is an error naming the row/column (or index for b).
template <class T>
class TriangularSolver {
 public:
  TriangularSolver(const Csr<T>& A, const TrsvOptions& options = {});
  ~TriangularSolver();
  TriangularSolver(TriangularSolver&&) noexcept;
  TriangularSolver& operator=(TriangularSolver&&) noexcept;

  // Host vectors (on a CUDA solver: copied to the device and back).
  void solve(std::span<const T> b, std::span<T> x);
  // Many right-hand sides: the columns of B (rows() x k), into X.
  void solve(const DenseMatrix<T>& B, DenseMatrix<T>& X);
  // Device vectors (CUDA solvers only): asynchronous with respect to the host,
  // on the legacy default stream. b is not checked for NaN/Inf on this path.
  void solve(const cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& x);
  // Waits for the last solve and throws if a sync-free solver's dependency
  // wait exceeded its watchdog (x then holds NaN). Host-vector solves check
  // this themselves; device-vector solves leave it to the caller.
  void check_last_solve();
  // New values for the same pattern, in A's CSR order (A.values' layout).
  // The diagonal and finiteness checks are repeated; on an error the solver
  // keeps its previous values.
  void update_values(std::span<const T> values);

  const TrsvStats& stats() const;
  index_t rows() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

// Serial forward (Lower) or backward (Upper) substitution on the CPU,
// accumulating in T: the oracle. A must be square canonical CSR (sorted
// columns, no duplicates) with every stored entry in the triangle; with
// NonUnit the diagonal must be present and nonzero; with Unit stored diagonal
// entries are ignored and taken as 1. b and x must be finite-valued, of A's size.
template <class T>
void trsv_reference(const Csr<T>& A, Triangle tri, DiagonalKind diag, std::span<const T> b, std::span<T> x);

// The checks above without solving (every triangular solver runs them):
// canonical, square, triangular, diagonal, finite values.
template <class T>
void check_triangular_system(const Csr<T>& A, Triangle tri, DiagonalKind diag);

}  // namespace balsa
