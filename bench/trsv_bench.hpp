// balsa bench trsv: the triangular-solve benchmark (issue 3, item 6).
//
// For every case (generator matrices and Matrix Market files, lower
// triangle, non-unit diagonal) x precision x algorithm: analysis time, solve
// time (median of the timed solves after warm-up; CUDA events around each
// solve on the GPU, rotating over 4 right-hand sides already on the device),
// a correctness check against the CPU reference, and the baselines measured
// in the same run (CPU serial substitution, cuSPARSE SpSV, one cuSPARSE SpMV
// of L). Results: JSON, Markdown (bench_report.hpp), progress on stderr.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"

namespace balsa::bench {

struct BenchOptions {
  std::vector<std::string> files;       // Matrix Market files, benchmarked after the suite
  std::string suite = "default";        // default | quick | none
  bool quick = false;                   // quick suite, CPU only
  std::string precision = "both";       // double | float | both
  std::vector<std::string> algorithms;  // names from algorithm_specs(); empty: all
  std::vector<std::string> only;        // run only cases whose name contains one of these
  int repeat = 30;
  // Right-hand sides per timed solve: 1 (a vector), or a block of columns
  // solved in one call (GPU: one call, cuSPARSE SpSM as the baseline; CPU:
  // the columns in parallel; no SpMV row).
  index_t rhs = 1;
  index_t tassl_n_max = 0;  // TASSL (and Auto's) sub-graph capacity on the GPU; 0: from shared memory
  int warmup = 3;
  int cpu_repeat = -1;  // timed solves of the CPU algorithms; < 0: repeat
  std::string json_path, markdown_path;
  std::string device = "auto";          // auto | cpu | cuda
  std::string data_dir = "tests/data";  // real matrices of the suites (skipped if not found)
  double peak_gbs = 4300.0;             // floor model: memory bandwidth (GB/s)
  double level_latency_us = 2.0;        // floor model: time per dependency level
};

// An algorithm as the benchmark names it.
struct AlgorithmSpec {
  std::string name;
  TrsvAlgorithm algorithm;
  Device device;
};
// reference, levelset-cpu (CPU); levelset, syncfree, syncfree-csc, tassl, cusparse, auto (CUDA).
const std::vector<AlgorithmSpec>& algorithm_specs();
std::vector<std::string> algorithm_names();

// A benchmark case: its lower-triangular matrix is built only when it runs.
struct BenchCase {
  std::string name;
  std::string source;  // "generator" or the file's path
  // Returns a canonical lower-triangular CSR matrix with a nonzero diagonal;
  // appends to `note` what was done to the input; sets `diag_fixed`.
  std::function<Csr<double>(std::string& note, index_t& diag_fixed)> build;
};

// The suite of `options` (default / quick / none) followed by options.files.
// Problems finding the data folder go to `warnings`.
std::vector<BenchCase> make_suite(const BenchOptions& options, std::vector<std::string>& warnings);
// The data folder: `dir` as given; a relative one not found from the current
// directory is also looked for beside the executable's folder and its parent.
// Empty if not found.
std::filesystem::path find_data_dir(const std::string& dir);
// A Matrix Market file's case: lower triangle of the leading square block,
// missing/zero diagonal entries fixed (fix_diagonal).
BenchCase file_case(const std::filesystem::path& file);

// Runs the benchmark; writes the outputs; prints the Markdown summary to
// stdout. Throws balsa::Error after writing them when a result was wrong.
void run_trsv_bench(const BenchOptions& options, const std::string& command_line);

}  // namespace balsa::bench
