// The TASSL microbenchmarks in a build without CUDA: a clear error.
#include "balsa/error.hpp"
#include "balsa/trsv_model.hpp"

namespace balsa::tassl {

MicrobenchResult run_microbench(const MicrobenchOptions&) {
  throw CudaError("TASSL microbenchmarks: balsa was built without CUDA (configure with nvcc available)");
}

}  // namespace balsa::tassl
