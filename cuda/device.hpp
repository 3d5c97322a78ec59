// Internal: the properties of the GPU the calling thread uses, read from
// the one cached device_info() (cuda/runtime.cpp) rather than queried again
// at each launch, and the per-kernel shared-memory opt-in.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"

namespace balsa::cuda {

// The cached properties of device `device` / of the calling thread's device.
const DeviceInfo& cached_device_info(int device);
const DeviceInfo& current_device_info();

inline int multiprocessors() { return current_device_info().sm_count; }
// Shared memory one block may opt in to (bytes).
inline std::size_t optin_shared_bytes() { return current_device_info().shared_memory_per_block_optin; }
inline bool cooperative_launch() { return current_device_info().cooperative_launch; }

// Shared memory beyond the 48 KB default needs an opt-in per kernel, one
// setting for the whole process: solvers built one after the other, or on
// several threads at once (README, "Threads"), that launch the same kernel
// with different sizes must not lower each other's. So the setting only
// grows, under a lock of its own (the read and the write are one step).
inline void raise_dynamic_shared_memory(const void* kernel, std::size_t bytes) {
  static std::mutex m;
  const std::lock_guard<std::mutex> hold(m);
  cudaFuncAttributes a{};
  BALSA_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  if (std::size_t(a.maxDynamicSharedSizeBytes) < bytes)
    BALSA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

}  // namespace balsa::cuda
