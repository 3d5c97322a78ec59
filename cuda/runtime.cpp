// Device discovery, memory and copies over the CUDA runtime.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "balsa/cuda.hpp"
#include "cuda/caller_context.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "core/exceptions.hpp"

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

void throw_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  const std::string msg = std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                          cublasGetStatusString(status) + ") in " + place(call, file, line);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(msg);
  throw CudaError(msg);
}

// Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync on the
// buffer's stream) where the device has memory pools: cudaMalloc and cudaFree
// are not stream-ordered, and cudaFree waits for the whole device, which
// would tie every stream of the process together (README, "Threads").
namespace {
bool memory_pools() { return current_device_info().memory_pools; }
}  // namespace

void* allocate(std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t status = memory_pools() ? cudaMallocAsync(&p, bytes, as_stream(stream)) : cudaMalloc(&p, bytes);
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

void release(void* p, StreamHandle stream) noexcept {
  if (!p) return;
  bool pools = false;
  try {
    pools = memory_pools();
  } catch (...) {  // the device cannot be queried any more (process exit): the plain free
  }
  (void)(pools ? cudaFreeAsync(p, as_stream(stream)) : cudaFree(p));
}

namespace {
// Large uploads from pageable memory. A plain copy stages them through the
// driver's own small pinned buffer at 6-8 GB/s on the H200 host; here the
// host threads copy chunks into two pinned buffers of our own (an OpenMP
// memcpy) while the copy engine drains the other one. The buffers are made
// on first use and kept for the process (pinning costs milliseconds; a
// solver library uploads the same sizes again and again). One upload at a
// time goes through them; a process that cannot pin memory falls back to
// the plain copy. Each device has its own set (made at its first large
// upload: the buffers' events belong to it; SaP over several GPUs uploads to
// them at once). The chunks are copied on the calling thread's current
// stream, like every other copy.
constexpr std::size_t kStagedFrom = std::size_t(8) << 20;  // smaller uploads: the plain copy
constexpr std::size_t kStageBytes = std::size_t(16) << 20;

struct Staging {
  std::mutex lock;
  bool usable = false;
  void* buffer[2] = {nullptr, nullptr};
  cudaEvent_t drained[2] = {};
  Staging() {
    bool ok = cudaHostAlloc(&buffer[0], kStageBytes, cudaHostAllocDefault) == cudaSuccess &&
              cudaHostAlloc(&buffer[1], kStageBytes, cudaHostAllocDefault) == cudaSuccess;
    for (auto& e : drained) ok = ok && cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess;
    if (ok) {
      usable = true;
      return;
    }
    (void)cudaGetLastError();  // unusable: give back what was made, uploads take the plain copy
    for (void* b : buffer)
      if (b) (void)cudaFreeHost(b);
    for (auto& e : drained)
      if (e) (void)cudaEventDestroy(e);
  }
};

Staging& staging() {
  static auto* lock = new std::mutex();
  static auto* sets = new std::map<int, Staging*>();  // never freed: outlive every static that uploads
  const int device = current_device();
  const std::lock_guard<std::mutex> hold(*lock);
  Staging*& s = (*sets)[device];
  if (!s) s = new Staging();
  return *s;
}

void parallel_memcpy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t(1) << 20;
  const std::int64_t pieces = std::int64_t((bytes + kPiece - 1) / kPiece);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < pieces; ++p) {
    const std::size_t off = std::size_t(p) * kPiece;
    std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(src) + off, std::min(kPiece, bytes - off));
  }
}
}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  const cudaStream_t st = stream();
  Staging* set = bytes < kStagedFrom ? nullptr : &staging();
  if (!set || !set->usable) {
    BALSA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
    BALSA_CUDA_CHECK(cudaStreamSynchronize(st));  // `src` may go when this returns
    return;
  }
  Staging& s = *set;
  std::lock_guard<std::mutex> hold(s.lock);
  int b = 0;
  for (std::size_t off = 0; off < bytes; off += kStageBytes, b ^= 1) {
    const std::size_t len = std::min(kStageBytes, bytes - off);
    BALSA_CUDA_CHECK(cudaEventSynchronize(s.drained[b]));  // its last chunk has left
    parallel_memcpy(s.buffer[b], static_cast<const char*>(src) + off, len);
    BALSA_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, s.buffer[b], len, cudaMemcpyHostToDevice, st));
    BALSA_CUDA_CHECK(cudaEventRecord(s.drained[b], st));
  }
  BALSA_CUDA_CHECK(cudaStreamSynchronize(st));  // the buffers are free for the next upload
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  BALSA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream()));
  BALSA_CUDA_CHECK(cudaStreamSynchronize(stream()));
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) BALSA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream()));
}
void fill_bytes(void* dst, int byte, std::size_t bytes) {
  if (bytes) BALSA_CUDA_CHECK(cudaMemsetAsync(dst, byte, bytes, stream()));
}
void synchronize() { BALSA_CUDA_CHECK(cudaStreamSynchronize(stream())); }
}  // namespace detail

bool built_with_cuda() noexcept { return true; }

int current_device() try {
  int d = 0;
  BALSA_CUDA_CHECK(cudaGetDevice(&d));
  return d;
} catch (...) {
  rethrow_as_balsa_error("current_device");
}
void use_device(int device) try {
  const int n = device_count();
  if (device < 0 || device >= n)
    throw CudaError("use_device: no CUDA device " + std::to_string(device) + " (" + std::to_string(n) +
                    " devices: 0.." + std::to_string(n - 1) + ")");
  BALSA_CUDA_CHECK(cudaSetDevice(device));
} catch (...) {
  rethrow_as_balsa_error("use_device");
}

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

namespace {
DeviceInfo query_device(int device) {
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
  d.cooperative_launch = p.cooperativeLaunch != 0;
  d.memory_pools = p.memoryPoolsSupported != 0;
  BALSA_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  BALSA_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  return d;
}
}  // namespace

// Queried once per device (the properties do not change while the process
// runs); the entries are never moved, so references to them stay valid.
const DeviceInfo& cached_device_info(int device) try {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<const DeviceInfo>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it == cache.end()) it = cache.emplace(device, std::make_unique<const DeviceInfo>(query_device(device))).first;
  return *it->second;
} catch (...) {
  rethrow_as_balsa_error("cached_device_info");
}

const DeviceInfo& current_device_info() { return cached_device_info(current_device()); }

DeviceInfo device_info(int device) { return cached_device_info(device); }

EventTimer::EventTimer() try {
  cudaEvent_t a = nullptr, b = nullptr;
  BALSA_CUDA_CHECK(cudaEventCreate(&a));
  const cudaError_t status = cudaEventCreate(&b);
  if (status != cudaSuccess) {
    (void)cudaEventDestroy(a);
    detail::throw_cuda(status, "cudaEventCreate", __FILE__, __LINE__);
  }
  start_ = a;
  stop_ = b;
} catch (...) {
  rethrow_as_balsa_error("EventTimer::EventTimer");
}
EventTimer::~EventTimer() {
  (void)cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  (void)cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}
void EventTimer::start() { BALSA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start_), stream())); }
void EventTimer::stop() { BALSA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop_), stream())); }
double EventTimer::milliseconds() try {
  BALSA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)));
  float ms = 0;
  BALSA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)));
  return ms;
} catch (...) {
  rethrow_as_balsa_error("EventTimer::milliseconds");
}

std::pair<std::size_t, std::size_t> memory_info() try {
  std::size_t free = 0, total = 0;
  BALSA_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return {free, total};
} catch (...) {
  rethrow_as_balsa_error("memory_info");
}

}  // namespace balsa::cuda
