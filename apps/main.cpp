// The balsa command: sparse solvers on the GPU (CPU without one).
#include <fmt/core.h>

#include <string>

#include "common.hpp"

int main(int argc, char** argv) {
  using namespace balsa::app;
  // The benchmarks are a program of their own (bench/bench_cli.cpp), not installed.
  if (argc > 1 && std::string(argv[1]) == "bench") {
    fmt::print(stderr,
               "balsa: error: the benchmarks are a program of their own: balsa-bench {} (built beside balsa in "
               "the build folder; not installed)\n",
               argc > 2 ? std::string(argv[2]) + " ..." : std::string("trsv|solve|banded|qr|sequence|lp|sparse|direct"));
    return kExitUsage;
  }
  CLI::App app{"balsa " BALSA_VERSION ": balanced sparse algorithms on NVIDIA GPUs (CPU path for everything)", "balsa"};
  return run_app(app, argc, argv, add_balsa_commands);
}
