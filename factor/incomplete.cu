// ILU(0) and IC(0) on the GPU: level-scheduled row factorisation.
//
// Rows of one dependency level (level_sets of the factor pattern's lower
// triangle: row i waits for every row k < i with an entry (i, k)) are
// factored in parallel, a group of LANES threads per row (LANES from the
// mean length of the inner loops, as the triangular solvers choose it).
// Within a row the steps k run in increasing order, as in the CPU reference
// (factor/incomplete_cpu.cpp); the lanes share each step's inner loop and
// meet at a __syncwarp between steps:
//   ILU(0) (Saad Alg. 10.4)  l_ik = a_ik / u_kk; then a_ij -= l_ik u_kj for
//       every j > k in both row i and row k's upper part (the lanes walk the
//       shorter list and binary-search the other).
//   IC(0) (Saad sec. 10.3.1, thesis ch. 5)  l_ik = a_ik / l_kk, d_i -= l_ik^2;
//       then for every later column j < i of row i whose (finished) row j
//       holds column k: a_ij -= l_ik l_jk. This is the reference's dot
//       product l_ij = (a_ij - sum_k l_ik l_jk) / l_jj spread over the steps
//       k; each a_ij receives the same subtractions in the same order.
// Products, differences, quotients and square roots are explicitly rounded
// (__dmul_rn, ...: no fused multiply-add), so a row's values are the same
// bits as the reference's, and so are the breakdown decisions.
//
// Levels too thin for one pass of a block are merged into runs that a single
// block walks with __syncthreads between levels; every other level gets a
// launch over the whole GPU. The launch sequence is captured once into a
// CUDA graph and replayed by every attempt on the factorisation's stream.
// A row that breaks down writes its index into a device word with atomicMin;
// later levels still run (their rows that depend on a broken row hold
// garbage but have larger indices), so the word ends with the smallest row
// whose own dependencies were sound: the row the serial reference stops at.
// The word is read back once per attempt (the setup path: one sync).
#include <algorithm>
#include <climits>
#include <vector>

#include "cuda/check.hpp"
#include "factor/incomplete_gpu.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_common.cuh"  // capture_graph, lanes_for, with_lanes, multiprocessors

namespace balsa::factor_gpu {

namespace {

namespace td = trsv_gpu::detail;

constexpr int kBlock = 256;
constexpr int kNone = INT_MAX;  // the breakdown word when no row broke down

// ---- device: rounded arithmetic (the reference's operations, unfused) -------
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float sqrt_rn(float a) { return __fsqrt_rn(a); }
__device__ __forceinline__ double sqrt_rn(double a) { return __dsqrt_rn(a); }

// The factor pattern on the device; rows listed level by level.
struct Pattern {
  const index_t* row_ptr;
  const index_t* col_idx;
  const index_t* diag;
  const index_t* rows;       // level_sets().rows
  const index_t* level_ptr;  // level_sets().level_ptr
};

// Position of column j in col_idx[lo, hi) (sorted), or -1.
__device__ __forceinline__ index_t find(const index_t* col_idx, index_t lo, index_t hi, index_t j) {
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    const index_t c = col_idx[mid];
    if (c == j) return mid;
    if (c < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

// The lanes of this thread's group of LANES (a power of two <= 32).
template <int LANES>
__device__ __forceinline__ unsigned group_mask() {
  if constexpr (LANES == 32)
    return 0xffffffffu;
  else
    return ((1u << LANES) - 1u) << (threadIdx.x % 32 / LANES * LANES);
}

// Whether every value of positions [begin, end) is finite (the whole group).
template <class T, int LANES>
__device__ __forceinline__ bool finite_range(const T* v, index_t begin, index_t end, int lane, unsigned mask) {
  bool ok = true;
  for (index_t q = begin + lane; q < end; q += LANES) ok = ok && isfinite(v[q]);
  return __all_sync(mask, ok);
}

// ILU(0), row i (Saad Alg. 10.4). Invariant before step p: row i holds a_i*
// minus l_ik' u_k'* for every earlier step k', on the pattern.
template <class T, int LANES>
__device__ void ilu0_row(const Pattern& m, T* v, index_t i, double tol, int* bad) {
  const int lane = int(threadIdx.x % LANES);
  const unsigned mask = group_mask<LANES>();
  const index_t begin = m.row_ptr[i], end = m.row_ptr[i + 1], di = m.diag[i];
  const T a_ii = v[di];
  for (index_t p = begin; p < di; ++p) {
    const index_t k = m.col_idx[p];
    const index_t qfirst = m.diag[k] + 1, qend = m.row_ptr[k + 1];
    const T l = div_rn(v[p], v[qfirst - 1]);
    __syncwarp(mask);  // every lane has read a_ik before it is overwritten
    if (lane == 0) v[p] = l;
    // The lanes walk the shorter of row i's rest and row k's upper part and
    // binary-search the other (each a_ij changes at most once per step).
    if (end - (p + 1) <= qend - qfirst) {
      for (index_t r = p + 1 + lane; r < end; r += LANES)
        if (const index_t q = find(m.col_idx, qfirst, qend, m.col_idx[r]); q >= 0)
          v[r] = sub_rn(v[r], mul_rn(l, v[q]));
    } else {
      for (index_t q = qfirst + lane; q < qend; q += LANES)
        if (const index_t r = find(m.col_idx, p + 1, end, m.col_idx[q]); r >= 0)
          v[r] = sub_rn(v[r], mul_rn(l, v[q]));
    }
    __syncwarp(mask);  // step p's updates are seen by every lane of step p + 1
  }
  const bool finite = finite_range<T, LANES>(v, begin, end, lane, mask);
  if (lane == 0 && !(finite && fabs(double(v[di])) > tol * fabs(double(a_ii)))) atomicMin(bad, int(i));
}

// IC(0), row i of the lower triangle (diagonal last). Invariant before step
// p: l_ij is final for the columns j < k of the row, and every later entry
// a_ij holds a_ij - sum l_ij' l_jj' over the steps j' done.
template <class T, int LANES>
__device__ void ic0_row(const Pattern& m, T* v, index_t i, double tol, int* bad) {
  const int lane = int(threadIdx.x % LANES);
  const unsigned mask = group_mask<LANES>();
  const index_t begin = m.row_ptr[i], di = m.diag[i];
  const T a_ii = v[di];
  T d = a_ii;  // every lane keeps the same d_i
  for (index_t p = begin; p < di; ++p) {
    const index_t k = m.col_idx[p];
    const T l = div_rn(v[p], v[m.diag[k]]);
    d = sub_rn(d, mul_rn(l, l));
    __syncwarp(mask);
    if (lane == 0) v[p] = l;
    for (index_t r = p + 1 + lane; r < di; r += LANES) {
      const index_t j = m.col_idx[r];
      const index_t q = find(m.col_idx, m.row_ptr[j], m.diag[j], k);  // l_jk in finished row j
      if (q >= 0) v[r] = sub_rn(v[r], mul_rn(l, v[q]));
    }
    __syncwarp(mask);
  }
  const bool ok = finite_range<T, LANES>(v, begin, di, lane, mask) && isfinite(d) && double(d) > 0.0 &&
                  double(d) > tol * double(a_ii);  // as the CPU reference
  if (lane == 0) {
    v[di] = ok ? sqrt_rn(d) : d;
    if (!ok) atomicMin(bad, int(i));
  }
}

// Levels [first_level, last_level): more than one only in single-block runs,
// which keep each level final (__syncthreads) before the next reads it.
template <class T, int LANES, bool IC>
__global__ void __launch_bounds__(kBlock)
    factor_levels_kernel(Pattern m, T* v, index_t first_level, index_t last_level, double tol, int* bad) {
  const std::size_t group = (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / LANES;
  const std::size_t groups = std::size_t(gridDim.x) * blockDim.x / LANES;
  for (index_t l = first_level; l < last_level; ++l) {
    const index_t first = m.level_ptr[l];
    const std::size_t count = std::size_t(m.level_ptr[l + 1] - first);
    for (std::size_t g = group; g < count; g += groups) {
      const index_t i = m.rows[first + index_t(g)];
      if constexpr (IC)
        ic0_row<T, LANES>(m, v, i, tol, bad);
      else
        ilu0_row<T, LANES>(m, v, i, tol, bad);
    }
    if (l + 1 < last_level) __syncthreads();
  }
}

// Resets the breakdown word; shifts the diagonal: a_ii + alpha a_ii, rounded
// as the front end does it on the CPU.
template <class T>
__global__ void shift_diagonal_kernel(T* work, const index_t* diag, index_t n, T alpha, int* bad) {
  const std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (t == 0) *bad = kNone;
  if (alpha == T(0)) return;
  for (std::size_t i = t; i < std::size_t(n); i += std::size_t(gridDim.x) * blockDim.x) {
    const index_t p = diag[i];
    work[p] = add_rn(work[p], mul_rn(alpha, work[p]));
  }
}

template <class T>
__global__ void first_nonfinite_kernel(const T* x, std::size_t n, int* first) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    if (!isfinite(x[i])) atomicMin(first, int(i));
}

// Ic0: A's values -> its lower triangle's, row by row (row i of L is the
// start of A's row i).
template <class T>
__global__ void gather_lower_kernel(T* out, const T* in, const index_t* L_row_ptr, const index_t* A_row_ptr, index_t n) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    const index_t q0 = L_row_ptr[i], q1 = L_row_ptr[i + 1], a0 = A_row_ptr[i];
    for (index_t q = q0; q < q1; ++q) out[q] = in[a0 + (q - q0)];
  }
}

int grid_for(std::size_t threads, int sms) {
  return int(std::clamp<std::size_t>((threads + kBlock - 1) / kBlock, 1, std::size_t(sms) * 32));
}

// One launch: a wide level over the GPU, or a run of thin levels in one block.
struct Launch {
  index_t first_level, last_level;
  int blocks;
};

template <class T>
class GpuIncomplete final : public Backend<T> {
 public:
  GpuIncomplete(IncompleteKind kind, const Csr<T>& pattern, std::span<const index_t> diagonal, const LevelSets& levels,
                std::span<const index_t> A_row_ptr, index_t A_nnz, double tol)
      : ic_(kind == IncompleteKind::Ic0), n_(pattern.rows), nnz_(std::size_t(pattern.nnz())),
        A_nnz_(std::size_t(A_nnz)), diag_host_(diagonal.begin(), diagonal.end()), sms_(cuda::multiprocessors()) {
    row_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern.row_ptr));
    col_idx_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pattern.col_idx));
    diag_ = cuda::DeviceBuffer<index_t>(diagonal);
    rows_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.rows));
    level_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(levels.level_ptr));
    if (ic_) A_row_ptr_ = cuda::DeviceBuffer<index_t>(A_row_ptr);
    a_ = cuda::DeviceBuffer<T>(nnz_);
    work_ = cuda::DeviceBuffer<T>(nnz_);
    values_ = cuda::DeviceBuffer<T>(nnz_);
    flags_ = cuda::DeviceBuffer<int>(2);  // [0] breakdown row, [1] first non-finite input
    if (n_ > 0) capture(pattern, levels, tol);
  }
  void set_values(std::span<const T> a) override { a_.upload(a); }

  std::int64_t set_values_from_device(const T* A_values, std::size_t count) override {
    if (count != A_nnz_) throw DimensionError("GPU incomplete factorisation: wrong number of values");
    if (count == 0) return -1;
    const int none = kNone;
    cuda::detail::copy_to_device(flags_.data() + 1, &none, sizeof none);
    first_nonfinite_kernel<T><<<grid_for(count, sms_), kBlock, 0, cuda::stream()>>>(A_values, count, flags_.data() + 1);
    BALSA_CHECK_LAUNCH();
    int first = kNone;
    cuda::detail::copy_to_host(&first, flags_.data() + 1, sizeof first);
    if (first != kNone) return first;
    if (ic_) {
      gather_lower_kernel<T><<<grid_for(std::size_t(n_), sms_), kBlock, 0, cuda::stream()>>>(
          a_.data(), A_values, row_ptr_.data(), A_row_ptr_.data(), n_);
      BALSA_CHECK_LAUNCH();
    } else {
      cuda::detail::copy_on_device(a_.data(), A_values, a_.bytes());
    }
    return -1;
  }

  Breakdown attempt(double alpha) override {
    if (n_ == 0) return {};
    cuda::detail::copy_on_device(work_.data(), a_.data(), a_.bytes());
    shift_diagonal_kernel<T><<<grid_for(std::size_t(n_), sms_), kBlock, 0, cuda::stream()>>>(
        work_.data(), diag_.data(), n_, T(alpha), flags_.data());
    BALSA_CHECK_LAUNCH();
    BALSA_CUDA_CHECK(cudaGraphLaunch(exec_.get(), cuda::stream()));
    int row = kNone;
    cuda::detail::copy_to_host(&row, flags_.data(), sizeof row);  // waits for the attempt
    if (row == kNone) return {};
    T pivot{};
    cuda::detail::copy_to_host(&pivot, work_.data() + diag_host_[std::size_t(row)], sizeof pivot);
    return {index_t(row), double(pivot)};
  }

  void commit() override {
    if (nnz_ == 0) return;
    cuda::detail::copy_on_device(values_.data(), work_.data(), work_.bytes());
  }

  const cuda::DeviceBuffer<T>& values() const override { return values_; }
  std::vector<T> a_to_host() const override { return a_.to_host(); }
  void set_factors(std::span<const T> f) override { values_.upload(f); }

 private:
  // Plans the launches and captures them into exec_.
  void capture(const Csr<T>& pattern, const LevelSets& levels, double tol) {
    // Mean length of a step's inner loop: row k's upper part (ILU), half the
    // row's lower part (IC).
    std::int64_t off = 0;
    for (index_t i = 0; i < n_; ++i)
      off += ic_ ? diag_host_[std::size_t(i)] - pattern.row_ptr[i] : pattern.row_ptr[i + 1] - diag_host_[std::size_t(i)] - 1;
    lanes_ = td::lanes_for(double(off) / double(n_) / (ic_ ? 2.0 : 1.0));
    for (index_t l = 0; l < levels.count();) {
      auto thin = [&](index_t k) { return std::int64_t(levels.width(k)) * lanes_ <= kBlock; };
      if (!thin(l)) {
        launches_.push_back({l, l + 1, grid_for(std::size_t(levels.width(l)) * std::size_t(lanes_), sms_)});
        ++l;
        continue;
      }
      index_t e = l;
      while (e < levels.count() && thin(e)) ++e;
      launches_.push_back({l, e, 1});
      l = e;
    }
    const Pattern m{row_ptr_.data(), col_idx_.data(), diag_.data(), rows_.data(), level_ptr_.data()};
    exec_ = cuda::capture_graph([&](cudaStream_t stream) {
      for (const Launch& L : launches_) {
        td::with_lanes(lanes_, [&](auto lanes_c) {
          constexpr int LANES = decltype(lanes_c)::value;
          if (ic_)
            factor_levels_kernel<T, LANES, true>
                <<<L.blocks, kBlock, 0, stream>>>(m, work_.data(), L.first_level, L.last_level, tol, flags_.data());
          else
            factor_levels_kernel<T, LANES, false>
                <<<L.blocks, kBlock, 0, stream>>>(m, work_.data(), L.first_level, L.last_level, tol, flags_.data());
        });
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      }
      return cudaSuccess;
    });
  }

  bool ic_;
  index_t n_;
  std::size_t nnz_, A_nnz_;
  std::vector<index_t> diag_host_;
  int sms_;
  int lanes_ = 1;
  std::vector<Launch> launches_;
  cuda::DeviceBuffer<index_t> row_ptr_, col_idx_, diag_, rows_, level_ptr_, A_row_ptr_;
  cuda::DeviceBuffer<T> a_, work_, values_;
  cuda::DeviceBuffer<int> flags_;
  cuda::GraphExec exec_;  // destroyed before the buffers it refers to (whose frees follow any replay on the stream)
};

}  // namespace

template <class T>
std::unique_ptr<Backend<T>> make_backend(IncompleteKind kind, const Csr<T>& pattern, std::span<const index_t> diagonal,
                                         const LevelSets& levels, std::span<const index_t> A_row_ptr, index_t A_nnz,
                                         double pivot_tolerance) {
  return std::make_unique<GpuIncomplete<T>>(kind, pattern, diagonal, levels, A_row_ptr, A_nnz, pivot_tolerance);
}

#define BALSA_INSTANTIATE(T)                                                                                   \
  template std::unique_ptr<Backend<T>> make_backend<T>(IncompleteKind, const Csr<T>&, std::span<const index_t>, \
                                                       const LevelSets&, std::span<const index_t>, index_t, double);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::factor_gpu
