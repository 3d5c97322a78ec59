// balsa-bench: the benchmark drivers of the balsa_bench library
// (bench/bench.hpp), each beside its baseline in the same run; JSON
// and Markdown outputs ('-': standard output). A program of its own, so that
// balsa links only what its users need (not SPQR, SuperLU, CLP): built beside
// balsa in the build folder, not installed. Its options, errors and exit
// codes are balsa's (apps/common.hpp).
#include <fstream>
#include <memory>

#include "bench.hpp"
#include "common.hpp"

namespace balsa::app {

void add_setup_bench(CLI::App& app);  // bench/setup_bench.cpp

namespace {
void add_output_options(CLI::App* cmd, std::string& json, std::string& markdown) {
  CLI::Option* j = cmd->add_option("--json", json, "Write the results as JSON (to FILE; no FILE or '-': standard output)")
                       ->expected(0, 1)
                       ->default_str("-");
  CLI::Option* m = cmd->add_option("--markdown", markdown, "Write the Markdown tables here ('-': standard output)");
  j->option_text(" [FILE]");
  m->option_text(" FILE");
  // Both on standard output would interleave: a usage error (checked as the second one is parsed).
  auto one_on_stdout = [&json, &markdown](const std::string& text) {
    return text == "-" && (json == "-" || markdown == "-") ? std::string("--json and --markdown cannot both be '-'")
                                                          : std::string();
  };
  j->check(CLI::Validator(one_on_stdout, "", ""));
  m->check(CLI::Validator(one_on_stdout, "", ""));
  // One file for both: a usage error (--json is set when --markdown is checked).
  m->check(CLI::Validator(
      [&json](const std::string& text) {
        return same_file(text, json) ? "--json and --markdown name one file, '" + text + "'" : std::string();
      },
      "", ""));
}

// The names of a list file, one a line (blank lines and '#' comments skipped).
std::vector<std::string> read_name_list(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw Error("--only-list: cannot read " + file);
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const auto first = line.find_first_not_of(" \t\r"), last = line.find_last_not_of(" \t\r");
    if (first != std::string::npos) names.push_back(line.substr(first, last - first + 1));
  }
  return names;
}

// balsa-bench trsv and its options (bench/bench.hpp).
void add_trsv_bench(CLI::App& app) {
  auto o = std::make_shared<bench::TrsvBenchOptions>();
  CLI::App* trsv = app.add_subcommand(
      "trsv",
      "Triangular-solve benchmark: generator suite + FILES (lower triangle), every algorithm vs cuSPARSE SpSV, "
      "one cuSPARSE SpMV and the CPU serial solve; JSON and Markdown");
  trsv->add_option("files", o->files,
                   "Matrix Market files (their lower triangle; a missing or zero diagonal "
                   "entry becomes sum|l_ij| + 1)")
      ->option_text(" FILE ...");
  trsv->add_option("--suite", o->suite,
                   "Built-in cases: default, quick, none, tassl-paper (the TASSL paper's block-diagonal "
                   "matrices, then the real matrices), or chains (deep narrow chains: random bands, the IC(0) "
                   "factors of the thesis' banded family at n = 1e6 and of 3D Laplacians, then the real matrices)")
      ->check(CLI::IsMember({"default", "quick", "none", "tassl-paper", "chains"}))
      ->capture_default_str();
  trsv->add_flag("--quick", o->quick, "The quick suite on the CPU only (CI: seconds)");
  trsv->add_flag("--also-upper", o->upper,
                 "Also the upper triangle of every Matrix Market file (solved as the lower triangle of its "
                 "reversal: the same dependency graph)");
  add_renamed_option(trsv, "--upper", "--also-upper");
  trsv->add_option("--precision", o->precision, "double, float or both")
      ->check(CLI::IsMember({"double", "float", "both"}))
      ->capture_default_str();
  std::string algorithm_list;
  for (const std::string& a : bench::trsv_bench_algorithms()) algorithm_list += (algorithm_list.empty() ? "" : ", ") + a;
  trsv->add_option("--algorithms", o->algorithms,
                   "Comma-separated algorithms (default all): " + algorithm_list +
                       "; the baselines reference and cusparse (and the SpMV) always run")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::trsv_bench_algorithms()))
      ->option_text(" NAME,...");
  trsv->add_option("--only", o->only, "Run only the cases whose name contains one of these (comma-separated)")
      ->delimiter(',')->option_text(" NAME,...");
  trsv->add_option("--repeat", o->repeat, "Timed solves per measurement (the median is reported)")
      ->check(between(1, 100000))
      ->capture_default_str();
  add_renamed_option(trsv, "--rhs", "--columns");
  trsv->add_option("--columns", o->rhs,
                   "Right-hand sides per timed solve, solved in one call (GPU: cuSPARSE SpSM is the baseline; CPU: "
                   "columns in parallel)")
      ->check(between(1, 4096))
      ->capture_default_str();
  trsv->add_option("--tassl-n-max", o->tassl_n_max,
                   "TASSL's most vertices per sub-graph on the GPU (0: as many values as a block's shared memory holds)")
      ->check(between(0, 65535))
      ->capture_default_str();
  trsv->add_option("--cpu-repeat", o->cpu_repeat, "Timed solves of the CPU algorithms (default: --repeat)")
      ->check(between(1, 100000));
  trsv->add_option("--warmup", o->warmup, "Untimed solves before timing")
      ->check(between(0, 10000))
      ->capture_default_str();
  add_output_options(trsv, o->json_path, o->markdown_path);
  add_device_option(trsv, o->device);
  trsv->add_option("--data-dir", o->data_dir,
                   "Folder of the real matrices (*.mtx; relative: from the current directory, "
                   "else beside the executable); skipped if missing")
      ->capture_default_str();
  trsv->add_option("--peak-gbs", o->peak_gbs, "Floor model: memory bandwidth in GB/s (H200 measured copy: 4300)")
      ->check(positive())
      ->capture_default_str();
  trsv->add_option("--level-latency-us", o->level_latency_us, "Floor model: time per dependency level in us")
      ->check(at_least(0))
      ->capture_default_str();
  trsv->callback([o] { bench::run_trsv_bench(*o, bench::process_command_line()); });
}

// balsa-bench solve and its options (bench/bench.hpp).
void add_solve_bench(CLI::App& app) {
  auto so = std::make_shared<bench::SolveBenchOptions>();
  CLI::App* solve = app.add_subcommand(
      "solve",
      "Preconditioned Krylov benchmark: balsa on the GPU vs the cuSPARSE + cuBLAS PCG-IC(0) baseline and balsa's "
      "CPU path (3D Laplacians, the thesis' banded SPD family, the real matrices of tests/data)");
  solve->add_option("files", so->files, "More Matrix Market files (PCG-IC(0) if symmetric, else BiCGStab(l)-ILU(0))")
      ->option_text(" FILE ...");
  solve->add_option("--suite", so->suite, "default, quick or none")
      ->check(CLI::IsMember({"default", "quick", "none"}))
      ->capture_default_str();
  solve->add_option("--only", so->only, "Run only the cases whose name contains one of these")->delimiter(',')->option_text(" NAME,...");
  solve->add_option("--rtol", so->tolerance, "Relative residual tolerance")->check(positive())->capture_default_str();
  solve->add_option("--max-iterations", so->max_iterations, "Most iterations")
      ->check(between(0, 1e8))
      ->capture_default_str();
  add_renamed_option(solve, "--tol", "--rtol");
  add_renamed_option(solve, "--maxit", "--max-iterations");
  add_enum_option(solve, "--norm", so->norm, "Stopping norm: inf (the thesis') or 2");
  add_device_option(solve, so->device);
  solve->add_flag("!--no-cpu", so->cpu, "Skip balsa's CPU path");
  solve->add_flag("!--no-baseline", so->baseline, "Skip the cuSPARSE + cuBLAS baseline");
  add_enum_option(solve, "--trsv", so->trsv, "The preconditioner's triangular solver on the GPU");
  solve->add_flag("--float-preconditioner", so->float_preconditioner, "Mixed precision: float preconditioner");
  solve->add_option("--data-dir", so->data_dir, "Folder of the real matrices (skipped if missing)")->capture_default_str();
  add_output_options(solve, so->json_path, so->markdown_path);
  solve->callback([so] { bench::run_solve_bench(*so, bench::process_command_line()); });
}

// balsa-bench banded and its options (bench/bench.hpp).
void add_banded_bench(CLI::App& app) {
  auto bo = std::make_shared<bench::BandedBenchOptions>();
  CLI::App* banded = app.add_subcommand(
      "banded", "SaP dense banded benchmark (the SaP report's N x K grid and d sweep) vs LAPACK dgbsv (OpenBLAS)");
  banded->add_option("--suite", bo->suite, "grid, sweep or all")->check(CLI::IsMember({"grid", "sweep", "all"}))
      ->capture_default_str();
  banded->add_option("--n", bo->n, "Values of N, for every suite that runs (default: each suite's own)")
      ->delimiter(',')
      ->check(at_least(1));
  banded->add_option("--k", bo->k, "Values of K (half-bandwidth), for every suite that runs (default: each suite's own)")
      ->delimiter(',')
      ->check(at_least(0));
  banded->add_option("--d", bo->sweep_d, "Sweep values of d (at N = 2e5, K = 200 unless --n / --k say otherwise)")
      ->delimiter(',')
      ->check(at_least(0));
  banded->add_option("--partitions", bo->partitions, "P (0: automatic)")->check(at_least(0))->capture_default_str();
  banded->add_option("--rtol", bo->tolerance, "Relative residual tolerance of the Krylov iteration")
      ->check(positive())
      ->capture_default_str();
  add_renamed_option(banded, "--tol", "--rtol");
  banded->add_option("--repeat", bo->repeat, "Runs per measurement (median)")->check(between(1, 100))->capture_default_str();
  banded->add_option("--budget", bo->budget_seconds, "Seconds after which a measurement stops repeating")
      ->check(at_least(0))
      ->capture_default_str();
  add_device_option(banded, bo->device);
  banded->add_option("--devices", bo->devices,
                     "SaP's GPUs, e.g. 0,1 (default: the current one); with two or more, each SaP run is also "
                     "timed on the first alone (1 vs N GPUs)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber)
      ->option_text(" ID,...");
  banded->add_flag("!--no-baseline", bo->baseline, "Skip dgbsv");
  banded->add_flag("--sparse", bo->sparse,
                   "SaP's sparse pipeline instead: each case's matrix as a scrambled CSR, SaP-D on the first of "
                   "--devices alone and on all of them");
  add_output_options(banded, bo->json_path, bo->markdown_path);
  banded->callback([bo] { bench::run_banded_bench(*bo, bench::process_command_line()); });
}

// balsa-bench qr and its options (bench/bench.hpp).
void add_qr_bench(CLI::App& app) {
  auto qo = std::make_shared<bench::QrBenchOptions>();
  CLI::App* qr = app.add_subcommand(
      "qr", "Multifrontal sparse QR (CPU and GPU) vs SuiteSparseQR (SPQR) on the host cores: analysis, factorisation, solve");
  qr->add_option("files", qo->files, "Extra Matrix Market files")->option_text(" FILE ...");
  qr->add_option("--data-dir", qo->data_dir, "Folder with Franz6, lp_e226, bayer10 (skipped if missing)")
      ->capture_default_str();
  qr->add_option("--suite-dir", qo->suite_dir, "Folder with well1850, illc1033, ash219 (.mtx.gz; skipped if missing)")
      ->capture_default_str();
  qr->add_option("--only", qo->only, "Cases whose name contains one of these")->delimiter(',')->option_text(" NAME,...");
  qr->add_flag("!--no-generated", qo->generated, "Skip the generated 2D/3D problems");
  qr->add_flag("--large", qo->large, "Add the large generated problems (2D 1000^2, 3D 50^3, [L; I], tall random)");
  qr->add_flag("!--no-gpu", qo->gpu, "Skip balsa's GPU path");
  qr->add_flag("--fronts", qo->fronts,
               "Instead: the GPU's task kernel against cuSOLVER dgeqrf per dense front class (block-diagonal matrices)");
  qr->add_option("--fp64-tflops", qo->fp64_tflops, "--fronts' roofline: FP64 peak without tensor cores (H200: 33.5)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  qr->add_option("--peak-gbs", qo->peak_gbs, "--fronts' roofline: memory bandwidth in GB/s (H200 measured copy: 4300)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  qr->add_option("--device-memory-limit", qo->device_memory_limit,
                 "Add a staged GPU run (sec. 3.4) with device_memory_limit = N bytes")
      ->option_text(" N");
  qr->add_option("--stage-fraction", qo->stage_fraction,
                 "Add a staged GPU run with device_memory_limit = this fraction of the one-arena GPU factor's bytes")
      ->check(CLI::Range(0.0, 1.0))
      ->option_text(" F");
  qr->add_option("--repeat", qo->repeat, "Runs per measurement (median)")->check(between(1, 100))->capture_default_str();
  add_output_options(qr, qo->json_path, qo->markdown_path);
  qr->callback([qo] { bench::run_qr_bench(*qo, bench::process_command_line()); });
}

// balsa-bench sequence and its options (bench/bench.hpp).
void add_sequence_bench(CLI::App& app) {
  auto sq = std::make_shared<bench::SequenceBenchOptions>();
  CLI::App* sequence = app.add_subcommand(
      "sequence",
      "Sequences of triangular matrices (Picciau's thesis 6.3): TASSL's incremental update (replace_columns) vs a full "
      "TASSL analysis and cuSPARSE's analysis; solve after the updates vs after a fresh analysis");
  sequence->add_option("--suite", sq->suite, "all | lp | ilu | generated")
      ->check(CLI::IsMember({"all", "lp", "ilu", "generated"}))
      ->capture_default_str();
  sequence->add_option("--lp-dir", sq->lp_dir, "L factors of LP bases (*.mtx.gz)")->capture_default_str();
  sequence->add_option("--data-dir", sq->data_dir, "Real matrices: their ILU(0) factors")->capture_default_str();
  sequence->add_option("--only", sq->only, "Cases whose name contains one of these")->delimiter(',')->option_text(" NAME,...");
  sequence->add_option("--steps", sq->steps, "Matrices of each sequence after the first")
      ->check(between(1, 1000))
      ->capture_default_str();
  sequence->add_flag("!--no-multi", sq->multi, "Skip the many-columns variant (2..32 columns a step)");
  sequence->add_option("--repeat", sq->repeat, "Timed solves (median)")->check(between(1, 1000))->capture_default_str();
  add_device_option(sequence, sq->device);
  add_output_options(sequence, sq->json_path, sq->markdown_path);
  sequence->callback([sq] { bench::run_sequence_bench(*sq, bench::process_command_line()); });
}

// balsa-bench lp and its options (bench/bench.hpp).
void add_lp_bench(CLI::App& app) {
  auto lpo = std::make_shared<bench::LpBenchOptions>();
  CLI::App* lpb = app.add_subcommand(
      "lp",
      "Linear programs (thesis ch. 7): balsa's revised simplex vs CLP's dual simplex (and HiGHS' results from "
      "scripts/lp-highs.py) on every MPS file of --dir and --dir/infeasible");
  lpb->add_option("--dir", lpo->dir, "Folder of *.mps[.gz] (e.g. tests/data/lp)")->capture_default_str();
  lpb->add_option("--reference", lpo->reference, "reference.csv with the expected status and objective "
                  "(default: DIR/reference.csv when present)");
  lpb->add_option("--highs-json", lpo->highs_json, "HiGHS' results (scripts/lp-highs.py --json) to put beside");
  lpb->add_option("--only", lpo->only, "Problems whose file name contains one of these")->delimiter(',')->option_text(" NAME,...");
  lpb->add_option("--repeat", lpo->repeat, "Timed solves of balsa and CLP (median)")->check(between(1, 100))
      ->capture_default_str();
  lpb->add_flag("!--no-gpu", lpo->gpu, "Skip the run with the basis solves forced onto the GPU");
  lpb->add_option("--time-limit", lpo->time_limit, "Seconds per solve")->check(positive())->capture_default_str();
  add_output_options(lpb, lpo->json_path, lpo->markdown_path);
  lpb->callback([lpo] { bench::run_lp_bench(*lpo, bench::process_command_line()); });
}

// balsa-bench sparse and its options (bench/bench.hpp).
void add_sparse_bench(CLI::App& app) {
  auto spo = std::make_shared<bench::SparseBenchOptions>();
  CLI::App* sparse = app.add_subcommand(
      "sparse",
      "General sparse systems (the SaP report's sec. 4.3): balsa::solve's iterative methods, then with its default "
      "options (the time to the answer), vs UMFPACK, CHOLMOD (symmetric, positive diagonal) and SuperLU on the real matrices of --data-dir and generated convection-diffusion systems");
  sparse->add_option("--data-dir", spo->data_dir,
                     "Folder of the real matrices (*.mtx, *.mtx.gz; manifest-suite.csv for kind and SPD); "
                     "rectangular ones are skipped")
      ->capture_default_str();
  sparse->add_option("--suite", spo->suite,
                     "real (the data dir), generated (convection-diffusion, up to 2.1e6 rows), all, or quick (small "
                     "ones of the data dir and two small generated systems, one run each)")
      ->check(CLI::IsMember({"real", "generated", "all", "quick"}))
      ->capture_default_str();
  sparse->add_option("--only", spo->only, "Run only the systems whose name contains one of these")
      ->delimiter(',')
      ->option_text(" NAME,...");
  sparse
      ->add_option_function<std::string>(
          "--only-list",
          [spo](const std::string& file) {
            const std::vector<std::string> names = read_name_list(file);
            spo->only.insert(spo->only.end(), names.begin(), names.end());
          },
          "As --only, the names read from FILE (one a line, '#' comments)")
      ->check(CLI::ExistingFile)
      ->option_text(" FILE");
  sparse->add_option("--max-n", spo->max_n, "Skip the systems with more rows (0: no limit)")
      ->check(at_least(0))
      ->capture_default_str();
  sparse->add_option("--rtol", spo->tolerance, "balsa::solve's relative residual tolerance")
      ->check(positive())
      ->capture_default_str();
  add_renamed_option(sparse, "--tol", "--rtol");
  add_renamed_option(sparse, "--maxit", "--max-iterations");
  sparse->add_option("--max-iterations", spo->max_iterations, "Most iterations of each of balsa's iterative methods")
      ->check(between(1, 1e8))
      ->capture_default_str();
  sparse->add_option("--success", spo->success, "A solve succeeds when ||x - x*||_2 / ||x*||_2 is at most this")
      ->check(positive())
      ->capture_default_str();
  add_device_option(sparse, spo->device);
  sparse->add_option("--repeat", spo->repeat, "Runs per solver and system (median time)")
      ->check(between(1, 100))
      ->capture_default_str();
  sparse->add_option("--budget", spo->budget_seconds, "Seconds after which a solver stops repeating")
      ->check(at_least(0))
      ->capture_default_str();
  sparse->add_option("--direct-max-n", spo->direct_max_n,
                     "Skip the direct baselines and balsa's default run above this many rows (0: no limit)")
      ->check(at_least(0))
      ->capture_default_str();
  sparse->add_option("--timeout", spo->timeout_seconds,
                     "Seconds each direct baseline may take per system (a child process; 0: no limit, in this process)")
      ->check(at_least(0))
      ->capture_default_str();
  sparse->add_flag("!--no-baselines", spo->baselines, "Skip UMFPACK, CHOLMOD and SuperLU");
  add_output_options(sparse, spo->json_path, spo->markdown_path);
  sparse->callback([spo] { bench::run_sparse_bench(*spo, bench::process_command_line()); });
}

// balsa-bench direct and its options (bench/bench.hpp).
void add_direct_bench(CLI::App& app) {
  auto dio = std::make_shared<bench::DirectBenchOptions>();
  CLI::App* direct = app.add_subcommand(
      "direct", "DirectSolver's methods (CHOLMOD, UMFPACK, KLU, Auto) on square Matrix Market files: analyse / "
                "factor / solve times, factor entries, flops, rcond, backward error");
  direct->add_option("files", dio->files, "Matrix Market files (default: every *.mtx[.gz] of --dir)")
      ->option_text(" FILE ...");
  direct->add_option("--dir", dio->dir, "Folder of the matrices (rectangular ones skipped)")->capture_default_str();
  direct->add_option("--only", dio->only, "Matrices whose file name contains one of these")->delimiter(',')->option_text(" NAME,...");
  direct->add_option("--repeat", dio->repeat, "Runs per matrix and method (median)")
      ->check(between(1, 100))
      ->capture_default_str();
  direct->add_option("--budget", dio->budget_seconds, "Seconds after which a matrix and method stop repeating")
      ->check(at_least(0))
      ->capture_default_str();
  direct->add_option("--max-flops", dio->max_flops,
                     "Skip a factorisation whose analysis predicts more flops (0: none skipped; recorded as skipped)")
      ->check(at_least(0))
      ->capture_default_str();
  // Host threads: balsa's --threads on every command (the process's setting).
  add_output_options(direct, dio->json_path, dio->markdown_path);
  direct->callback([dio] { bench::run_direct_bench(*dio, bench::process_command_line()); });
}


// balsa-bench precond and its options (bench/bench.hpp).
void add_precond_bench(CLI::App& app) {
  auto po = std::make_shared<bench::PrecondBenchOptions>();
  CLI::App* pre = app.add_subcommand(
      "precond", "balsa::Preconditioner on one PETSc rank's block (3D Poisson, convection-diffusion): set-up, "
                 "update_values and apply on 1 and all CPU threads and the GPU, beside cuSPARSE's PCG-IC(0)");
  pre->add_option("--grid", po->grid, "The local box: grid^3 rows")->check(between(2, 1000))->capture_default_str();
  pre->add_option("--repeat", po->repeat, "Set-ups and updates per case (median)")->check(between(1, 100))->capture_default_str();
  pre->add_option("--applies", po->applies, "Applications per case (median)")->check(between(1, 10000))->capture_default_str();
  add_output_options(pre, po->json_path, po->markdown_path);
  pre->callback([po] { bench::run_precond_bench(*po, bench::process_command_line()); });
}
}  // namespace

}  // namespace balsa::app

int main(int argc, char** argv) {
  using namespace balsa::app;
  CLI::App app{"balsa-bench " BALSA_VERSION ": balsa's benchmarks against the named baselines", "balsa-bench"};
  return run_app(app, argc, argv, [](CLI::App& a) {
    add_trsv_bench(a);
    add_solve_bench(a);
    add_banded_bench(a);
    add_precond_bench(a);
    add_qr_bench(a);
    add_sequence_bench(a);
    add_lp_bench(a);
    add_sparse_bench(a);
    add_direct_bench(a);
    add_setup_bench(a);
  });
}
