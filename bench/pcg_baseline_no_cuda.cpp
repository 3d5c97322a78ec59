// The cuSPARSE/cuBLAS PCG baseline in a build without CUDA: not run.
#include "pcg_baseline.hpp"

namespace balsa::bench {

BaselineResult cusparse_pcg_ic0(const Csr<double>&, std::span<const double>, double, int, StoppingNorm,
                                std::vector<double>*) {
  BaselineResult r;
  r.note = "balsa built without CUDA: no cuSPARSE baseline";
  return r;
}

}  // namespace balsa::bench
