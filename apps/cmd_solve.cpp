// balsa solve: A x = b with a preconditioned Krylov method (issue 5, item 3).
// Without --rhs, b = A x_true for a known random x_true and the error is
// reported. A live progress line shows iteration and residual (stderr, when
// it is a terminal or with --progress). Non-convergence is an error: the
// message says why and the exit code is 3 (input errors: 1).
#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "../bench/solve_methods.hpp"
#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "balsa/sap.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct SolveOptions {
  std::string matrix;
  std::string rhs;
  std::string method = "pcg-ic0";
  double tolerance = 1e-8;
  int max_iterations = 10000;
  std::string norm = "inf";
  std::string device = "auto";
  std::string trsv = "auto";
  bool float_preconditioner = false;
  bool no_shift = false;
  std::string output;
  bool json = false;
  bool progress = false;
  std::uint64_t seed = 1;
  index_t partitions = 0;  // SaP
};

// --method sap-d|sap-c: the SaP banded solver on A's band (include/balsa/sap.hpp).
KrylovStats solve_sap(const SolveOptions& o, const Csr<double>& A, std::span<const double> b, std::span<double> x,
                      Device device, bool live) {
  BandedOptions so;
  so.variant = o.method == "sap-c" ? SapVariant::Coupled : SapVariant::Decoupled;
  so.device = device;
  so.partitions = o.partitions;
  so.float_preconditioner = o.float_preconditioner;
  so.tolerance = o.tolerance;
  so.max_iterations = o.max_iterations;
  if (o.no_shift) so.pivot_boost = false;
  BandedSolver<double> sap(A, so);
  const KrylovStats s = sap.solve(b, x);
  if (live) std::fprintf(stderr, "\n");
  const BandedStats& st = sap.stats();
  if (!o.json)
    fmt::print("  SaP: n = {}, k = {}, P = {} (blocks of {}..{} rows, bandwidths {}..{}), {} boosted pivots{}\n"
               "  T_upload {:.4f} s, T_LU {:.4f} s, T_BC {:.4f} s, T_SPK {:.4f} s, T_LUrdcd {:.4f} s, T_Kry {:.4f} s "
               "({} restarts)\n",
               st.n, st.k, st.partitions, st.min_block, st.max_block, st.min_block_bandwidth, st.max_block_bandwidth,
               st.boosted_pivots,
               st.float_preconditioner ? ", float preconditioner" : "", st.t_upload, st.t_lu, st.t_bc, st.t_spk,
               st.t_lu_rdcd, st.t_kry, st.restarts);
  return s;
}

void run_solve(const SolveOptions& o) {
  const LoadedMatrix<double> m = load_matrix<double>(o.matrix);
  const Csr<double>& A = m.A;
  if (A.rows != A.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, a solve needs a square one", o.matrix, A.rows, A.cols));
  std::vector<double> b, x_true;
  if (!o.rhs.empty()) {
    const Csr<double> B = load_matrix<double>(o.rhs).A;
    if (B.rows != A.rows || B.cols != 1)
      throw DimensionError(fmt::format("{}: the right-hand side is {} x {}, expected {} x 1", o.rhs, B.rows, B.cols,
                                       A.rows));
    b.assign(std::size_t(A.rows), 0.0);
    for (index_t i = 0; i < B.rows; ++i)
      for (index_t p = B.row_ptr[i]; p < B.row_ptr[i + 1]; ++p) b[std::size_t(i)] += B.values[p];
  } else {
    x_true = random_vector<double>(A.rows, o.seed);
    b = multiply(A, std::span<const double>(x_true));
  }
  const bool sap = o.method == "sap-d" || o.method == "sap-c";
  KrylovOptions ko = sap ? KrylovOptions{} : bench::method_options(o.method);
  ko.tolerance = o.tolerance;
  ko.max_iterations = o.max_iterations;
  ko.norm = o.norm == "2" ? StoppingNorm::Two : StoppingNorm::Infinity;
  const bool gpu = o.device == "cuda" || (o.device == "auto" && cuda::available());
  if (o.device == "cuda" && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? "--device cuda: no CUDA GPU found" : "--device cuda: balsa was built without CUDA");
  ko.device = gpu ? Device::Cuda : Device::Cpu;
  ko.trsv = bench::trsv_algorithm(o.trsv);
  ko.float_preconditioner = o.float_preconditioner;
  if (o.no_shift) ko.factor.on_breakdown = PivotBreakdown::Fail;
  const bool live = o.progress || isatty(fileno(stderr));
  if (live)
    ko.progress = [](int it, double res) { std::fprintf(stderr, "\r  iteration %7d  residual %.3e", it, res); };
  if (!o.json && sap)
    fmt::print("balsa solve: {} ({} x {}, {} entries), {} on {}\n", o.matrix, A.rows, A.cols, A.nnz(), o.method,
               to_string(ko.device));
  std::vector<double> x(std::size_t(A.rows), 0.0);
  KrylovStats s;
  if (sap) {
    s = solve_sap(o, A, b, x, ko.device, live);
  } else {
    KrylovSolver<double> solver(A, ko);
    s = solver.solve(b, x);
    if (live) std::fprintf(stderr, "\n");
  }
  const double error =
      x_true.empty() ? -1.0 : bench::relative_error(std::span<const double>(x), std::span<const double>(x_true));
  if (!o.output.empty()) {
    DenseMatrix<double> X(A.rows, 1);
    X.values = x;
    write_matrix_market(std::filesystem::path(o.output), X);
  }
  if (o.json) {
    nlohmann::json j = {{"matrix", o.matrix}, {"n", A.rows}, {"nnz", A.nnz()}, {"method", o.method},
                        {"device", to_string(ko.device)}, {"outcome", to_string(s.outcome)}, {"message", s.message},
                        {"iterations", s.iterations}, {"residual", s.residual}, {"true_residual", s.true_residual},
                        {"setup_seconds", s.setup_seconds}, {"factor_seconds", s.factor_seconds},
                        {"solve_seconds", s.solve_seconds}, {"spmv_seconds", s.spmv_seconds},
                        {"preconditioner_seconds", s.preconditioner_seconds}, {"vector_seconds", s.vector_seconds},
                        {"shift", s.factor.shift}, {"history", s.history}};
    if (!x_true.empty()) j["error"] = error;
    std::cout << j.dump(2) << "\n";
  } else {
    if (!sap)
      fmt::print("balsa solve: {} ({} x {}, {} entries), {} on {}\n", o.matrix, A.rows, A.cols, A.nnz(), o.method,
                 to_string(ko.device));
    fmt::print("  {} after {} iterations: residual {:.3e} ({}-norm, recursive), true residual {:.3e}{}\n",
               to_string(s.outcome), s.iterations, s.residual, sap ? "2" : o.norm, s.true_residual,
               x_true.empty() ? "" : fmt::format(", error {:.3e}", error));
    const double per_iteration = s.iterations > 0 ? s.solve_seconds * 1e3 / s.iterations : 0.0;
    if (sap)  // its set-up phases are on the SaP line above
      fmt::print("  solve {:.4f} s ({:.4f} ms per iteration)\n", s.solve_seconds, per_iteration);
    else
      fmt::print("  setup {:.4f} s (factorisation {:.4f} s, shift {:g}), solve {:.4f} s ({:.4f} ms per iteration)\n",
                 s.setup_seconds, s.factor_seconds, s.factor.shift, s.solve_seconds, per_iteration);
    if (s.preconditioner == PreconditionerKind::Ic0 || s.preconditioner == PreconditionerKind::Ilu0)
      fmt::print("  triangular solves: {} / {}\n", to_string(s.lower.algorithm), to_string(s.upper.algorithm));
  }
  if (s.outcome != KrylovOutcome::Converged)
    throw NotConverged(fmt::format("{} did not converge: {} ({})", o.method, to_string(s.outcome), s.message));
}

}  // namespace

void add_solve_command(CLI::App& app) {
  auto o = std::make_shared<SolveOptions>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve A x = b with a preconditioned Krylov method (GPU when present)");
  cmd->add_option("matrix", o->matrix, "Matrix Market file of A (square)")->required();
  cmd->add_option("--rhs", o->rhs, "Matrix Market file of b (n x 1); default: b = A x_true, error reported");
  std::vector<std::string> methods = bench::method_name_list();
  methods.push_back("sap-d");
  methods.push_back("sap-c");
  cmd->add_option("--method", o->method,
                  "pcg-ic0, pcg-ilu0, pcg-jacobi, cg, bicgstab-ilu0, bicgstab2-ilu0, ..., sap-d, sap-c (SaP on A's band)")
      ->check(CLI::IsMember(methods))
      ->capture_default_str();
  cmd->add_option("--tol", o->tolerance, "Relative tolerance")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--maxit", o->max_iterations, "Most iterations")->check(CLI::Range(0, 100000000))->capture_default_str();
  cmd->add_option("--norm", o->norm, "Stopping norm: inf (the thesis') or 2")
      ->check(CLI::IsMember({"inf", "2"}))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}))->capture_default_str();
  cmd->add_option("--trsv", o->trsv, "Triangular solver of the preconditioner (auto, level-set, tassl, cusparse, "
                                     "sync-free-blocks, reference)")
      ->check(CLI::IsMember(bench::trsv_name_list()))
      ->capture_default_str();
  cmd->add_option("--partitions", o->partitions, "SaP: number of partitions P (0: chosen automatically)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--float-preconditioner", o->float_preconditioner, "Mixed precision: float preconditioner");
  cmd->add_flag("--no-shift", o->no_shift,
                "Fail on an IC(0)/ILU(0) pivot breakdown instead of shifting (SaP: no pivot boosting)");
  cmd->add_option("-o,--output", o->output, "Write x here (Matrix Market array)");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_flag("--progress", o->progress, "Show the progress line even when stderr is not a terminal");
  cmd->add_option("--seed", o->seed, "Seed of x_true (without --rhs)")->capture_default_str();
  cmd->callback([o] { run_solve(*o); });
}

}  // namespace balsa::app
