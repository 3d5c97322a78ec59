// balsa: a preconditioner on its own, z = M^{-1} r, for programs that run
// their own Krylov iteration (PETSc's KSP through plugins/petsc, or a
// user's loop): the ILU(0) and IC(0) of include/balsa/factor.hpp applied as
// two triangular solves (Picciau's thesis sec. 5.1.1), Jacobi, or a sparse
// direct factorisation (include/balsa/direct.hpp) used as an exact M.
// They are the objects KrylovSolver builds for its own iteration
// (krylov/preconditioner.hpp); this class only adds the checks, the
// choice of `auto` and the stats.
//
//   balsa::Preconditioner<double> M(A, {.method = balsa::PreconditionMethod::Ic0});
//   M.apply(r, z);                      // host vectors
//   M.apply_device(d_r, d_z);           // device pointers (the GPU path), on options.stream
//   M.update_values(new_values);        // same pattern: factored again, the analysis reused
//   M.stats().method, .device, .setup_seconds, .analysis_reused ...
//
// Auto (PreconditionOptions::direct_max_rows): A with at most that many
// rows -> Direct; else A symmetric (balsa::first_asymmetry, relative
// tolerance 1e-12) with a positive diagonal ("SPD-looking") -> IC(0); else
// ILU(0). SaP-D / SaP-C: SaP's sparse pipeline (include/balsa/sap.hpp,
// SparseSapSolver: DB matching and scaling, Cuthill-McKee, drop-off, the
// banded SaP-D/SaP-C factors, options.sap) applied once per call
// (SparseSapSolver::precondition); its vectors cross the host (the DB and
// CM maps run there), so apply_device copies; update_values sets it up
// again whole (DB's matching follows the values: analysis_reused false).
//
// Set-up happens in the constructor: A square, canonical (sorted, no
// duplicates), finite; a missing or zero diagonal entry is a MatrixError
// naming the row (ILU(0), IC(0), Jacobi).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "balsa/core.hpp"
#include "balsa/direct.hpp"
#include "balsa/factor.hpp"
#include "balsa/sap.hpp"
#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"

namespace balsa {

enum class PreconditionMethod { Auto, Jacobi, Ilu0, Ic0, SapD, SapC, Direct };
template <>
struct EnumNames<PreconditionMethod> {
  static constexpr const char* what = "preconditioner method";
  static constexpr EnumName<PreconditionMethod> names[] = {
      {PreconditionMethod::Auto, "auto"}, {PreconditionMethod::Jacobi, "jacobi"}, {PreconditionMethod::Ilu0, "ilu0"},
      {PreconditionMethod::Ic0, "ic0"},   {PreconditionMethod::SapD, "sap-d"},    {PreconditionMethod::SapC, "sap-c"},
      {PreconditionMethod::Direct, "direct"}};
};

struct PreconditionOptions {
  PreconditionMethod method = PreconditionMethod::Auto;
  // Auto: the GPU when one is usable (Direct always runs on the CPU; its
  // apply_device copies through the host).
  Device device = Device::Auto;
  // ILU(0)/IC(0): the algorithm of their two triangular solves.
  TrsvAlgorithm trsv = TrsvAlgorithm::Auto;
  IncompleteOptions factor = {};  // ILU(0)/IC(0) breakdown policy (kind and device set from above)
  DirectOptions direct = {};      // Direct (device and threads set from above)
  SparseSapOptions sap = {};      // SaP-D / SaP-C (variant, device, stream and threads set from above)
  // Auto picks Direct for A with at most this many rows (0: never).
  index_t direct_max_rows = 2000;
  StreamHandle stream = nullptr;  // the GPU work of every call (nullptr: the per-thread default stream)
  int threads = 0;                // CPU (OpenMP) threads of each call; 0: the caller's
};

struct PreconditionStats {
  PreconditionMethod method = PreconditionMethod::Auto;  // the one set up (never Auto)
  // Resolved; Cuda means apply_device takes device arrays (Direct's
  // factorisation still runs on the CPU: its device applications copy through the host).
  Device device = Device::Cpu;
  std::string rule;          // why Auto chose `method` ("" when it was named)
  index_t n = 0;
  std::int64_t nnz = 0;
  double setup_seconds = 0;   // the constructor, or the last update_values
  double analysis_seconds = 0;  // the constructor's (the pattern's analysis and first factorisation)
  bool analysis_reused = false;  // the last set-up was update_values (the analysis kept)
  int updates = 0;               // update_values calls so far
  std::int64_t applications = 0;  // apply and apply_device calls so far
  double apply_seconds = 0;        // host apply calls, total (apply_device is asynchronous: not timed)
  IncompleteStats factor;          // ILU(0)/IC(0)
  TrsvStats lower, upper;          // ILU(0)/IC(0): the two triangular solvers
  DirectStats direct;              // Direct
  SparseSapStats sap;              // SaP-D / SaP-C
};

template <class T>
class Preconditioner {
 public:
  explicit Preconditioner(const Csr<T>& A, const PreconditionOptions& options = {});
  ~Preconditioner();
  Preconditioner(Preconditioner&&) noexcept;
  Preconditioner& operator=(Preconditioner&&) noexcept;

  // z = M^{-1} r on the host (rows() values each; r and z do not alias).
  void apply(std::span<const T> r, std::span<T> z);
  // The same on device arrays of rows() values, asynchronous on
  // options.stream (stats().device must be Cuda).
  void apply_device(const T* r, T* z);
  // New values of A's pattern (A's CSR order, nnz values, finite): factored
  // again without a new analysis.
  void update_values(std::span<const T> values);

  const PreconditionStats& stats() const;
  index_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace balsa
