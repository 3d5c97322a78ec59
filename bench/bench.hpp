// balsa's benchmark drivers (the balsa_bench library, bench/; the
// balsa-bench program, bench/bench_cli.cpp, runs them: `balsa-bench
// trsv|solve|banded|precond|qr|sequence|lp|sparse|direct`). Each measures balsa beside its named
// baseline in the same run, prints a Markdown summary and writes JSON and
// Markdown files when asked. Not installed with the library: the benchmarks
// link the baselines (SuiteSparseQR, UMFPACK, SuperLU, cuSPARSE, LAPACK) themselves.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "balsa/krylov.hpp"
#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"

namespace balsa::bench {

// balsa-bench trsv: every triangular solver against cuSPARSE SpSV, one
// cuSPARSE SpMV and the CPU serial solve, over a suite of generated cases
// and Matrix Market files (their lower triangle).
struct TrsvBenchOptions {
  std::vector<std::string> files;       // Matrix Market files, benchmarked after the suite
  std::string suite = "default";        // default | quick | none | tassl-paper | chains
  bool upper = false;                   // files: their upper triangle too (as its reversal, a lower one)
  bool quick = false;                   // quick suite, CPU only
  std::string precision = "both";       // double | float | both
  std::vector<std::string> algorithms;  // names from trsv_bench_algorithms(); empty: all
  std::vector<std::string> only;        // run only cases whose name contains one of these
  int repeat = 30;
  // Right-hand sides per timed solve: 1 (a vector), or a block of columns
  // solved in one call (GPU: one call, cuSPARSE SpSM as the baseline; CPU:
  // the columns in parallel; no SpMV row).
  index_t rhs = 1;
  index_t tassl_n_max = 0;  // TASSL (and Auto's) sub-graph capacity on the GPU; 0: from shared memory
  int warmup = 3;
  int cpu_repeat = -1;  // timed solves of the CPU algorithms; < 0: repeat
  std::string json_path, markdown_path;  // "-": standard output
  Device device = Device::Auto;
  std::string data_dir = "tests/data";  // real matrices of the suites (skipped if not found)
  double peak_gbs = 4300.0;             // floor model: memory bandwidth (GB/s)
  double level_latency_us = 2.0;        // floor model: time per dependency level
};
// The algorithms as the benchmark names them: the library's names
// (to_string(TrsvAlgorithm)) of the GPU runs, "reference" and
// "level-set-cpu" for the CPU ones.
std::vector<std::string> trsv_bench_algorithms();
// Throws balsa::Error after writing the outputs when a result was wrong.
void run_trsv_bench(const TrsvBenchOptions& options, const std::string& command_line);

// balsa-bench solve: preconditioned Krylov solvers, balsa on the GPU vs the
// cuSPARSE + cuBLAS PCG-IC(0) baseline of Picciau's thesis sec. 5.2 and
// balsa's CPU path.
struct SolveBenchOptions {
  std::string suite = "default";   // default | quick | none
  std::vector<std::string> files;  // Matrix Market files: PCG-IC(0) if symmetric, else the BiCGStab methods
  std::vector<std::string> only;   // cases whose name contains one of these
  double tolerance = 1e-8;
  int max_iterations = 20000;
  StoppingNorm norm = StoppingNorm::Two;  // SciPy's and every solver's default; the thesis' test: Infinity
  Device device = Device::Auto;
  bool cpu = true;                 // also run balsa's CPU path
  bool baseline = true;            // also run the cuSPARSE + cuBLAS baseline (PCG cases)
  TrsvAlgorithm trsv = TrsvAlgorithm::Auto;  // the preconditioner's triangular solver on the GPU
  bool float_preconditioner = false;
  std::string data_dir = "tests/data";
  std::string json_path, markdown_path;  // "-": standard output
};
void run_solve_bench(const SolveBenchOptions& options, const std::string& command_line);

// balsa-bench banded: the SaP report's dense banded benchmark (sec. 4.1)
// against LAPACK dgbsv: the N x K grid at d = 1 and the d sweep.
struct BandedBenchOptions {
  std::string suite = "all";  // grid | sweep | all
  // N and K of every suite that runs; empty: each suite's own (the grid:
  // the report's 1e3..1e6 x 10..500; the sweep: N = 2e5, K = 200).
  std::vector<index_t> n, k;
  std::vector<double> sweep_d = {0.06, 0.08, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
  index_t partitions = 50;
  double tolerance = 1e-10;
  int repeat = 3;
  double budget_seconds = 5.0;  // a measurement stops repeating after this long
  Device device = Device::Auto;  // SaP's device (the CPU path without a GPU)
  // SaP's GPUs (BandedOptions::devices; empty: the current one). With two or
  // more, every SaP run is also timed on devices[0] alone: the scaling table.
  std::vector<int> devices;
  // SaP's sparse pipeline instead (SparseSapSolver on a scrambled CSR of
  // each case's matrix), on devices[0] alone and on all of --devices.
  bool sparse = false;
  bool baseline = true;
  std::string json_path, markdown_path;  // "-": standard output
};
void run_banded_bench(const BandedBenchOptions& options, const std::string& command_line);

// balsa-bench qr: multifrontal sparse QR against SuiteSparseQR (SPQR) on the
// same cores.
struct QrBenchOptions {
  std::vector<std::string> files;  // extra Matrix Market files
  std::string data_dir = "tests/data";                   // Franz6, lp_e226, bayer10
  std::string suite_dir = "tests/data";                  // well1850, illc1033, ash219 (.mtx.gz; skipped if missing)
  std::vector<std::string> only;   // cases whose name contains one of these
  bool generated = true;           // the generated 2D/3D problems
  bool large = false;              // and the large generated ones (2D 1000^2, 3D 50^3, [L; I] 1000^2, tall random)
  bool gpu = true;                 // balsa on the GPU too, when one is present
  bool fronts = false;             // instead: the task kernel against cuSOLVER per dense front class
  double fp64_tflops = 33.5;       // --fronts' roofline: the GPU's FP64 peak without tensor cores (H200: 33.5)
  double peak_gbs = 4300;          // and its memory bandwidth (H200 measured copy: 4300 GB/s)
  // Staging (sec. 3.4): a "staged GPU" run with QrOptions::device_memory_limit
  // = this many bytes, or this fraction of the one-arena GPU factor's bytes (0: none).
  std::size_t device_memory_limit = 0;
  double stage_fraction = 0;
  int repeat = 3;
  std::string json_path, markdown_path;  // "-": standard output
};
void run_qr_bench(const QrBenchOptions& options, const std::string& command_line);

// balsa-bench sequence: Picciau's thesis Sect. 6.3 experiment: sequences of
// triangular matrices, each from the last by moving the entries of random
// columns; TASSL's incremental update against a full TASSL analysis and
// cuSPARSE's analysis, the solve after the updates against after a fresh
// analysis.
struct SequenceBenchOptions {
  std::string suite = "all";                    // all | lp | ilu | generated
  std::string lp_dir = "bench/data/lp-basis-L";  // L factors of LP bases (*.mtx.gz)
  std::string data_dir = "tests/data";          // real matrices: their ILU(0) factors
  std::vector<std::string> only;                // cases whose name contains one of these
  int steps = 10;                               // matrices of a sequence after the first
  bool multi = true;                            // also the many-columns variant (2..32 columns a step)
  int repeat = 20;                              // timed solves (median)
  int repeat_analysis = 3;                      // fresh analyses per step (median)
  std::uint64_t seed = 1;
  Device device = Device::Auto;
  std::string json_path, markdown_path;  // "-": standard output
};
void run_sequence_bench(const SequenceBenchOptions& options, const std::string& command_line);

// balsa-bench lp: the revised simplex (include/balsa/lp.hpp) on every MPS
// file of a folder (and its infeasible/ subfolder) against CLP's dual simplex
// (linked, same process, same data) and HiGHS (scripts/lp-highs.py's JSON,
// run on the same host): status, objective difference, iterations, time and
// Table 7.1's time split; the basis solves on the GPU (forced) for
// correctness, and the model's predictions against the measured times.
struct LpBenchOptions {
  std::string dir = "tests/data/lp";  // *.mps[.gz] here and in dir/infeasible
  std::string reference;              // reference.csv (default: dir/reference.csv when present)
  std::string highs_json;             // scripts/lp-highs.py --json output to merge
  std::vector<std::string> only;      // problems whose name contains one of these
  int repeat = 1;                     // timed solves of balsa and CLP (median)
  bool gpu = true;                    // also the basis solves forced onto the GPU (when present)
  double time_limit = 600;            // seconds per solve
  std::string json_path, markdown_path;  // "-": standard output
};
void run_lp_bench(const LpBenchOptions& options, const std::string& command_line);

// balsa-bench sparse: general sparse systems as in the SaP report's sec.
// 4.3: x* on a parabola (1 at both ends, 400 in the middle), b = A x*, x0 =
// 0; a solve succeeds when ||x - x*||_2 / ||x*||_2 <= success. balsa::solve
// (include/balsa/solve.hpp) with its own iterative methods alone, then with
// its direct fallback, against UMFPACK and SuperLU in the same process; the
// real matrices of data_dir (square ones) and generated convection-diffusion
// systems (randomly permuted and row-scaled).
struct SparseBenchOptions {
  std::string suite = "all";                       // real | generated | all | quick
  std::string data_dir = "tests/data";  // *.mtx and *.mtx.gz, manifest-suite.csv when there (missing: an Error)
  std::vector<std::string> only;                   // systems whose name contains one of these
  index_t max_n = 0;                               // skip systems with more rows (0: none skipped)
  double tolerance = 1e-8;                         // balsa::solve's residual tolerance
  int max_iterations = 2000;                       // per iterative method
  double success = 0.01;                           // the report's relative error threshold
  Device device = Device::Auto;                    // balsa's iterative methods
  int repeat = 3;                                  // runs per solver (median of the times) ...
  double budget_seconds = 2.0;                     // ... fewer once a solver has taken this long
  bool baselines = true;                           // run UMFPACK and SuperLU
  // UMFPACK, SuperLU and balsa's fallback run are skipped above this many
  // rows ("skipped (size)"); each baseline runs in a child process stopped
  // after timeout_seconds (0: in this process, no limit).
  index_t direct_max_n = 1100000;
  double timeout_seconds = 300;
  std::string json_path, markdown_path;  // "-": standard output
};
void run_sparse_bench(const SparseBenchOptions& options, const std::string& command_line);

// balsa-bench direct: DirectSolver's methods (CHOLMOD where A is symmetric
// with a positive diagonal, UMFPACK, KLU, Auto) on the square matrices of a
// folder: analyse / factor / solve times, predicted and actual factor
// entries, flops and peak bytes, rcond, backward error; one JSON record per
// (matrix, method).
struct DirectBenchOptions {
  std::vector<std::string> files;             // instead of the folder's matrices
  std::string dir = "tests/data";  // *.mtx and *.mtx.gz (rectangular ones skipped)
  std::vector<std::string> only;              // matrices whose file name contains one of these
  int repeat = 3;                             // runs per (matrix, method): median times ...
  double budget_seconds = 2.0;                // ... fewer once the runs have taken this long
  double max_flops = 0;                       // skip a factorisation predicted to need more (0: none skipped)
  int threads = 0;                            // DirectOptions::threads
  std::string json_path, markdown_path;       // "-": standard output
};
void run_direct_bench(const DirectBenchOptions& options, const std::string& command_line);

// balsa-bench precond: balsa::Preconditioner (include/balsa/precondition.hpp)
// on one PETSc rank's block (the 3D Poisson and convection-diffusion on a
// grid^3 box): set-up, update_values and one application on one CPU thread,
// every CPU thread and the GPU, beside cuSPARSE's PCG-IC(0) per iteration.
struct PrecondBenchOptions {
  index_t grid = 64;                      // the local box: grid^3 rows
  int repeat = 3;                         // set-ups and updates (median)
  int applies = 50;                       // applications (median; GPU: one batch)
  std::string json_path, markdown_path;   // "-": standard output
};
void run_precond_bench(const PrecondBenchOptions& options, const std::string& command_line);

// A benchmark's Matrix Market file as CSR: read as triplets, then the
// memory of its conversion and of the benchmark's work (at least 3 copies
// of A and 8 vectors of n) checked from their census against
// --memory-limit, or the memory available, before the conversion
// (bench/bench_read.cpp): a 1-entry file declaring 2^31 - 1 rows is refused
// at once, not after 17 GB of row pointers.
Csr<double> read_bench_matrix(const std::filesystem::path& file);

// The command line of this process (/proc/self/cmdline), arguments quoted
// when needed: what the results record.
std::string process_command_line();

}  // namespace balsa::bench
