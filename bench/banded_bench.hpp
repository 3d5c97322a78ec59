// balsa bench banded: the SaP report's dense banded benchmark (sec. 4.1)
// against LAPACK dgbsv (bench/banded_bench.cpp).
#pragma once

#include <string>
#include <vector>

#include "balsa/sparse.hpp"

namespace balsa::bench {

struct BandedBenchOptions {
  std::string suite = "all";  // grid | sweep | all
  std::vector<index_t> grid_n = {1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000};
  std::vector<index_t> grid_k = {10, 20, 50, 100, 200, 500};
  std::vector<double> sweep_d = {0.06, 0.08, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
  index_t partitions = 50;
  double tolerance = 1e-10;
  int repeat = 3;
  double budget_seconds = 5.0;  // a measurement stops repeating after this long
  std::string device = "cuda";  // cuda | cpu (SaP's CPU path)
  bool baseline = true;
  std::string json_path, markdown_path;
};

void run_banded_bench(const BandedBenchOptions& o, const std::string& command_line);

}  // namespace balsa::bench
