// balsa-bench trsv: the triangular-solve benchmark (issue 3, item 6).
//
// For every case (generator matrices and Matrix Market files, lower
// triangle, non-unit diagonal) x precision x algorithm: analysis time, solve
// time (median of the timed solves after warm-up; CUDA events around each
// solve on the GPU, rotating over 4 right-hand sides already on the device),
// a correctness check against the CPU reference, and the baselines measured
// in the same run (CPU serial substitution, cuSPARSE SpSV, one cuSPARSE SpMV
// of L). Results: JSON, Markdown (bench_report.hpp), progress on stderr.
// The options and run_trsv_bench: bench/bench.hpp; here the suite.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "balsa/sparse.hpp"
#include "balsa/trsv.hpp"

namespace balsa::bench {

using BenchOptions = TrsvBenchOptions;  // bench/bench.hpp

// An algorithm as the benchmark names it.
struct AlgorithmSpec {
  std::string name;
  TrsvAlgorithm algorithm;
  Device device;
};
// reference, level-set-cpu, spike-cpu (CPU); level-set, sync-free, sync-free-csc, tassl,
// sync-free-blocks, spike, cusparse, auto (CUDA): trsv_bench_algorithms()'s names.
const std::vector<AlgorithmSpec>& algorithm_specs();

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
BenchCase file_case(const std::filesystem::path& file, bool upper = false);
// J U J (J the reversal): an upper triangle as the lower triangle with the
// same dependency graph (row i is row n-1-i of U, columns mirrored).
Csr<double> reversed(const Csr<double>& U);

}  // namespace balsa::bench
