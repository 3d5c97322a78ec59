// balsa: preconditioned Krylov solvers for A x = b on the CPU or the GPU:
// CG/PCG (Picciau's thesis Alg. 5.1; Saad, "Iterative Methods for Sparse
// Linear Systems", 2nd ed., Alg. 9.1), BiCGStab (van der Vorst 1992; Saad
// Alg. 7.7, right-preconditioned as in Saad sec. 9.3.2), BiCGStab(l)
// (Sleijpen & Fokkema 1993; the Krylov method of the SaP report), restarted
// GMRES(m) (Saad & Schultz 1986; Saad Alg. 6.9 with right preconditioning,
// Alg. 9.5) and MINRES (Paige & Saunders 1975) for symmetric, possibly
// indefinite A, with the preconditioners none, Jacobi, ILU(0) and IC(0)
// (include/balsa/factor.hpp) applied through balsa's triangular solvers, and
// Chebyshev. BiCGStab, BiCGStab(l) and GMRES are right-preconditioned, so
// their residual is that of A x = b itself; MINRES takes a symmetric
// positive definite preconditioner (not ILU(0)).
//
//   balsa::KrylovSolver<double> pcg(A, {.method = balsa::KrylovMethod::Cg,
//                                       .preconditioner = balsa::PreconditionerKind::Ic0});
//   std::vector<double> x(A.rows, 0.0);       // initial guess in, solution out
//   balsa::KrylovStats st = pcg.solve(b, x);  // st.outcome, st.iterations, st.history
//
// Setup (checks, preconditioner analysis and factorisation, GPU uploads)
// happens in the constructor; solve() may be called any number of times;
// update_values() refactors for new values of the same pattern.
//
// Stopping (options.stopping, include/balsa/stopping.hpp; checked every
// iteration, on the device on the GPU path), SciPy's test by default:
//   StoppingNorm::Two       ||r||_2   <= max(tolerance * ||b||_2, absolute_tolerance) (the default)
//   StoppingNorm::Infinity  ||r||_inf <= max(tolerance * ||b||_inf, absolute_tolerance) (the thesis')
// where r is the recursively updated residual (GMRES: the norm its Givens
// rotations give, |g_{j+1}|; MINRES: r updated with the products A w of its
// search directions, so both test ||r||_2 of A x = b even when
// preconditioned; they take the 2-norm only); stats().true_residual is
// ||b - A x||_2 / ||b||_2 recomputed at the end. A solve that stops for any
// other reason reports it in outcome and message; it is never Converged.
// b == 0 gives x = 0, converged at iteration 0 (as SciPy, whatever the
// tolerances). x is left at the last iterate the method formed before it
// stopped.
//
// Precision: vectors in T; dot products, norms and the scalars (alpha, beta,
// omega, the Hessenberg matrix and rotations, ...) in double, on both paths.
//
// The GPU path (Device::Cuda) runs the whole iteration on the device: the
// scalars and the stopping test stay in device memory and a status word
// turns every later kernel of the solve into a no-op once the solve has
// stopped, so the host enqueues iterations ahead and reads the status only
// every few iterations (a few iterations' products with A and the
// preconditioner may run past the end; x is not changed by them). It takes
// the same steps as the CPU path in the same order; the two differ only by
// rounding (the order of the sums), so iteration counts agree to an
// iteration or two.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/factor.hpp"
#include "balsa/sparse.hpp"
#include "balsa/stopping.hpp"
#include "balsa/trsv.hpp"

namespace balsa {

// Cg: SPD A (and M). BiCgStab, BiCgStabL: any nonsingular A. Gmres:
// restarted GMRES(m), m = KrylovOptions::restart, any nonsingular A; its
// residual norm never grows. Minres: symmetric A, definite or not, with an SPD
// preconditioner (none, Jacobi, IC(0), Chebyshev); its residual norm
// (unpreconditioned) never grows.
enum class KrylovMethod { Cg, BiCgStab, BiCgStabL, Gmres, Minres };
template <>
struct EnumNames<KrylovMethod> {
  static constexpr const char* what = "Krylov method";
  static constexpr EnumName<KrylovMethod> names[] = {{KrylovMethod::Cg, "cg"},
                                                     {KrylovMethod::BiCgStab, "bicgstab"},
                                                     {KrylovMethod::BiCgStabL, "bicgstab(l)"},
                                                     {KrylovMethod::Gmres, "gmres"},
                                                     {KrylovMethod::Minres, "minres"}};
};
// SapD / SapC: the SaP banded preconditioners (include/balsa/sap.hpp); they
// need band storage and come only through balsa::BandedSolver.
// Chebyshev: a polynomial preconditioner, M^{-1} = p(D^{-1} A) D^{-1} with
// D = diag(A): `degree` steps of the Chebyshev iteration (Saad, "Iterative
// Methods for Sparse Linear Systems", 2nd ed., sec. 12.3.3, Alg. 12.1) on
// A z = r from z = 0 for the interval [a, b], b Gershgorin's bound on the
// eigenvalues of D^{-1} A, a the larger of b / ratio and Gershgorin's lower
// bound (ChebyshevOptions). Its set-up is one pass over
// A's values (on the device on the GPU path: nothing is analysed and nothing
// travels to the host); each application is `degree` products with A, no
// inner product, so on the GPU it trades CG's reductions and launches for
// bandwidth-bound products. Needs a positive diagonal; symmetric for a
// symmetric A, positive definite for an SPD one.
enum class PreconditionerKind { None, Jacobi, Ilu0, Ic0, SapD, SapC, Chebyshev };
template <>
struct EnumNames<PreconditionerKind> {
  static constexpr const char* what = "preconditioner";
  static constexpr EnumName<PreconditionerKind> names[] = {
      {PreconditionerKind::None, "none"}, {PreconditionerKind::Jacobi, "jacobi"}, {PreconditionerKind::Ilu0, "ilu0"},
      {PreconditionerKind::Ic0, "ic0"},   {PreconditionerKind::SapD, "sap-d"},    {PreconditionerKind::SapC, "sap-c"},
      {PreconditionerKind::Chebyshev, "chebyshev"}};
};
// The order of the unknowns the solver works in (the caller always sees A's
// own): Natural, A's; Multicolour, the rows of A sorted by the colours of a
// greedy distance-1 colouring of A + A^T (balsa::greedy_colouring,
// include/balsa/graph.hpp) and the solver on P A P^T (Saad, "Iterative
// Methods for Sparse Linear Systems", 2nd ed., sec. 12.4). Each colour is a
// diagonal block, so IC(0)/ILU(0)'s triangular solves have one dependency
// level per colour (2 on a 2D/3D grid Laplacian, red-black) instead of
// hundreds, at the price of more iterations than the natural order.
enum class KrylovOrdering { Natural, Multicolour };
template <>
struct EnumNames<KrylovOrdering> {
  static constexpr const char* what = "Krylov ordering";
  static constexpr EnumName<KrylovOrdering> names[] = {{KrylovOrdering::Natural, "natural"},
                                                       {KrylovOrdering::Multicolour, "multicolour"}};
};
// GPU: the sparse matrix-vector product of the iteration. Auto: cuSPARSE's
// or balsa's own kernel, the faster over a few products timed at set-up.
enum class KrylovSpmv { Auto, Cusparse, Balsa };
template <>
struct EnumNames<KrylovSpmv> {
  static constexpr const char* what = "Krylov SpMV";
  static constexpr EnumName<KrylovSpmv> names[] = {
      {KrylovSpmv::Auto, "auto"}, {KrylovSpmv::Cusparse, "cusparse"}, {KrylovSpmv::Balsa, "balsa"}};
};
enum class KrylovOutcome {
  Converged,
  MaxIterations,  // max_iterations reached without meeting the tolerance
  Breakdown,      // a division by (near) zero in the method: message says which
  NonFinite,      // NaN or Inf appeared in the iteration
  // The recursively updated residual fell below what the true residual can
  // reach (attainable accuracy), or the residual made no progress for
  // stopping.stagnation_window iterations: the message says which.
  Stagnation,
  Diverged,  // the residual grew to stopping.divergence times its best
};
template <>
struct EnumNames<KrylovOutcome> {
  static constexpr const char* what = "Krylov outcome";
  static constexpr EnumName<KrylovOutcome> names[] = {{KrylovOutcome::Converged, "converged"},
                                                      {KrylovOutcome::MaxIterations, "max-iterations"},
                                                      {KrylovOutcome::Breakdown, "breakdown"},
                                                      {KrylovOutcome::NonFinite, "non-finite"},
                                                      {KrylovOutcome::Stagnation, "stagnation"},
                                                      {KrylovOutcome::Diverged, "diverged"}};
};

// PreconditionerKind::Chebyshev: products with A per application (0: the
// Jacobi scaling D^{-1} r / theta) and the ratio b / a of the interval it
// targets. Eigenvalues of D^{-1} A below a are still damped (the residual
// polynomial stays in (0, 1) there), so a need not be a bound: the defaults
// are fitted on the 3D Laplacians and half of the SPD matrices of the
// shared suite (bench/results/2026-11-29-setup-chebyshev-fit.txt).
struct ChebyshevOptions {
  int degree = 7;
  double ratio = 30.0;
};

struct KrylovOptions {
  KrylovMethod method = KrylovMethod::Cg;
  PreconditionerKind preconditioner = PreconditionerKind::Ic0;
  Device device = Device::Auto;  // resolve_device: the GPU when present
  // Tolerance, norm, maximum iterations, divergence and stagnation
  // (include/balsa/stopping.hpp); KrylovOptions' defaults are StoppingOptions':
  // 1e-8 relative, no absolute tolerance, the 2-norm, 10000 iterations,
  // divergence 1e10, no stagnation test.
  StoppingOptions stopping = {};
  int l = 2;  // BiCGStab(l): 1..8 (l = 1 is BiCGStab in another arrangement)
  // GMRES(m): m, the Krylov basis' size before a restart (1..1000; SciPy's
  // `restart`, whose default is 20). It is capped at A's order. Memory: m + 1
  // vectors of n values besides the usual few.
  int restart = 30;
  // The preconditioner's triangular solves (GPU: any algorithm; CPU: Auto
  // picks level-set).
  TrsvAlgorithm trsv = TrsvAlgorithm::Auto;
  // Mixed precision (T = double only): the preconditioner is factored and
  // applied in float inside the double iteration.
  bool float_preconditioner = false;
  // ILU(0)/IC(0) breakdown policy (kind and device are set from above).
  IncompleteOptions factor = {};
  ChebyshevOptions chebyshev = {};  // PreconditionerKind::Chebyshev
  // Multicolour: set-up colours A and permutes it (ordering_seconds, colours
  // in the stats); every solve takes b and x0 through P and x back, on the
  // device for the GPU path. Errors about A's entries name them in A's
  // numbering, those of the preconditioner's set-up (a zero pivot, a zero
  // diagonal) rows of P A P^T. Needs A as CSR (not an operator or a
  // preconditioner given by a composite solver).
  KrylovOrdering ordering = KrylovOrdering::Natural;
  // CG and MINRES: check that A is symmetric (|a_ij - a_ji| <= 1e-12 max(|a_ij|, |a_ji|),
  // a missing entry counting as 0); a MatrixError names the first (i, j) that is not.
  bool check_symmetry = true;
  // Per-phase timing (see stats): GPU: CUDA events around the phases of the
  // first 32 iterations and every 16th after; CPU: a clock on every phase.
  bool phase_timing = true;
  // Called on the host with (iteration, relative residual) as the host
  // learns them (CPU: every iteration; GPU: at its status checks, every
  // few iterations, and once at the end). An exception from it stops the
  // solve and leaves solve() unchanged.
  std::function<void(int, double)> progress = nullptr;
  // The CUDA stream of all the solver's GPU work, its preconditioner's and
  // triangular solvers' included (include/balsa/core.hpp; nullptr: the
  // calling thread's per-thread default stream). factor.stream is not read:
  // the factorisation runs on this one.
  StreamHandle stream = nullptr;
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
  // GPU: the SpMV (KrylovSpmv above); the CPU path has one. The solver's
  // stats().spmv names the one used.
  KrylovSpmv spmv = KrylovSpmv::Auto;
};

// The methods as the command line and the Python module name them: a
// Krylov method with its preconditioner ("pcg-ic0": CG preconditioned by
// IC(0); the "bicgstab2" ones: BiCGStab(l) with l = 2; "-mc": in the
// multicolour ordering, KrylovOrdering::Multicolour; "gmres": GMRES(30)).
enum class KrylovPreset {
  PcgIc0, PcgIlu0, PcgJacobi, Cg, BiCgStabIlu0, BiCgStab2Ilu0, BiCgStabJacobi, BiCgStab2Jacobi, BiCgStab, BiCgStab2,
  PcgIc0Mc, BiCgStabIlu0Mc, BiCgStab2Ilu0Mc, PcgChebyshev, Gmres, GmresIlu0, GmresJacobi, Minres, MinresJacobi
};
template <>
struct EnumNames<KrylovPreset> {
  static constexpr const char* what = "method";
  static constexpr EnumName<KrylovPreset> names[] = {
      {KrylovPreset::PcgIc0, "pcg-ic0"},           {KrylovPreset::PcgIlu0, "pcg-ilu0"},
      {KrylovPreset::PcgJacobi, "pcg-jacobi"},     {KrylovPreset::Cg, "cg"},
      {KrylovPreset::BiCgStabIlu0, "bicgstab-ilu0"}, {KrylovPreset::BiCgStab2Ilu0, "bicgstab2-ilu0"},
      {KrylovPreset::BiCgStabJacobi, "bicgstab-jacobi"}, {KrylovPreset::BiCgStab2Jacobi, "bicgstab2-jacobi"},
      {KrylovPreset::BiCgStab, "bicgstab"},        {KrylovPreset::BiCgStab2, "bicgstab2"},
      {KrylovPreset::PcgIc0Mc, "pcg-ic0-mc"},     {KrylovPreset::BiCgStabIlu0Mc, "bicgstab-ilu0-mc"},
      {KrylovPreset::BiCgStab2Ilu0Mc, "bicgstab2-ilu0-mc"}, {KrylovPreset::PcgChebyshev, "pcg-chebyshev"},
      {KrylovPreset::Gmres, "gmres"},             {KrylovPreset::GmresIlu0, "gmres-ilu0"},
      {KrylovPreset::GmresJacobi, "gmres-jacobi"}, {KrylovPreset::Minres, "minres"},
      {KrylovPreset::MinresJacobi, "minres-jacobi"}};
};
// The options of a preset: its method, preconditioner and ordering, l = 2,
// the rest as KrylovOptions{}.
KrylovOptions krylov_options(KrylovPreset preset);

struct KrylovStats {
  KrylovMethod method = KrylovMethod::Cg;
  PreconditionerKind preconditioner = PreconditionerKind::None;
  KrylovOrdering ordering = KrylovOrdering::Natural;
  index_t colours = 0;  // Multicolour: the colouring's colours (Natural: 0)
  Device device = Device::Cpu;
  KrylovOutcome outcome = KrylovOutcome::MaxIterations;
  std::string message;     // why it stopped, in words
  // Iterations done. CG: one product with A each; BiCGStab: two (a solve
  // that converges at the half step counts that iteration, with one);
  // BiCGStab(l): outer iterations of l BiCG steps and one MR step, 2l
  // products each (it may also stop after a BiCG step that meets the
  // tolerance, counting that outer iteration). GMRES: inner (Arnoldi) steps,
  // one product each (each restart adds one more for its residual); MINRES:
  // Lanczos steps, one product each.
  int iterations = 0;
  int matvecs = 0;         // products with A, the initial residual's included
  double residual = 0.0;   // final relative residual in the stopping norm (recursive r)
  double true_residual = 0.0;  // ||b - A x||_2 / ||b||_2, recomputed
  // Relative residual (stopping norm) after each iteration; [0] the
  // initial one; iterations + 1 entries; residual == history.back().
  std::vector<double> history;
  // Times (seconds). setup = constructor (checks, ordering, analyses,
  // factorisation, uploads); ordering = of which the multicolour ordering
  // (colouring and P A P^T); factor = of which the numeric factorisation; solve = the last
  // solve() call, wall clock; the per-phase times are totals over that
  // solve's iterations (GPU: from CUDA events on sampled iterations, scaled
  // to all; phase_samples says how many were timed).
  double setup_seconds = 0.0;
  double ordering_seconds = 0.0;
  double factor_seconds = 0.0;
  double solve_seconds = 0.0;
  double preconditioner_seconds = 0.0;  // triangular solves (or Jacobi scaling)
  double spmv_seconds = 0.0;
  double vector_seconds = 0.0;          // dots, axpys, norms, convergence checks
  int phase_samples = 0;                // CPU: every iteration (when phase_timing)
  IncompleteStats factor;               // ILU(0)/IC(0)
  // Chebyshev: its degree, the interval [a, b] of D^{-1} A's eigenvalues it
  // targets (b Gershgorin's bound, a the larger of b / ratio and Gershgorin's
  // lower bound), and the products with A made inside the preconditioner by the
  // last solve (not in matvecs: degree per application, one application per
  // product in matvecs).
  int chebyshev_degree = 0;
  double spectrum_lower = 0.0;
  double spectrum_bound = 0.0;
  std::int64_t preconditioner_matvecs = 0;
  TrsvStats lower, upper;               // the preconditioner's two triangular solvers
  std::string spmv;                     // GPU: the SpMV chosen at setup ("cusparse" or "balsa"); CPU: ""
};

namespace krylov {
template <class T> class Operator;        // krylov/operator.hpp (internal)
template <class T> class Preconditioner;  // krylov/preconditioner.hpp (internal)
}  // namespace krylov

// A matrix-free square operator y = A x, given by its products (SciPy's
// LinearOperator). `apply` runs on the host (x and y: rows values each, not
// aliased); `apply_device`, optional, on device arrays of rows values,
// enqueued on `stream` (the solver's: options.stream, or the per-thread
// default stream cudaStreamPerThread when that is nullptr) without waiting
// for it. As a preconditioner M it is applied as z = M r, M approximating
// A^{-1} (SciPy's convention). A callback may throw: the solve stops and the
// exception leaves solve() unchanged.
template <class T>
struct LinearOperator {
  index_t rows = 0, cols = 0;
  std::function<void(std::span<const T> x, std::span<T> y)> apply;
  std::function<void(const T* x, T* y, StreamHandle stream)> apply_device = nullptr;
};

// Called after every iteration with its number (1, 2, ...) and the iterate
// x_k (SciPy's callback(xk)); x_k is valid during the call only.
template <class T>
using IterateCallback = std::function<void(int iteration, std::span<const T> x)>;

template <class T>
class KrylovSolver {
 public:
  KrylovSolver(const Csr<T>& A, const KrylovOptions& options = {});
  // A matrix-free A (LinearOperator above; square, apply set) and, when M
  // is given, a preconditioner applied as z = M r (options.preconditioner
  // must then be None; M's shape A's). The solver keeps copies of both (of
  // their std::function objects). A's products go through
  // apply on the CPU and apply_device on the GPU: Device::Auto picks the GPU
  // only when A (and M, if given) have apply_device and a GPU is present;
  // Device::Cuda without them is an error. Without M, options.preconditioner
  // must be None (the built-in ones need A's entries). Not offered with an
  // operator A: the multicolour ordering, CG's symmetry check (skipped:
  // check_symmetry is not read) and update_values.
  KrylovSolver(const LinearOperator<T>& A, const KrylovOptions& options = {}, const LinearOperator<T>* M = nullptr);
  // A as CSR with a user preconditioner M (as above; the natural ordering).
  KrylovSolver(const Csr<T>& A, const KrylovOptions& options, const LinearOperator<T>& M);
  // Internal, for balsa's composite solvers (BandedSolver): A as an operator
  // and a preconditioner already set up for it (null: none;
  // options.preconditioner is then only a label). update_values is not
  // available on such a solver.
  KrylovSolver(std::unique_ptr<krylov::Operator<T>> A, std::unique_ptr<krylov::Preconditioner<T>> M,
               const KrylovOptions& options);
  // Internal, for balsa's composite solvers (SparseSapSolver): A as CSR
  // (its products as the public constructor does them) and a preconditioner
  // already set up for it (for options.device; options.preconditioner is
  // then only a label).
  KrylovSolver(const Csr<T>& A, std::unique_ptr<krylov::Preconditioner<T>> M, const KrylovOptions& options);
  // A already on the device (copied there, device to device; nothing of it
  // travels to the host): the GPU path only (Device::Auto or Cuda), the
  // natural ordering, and the preconditioners whose set-up needs no host
  // analysis: none, Jacobi (a positive diagonal) and Chebyshev. Kernels check
  // A (canonical: row pointers, columns in range and increasing in each row;
  // finite values; for CG with check_symmetry, symmetric) and name the first
  // bad row. update_values takes host values as for the host constructor.
  KrylovSolver(const cuda::DeviceCsr<T>& A, const KrylovOptions& options = {});
  ~KrylovSolver();
  KrylovSolver(KrylovSolver&&) noexcept;
  KrylovSolver& operator=(KrylovSolver&&) noexcept;

  // x holds the initial guess and receives the solution (host vectors; on
  // the GPU path copied to the device and back).
  KrylovStats solve(std::span<const T> b, std::span<T> x);
  // Device vectors (Device::Cuda only), on the solver's stream
  // (options.stream): b written on another stream must be ordered with it
  // by the caller. The solve reads its status from the device every few
  // iterations, so it returns when it is over: x is final for the solver's
  // stream (and for the host, which the last status read waited for).
  KrylovStats solve(const cuda::DeviceBuffer<T>& b, cuda::DeviceBuffer<T>& x);
  // The same on device pointers of rows() values each (b and x distinct;
  // x: initial guess in, solution out), for callers that hold their vectors
  // elsewhere (zero-copy bindings).
  KrylovStats solve_device(const T* b, T* x);
  // New values, same pattern (A's CSR order): the preconditioner is refactored.
  void update_values(std::span<const T> values);

  // f (null: none) is called after every iteration of the later solves
  // with the iterate (CPU: in place; GPU: the status is read every
  // iteration and x copied to a host buffer for the call, so set it only
  // when needed). BiCGStab(l) forms x_k = x0 + M^{-1} y for the call (one
  // more preconditioner application). GMRES forms x at its restarts only:
  // the callback runs after each restart cycle on the CPU (SciPy's
  // callback_type="x"), and once, with the final x, on the GPU. An exception from f stops the solve and
  // leaves solve() unchanged; the solver stays usable.
  void set_iterate_callback(IterateCallback<T> f);

  const KrylovStats& stats() const;  // the last solve's (setup fields from the constructor)
  index_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace balsa
