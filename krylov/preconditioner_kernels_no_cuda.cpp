// The preconditioners' device kernels in a build without CUDA: a clear error.
#include "balsa/error.hpp"
#include "core/instantiate.hpp"
#include "krylov/preconditioner_kernels.hpp"

namespace balsa::krylov::device {

namespace {
[[noreturn]] void no_cuda() { throw CudaError("GPU preconditioner: balsa was built without CUDA"); }
}  // namespace

template <class From, class To>
void convert(const From*, To*, std::size_t) { no_cuda(); }
template <class T>
void scale(const T*, const T*, T*, std::size_t) { no_cuda(); }
template <class T>
void gather(const T*, const index_t*, T*, std::size_t) { no_cuda(); }
template <class T>
void scatter(const T*, const index_t*, T*, std::size_t) { no_cuda(); }

BALSA_KRYLOV_DEVICE_CONVERSIONS
BALSA_FOR_EACH_VALUE_TYPE(BALSA_KRYLOV_DEVICE_KERNELS)

}  // namespace balsa::krylov::device
