// Elementwise device kernels of the preconditioners and of the multicolour
// ordering (krylov/preconditioner_kernels.hpp).
#include "core/instantiate.hpp"
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

template <class T>
__global__ void gather_kernel(const T* v, const index_t* perm, T* y, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v[perm[i]];
}

template <class T>
__global__ void scatter_kernel(const T* y, const index_t* perm, T* v, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) v[perm[i]] = y[i];
}

// kernel<<<...>>>(args..., n) on the current stream over n elements.
template <class Kernel, class... Args>
void launch(Kernel kernel, std::size_t n, Args... args) {
  if (n == 0) return;
  kernel<<<blocks_for(n), 256, 0, cuda::stream()>>>(args..., n);
  BALSA_CHECK_LAUNCH();
}
}  // namespace

template <class From, class To>
void convert(const From* in, To* out, std::size_t n) {
  launch(convert_kernel<From, To>, n, in, out);
}
template <class T>
void scale(const T* r, const T* inv_diag, T* z, std::size_t n) {
  launch(scale_kernel<T>, n, r, inv_diag, z);
}
template <class T>
void gather(const T* v, const index_t* perm, T* y, std::size_t n) {
  launch(gather_kernel<T>, n, v, perm, y);
}
template <class T>
void scatter(const T* y, const index_t* perm, T* v, std::size_t n) {
  launch(scatter_kernel<T>, n, y, perm, v);
}

BALSA_KRYLOV_DEVICE_CONVERSIONS
BALSA_FOR_EACH_VALUE_TYPE(BALSA_KRYLOV_DEVICE_KERNELS)

}  // namespace balsa::krylov::device
