// Elementwise device kernels of the preconditioners (krylov/preconditioner_kernels.hpp).
#include "cuda/check.hpp"
#include "krylov/preconditioner_kernels.hpp"

namespace balsa::krylov::device {

namespace {
unsigned blocks_for(std::size_t n) { return unsigned((n + 255) / 256); }

template <class From, class To>
__global__ void convert_kernel(const From* in, To* out, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = To(in[i]);
}

template <class T>
__global__ void scale_kernel(const T* r, const T* inv_diag, T* z, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = r[i] * inv_diag[i];
}
}  // namespace

template <class From, class To>
void convert(const From* in, To* out, std::size_t n) {
  if (n == 0) return;
  convert_kernel<From, To><<<blocks_for(n), 256, 0, cuda::stream()>>>(in, out, n);
  BALSA_CHECK_LAUNCH();
}

template <class T>
void scale(const T* r, const T* inv_diag, T* z, std::size_t n) {
  if (n == 0) return;
  scale_kernel<T><<<blocks_for(n), 256, 0, cuda::stream()>>>(r, inv_diag, z, n);
  BALSA_CHECK_LAUNCH();
}

template void convert<double, float>(const double*, float*, std::size_t);
template void convert<float, double>(const float*, double*, std::size_t);
template void scale<float>(const float*, const float*, float*, std::size_t);
template void scale<double>(const double*, const double*, double*, std::size_t);

}  // namespace balsa::krylov::device
