// balsa: x = A \ b in one call, for any square sparse A, as fast to the
// answer as balsa can make it.
//
// SolveMethod::Auto decides before running anything heavy:
//  1. cheap features of A (size, entries, symmetry, a positive diagonal,
//     diagonal dominance: one pass over A);
//  2. the time to the answer of every method that applies, on every device
//     that is usable, predicted by a cost model measured on this kind of
//     machine (solve/cost_model.cpp): set-up + iterations x time per
//     iteration for the iterative methods (CG, Jacobi-PCG, PCG-IC(0);
//     DB + ILU(0)-BiCGStab(2) for the rest), the direct solvers' own
//     symbolic analysis (fill, flops: include/balsa/direct.hpp) for CHOLMOD
//     (symmetric, positive diagonal), UMFPACK or KLU; the GPU's upload,
//     context and set-up counted, so small systems stay on the CPU;
//  3. the attempts in the order of their predictions, then SaP's sparse
//     pipeline (sap-d, sap-c, sap-lu) as the last iterative resorts when no
//     direct factorisation fits in memory, and a direct method last.
// A time budget covers the whole chain (by default 1.75x the predicted direct
// time, when a direct factorisation fits): an iterative attempt whose
// measured convergence rate says it cannot meet the tolerance in the time
// left before the direct method must start is stopped early. Diagonal
// boosting (DB) and SaP's Cuthill-McKee ordering are computed once and
// shared by every link that uses them.
//
// Acceptance is by backward error: x is accepted when its componentwise
// (Oettli-Prager) backward error max_i |b - A x|_i / (|A| |x| + |b|)_i, or its
// normwise one ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), is at most
// the tolerance (SolveOptions::acceptance picks one of them alone); the
// report gives both and the relative residual.
//
//   std::vector<double> x(A.rows, 0.0);
//   balsa::SolveReport r = balsa::solve(A, b, x);
//   // r.solved, r.method ("cholmod", "cg", ...), r.plan (the predictions),
//   // r.chain (what was tried and why it stopped), r.backward_error
//   balsa::SolveReport R = balsa::solve(A, B, X);   // n x k: one set-up for every column
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "balsa/core.hpp"
#include "balsa/direct.hpp"
#include "balsa/krylov.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class SolveMethod {
  Auto, PcgIc0, DbBiCgStab2Ilu0, SapD, SapC, SapLu, Umfpack, DirectQr, Cholmod, Klu, Cg, PcgJacobi, PcgChebyshev
};
template <>
struct EnumNames<SolveMethod> {
  static constexpr const char* what = "solve method";
  static constexpr EnumName<SolveMethod> names[] = {{SolveMethod::Auto, "auto"},
                                                    {SolveMethod::PcgIc0, "pcg-ic0"},
                                                    {SolveMethod::DbBiCgStab2Ilu0, "db-bicgstab2-ilu0"},
                                                    {SolveMethod::SapD, "sap-d"},
                                                    {SolveMethod::SapC, "sap-c"},
                                                    {SolveMethod::SapLu, "sap-lu"},
                                                    {SolveMethod::Umfpack, "umfpack"},
                                                    {SolveMethod::DirectQr, "direct-qr"},
                                                    {SolveMethod::Cholmod, "cholmod"},
                                                    {SolveMethod::Klu, "klu"},
                                                    {SolveMethod::Cg, "cg"},
                                                    {SolveMethod::PcgJacobi, "pcg-jacobi"},
                                                    {SolveMethod::PcgChebyshev, "pcg-chebyshev"}};
};
// True for the direct methods (umfpack, cholmod, klu, direct-qr).
bool is_direct(SolveMethod m) noexcept;

// Which backward error accepts an answer (see the top of this file).
enum class Acceptance { Either, Componentwise, Normwise };
template <>
struct EnumNames<Acceptance> {
  static constexpr const char* what = "acceptance";
  static constexpr EnumName<Acceptance> names[] = {
      {Acceptance::Either, "either"}, {Acceptance::Componentwise, "componentwise"}, {Acceptance::Normwise, "normwise"}};
};

struct SolveOptions {
  // Auto: the plan above. Another method: that one alone, followed by the
  // direct fallback when direct_fallback is on.
  SolveMethod method = SolveMethod::Auto;
  // Auto: each method on the device its prediction favours (small systems
  // on the CPU); Cpu or Cuda: every iterative method there (the direct
  // solvers run on the CPU).
  Device device = Device::Auto;
  // The stopping rules of every iterative method (include/balsa/stopping.hpp):
  // they stop when their relative residual ||b - A x||_2 / ||b||_2 meets
  // stopping.tolerance (1e-8), which is also the backward error asked of an
  // answer; at most 2000 iterations per method; divergence 1e10; stagnation
  // after 300 iterations without progress.
  StoppingOptions stopping = {
      .tolerance = 1e-8, .norm = StoppingNorm::Two, .max_iterations = 2000, .stagnation_window = 300};
  bool direct_fallback = true;  // end the chain with a direct method
  // Called with (method name, iteration, relative residual) as the
  // iterative methods progress.
  std::function<void(const char*, int, double)> progress = nullptr;
  // The CUDA stream of every method of the chain (include/balsa/core.hpp;
  // nullptr: the calling thread's per-thread default stream).
  StreamHandle stream = nullptr;
  Acceptance acceptance = Acceptance::Either;
  // Seconds for the whole chain (> 0, finite). Not set: 1.75x the predicted
  // time of the direct method when one fits in memory, else none. A link
  // predicted (or measured, from its convergence rate) to overrun what is
  // left is stopped or skipped, and says so.
  std::optional<double> time_budget = std::nullopt;
  // Host threads of every method (0: the process's setting).
  int threads = 0;
};

// What Auto read from A before choosing (one O(nnz) pass).
struct SolveFeatures {
  index_t n = 0;
  std::int64_t nnz = 0;
  bool symmetric = false;          // values (to 1e-12 relative)
  bool positive_diagonal = false;  // every a_ii > 0 (none missing)
  index_t zero_diagonal = 0;       // rows whose diagonal is zero or missing
  double dominant_rows = 0;        // fraction of rows with |a_ii| >= sum_j!=i |a_ij|
  double diagonal_spread = 0;      // max |a_ii| / min |a_ii| (infinity with a zero diagonal)
  double norm_inf = 0;             // ||A||_inf
  double seconds = 0;
};

// One method Auto considered: where it would run and how long it would
// take to the answer, and on what the prediction rests.
struct SolvePrediction {
  SolveMethod method = SolveMethod::Auto;
  Device device = Device::Cpu;
  double seconds = 0;  // predicted set-up + solve (infinity: cannot run, see basis)
  std::string basis;   // "analysis: 2.1e9 flops, 3.4e6 factor entries" / "prior: 270 iterations x 0.09 ms"
};

struct SolveAttempt {
  SolveMethod method = SolveMethod::Auto;
  Device device = Device::Cpu;
  bool solved = false;
  std::string reason;           // why it failed (empty when solved)
  int iterations = 0;
  double true_residual = -1;    // ||b - A x||_2 / ||b||_2 after the method (-1: it gave no x)
  double backward_error = -1;   // normwise (inf-norms), -1: no x
  double componentwise_backward_error = -1;
  double predicted_seconds = -1;  // Auto's prediction (-1: none made)
  double setup_seconds = 0, solve_seconds = 0;
  bool stopped_early = false;   // by the time budget (rate or prediction)
};

struct SolveReport {
  bool solved = false;                      // every column accepted
  SolveMethod method = SolveMethod::Auto;   // the method that produced x (first column; Auto: none did)
  bool direct = false;                      // x came from a direct method
  Device device = Device::Cpu;              // where that method ran
  double true_residual = -1;                // ||b - A x||_2 / ||b||_2 of the returned x (worst column)
  double backward_error = -1;               // normwise (worst column)
  double componentwise_backward_error = -1; // (worst column)
  double seconds = 0;                       // the whole call
  double setup_seconds = 0;                 // features, plan and every set-up made
  double budget_seconds = 0;                // the chain's time budget (0: none)
  SolveFeatures features;
  std::vector<SolvePrediction> plan;        // Auto's predictions, fastest first (empty for a method named)
  std::vector<SolveAttempt> chain;          // first column: in the order tried, the answering one last
  KrylovStats krylov;                       // the answering iterative method's (iterations, history)
  DirectStats direct_stats;                 // the answering direct method's (fill, flops, phases)
  // Several right-hand sides: one entry per column (the first column's is
  // chain.back()); a column the first answering method fails goes on along
  // the chain with the set-ups already made.
  std::vector<SolveAttempt> columns;
  std::string message;                      // one line: what solved it, or why nothing did
};

// x: initial guess of the iterative methods in, answer out (left at the
// best attempt's x when nothing solved it). A square, canonical; b and x of
// length A.rows. Bad input (shape, NaN/Inf in A or b, structurally singular
// A with no method able to run, bad options) is an Error; a system no method
// solves is a report with solved == false and every method's reason.
template <class T>
SolveReport solve(const Csr<T>& A, std::span<const T> b, std::span<T> x, const SolveOptions& options = {});

// n x k right-hand sides B (column-major), answers in X (resized to n x k;
// its values on entry are the initial guesses when it is already n x k).
// One plan and one set-up serve every column.
template <class T>
SolveReport solve(const Csr<T>& A, const DenseMatrix<T>& B, DenseMatrix<T>& X, const SolveOptions& options = {});

// Auto's decision alone: the features and the predictions, fastest first
// (runs the direct solvers' symbolic analysis where the plan would).
template <class T>
SolveReport plan_solve(const Csr<T>& A, const SolveOptions& options = {});

}  // namespace balsa
