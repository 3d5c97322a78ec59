// Internal: the setup of one object on several host threads (the IC(0) and
// ILU(0) preconditioners build their L and U triangular solvers beside the
// factorisation, krylov/preconditioner.cpp; the Krylov solver uploads A beside
// them). Two CUDA rules make that delicate:
// - A graph capture on one thread is invalidated when another thread
//   synchronises the same device, whatever the capture mode (device-scoped;
//   cudaDeviceSynchronize, stream syncs and blocking copies all count). So each
//   setup section that touches the device holds SetupLock, and the host
//   analysis before it runs unlocked. The lock is recursive: a locked section
//   may call another (TriangularSolver's set-up around an algorithm's).
// - The current device is per host thread and a new thread starts on device 0,
//   so a setup task runs on its caller's device (CallerDevice).
// Only the set-up sections that can overlap inside balsa are locked (solves
// and the single-threaded rest of a set-up are not): other GPU work on other
// threads during a set-up is the caller's to avoid (README, "Threads").
#pragma once

#include <mutex>

#include "balsa/cuda.hpp"
#include "core/setup_trace.hpp"

namespace balsa::cuda {

inline std::recursive_mutex& setup_mutex() {
  static std::recursive_mutex m;
  return m;
}

class SetupLock {
 public:
  SetupLock() : lock_(setup_mutex(), std::defer_lock) {
    const double t0 = trace::enabled() ? trace::now_ms() : -1.0;  // BALSA_SETUP_TRACE: waits over 0.5 ms
    lock_.lock();
    if (t0 < 0.0) return;
    if (const double t1 = trace::now_ms(); t1 - t0 > 0.5) trace::record("setup lock: wait", t0, t1);
  }

 private:
  std::unique_lock<std::recursive_mutex> lock_;
};

// The calling thread's device, and the same made current on another thread.
int current_device();
void use_device(int device);

// Taken on the thread that starts a setup task (gpu: the task uses the GPU)
// and entered on the task's thread. Without a GPU it does nothing: the task's
// own checks then say what is missing.
class CallerDevice {
 public:
  explicit CallerDevice(bool gpu) : device_(gpu && available() ? current_device() : -1) {}
  void enter() const {
    if (device_ >= 0) use_device(device_);
  }

 private:
  int device_;
};

}  // namespace balsa::cuda
