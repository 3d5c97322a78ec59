// balsa bench solve (issue 5, item 4): preconditioned Krylov solvers on a
// suite of SPD and nonsymmetric systems. Per case and method, in one run:
// balsa on the GPU, the cuSPARSE + cuBLAS PCG-IC(0) baseline of Picciau's
// thesis sec. 5.2 (PCG cases), and balsa's own CPU path. Reported:
// iterations, time per iteration, setup and time to solution, the error
// against the known solution, and the ratios; JSON and Markdown.
#pragma once

#include <string>
#include <vector>

#include "balsa/krylov.hpp"

namespace balsa::bench {

struct SolveBenchOptions {
  std::string suite = "default";  // default | quick | none
  std::vector<std::string> files;  // Matrix Market files: PCG-IC(0) if symmetric, else the BiCGStab methods
  std::vector<std::string> only;   // cases whose name contains one of these
  double tolerance = 1e-8;
  int max_iterations = 20000;
  std::string norm = "inf";       // inf | 2
  std::string device = "auto";    // auto | cpu | cuda
  bool cpu = true;                // also run balsa's CPU path
  bool baseline = true;           // also run the cuSPARSE + cuBLAS baseline (PCG cases)
  std::string trsv = "auto";      // the preconditioner's triangular solver on the GPU
  bool float_preconditioner = false;
  std::string data_dir = "tests/data";
  std::string json_path, markdown_path;
};

void run_solve_bench(const SolveBenchOptions& o, const std::string& command_line);

}  // namespace balsa::bench
