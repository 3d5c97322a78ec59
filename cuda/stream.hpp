// Internal: the stream balsa's CUDA code enqueues on. It is the calling
// thread's current stream (include/balsa/cuda.hpp, "Streams"): the stream of
// the balsa object whose call is running (each public call opens a
// StreamScope with its options' stream), else the per-thread default
// stream. Every launch, copy, memset, graph replay, event and library call
// passes stream(); nothing in balsa uses the legacy default stream or
// synchronises the whole device (README, "Threads"), and the library is
// compiled with the per-thread default stream besides (CMakeLists.txt), so a
// stream left out by mistake is still not the legacy one.
#pragma once

#include <cuda_runtime.h>

#include "balsa/cuda.hpp"

namespace balsa::cuda {

// A StreamHandle as CUDA takes it (nullptr: the per-thread default stream).
inline cudaStream_t as_stream(StreamHandle s) noexcept {
  return s ? static_cast<cudaStream_t>(s) : cudaStreamPerThread;
}

// The calling thread's current stream.
inline cudaStream_t stream() noexcept { return as_stream(current_stream()); }

}  // namespace balsa::cuda
