// GPU microbenchmarks of the thesis' model parameters (see balsa/trsv_model.hpp;
// thesis Sect. 3.1.2: "GPU kernels containing only barriers ... obtained by
// interpolation"). Every kernel runs on one non-blocking stream between two
// CUDA events; the first run of each configuration is a warm-up.
#include <algorithm>
#include <vector>

#include "balsa/cuda.hpp"
#include "cuda/check.hpp"
#include "trsv/gpu_common.cuh"
#include "balsa/trsv_model.hpp"
#include "core/exceptions.hpp"

namespace balsa::tassl {

namespace {

using cuda::GraphExec;
using cuda::Stream;
using Event = cuda::Owned<cudaEvent_t, cudaEventDestroy>;

constexpr int kEmptyThreads = 128;

__global__ void empty_kernel() {}

template <int W>
__global__ void __launch_bounds__(W) barrier_kernel(int barriers) {
  for (int i = 0; i < barriers; ++i) __syncthreads();
}

// Global -> shared -> global; the write reads another thread's element, so
// the data must pass through shared memory and the barrier.
__global__ void __launch_bounds__(1024) round_trip_kernel(const double* in, double* out, int m) {
  extern __shared__ double s[];
  const std::size_t base = std::size_t(blockIdx.x) * std::size_t(m);
  for (int i = int(threadIdx.x); i < m; i += int(blockDim.x)) s[i] = in[base + std::size_t(i)];
  __syncthreads();
  for (int i = int(threadIdx.x); i < m; i += int(blockDim.x)) out[base + std::size_t(i)] = s[m - 1 - i];
}

// A chain of dependent multiply-adds in registers: the ALU time alone, as iota.
__global__ void multiply_add_chain(double* out, int steps, double a, double y) {
  double x = double(threadIdx.x);
#pragma unroll 16
  for (int k = 0; k < steps; ++k) x = y - a * x;
  out[threadIdx.x] = x;
}

// x_i -= sum_k val * x[col]: entries stored k-major, so each step coalesces.
__global__ void stream_kernel(const double* __restrict__ val, const int* __restrict__ col,
                              const double* __restrict__ x, double* __restrict__ y, int rows, int per_row) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= rows) return;
  double s = 0;
  for (int k = 0; k < per_row; ++k) {
    const std::size_t e = std::size_t(k) * std::size_t(rows) + std::size_t(i);
    s -= val[e] * x[col[e]];
  }
  y[i] = s;
}

__global__ void fill_stream_input(double* val, int* col, std::size_t n, int x_size) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < n; e += std::size_t(gridDim.x) * blockDim.x) {
    val[e] = 1.0 / double(1 + e % 7);
    col[e] = int((e * 2654435761u) % std::size_t(x_size));  // scattered, as an SpMV gathers
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= double(x.size());
  my /= double(x.size());
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxy / sxx;
}

class Bench {
 public:
  explicit Bench(int repeats) : repeats_(repeats) {
    BALSA_CUDA_CHECK(cudaStreamCreateWithFlags(stream_.out(), cudaStreamNonBlocking));
    BALSA_CUDA_CHECK(cudaEventCreate(start_.out()));
    BALSA_CUDA_CHECK(cudaEventCreate(stop_.out()));
  }
  cudaStream_t stream() const { return stream_.get(); }

  // Median seconds of `run` (which enqueues work on stream()) between two events.
  template <class F>
  double seconds(F&& run) {
    run();  // warm-up
    BALSA_CUDA_CHECK(cudaGetLastError());
    BALSA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    std::vector<double> t;
    for (int r = 0; r < repeats_; ++r) {
      BALSA_CUDA_CHECK(cudaEventRecord(start_.get(), stream()));
      run();
      BALSA_CUDA_CHECK(cudaEventRecord(stop_.get(), stream()));
      BALSA_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
      BALSA_CUDA_CHECK(cudaGetLastError());
      float ms = 0;
      BALSA_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
      t.push_back(double(ms) * 1e-3);
    }
    return median(t);
  }

  // The slope of seconds(run(count)) over `counts`.
  template <class F>
  double per_unit(const std::vector<int>& counts, F&& run) {
    std::vector<double> x, y;
    for (const int c : counts) {
      x.push_back(double(c));
      y.push_back(seconds([&] { run(c); }));
    }
    return slope(x, y);
  }

 private:
  int repeats_;
  Stream stream_;
  Event start_, stop_;
};

const std::vector<int> kLaunchCounts = {1, 8, 32, 128, 512};

void measure_kappa(Bench& b, int sms, MicrobenchResult& r) {
  auto launch = [&] { empty_kernel<<<sms, kEmptyThreads, 0, b.stream()>>>(); };
  r.kappa_launch = b.seconds(launch);
  r.kappa_launch_slope = b.per_unit(kLaunchCounts, [&](int n) {
    for (int k = 0; k < n; ++k) launch();
  });
  // Graphs of n dependent empty kernels (captured on one stream: a chain).
  std::vector<double> x, y;
  for (const int n : kLaunchCounts) {
    const GraphExec exec = cuda::capture_graph(b.stream(), [&](cudaStream_t) {
      for (int k = 0; k < n; ++k) launch();
      return cudaGetLastError();
    });
    x.push_back(double(n));
    y.push_back(b.seconds([&] { BALSA_CUDA_CHECK(cudaGraphLaunch(exec.get(), b.stream())); }));
    if (n == 1) r.kappa_graph = y.back();
  }
  r.sigma_global = slope(x, y);
}

void measure_barriers(Bench& b, MicrobenchResult& r) {
  const std::vector<int> counts = {1024, 4096, 16384, 65536};
  r.sigma_local_32 = b.per_unit(counts, [&](int n) { barrier_kernel<32><<<1, 32, 0, b.stream()>>>(n); });
  r.sigma_local_1024 = b.per_unit(counts, [&](int n) { barrier_kernel<1024><<<1, 1024, 0, b.stream()>>>(n); });
}

void measure_beta(Bench& b, int sms, MicrobenchResult& r) {
  const int optin = int(cuda::optin_shared_bytes());
  const int m_max = int(std::size_t(optin) / sizeof(double));
  BALSA_CUDA_CHECK(cudaFuncSetAttribute(round_trip_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  cuda::DeviceBuffer<double> in{std::size_t(sms) * std::size_t(m_max)}, out{in.size()};
  in.fill_bytes(0);
  const std::vector<int> counts = {m_max / 8, m_max / 4, m_max / 2, m_max};
  auto run = [&](int blocks) {
    return b.per_unit(counts, [&](int m) {
      round_trip_kernel<<<blocks, 1024, std::size_t(m) * sizeof(double), b.stream()>>>(in.data(), out.data(), m);
    });
  };
  r.beta_block_per_byte = run(1) / double(sizeof(double));
  r.beta_gpu_per_byte = run(sms) / (double(sizeof(double)) * double(sms));
}

void measure_iota(Bench& b, MicrobenchResult& r) {
  cuda::DeviceBuffer<double> out(32);
  r.iota = b.per_unit({4096, 16384, 65536, 262144},
                      [&](int steps) { multiply_add_chain<<<1, 32, 0, b.stream()>>>(out.data(), steps, 0.5, 1.0); });
  const int rows = 1 << 22, x_size = 1 << 20, most = 16;
  cuda::DeviceBuffer<double> val{std::size_t(rows) * most}, x{std::size_t(x_size)}, y{std::size_t(rows)};
  cuda::DeviceBuffer<int> col{val.size()};
  x.fill_bytes(0);
  fill_stream_input<<<1024, 256, 0, b.stream()>>>(val.data(), col.data(), val.size(), x_size);
  BALSA_CUDA_CHECK(cudaGetLastError());
  r.iota_stream_per_edge = b.per_unit({2, 4, 8, 16}, [&](int per_row) {
                             stream_kernel<<<rows / 256, 256, 0, b.stream()>>>(val.data(), col.data(), x.data(),
                                                                                 y.data(), rows, per_row);
                           }) /
                           double(rows);
}

}  // namespace

MicrobenchResult run_microbench(const MicrobenchOptions& options) try {
  if (options.repeats < 1) throw Error("TASSL microbenchmarks: repeats must be at least 1");
  MicrobenchResult r;
  const cuda::DeviceInfo& device = cuda::current_device_info();
  r.device = device.name;
  r.sm_count = device.sm_count;
  Bench b(options.repeats);
  const cuda::StreamScope on(b.stream());  // the buffers too: allocated, filled and freed on the bench's stream
  measure_kappa(b, r.sm_count, r);
  measure_barriers(b, r);
  measure_beta(b, r.sm_count, r);
  measure_iota(b, r);
  BALSA_CUDA_CHECK(cudaStreamSynchronize(b.stream()));
  return r;
} catch (...) {
  rethrow_as_balsa_error("run_microbench");
}

}  // namespace balsa::tassl
