// GPU microbenchmarks of the thesis' model parameters (Sect. 3.1.2, Table 3.1)
// on the current device (trsv/tassl_microbench.cu; without CUDA it throws
// CudaError). Times from CUDA events, the median of `repeats` runs; a
// per-unit cost is the least-squares slope of those medians over a count
// (the thesis' "n_barriers sigma + t_offset" interpolation), so fixed launch
// costs drop out.
#pragma once

#include <cstddef>
#include <string>

#include "trsv/tassl_metrics.hpp"

namespace balsa::tassl {

struct MicrobenchOptions {
  int repeats = 21;
};

struct MicrobenchResult {
  std::string device;
  int sm_count = 0;
  // kappa: an empty kernel of one 128-thread block per SM.
  double kappa_launch = 0;        // one plain launch, start to completion
  double kappa_launch_slope = 0;  // per launch of 1..512 back-to-back plain launches
  double kappa_graph = 0;         // one replay of a CUDA graph of one such kernel
  // sigma_global: one kernel boundary inside a CUDA graph (slope over 1..512
  // dependent kernels per graph), how balsa's solvers separate levels.
  double sigma_global = 0;
  double sigma_local_32 = 0, sigma_local_1024 = 0;  // one __syncthreads, one block of 32 / 1024 threads
  // beta: doubles copied global -> shared -> global, seconds per byte of the
  // array; one block of 1024 threads, and one such block per SM (all bytes).
  double beta_block_per_byte = 0, beta_gpu_per_byte = 0;
  double iota = 0;                  // one dependent double multiply-add, one warp, registers
  double iota_stream_per_edge = 0;  // per edge of a whole-GPU SpMV-like stream (value, index, gather)
};

MicrobenchResult run_microbench(const MicrobenchOptions& options = {});

// The model's parameters from measurements, for values of `value_bytes`.
// one_launch (a CUDA graph replay, as balsa's solvers): kappa is one graph
// replay; otherwise the per-launch slope of plain launches.
inline MachineParams machine_params(const MicrobenchResult& r, std::size_t value_bytes, bool one_launch) {
  MachineParams p;
  p.kappa = one_launch ? r.kappa_graph : r.kappa_launch_slope;
  p.sigma_global = r.sigma_global;
  p.sigma_local = r.sigma_local_32;
  p.sigma_local_wide = r.sigma_local_1024;
  p.beta = r.beta_block_per_byte * double(value_bytes);
  p.iota = r.iota;
  return p;
}

}  // namespace balsa::tassl
