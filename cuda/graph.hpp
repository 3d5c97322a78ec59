// Internal: RAII owners of CUDA streams and graphs, and the capture of a
// sequence of launches into an instantiated graph (the triangular solvers'
// and the factorisation's launch sequences replay as one graph).
#pragma once

#include <cuda_runtime.h>

#include <utility>

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
template <class Enqueue>
GraphExec capture_graph(cudaStream_t stream, Enqueue&& enqueue) {
  BALSA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t launched = enqueue(stream);
  Graph graph;
  const cudaError_t ended = cudaStreamEndCapture(stream, graph.out());
  BALSA_CUDA_CHECK(launched);
  BALSA_CUDA_CHECK(ended);
  GraphExec exec;
  BALSA_CUDA_CHECK(cudaGraphInstantiate(exec.out(), graph.get(), 0));
  return exec;
}

// The same on a fresh non-blocking stream, so that the capture cannot collide
// with work on the legacy default stream (where the solvers replay graphs).
template <class Enqueue>
GraphExec capture_graph(Enqueue&& enqueue) {
  Stream cap;
  BALSA_CUDA_CHECK(cudaStreamCreateWithFlags(cap.out(), cudaStreamNonBlocking));
  return capture_graph(cap.get(), std::forward<Enqueue>(enqueue));
}

}  // namespace balsa::cuda
