// Internal: RAII owners of CUDA streams and graphs, and the capture of a
// sequence of launches into an instantiated graph (the triangular solvers'
// and the factorisation's launch sequences replay as one graph).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "balsa/error.hpp"
#include "cuda/check.hpp"

namespace balsa::cuda {

template <class H, cudaError_t (*Destroy)(H)>
class Owned {
 public:
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Owned() { reset(); }
  H get() const noexcept { return h_; }
  H* out() noexcept {  // for the cudaXxxCreate(&h) calls
    reset();
    return &h_;
  }
  void reset() noexcept {
    if (h_) (void)Destroy(h_);
    h_ = nullptr;
  }

 private:
  H h_ = nullptr;
};
using Stream = Owned<cudaStream_t, cudaStreamDestroy>;
using Graph = Owned<cudaGraph_t, cudaGraphDestroy>;
using GraphExec = Owned<cudaGraphExec_t, cudaGraphExecDestroy>;

// The launches that enqueue(stream) makes on `stream`, captured into a graph
// and instantiated. enqueue returns the first launch error (cudaGetLastError
// after a launch: no device synchronisation is allowed while capturing); the
// capture is ended before any error is thrown.
//
// The capture is thread-local (cudaStreamCaptureModeThreadLocal): other
// threads may use CUDA meanwhile, and balsa's own work never synchronises the
// device (README, "Threads"). What can still invalidate a capture is
// another thread's device-wide synchronisation (cudaDeviceSynchronize, a
// plain cudaFree, work on the legacy default stream: the caller's code, or a
// library's); such a capture is made again, up to kCaptureAttempts times in
// all, before a CudaError says why.
inline constexpr int kCaptureAttempts = 4;

template <class Enqueue>
GraphExec capture_graph(cudaStream_t stream, Enqueue&& enqueue) {
  for (int attempt = 1;; ++attempt) {
    BALSA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const cudaError_t launched = enqueue(stream);
    Graph graph;
    const cudaError_t ended = cudaStreamEndCapture(stream, graph.out());
    const bool invalidated =
        ended == cudaErrorStreamCaptureInvalidated || launched == cudaErrorStreamCaptureInvalidated;
    if (invalidated) {
      (void)cudaGetLastError();  // not sticky: the next attempt starts clean
      if (attempt < kCaptureAttempts) continue;
      throw CudaError("CUDA graph capture invalidated " + std::to_string(kCaptureAttempts) +
                      " times in a row: another thread synchronised the device (cudaDeviceSynchronize, cudaFree "
                      "or the legacy default stream) while balsa captured its launches (README, \"Threads\")");
    }
    BALSA_CUDA_CHECK(launched);
    BALSA_CUDA_CHECK(ended);
    GraphExec exec;
    BALSA_CUDA_CHECK(cudaGraphInstantiate(exec.out(), graph.get(), 0));
    return exec;
  }
}

// The same on a fresh non-blocking stream of its own: nothing else is
// enqueued there, and work on the legacy default stream does not join it.
// The graph is then replayed on the object's stream (cuda/stream.hpp).
template <class Enqueue>
GraphExec capture_graph(Enqueue&& enqueue) {
  Stream cap;
  BALSA_CUDA_CHECK(cudaStreamCreateWithFlags(cap.out(), cudaStreamNonBlocking));
  return capture_graph(cap.get(), std::forward<Enqueue>(enqueue));
}

}  // namespace balsa::cuda
