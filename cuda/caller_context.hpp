// Internal: the set-up tasks that run on threads of their own
// (parallel::async_with_threads: the IC(0) and ILU(0) preconditioners build
// their L and U triangular solvers beside the factorisation,
// krylov/preconditioner.cpp; the Krylov solver uploads A beside them) work
// on their caller's device and stream. Both are per host thread (a new
// thread starts on device 0, outside any StreamScope), so they are taken on
// the thread that starts the task and entered on the task's thread.
//
// With the per-thread default stream (nullptr) a task's work goes to its own
// thread's default stream, which nothing orders with the caller's: a task
// that touches the device ends with finish(), which waits for its work, so
// that what it made (uploads, stream-ordered allocations) is ready for the
// caller. Set-up tasks of one object never synchronise the device, so they
// do not disturb each other's graph captures (cuda/graph.hpp).
#pragma once

#include "balsa/cuda.hpp"

namespace balsa::cuda {

// current_device and use_device (include/balsa/cuda.hpp) carry the
// calling thread's device to another thread.
class CallerContext {
 public:
  // gpu: the task uses the GPU. Without a GPU the device is left alone: the
  // task's own checks then say what is missing.
  explicit CallerContext(bool gpu) : device_(gpu && available() ? current_device() : -1), stream_(current_stream()) {}
  // On the task's thread: the caller's device, and its stream while the
  // returned scope lives.
  [[nodiscard]] StreamScope enter() const {
    if (device_ >= 0) use_device(device_);
    return StreamScope(stream_);
  }
  // On the task's thread, last: waits for the task's device work (above).
  void finish() const {
    if (device_ >= 0) detail::synchronize();
  }

 private:
  int device_;
  StreamHandle stream_;
};

}  // namespace balsa::cuda
