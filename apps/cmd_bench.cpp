// balsa bench: benchmark drivers. `balsa bench trsv`: the triangular-solve
// benchmark (bench/trsv_bench.hpp): a suite of generator cases and Matrix
// Market files x precision x algorithm, with the cuSPARSE SpSV, cuSPARSE
// SpMV and CPU serial baselines measured in the same run; JSON and Markdown.
#include <memory>

#include "../bench/banded_bench.hpp"
#include "../bench/qr_bench.hpp"
#include "../bench/bench_output.hpp"
#include "../bench/solve_bench.hpp"
#include "../bench/solve_methods.hpp"
#include "../bench/trsv_bench.hpp"
#include "common.hpp"

namespace balsa::app {

void add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks (trsv: sparse triangular solve)");
  bench->require_subcommand(1);

  auto o = std::make_shared<bench::BenchOptions>();
  CLI::App* trsv = bench->add_subcommand(
      "trsv",
      "Triangular-solve benchmark: generator suite + FILES (lower triangle), every algorithm vs cuSPARSE SpSV, "
      "one cuSPARSE SpMV and the CPU serial solve; JSON and Markdown");
  trsv->add_option("files", o->files,
                   "Matrix Market files (their lower triangle; a missing or zero diagonal "
                   "entry becomes sum|l_ij| + 1)")
      ->check(CLI::ExistingFile);
  trsv->add_option("--suite", o->suite,
                   "Built-in cases: default, quick, none, or tassl-paper (the TASSL paper's block-diagonal "
                   "matrices, then the real matrices)")
      ->check(CLI::IsMember({"default", "quick", "none", "tassl-paper"}))
      ->capture_default_str();
  trsv->add_flag("--quick", o->quick, "The quick suite on the CPU only (CI: seconds)");
  trsv->add_option("--precision", o->precision, "double, float or both")
      ->check(CLI::IsMember({"double", "float", "both"}))
      ->capture_default_str();
  trsv->add_option("--algorithms", o->algorithms,
                   "Comma-separated algorithms (default all): reference, levelset-cpu, levelset, syncfree, "
                   "syncfree-csc, tassl, cusparse, auto; the baselines reference and cusparse (and the SpMV) always run")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::algorithm_names()));
  trsv->add_option("--only", o->only, "Run only the cases whose name contains one of these (comma-separated)")
      ->delimiter(',');
  trsv->add_option("--repeat", o->repeat, "Timed solves per measurement (the median is reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  trsv->add_option("--rhs", o->rhs,
                   "Right-hand sides per timed solve, solved in one call (GPU: cuSPARSE SpSM is the baseline; CPU: "
                   "columns in parallel)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  trsv->add_option("--tassl-n-max", o->tassl_n_max,
                   "TASSL's most vertices per sub-graph on the GPU (0: as many values as a block's shared memory holds)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  trsv->add_option("--cpu-repeat", o->cpu_repeat, "Timed solves of the CPU algorithms (default: --repeat)")
      ->check(CLI::Range(1, 100000));
  trsv->add_option("--warmup", o->warmup, "Untimed solves before timing")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  trsv->add_option("--json", o->json_path, "Write the results as JSON here");
  trsv->add_option("--markdown", o->markdown_path, "Write the Markdown tables (summary and details) here");
  trsv->add_option("--device", o->device, "auto (GPU when present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  trsv->add_option("--data-dir", o->data_dir,
                   "Folder of the real matrices (*.mtx; relative: from the current directory, "
                   "else beside the executable); skipped if missing")
      ->capture_default_str();
  trsv->add_option("--peak-gbs", o->peak_gbs, "Floor model: memory bandwidth in GB/s (H200 measured copy: 4300)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  trsv->add_option("--level-latency-us", o->level_latency_us, "Floor model: time per dependency level in us")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  trsv->callback([o] { bench::run_trsv_bench(*o, bench::process_command_line()); });

  auto so = std::make_shared<bench::SolveBenchOptions>();
  CLI::App* solve = bench->add_subcommand(
      "solve",
      "Preconditioned Krylov benchmark: balsa on the GPU vs the cuSPARSE + cuBLAS PCG-IC(0) baseline and balsa's "
      "CPU path (3D Laplacians, the thesis' banded SPD family, the real matrices of tests/data)");
  solve->add_option("files", so->files, "More Matrix Market files (PCG-IC(0) if symmetric, else BiCGStab(l)-ILU(0))")
      ->check(CLI::ExistingFile);
  solve->add_option("--suite", so->suite, "default, quick or none")
      ->check(CLI::IsMember({"default", "quick", "none"}))
      ->capture_default_str();
  solve->add_option("--only", so->only, "Run only the cases whose name contains one of these")->delimiter(',');
  solve->add_option("--tol", so->tolerance, "Relative tolerance")->check(CLI::PositiveNumber)->capture_default_str();
  solve->add_option("--maxit", so->max_iterations, "Most iterations")->check(CLI::Range(0, 100000000))->capture_default_str();
  solve->add_option("--norm", so->norm, "Stopping norm: inf (the thesis') or 2")
      ->check(CLI::IsMember({"inf", "2"}))
      ->capture_default_str();
  solve->add_option("--device", so->device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}))->capture_default_str();
  solve->add_flag("!--no-cpu", so->cpu, "Skip balsa's CPU path");
  solve->add_flag("!--no-baseline", so->baseline, "Skip the cuSPARSE + cuBLAS baseline");
  solve->add_option("--trsv", so->trsv, "The preconditioner's triangular solver on the GPU (auto, level-set, tassl, "
                                        "cusparse, sync-free-blocks)")
      ->check(CLI::IsMember(bench::trsv_name_list()))
      ->capture_default_str();
  solve->add_flag("--float-preconditioner", so->float_preconditioner, "Mixed precision: float preconditioner");
  solve->add_option("--data-dir", so->data_dir, "Folder of the real matrices (skipped if missing)")->capture_default_str();
  solve->add_option("--json", so->json_path, "Write the results as JSON here");
  solve->add_option("--markdown", so->markdown_path, "Write the Markdown table here");
  solve->callback([so] { bench::run_solve_bench(*so, bench::process_command_line()); });

  auto bo = std::make_shared<bench::BandedBenchOptions>();
  CLI::App* banded = bench->add_subcommand(
      "banded", "SaP dense banded benchmark (the SaP report's N x K grid and d sweep) vs LAPACK dgbsv (OpenBLAS)");
  banded->add_option("--suite", bo->suite, "grid, sweep or all")->check(CLI::IsMember({"grid", "sweep", "all"}))
      ->capture_default_str();
  banded->add_option("--n", bo->grid_n, "Grid values of N")->delimiter(',');
  banded->add_option("--k", bo->grid_k, "Grid values of K")->delimiter(',');
  banded->add_option("--d", bo->sweep_d, "Sweep values of d (N = 2e5, K = 200)")->delimiter(',');
  banded->add_option("--partitions", bo->partitions, "P (0: automatic)")->check(CLI::NonNegativeNumber)->capture_default_str();
  banded->add_option("--tol", bo->tolerance, "Krylov tolerance")->check(CLI::PositiveNumber)->capture_default_str();
  banded->add_option("--repeat", bo->repeat, "Runs per measurement (median)")->check(CLI::Range(1, 100))->capture_default_str();
  banded->add_option("--budget", bo->budget_seconds, "Seconds after which a measurement stops repeating")
      ->capture_default_str();
  banded->add_option("--device", bo->device, "cuda or cpu (SaP's CPU path)")->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  banded->add_flag("!--no-baseline", bo->baseline, "Skip dgbsv");
  banded->add_option("--json", bo->json_path, "Write the results as JSON here");
  banded->add_option("--markdown", bo->markdown_path, "Write the Markdown table here");
  banded->callback([bo] { bench::run_banded_bench(*bo, bench::process_command_line()); });

  auto qo = std::make_shared<bench::QrBenchOptions>();
  CLI::App* qr = bench->add_subcommand(
      "qr", "Multifrontal sparse QR vs SuiteSparseQR (SPQR) on the host cores: analysis, factorisation, solve");
  qr->add_option("files", qo->files, "Extra Matrix Market files");
  qr->add_option("--data-dir", qo->data_dir, "Folder with Franz6, lp_e226, bayer10 (skipped if missing)")
      ->capture_default_str();
  qr->add_flag("!--no-generated", qo->generated, "Skip the generated 2D/3D problems");
  qr->add_option("--repeat", qo->repeat, "Runs per measurement (median)")->check(CLI::Range(1, 100))->capture_default_str();
  qr->add_option("--json", qo->json_path, "Write the results as JSON here");
  qr->add_option("--markdown", qo->markdown_path, "Write the Markdown table here");
  qr->callback([qo] { bench::run_qr_bench(*qo, bench::process_command_line()); });
}

}  // namespace balsa::app
