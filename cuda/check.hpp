// Internal: checking of CUDA runtime, cuSPARSE and cuBLAS calls. Every call
// goes through one of these macros; a failure throws balsa::CudaError (or
// balsa::DeviceOutOfMemory) naming the call, the status and the source place.
#pragma once

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusparse.h>

#include "cuda/stream.hpp"

namespace balsa::cuda::detail {
[[noreturn]] void throw_cuda(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse(cusparseStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line);
}  // namespace balsa::cuda::detail

#define BALSA_CUDA_CHECK(call)                                                               \
  do {                                                                                       \
    const cudaError_t balsa_status_ = (call);                                                \
    if (balsa_status_ != cudaSuccess)                                                        \
      ::balsa::cuda::detail::throw_cuda(balsa_status_, #call, __FILE__, __LINE__);           \
  } while (0)

// After a kernel launch: launch-configuration errors (and, in debug builds,
// execution errors: the current stream is waited for, cuda/stream.hpp)
// become exceptions at the launch site.
#ifdef NDEBUG
#define BALSA_CHECK_LAUNCH() BALSA_CUDA_CHECK(cudaGetLastError())
#else
#define BALSA_CHECK_LAUNCH()                                      \
  do {                                                            \
    BALSA_CUDA_CHECK(cudaGetLastError());                         \
    BALSA_CUDA_CHECK(cudaStreamSynchronize(::balsa::cuda::stream())); \
  } while (0)
#endif

#define BALSA_CUSPARSE_CHECK(call)                                                           \
  do {                                                                                       \
    const cusparseStatus_t balsa_status_ = (call);                                           \
    if (balsa_status_ != CUSPARSE_STATUS_SUCCESS)                                            \
      ::balsa::cuda::detail::throw_cusparse(balsa_status_, #call, __FILE__, __LINE__);       \
  } while (0)

#define BALSA_CUBLAS_CHECK(call)                                                             \
  do {                                                                                       \
    const cublasStatus_t balsa_status_ = (call);                                             \
    if (balsa_status_ != CUBLAS_STATUS_SUCCESS)                                              \
      ::balsa::cuda::detail::throw_cublas(balsa_status_, #call, __FILE__, __LINE__);         \
  } while (0)
