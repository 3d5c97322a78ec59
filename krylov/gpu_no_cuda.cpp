// The GPU Krylov solvers in a build without CUDA: a clear error.
#include "krylov/gpu.hpp"
#include "core/instantiate.hpp"

namespace balsa::krylov::gpu {

namespace {
[[noreturn]] void no_cuda() {
  throw CudaError("GPU Krylov solver: balsa was built without CUDA (configure with nvcc available)");
}
}  // namespace

template <class T>
std::unique_ptr<Solver<T>> make_solver(cuda::DeviceCsr<T>, Preconditioner<T>*, const KrylovOptions&, KrylovStats&) {
  no_cuda();
}
template <class T>
std::unique_ptr<Solver<T>> make_solver(Operator<T>*, Preconditioner<T>*, const KrylovOptions&, KrylovStats&) {
  no_cuda();
}

BALSA_FOR_EACH_VALUE_TYPE(BALSA_KRYLOV_GPU_SOLVERS)

}  // namespace balsa::krylov::gpu
