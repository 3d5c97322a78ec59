// balsa::solve's cost model (solve/cost_model.hpp).
//
// Time to the answer = set-up + iterations x time per iteration for the
// iterative methods, analysis + factorisation + solves for the direct ones.
//
// Per-operation costs: linear in the stored entries and rows, with a fixed
// latency per step on the GPU. CPU constants: measured on the 2-core
// development machine (runs whose result files were not committed; CG and
// PCG-IC(0) per iteration and set-up on the 3D Laplacians, DB and ILU(0) on
// the convection-diffusion generator, the direct solvers' phases from
// `balsa-bench direct` over the shared matrices); GPU constants: measured on
// an H200 (bench solve / bench sparse runs of issue 28 and this H200
// run). Host threads speed the memory-bound loops up by threads^0.7 (two
// threads: 1.6x, measured on the CG loop), on loops long enough to share.
//
// Iterations are not known before running; the prior is
//   iterations = c n^(1/3) exp(k (1 - d)),
// d the fraction of diagonally dominant rows: PCG-IC(0) c = 0.757, k = 1.61;
// DB + ILU(0)-BiCGStab(2) c = 0.217, k = 2.33; CG 3x PCG-IC(0)'s (the 3D
// Laplacians: 274 / 87), Jacobi-PCG CG's on a constant diagonal, else 2x
// PCG-IC(0)'s. Fitted by scripts/solve-prior-fit.py (least squares in
// log(iterations / n^(1/3))) on the converged first attempts of half of the
// shared real matrices (every other one in name order; issue 26's H100
// bench sparse run) and scored on the other half: median |log error| 1.07
// (PCG-IC(0), 11 converged) and 1.33 (BiCGStab(2), 17); the prior x 3
// covers 8 of 11 and 12 of 17; 2 and 5 failed outright
// (bench/results/2026-11-29-solve-prior-fit.txt). The prior is a median,
// rough by a factor of 3 either way: solve's plan puts an iterative method
// before an analysed direct one only when it is predicted kIterativeMargin
// (3) times faster, and a wrong prior then costs at most the time budget
// (the rate monitor stops a slow method). On the 3D Laplacian 100^3 it
// gives 76 (PCG-IC(0), measured 87) and 227 (CG, measured 274).
#include "solve/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace balsa::solve_detail {

namespace {

struct DeviceCosts {
  double entry;      // one SpMV's cost per stored entry (s)
  double row;        // one vector operation's cost per row (s)
  double step;       // fixed cost of one kernel step / loop (s)
  double trsv_entry; // one triangular solve's cost per factor entry (s)
  double trsv_step;  // fixed cost of one triangular solve (s)
  double start;      // fixed set-up cost of a solver object (s)
  double upload;     // per byte moved to the device (s); 0 on the host
  double factor_entry;  // ILU(0)/IC(0) set-up (analysis + factorisation) per entry (s)
  double db_entry;      // DB (matching, scaling, permuted copy) per entry (s)
};

// Host, one thread (double precision): CG on the 100^3 Laplacian took 7.4 ms
// an iteration with 2 threads on the 2-core development machine and 1.6 ms
// with 16 on the H200 host; one triangular solve of its IC(0) factor 10 ms
// (serial substitution, 2.6 ns an entry).
constexpr DeviceCosts kCpu{1.1e-9, 0.85e-9, 2e-6, 2.4e-9, 2e-6, 2e-4, 0.0, 30e-9, 60e-9};
// H200 (double): CG 77 us an iteration on the 7-point 100^3 Laplacian
// (7e6 entries), set-up 20 ms; IC(0) set-up 0.13-0.2 s at 1e6 rows.
constexpr DeviceCosts kGpu{6e-12, 4e-12, 4e-6, 6e-11, 3e-5, 5e-3, 1.0e-10, 25e-9, 60e-9};
// A process's first GPU work creates the CUDA context (0.1-0.2 s on the
// H200 host): counted for small systems, which it dominates.
constexpr double kGpuContext = 0.12;

// Threads pay only on long loops: balsa's CPU Krylov loops run in parallel
// from 16,384 rows (krylov/methods_cpu.hpp), one thread per such block at most;
// the direct solvers' dense kernels from about 1e8 flops a thread.
double speedup(const Machine& m, double units) {
  return std::pow(std::clamp(units, 1.0, double(std::max(1, m.threads))), 0.7);
}

struct Shape {
  int spmv, vectors, trsv;  // per iteration: products with A, vector operations, triangular solves
  bool factor, db;          // set-up: an incomplete factorisation, DB
  int poly = 0;             // per iteration: Chebyshev steps (one product fused with its update)
};

Shape shape_of(SolveMethod m) {
  switch (m) {
    case SolveMethod::Cg: return {1, 5, 0, false, false};
    case SolveMethod::PcgJacobi: return {1, 6, 0, false, false};
    case SolveMethod::PcgChebyshev: return {1, 6, 0, false, false, ChebyshevOptions{}.degree};
    case SolveMethod::PcgIc0: return {1, 5, 2, true, false};
    case SolveMethod::DbBiCgStab2Ilu0: return {4, 24, 8, true, true};
    default: return {0, 0, 0, false, false};
  }
}

// Prior iterations (see the top of the file).
double prior_iterations(SolveMethod m, const SolveFeatures& f) {
  const double root = std::cbrt(std::max<double>(1, f.n)), weak = 1 - f.dominant_rows;
  const double ic0 = 0.757 * root * std::exp(1.61 * weak);
  switch (m) {
    case SolveMethod::PcgIc0: return ic0;
    case SolveMethod::Cg: return 3 * ic0;
    // Jacobi is CG again on a constant diagonal; it helps a varying one.
    case SolveMethod::PcgJacobi: return f.diagonal_spread <= 1.0001 ? 3 * ic0 : 2 * ic0;
    // Degree 7: about CG's count over 6 (SciPy prototype on the 3D Laplacian
    // 40^3 and the shared SPD matrices: 131 -> 21, bcsstk16 275 -> 33, nos5
    // 429 -> 47; bench/results/2026-11-29-setup-chebyshev-fit.txt).
    case SolveMethod::PcgChebyshev: return 0.5 * ic0;
    case SolveMethod::DbBiCgStab2Ilu0: return 0.217 * root * std::exp(2.33 * weak);
    default: return INFINITY;
  }
}

bool applies(SolveMethod m, const SolveFeatures& f) {
  const bool spd_like = f.symmetric && f.positive_diagonal;
  switch (m) {
    case SolveMethod::Cg:
    case SolveMethod::PcgJacobi:
    case SolveMethod::PcgChebyshev:
    case SolveMethod::PcgIc0: return spd_like;
    case SolveMethod::DbBiCgStab2Ilu0: return true;
    default: return false;
  }
}

std::string text(const char* format, double a, double b, double c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

}  // namespace

double iterative_seconds(SolveMethod m, Device device, const SolveFeatures& f, const Machine& machine,
                         std::string& basis) {
  if (!applies(m, f)) {
    basis = "does not apply (needs a symmetric matrix with a positive diagonal)";
    return INFINITY;
  }
  const bool gpu = device == Device::Cuda;
  const DeviceCosts& c = gpu ? kGpu : kCpu;
  const double s = gpu ? 1.0 : speedup(machine, double(f.n) / 16384);
  const Shape k = shape_of(m);
  const double nnz = double(f.nnz), n = double(f.n);
  // CPU triangular solves: serial substitution below 3 threads, level-set
  // above (trsv/auto_choice.cpp), which gains about 2.8x on 16 threads (the
  // 100^3 Laplacian's IC(0) factors on the H200 host: 3.5 ms a solve).
  const double s_trsv = gpu ? 1.0 : machine.threads >= 3 && f.n > 16384 ? 2.8 : 1.0;
  const double per_iteration = (k.spmv * (c.step + nnz * c.entry) + k.vectors * (c.step + n * c.row) +
                                k.poly * (c.step + nnz * c.entry + 2 * n * c.row)) / s +
                               k.trsv * (c.trsv_step + 0.5 * (nnz + n) * c.trsv_entry) / s_trsv;
  double setup = c.start + (nnz * 12 + n * 40) * c.upload;
  if (k.factor) setup += nnz * c.factor_entry / s;
  if (k.db) setup += nnz * kCpu.db_entry;  // DB's matching runs on the host either way
  if (gpu) setup += kGpuContext;
  const double iterations = prior_iterations(m, f);
  basis = text("prior %.0f iterations x %.3g ms, set-up %.3g s", iterations, per_iteration * 1e3, setup);
  return setup + iterations * per_iteration;
}

// The direct methods' constants, fitted by scripts/solve-direct-fit.py on
// half of `balsa-bench direct` over the shared matrices (2-core development
// machine; bench/results/2026-11-29-solve-direct-fit.txt) and scored on the
// other half: factor + solve within 1.3x (CHOLMOD, KLU) and 2.3x (UMFPACK)
// in the median.
struct DirectCosts {
  double flop_rate;  // flops a second, one thread
  double entry;      // seconds per factor entry (factorisation and one solve)
  double analysis;   // seconds per stored entry of A
};
DirectCosts direct_costs(DirectMethod m) {
  switch (m) {
    case DirectMethod::Cholmod: return {3.84e9, 2.48e-8, 2.33e-8};
    case DirectMethod::Klu: return {2.03e9, 1.13e-8, 1.76e-8};
    default: return {7.85e9, 5.05e-8, 2.64e-8};
  }
}

double analysis_seconds(const SolveFeatures& f, const Machine&) {
  // Auto's first analysis: CHOLMOD's for a symmetric A with a positive
  // diagonal, KLU's otherwise (DirectSolver's Auto). Linear in the entries
  // on the shared matrices, but not on large 3D meshes, where CHOLMOD tries
  // nested dissection after AMD: the 7-point Laplacian took 0.009 s at 20^3
  // (53,600 entries, 2-core machine) and 12 s at 100^3 (6.9e6 entries, the
  // H200 host's CPU): the larger of the fit and the power law through those.
  const bool spd_like = f.symmetric && f.positive_diagonal;
  const double nnz = double(f.nnz);
  const double linear = direct_costs(spd_like ? DirectMethod::Cholmod : DirectMethod::Klu).analysis * nnz;
  return 5e-6 + std::max(linear, 6.4e-9 * std::pow(nnz, 1.3));
}

double factor_solve_seconds(const DirectStats& a, int columns, const Machine& machine, std::string& basis) {
  const DirectCosts c = direct_costs(a.method);
  // UMFPACK's factor entries are bounded like its flops (2.8x in the median).
  const double entries = double(a.factor_entries) / (a.method == DirectMethod::Umfpack ? 2.8 : 1.0);
  const double flops = a.expected_flops > 0 ? a.expected_flops : a.flops;
  const double factor = flops / (c.flop_rate * speedup(machine, flops / 1e8)) + entries * c.entry;
  const double solves = double(std::max(0, columns - 1)) * 4 * entries * 1e-9;
  basis = text("analysis: %.3g flops, %.3g factor entries; factor + solve %.3g s", flops, entries, factor + solves);
  return factor + solves;
}

}  // namespace balsa::solve_detail
