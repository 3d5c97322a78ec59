// Device discovery, memory and copies over the CUDA runtime.
#include <string>

#include "balsa/cuda.hpp"
#include "cuda/setup_lock.hpp"
#include "cuda/check.hpp"

namespace balsa::cuda {

namespace detail {
namespace {
std::string place(const char* call, const char* file, int line) {
  return std::string(call) + " at " + file + ":" + std::to_string(line);
}
}  // namespace

void throw_cuda(cudaError_t status, const char* call, const char* file, int line) {
  (void)cudaGetLastError();  // clear a non-sticky error so later calls can proceed
  const std::string msg = std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                          ") in " + place(call, file, line);
  if (status == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(msg);
  throw CudaError(msg);
}

void throw_cusparse(cusparseStatus_t status, const char* call, const char* file, int line) {
  const std::string msg = std::string("cuSPARSE error ") + cusparseGetErrorName(status) + " (" +
                          cusparseGetErrorString(status) + ") in " + place(call, file, line);
  if (status == CUSPARSE_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(msg);
  throw CudaError(msg);
}

void* allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::size_t free = 0, total = 0;
    (void)cudaMemGetInfo(&free, &total);
    throw DeviceOutOfMemory("GPU out of memory: cannot allocate " + std::to_string(bytes) + " bytes (" +
                            std::to_string(bytes >> 20) + " MiB); " + std::to_string(free >> 20) + " MiB free of " +
                            std::to_string(total >> 20) + " MiB");
  }
  if (status != cudaSuccess) throw_cuda(status, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

void release(void* p) noexcept {
  if (p) (void)cudaFree(p);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) BALSA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes) BALSA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) BALSA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
}
void fill_bytes(void* dst, int byte, std::size_t bytes) {
  if (bytes) BALSA_CUDA_CHECK(cudaMemset(dst, byte, bytes));
}
void synchronize() { BALSA_CUDA_CHECK(cudaDeviceSynchronize()); }
}  // namespace detail

bool built_with_cuda() noexcept { return true; }

int current_device() {
  int d = 0;
  BALSA_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}
void use_device(int device) { BALSA_CUDA_CHECK(cudaSetDevice(device)); }

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

DeviceInfo device_info(int device) {
  cudaDeviceProp p{};
  BALSA_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceInfo d;
  d.id = device;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.global_memory = p.totalGlobalMem;
  d.shared_memory_per_block = p.sharedMemPerBlock;
  d.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_memory_per_sm = p.sharedMemPerMultiprocessor;
  d.l2_bytes = std::size_t(p.l2CacheSize);
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  BALSA_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  BALSA_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  return d;
}

EventTimer::EventTimer() {
  cudaEvent_t a = nullptr, b = nullptr;
  BALSA_CUDA_CHECK(cudaEventCreate(&a));
  const cudaError_t status = cudaEventCreate(&b);
  if (status != cudaSuccess) {
    (void)cudaEventDestroy(a);
    detail::throw_cuda(status, "cudaEventCreate", __FILE__, __LINE__);
  }
  start_ = a;
  stop_ = b;
}
EventTimer::~EventTimer() {
  (void)cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  (void)cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}
void EventTimer::start() { BALSA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start_))); }
void EventTimer::stop() { BALSA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop_))); }
double EventTimer::milliseconds() {
  BALSA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)));
  float ms = 0;
  BALSA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)));
  return ms;
}

std::pair<std::size_t, std::size_t> memory_info() {
  std::size_t free = 0, total = 0;
  BALSA_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return {free, total};
}

}  // namespace balsa::cuda
