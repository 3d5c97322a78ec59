// Internal: handles lent from a process-wide pool instead of made and
// destroyed per object: library handles (cuSPARSE, cuBLAS) and pinned host
// blocks (the Krylov driver's status copies). Making one initialises state
// on the device or pins memory, and destroying one may free device memory
// with cudaFree or unpin memory, either of which can wait for the whole
// device: that would tie the streams of unrelated objects together (README,
// "Threads"). So a handle, once made, is kept for the process (never
// destroyed: the pool holds as many as were ever in use at once) and lent
// to one user at a time; a library handle is set to the current stream
// before each use (cuda/stream.hpp). A user gives its handle back only when
// its work is enqueued, so the next user's stream setting does not move
// that work.
#pragma once

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda/caller_context.hpp"
#include "cuda/check.hpp"

namespace balsa::cuda::detail {

// Handles of type H, per device (a handle belongs to the device current
// when it was made).
template <class H>
class HandlePool {
 public:
  static HandlePool& instance() {
    static auto* pool = new HandlePool;  // never destroyed: outlives every static that lends
    return *pool;
  }
  // A free handle of the current device, or a new one from make(H&).
  template <class Make>
  H take(Make&& make) {
    const int device = current_device();
    {
      const std::lock_guard<std::mutex> hold(mutex_);
      std::vector<H>& free = free_[device];
      if (!free.empty()) {
        H h = free.back();
        free.pop_back();
        return h;
      }
    }
    H h{};
    make(h);
    return h;
  }
  void give(H h, int device) noexcept {
    const std::lock_guard<std::mutex> hold(mutex_);
    try {
      free_[device].push_back(h);
    } catch (...) {  // out of host memory: the handle is lost, not freed
    }
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<H>> free_;
};

// One handle lent for this object's lifetime. Library: make(H&) creates a
// handle, set_stream(H, cudaStream_t) points it at a stream.
template <class H, class Library>
class PooledHandle {
 public:
  PooledHandle() : device_(current_device()), h_(HandlePool<H>::instance().take(Library::make)) {}
  ~PooledHandle() { HandlePool<H>::instance().give(h_, device_); }
  PooledHandle(const PooledHandle&) = delete;
  PooledHandle& operator=(const PooledHandle&) = delete;
  // The handle, on the calling thread's current stream.
  H get() const {
    Library::set_stream(h_, stream());
    return h_;
  }

 private:
  int device_;
  H h_;
};

struct CusparseLibrary {
  static void make(cusparseHandle_t& h) { BALSA_CUSPARSE_CHECK(cusparseCreate(&h)); }
  static void set_stream(cusparseHandle_t h, cudaStream_t s) { BALSA_CUSPARSE_CHECK(cusparseSetStream(h, s)); }
};
struct CublasLibrary {
  static void make(cublasHandle_t& h) { BALSA_CUBLAS_CHECK(cublasCreate(&h)); }
  static void set_stream(cublasHandle_t h, cudaStream_t s) { BALSA_CUBLAS_CHECK(cublasSetStream(h, s)); }
};
using CusparseHandle = PooledHandle<cusparseHandle_t, CusparseLibrary>;
using CublasHandle = PooledHandle<cublasHandle_t, CublasLibrary>;

}  // namespace balsa::cuda::detail
