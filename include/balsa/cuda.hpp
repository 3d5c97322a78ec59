// balsa: GPU plumbing usable from any C++ code (no CUDA headers needed):
// device discovery, an owning device buffer, device copies of the sparse
// types, and a cuSPARSE SpMV. In a build without CUDA, device_count() is 0
// and everything else throws CudaError("... built without CUDA ...").
//
// Streams. Everything here runs on the calling thread's current stream:
// the per-thread default stream (cudaStreamPerThread), or the stream a
// StreamScope names while it lives. A DeviceBuffer is allocated on the
// current stream when it is made (stream-ordered: usable at once on that
// stream, on another only after the caller orders the two) and freed on that
// same stream when it goes; copies to and from the host wait for that stream.
//
//   cudaStream_t s = ...;                        // the caller's stream
//   balsa::cuda::StreamScope on(s);              // this thread's balsa helpers go to s
//   balsa::cuda::DeviceBuffer<double> x(n);      // allocated, then freed, on s
//   balsa::TriangularSolver<double> L(A, {.stream = s});  // its work on s too
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "balsa/core.hpp"
#include "balsa/sparse.hpp"

namespace balsa::cuda {

// The calling thread's current stream: the one the innermost live
// StreamScope of this thread names, else nullptr (the per-thread default
// stream).
StreamHandle current_stream() noexcept;

// While it lives, balsa's device work on this thread (the helpers of this
// header; every balsa object opens one with its own options' stream in each
// of its calls) goes to `stream` (nullptr: the per-thread default stream).
// Scopes nest; each restores the one before it.
class StreamScope {
 public:
  explicit StreamScope(StreamHandle stream) noexcept;
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  StreamHandle previous_;
};

bool built_with_cuda() noexcept;
// Number of usable CUDA devices; 0 when there is no driver, no device or no
// CUDA in this build. Never throws.
int device_count() noexcept;
// True when at least one CUDA device can be used.
inline bool available() noexcept { return device_count() > 0; }
// The calling thread's current CUDA device, and a change of it (cudaSetDevice;
// a device that does not exist is a CudaError): balsa's objects work on the
// device current when they are made (e.g. one GPU per MPI rank on a host,
// plugins/petsc). Without CUDA both are a CudaError.
int current_device();
void use_device(int device);

struct DeviceInfo {
  int id = 0;
  std::string name;
  int major = 0, minor = 0;               // compute capability
  int sm_count = 0;                       // multiprocessors
  std::size_t global_memory = 0;          // bytes
  std::size_t shared_memory_per_block = 0;        // default limit (48 KB)
  std::size_t shared_memory_per_block_optin = 0;  // after cudaFuncSetAttribute
  std::size_t shared_memory_per_sm = 0;
  std::size_t l2_bytes = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  bool cooperative_launch = false;        // cudaLaunchCooperativeKernel supported
  bool memory_pools = false;  // stream-ordered allocation (cudaMallocAsync); without it cudaMalloc/cudaFree
  int runtime_version = 0;  // e.g. 13000
  int driver_version = 0;
};
// Queried once per device and kept (balsa's kernels read it through the same cache).
DeviceInfo device_info(int device = 0);
// Free and total device memory in bytes.
std::pair<std::size_t, std::size_t> memory_info();

namespace detail {
// `bytes` on `stream` (stream-ordered where the device has memory pools);
// throws DeviceOutOfMemory with sizes in the message.
void* allocate(std::size_t bytes, StreamHandle stream);
// n * element_size, or DeviceOutOfMemory when the product overflows size_t.
inline std::size_t bytes_for(std::size_t n, std::size_t element_size) {
  if (element_size != 0 && n > std::numeric_limits<std::size_t>::max() / element_size)
    throw DeviceOutOfMemory("GPU out of memory: " + std::to_string(n) + " elements of " +
                            std::to_string(element_size) + " bytes overflow the address space");
  return n * element_size;
}
void release(void* p, StreamHandle stream) noexcept;  // on the stream it was allocated on
// On the current stream; the copies that involve the host return when they
// are done (and so does everything enqueued on that stream before them).
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);  // asynchronous
void fill_bytes(void* dst, int byte, std::size_t bytes);             // asynchronous
void synchronize();  // waits for the current stream (never the whole device)
}  // namespace detail

// Owning, move-only array in device memory, allocated on the current stream
// and freed on that same stream (see the top of this file).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n)
      : data_(static_cast<T*>(detail::allocate(detail::bytes_for(n, sizeof(T)), current_stream()))), size_(n),
        stream_(current_stream()) {}
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), stream_(o.stream_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      detail::release(data_, stream_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      stream_ = o.stream_;
    }
    return *this;
  }
  ~DeviceBuffer() { detail::release(data_, stream_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  void upload(std::span<const T> host) {
    check_size(host.size());
    detail::copy_to_device(data_, host.data(), host.size() * sizeof(T));
  }
  void download(std::span<T> host) const {
    check_size(host.size());
    detail::copy_to_host(host.data(), data_, host.size() * sizeof(T));
  }
  std::vector<T> to_host() const {
    std::vector<T> h(size_);
    download(h);
    return h;
  }
  // Every byte set to `byte` (0xFF poisons floating-point data with NaN).
  void fill_bytes(int byte) { detail::fill_bytes(data_, byte, bytes()); }

 private:
  void check_size(std::size_t n) const {
    if (n != size_)
      throw DimensionError("DeviceBuffer: host span has " + std::to_string(n) + " elements, buffer has " +
                           std::to_string(size_));
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  StreamHandle stream_ = nullptr;  // where it was allocated, and is freed
};

// Elapsed GPU time between two points of the current stream (CUDA events,
// recorded on the stream current at start() and at stop()).
//   EventTimer t; t.start(); ...launches...; t.stop(); double ms = t.milliseconds();
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start();
  void stop();
  double milliseconds();  // waits for the stop event

 private:
  void* start_ = nullptr;  // cudaEvent_t
  void* stop_ = nullptr;
};

// Fill every element with `value` (a kernel on the current stream; use NaN
// to poison outputs).
template <class T> void fill(DeviceBuffer<T>& x, T value);

// Device copy of a CSR matrix (also used for CSC: same three arrays).
template <class T>
struct DeviceCsr {
  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;
  DeviceBuffer<index_t> row_ptr;
  DeviceBuffer<index_t> col_idx;
  DeviceBuffer<T> values;
};
template <class T>
struct DeviceCsc {
  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;
  DeviceBuffer<index_t> col_ptr;
  DeviceBuffer<index_t> row_idx;
  DeviceBuffer<T> values;
};

// Host <-> device copies. to_device validates the host matrix first.
template <class T> DeviceCsr<T> to_device(const Csr<T>& A);
template <class T> DeviceCsc<T> to_device(const Csc<T>& A);
template <class T> Csr<T> to_host(const DeviceCsr<T>& A);
template <class T> Csc<T> to_host(const DeviceCsc<T>& A);

// y = alpha * A * x + beta * y through cuSPARSE's generic SpMV (CSR,
// default algorithm). Construction creates the handle, descriptors and work
// buffer once; apply() may be called any number of times. It refers to A's
// device arrays without copying them: A must outlive the CusparseSpmv.
template <class T>
class CusparseSpmv {
 public:
  explicit CusparseSpmv(const DeviceCsr<T>& A);
  ~CusparseSpmv();
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  // On the current stream, asynchronous.
  void apply(T alpha, const DeviceBuffer<T>& x, T beta, DeviceBuffer<T>& y);
  // The same on device pointers (x: A.cols values, y: A.rows).
  void apply(T alpha, const T* x, T beta, T* y);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// balsa's own CSR SpMV kernel (vector-per-row), y = A x, on the current
// stream. Checked against the CPU SpMV and cuSPARSE in the tests.
template <class T>
void spmv(const DeviceCsr<T>& A, const DeviceBuffer<T>& x, DeviceBuffer<T>& y);
// The same on device pointers (x: A.cols values, y: A.rows).
template <class T>
void spmv(const DeviceCsr<T>& A, const T* x, T* y);

}  // namespace balsa::cuda
