// balsa: x = A \ b in one call, for any square sparse A. A chain of methods
// is tried in turn until one gives an answer whose true residual meets the
// tolerance:
//
//   SolveMethod::Auto, A symmetric with a positive diagonal:
//     pcg-ic0 -> sap-d -> db-bicgstab2-ilu0 -> sap-lu -> umfpack
//   otherwise:
//     db-bicgstab2-ilu0 -> sap-d -> sap-c -> sap-lu -> umfpack
//
// where db-... first applies diagonal boosting (include/balsa/reorder.hpp:
// the maximum-product matching and the I-matrix scaling), sap-d/sap-c are
// SaP's sparse pipeline (include/balsa/sap.hpp, SparseSapSolver) and sap-lu
// the same pipeline with one partition and no drop-off: the whole band of
// the reordered matrix factored (within SparseSapOptions' work cap) as the
// preconditioner, for matrices that CM makes narrow but whose blocks alone
// are too weak. A
// method stops at once when its residual diverges (1e10 times its best),
// turns NaN/Inf, or makes no progress for `stagnation_window` iterations,
// and the next one starts. The last link is a direct method (UMFPACK, from
// SuiteSparse) unless direct_fallback is off, so a nonsingular system always
// gets an answer, reported as such. A result is never reported solved unless
// ||b - A x||_2 / ||b||_2 <= tolerance was measured.
//
//   std::vector<double> x(A.rows, 0.0);
//   balsa::SolveReport r = balsa::solve(A, b, x);
//   // r.solved, r.method ("db-bicgstab2-ilu0", "umfpack", ...), r.chain (what was tried and why it failed)
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "balsa/core.hpp"
#include "balsa/krylov.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class SolveMethod { Auto, PcgIc0, DbBiCgStab2Ilu0, SapD, SapC, SapLu, Umfpack, DirectQr };
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
                                                    {SolveMethod::DirectQr, "direct-qr"}};
};

struct SolveOptions {
  // Auto: the chain above. Another method: that one alone, followed by the
  // direct fallback when direct_fallback is on.
  SolveMethod method = SolveMethod::Auto;
  Device device = Device::Auto;  // the iterative methods' device
  double tolerance = 1e-8;       // ||b - A x||_2 / ||b||_2 asked of every method
  int max_iterations = 2000;     // per iterative method
  bool direct_fallback = true;   // end the chain with UMFPACK
  double divergence = 1e10;      // KrylovOptions::divergence of every iterative method
  int stagnation_window = 300;   // KrylovOptions::stagnation_window of every iterative method
  // Called with (method name, iteration, relative residual) as the
  // iterative methods progress.
  std::function<void(const char*, int, double)> progress = nullptr;
  // The CUDA stream of every method of the chain (include/balsa/core.hpp;
  // nullptr: the calling thread's per-thread default stream).
  StreamHandle stream = nullptr;
};

struct SolveAttempt {
  SolveMethod method = SolveMethod::Auto;
  bool solved = false;
  std::string reason;           // why it failed (empty when solved)
  int iterations = 0;
  double true_residual = -1;    // measured after the method (-1: it gave no x)
  double setup_seconds = 0, solve_seconds = 0;
};

struct SolveReport {
  bool solved = false;
  SolveMethod method = SolveMethod::Auto;  // the method that produced x (Auto: none did)
  bool direct = false;                      // x came from the direct fallback
  Device device = Device::Cpu;
  double true_residual = -1;                // of the returned x
  double seconds = 0;                       // the whole call
  std::vector<SolveAttempt> chain;          // in the order tried, the answering one last
  KrylovStats krylov;                       // the answering iterative method's (iterations, history)
  std::string message;                      // one line: what solved it, or why nothing did
};

// x: initial guess of the iterative methods in, answer out (left at the
// best attempt's x when nothing solved it). A square, canonical; b and x of
// length A.rows. Bad input (shape, NaN/Inf in A or b, structurally singular
// A with no method able to run) is an Error; a system no method solves is a
// report with solved == false and every method's reason.
template <class T>
SolveReport solve(const Csr<T>& A, std::span<const T> b, std::span<T> x, const SolveOptions& options = {});

}  // namespace balsa
