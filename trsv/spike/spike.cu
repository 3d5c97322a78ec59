// GPU partitioned ("spike") triangular solve (TrsvAlgorithm::Spike; the
// method in trsv/spike/spike_plan.hpp). Two kernels do all of it:
//
// chain_kernel: one warp per chain (a run of consecutive form rows). The
// warp walks its rows 32 at a time (a tile, one row per lane): each lane sums
// the entries of its row that reach before the tile from a ring of the last
// unknowns in shared memory (ring size a power of two >= w + 32), then the
// tile's 32 rows are finished in order, row k's unknown broadcast by a
// shuffle to the lanes whose next entry is column k. The same kernel gives
// the independent solves (zero state: d_i), the spikes (zero b, state e_j
// for blockIdx.y = j: T_i's and U_q's columns) and the last pass (true
// states: x). blockIdx.y is the right-hand side (or the spike column).
//
// recurrence_kernel: one block per group of chains, the state s (w values) in
// shared memory: s <- d_i + T_i s for the group's chains in order (T_i
// column-major, read coalesced), one block barrier per step.
#include <climits>
#include <memory>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/gpu_common.cuh"
#include "trsv/spike/spike_plan.hpp"

namespace balsa::trsv_gpu {

namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kRecurrenceThreads = 256;

template <class T>
struct FormView {
  index_t n, w;
  bool reversed;
  const index_t* row_ptr;
  const index_t* col;
  const T* val;
  const T* inv_diag;  // 0 where 1/d is not finite: the row then divides by d
  const T* diag;
};

// What a chain pass reads and writes. Arrays of states and tails are
// [chain][column][w]; b and x column c at c * ld.
template <class T>
struct ChainPass {
  index_t rows;  // of a chain (the last may be shorter)
  index_t chains;
  const T* b;  // null: zero
  std::int64_t ld;
  const T* state;  // s_{i-1} of chain i (chain 0: zero); null: zero, or unit
  bool unit;       // the state before every chain is e_c
  T* x;            // null: not written
  T* tails;        // null: not written
};

template <class T>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) chain_kernel(FormView<T> f, ChainPass<T> pass, int ring_bits) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const index_t chain = blockIdx.x * kWarpsPerBlock + warp;
  if (chain >= pass.chains) return;  // whole warps leave
  const unsigned mask = (1u << ring_bits) - 1u;
  T* ring = reinterpret_cast<T*>(shared) + (std::size_t(warp) << ring_bits);
  const index_t c = blockIdx.y, columns = gridDim.y, w = f.w;
  const index_t r0 = chain * pass.rows;
  const index_t r1 = index_t(min(std::int64_t(f.n), std::int64_t(r0) + pass.rows));
  for (index_t j = lane; j < w; j += 32) {  // the state before the chain
    T v = T(0);
    if (pass.unit)
      v = j == c ? T(1) : T(0);
    else if (pass.state && chain > 0)
      v = pass.state[(std::size_t(chain - 1) * columns + c) * w + j];
    ring[unsigned(r0 - w + j) & mask] = v;
  }
  __syncwarp();
  const T* b = pass.b ? pass.b + std::size_t(c) * pass.ld : nullptr;
  T* x = pass.x ? pass.x + std::size_t(c) * pass.ld : nullptr;
  for (index_t t0 = r0; t0 < r1; t0 += 32) {
    const index_t k = t0 + lane;
    const bool active = k < r1;
    T acc = T(0), inv = T(0), d = T(1);
    index_t p = 0, end = 0;
    if (active) {
      const index_t i = f.reversed ? f.n - 1 - k : k;
      if (b) acc = b[i];
      inv = f.inv_diag[k];
      if (inv == T(0)) d = f.diag[k];
      p = f.row_ptr[k];
      end = f.row_ptr[k + 1];
      // Entries before the tile: their unknowns are in the ring (k - w <= col).
      for (; p < end; ++p) {
        const index_t col = f.col[p];
        if (col >= t0) break;
        acc -= f.val[p] * ring[unsigned(col) & mask];
      }
    }
    index_t next = p < end ? f.col[p] : INT_MAX;
    T next_val = p < end ? f.val[p] : T(0);
    const int count = int(min(index_t(32), r1 - t0));
    T mine = T(0);
    for (int r = 0; r < count; ++r) {
      if (lane == r) mine = inv != T(0) ? acc * inv : acc / d;
      const T xr = __shfl_sync(0xffffffffu, mine, r);
      if (next == t0 + r) {  // only lanes above r: their in-tile entries point lower
        acc -= next_val * xr;
        ++p;
        next = p < end ? f.col[p] : INT_MAX;
        next_val = p < end ? f.val[p] : T(0);
      }
    }
    if (active) {
      ring[unsigned(k) & mask] = mine;
      if (x) x[f.reversed ? f.n - 1 - k : k] = mine;
    }
    __syncwarp();
  }
  if (pass.tails)
    for (index_t j = lane; j < w; j += 32)
      pass.tails[(std::size_t(chain) * columns + c) * w + j] = ring[unsigned(r1 - w + j) & mask];
}

// Groups of `group` consecutive elements of the recurrence s_i = d_i + M_i s_{i-1}
// (d: [count][column][w]; M: [count] column-major w x w). Group q starts
// from init's state q - 1 (group 0, or no init: zero); every state goes to
// out, the group's last to last. M_i goes through shared memory in panels of
// kPanelValues: every thread loads its share of the panel at once (the loads
// in flight together), then a thread per row sums the panel from shared
// memory; a thread's dependent global loads (one latency per column) cost
// 19 us a step at w = 50 before (bench/results/2026-11-26-chains-*).
constexpr int kPanelValues = 4096;
template <class T>
__global__ void __launch_bounds__(kRecurrenceThreads)
    recurrence_kernel(index_t count, index_t group, index_t w, const T* d, const T* M, const T* init, T* out, T* last) {
  extern __shared__ __align__(16) unsigned char shared[];
  T* panel = reinterpret_cast<T*>(shared);  // kPanelValues
  T* s = panel + kPanelValues;              // two buffers of w
  const index_t q = blockIdx.x, c = blockIdx.y, columns = gridDim.y;
  const index_t i0 = q * group, i1 = index_t(min(std::int64_t(count), std::int64_t(i0) + group));
  for (index_t r = threadIdx.x; r < w; r += blockDim.x)
    s[r] = init && q > 0 ? init[(std::size_t(q - 1) * columns + c) * w + r] : T(0);
  __syncthreads();
  int cur = 0;
  const std::size_t ww = std::size_t(w) * std::size_t(w);
  const index_t panel_columns = max(index_t(1), index_t(kPanelValues / max(w, index_t(1))));
  for (index_t i = i0; i < i1; ++i) {
    const T* Mi = M + std::size_t(i) * ww;
    const T* in = s + cur * w;
    T* o = s + (1 - cur) * w;
    for (index_t r = threadIdx.x; r < w; r += blockDim.x) o[r] = d[(std::size_t(i) * columns + c) * w + r];
    for (index_t j0 = 0; j0 < w; j0 += panel_columns) {
      const index_t j1 = min(w, j0 + panel_columns);
      const std::size_t values = std::size_t(j1 - j0) * std::size_t(w);
      __syncthreads();  // the last panel read (and o's first writes) done
      for (std::size_t e = threadIdx.x; e < values; e += blockDim.x) panel[e] = Mi[std::size_t(j0) * w + e];
      __syncthreads();
      for (index_t r = threadIdx.x; r < w; r += blockDim.x) {
        T v = o[r];
        for (index_t j = j0; j < j1; ++j) v += panel[std::size_t(j - j0) * w + r] * in[j];
        o[r] = v;
      }
    }
    __syncthreads();
    if (out)
      for (index_t r = threadIdx.x; r < w; r += blockDim.x) out[(std::size_t(i) * columns + c) * w + r] = o[r];
    cur = 1 - cur;
  }
  if (last)
    for (index_t r = threadIdx.x; r < w; r += blockDim.x) last[(std::size_t(q) * columns + c) * w + r] = s[cur * w + r];
}

int ring_bits_for(index_t w) {
  int bits = 5;
  while ((index_t(1) << bits) < w + 32) ++bits;
  return bits;
}

template <class T>
class SpikeSolver final : public Algorithm<T> {
 public:
  SpikeSolver(const Csr<T>& M, Triangle tri, DiagonalKind diag, const trsv_spike::Partition& part)
      : form_(trsv_spike::make_form(M, tri, diag)), part_(part), nnz_(M.nnz()) {
    if (form_.n == 0) return;
    ring_bits_ = ring_bits_for(form_.w);
    const std::size_t ring_bytes = (std::size_t(kWarpsPerBlock) << ring_bits_) * sizeof(T);
    if (ring_bytes > 48 * 1024)
      BALSA_CUDA_CHECK(
          cudaFuncSetAttribute(chain_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ring_bytes)));
    const std::size_t recurrence_bytes = (kPanelValues + 2 * std::size_t(form_.w)) * sizeof(T);
    if (recurrence_bytes > 48 * 1024)
      BALSA_CUDA_CHECK(cudaFuncSetAttribute(recurrence_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(recurrence_bytes)));
    row_ptr_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(form_.row_ptr));
    col_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(form_.col));
    source_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(form_.source));
    diag_pos_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(form_.diag_pos));
    val_ = cuda::DeviceBuffer<T>(std::max<std::size_t>(form_.col.size(), 1));
    diag_ = cuda::DeviceBuffer<T>(std::size_t(form_.n));
    inv_diag_ = cuda::DeviceBuffer<T>(std::size_t(form_.n));
    const std::size_t ww = std::size_t(form_.w) * std::size_t(form_.w);
    T_ = cuda::DeviceBuffer<T>(std::max<std::size_t>(std::size_t(part_.P) * ww, 1));
    U_ = cuda::DeviceBuffer<T>(std::max<std::size_t>(std::size_t(part_.Q) * ww, 1));
    if (!M.values.empty()) update_values(std::span<const T>(M.values));
  }

  void solve(const T* b, T* x) override { solve_many(b, x, form_.n, 1); }

  void solve_many(const T* B, T* X, index_t rows, index_t columns) override {
    if (form_.n == 0 || columns == 0) return;
    constexpr index_t kMaxColumns = 65535;  // a grid's y dimension
    if (columns > kMaxColumns) {
      for (index_t c = 0; c < columns; c += kMaxColumns) {
        const std::size_t at = std::size_t(c) * std::size_t(rows);
        solve_many(B + at, X + at, rows, std::min(kMaxColumns, columns - c));
      }
      return;
    }
    const std::size_t states = std::size_t(part_.P) * std::size_t(columns) * std::size_t(form_.w);
    if (d_.size() < std::max<std::size_t>(states, 1)) {
      d_ = cuda::DeviceBuffer<T>(std::max<std::size_t>(states, 1));
      s_ = cuda::DeviceBuffer<T>(std::max<std::size_t>(states, 1));
      const std::size_t groups = std::max<std::size_t>(std::size_t(part_.Q) * columns * std::size_t(form_.w), 1);
      e_ = cuda::DeviceBuffer<T>(groups);
      S_ = cuda::DeviceBuffer<T>(groups);
    }
    const index_t P = part_.P, Q = part_.Q, G = part_.G, w = form_.w;
    // 1. The independent chain solves: d_i.
    run_chains({part_.m, P, B, rows, nullptr, false, nullptr, w > 0 ? d_.data() : nullptr}, columns);
    if (w > 0) {
      // 2. The recurrence over the chains' boundaries.
      if (Q > 1) {
        recurrence(P, G, Q, columns, d_.data(), T_.data(), nullptr, nullptr, e_.data());
        recurrence(Q, Q, 1, columns, e_.data(), U_.data(), nullptr, S_.data(), nullptr);
        recurrence(P, G, Q, columns, d_.data(), T_.data(), S_.data(), s_.data(), nullptr);
      } else {
        recurrence(P, P, 1, columns, d_.data(), T_.data(), nullptr, s_.data(), nullptr);
      }
    }
    // 3. Every chain from its true state.
    run_chains({part_.m, P, B, rows, w > 0 ? s_.data() : nullptr, false, X, nullptr}, columns);
  }

  void update_values(std::span<const T> values) override {
    detail::require_values(values.size(), std::size_t(nnz_), "Spike");
    if (form_.n == 0) return;
    cuda::DeviceBuffer<T> all(std::max<std::size_t>(values.size(), 1));
    if (!values.empty()) all.upload(values);
    update_values_device(all.data(), values.size());
  }

  // Values gathered into the form on the device, then the spikes again.
  void update_values_device(const T* values, std::size_t count) override {
    (void)count;
    if (form_.n == 0) return;
    if (!form_.col.empty()) gather_device(source_.data(), values, val_.data(), form_.col.size());
    gather_device(diag_pos_.data(), values, diag_.data(), std::size_t(form_.n), T(1));
    gather_reciprocal_device(diag_pos_.data(), values, inv_diag_.data(), std::size_t(form_.n));
    if (form_.w == 0) return;
    // Column j of T_i (U_q): chain i (group q) from a zero b and the state e_j.
    run_chains({part_.m, part_.P, nullptr, 0, nullptr, true, nullptr, T_.data()}, form_.w);
    if (part_.Q > 1) run_chains({part_.G * part_.m, part_.Q, nullptr, 0, nullptr, true, nullptr, U_.data()}, form_.w);
  }

  void describe(TrsvStats& st) const override {
    trsv_spike::describe(st.spike, part_, form_.w, sizeof(T));
  }

 private:
  FormView<T> view() const {
    return {form_.n,     form_.w,     form_.reversed,   row_ptr_.data(),
            col_.data(), val_.data(), inv_diag_.data(), diag_.data()};
  }
  void run_chains(const ChainPass<T>& pass, index_t columns) {
    const dim3 grid{unsigned((pass.chains + kWarpsPerBlock - 1) / kWarpsPerBlock), unsigned(columns)};
    const std::size_t shared = (std::size_t(kWarpsPerBlock) << ring_bits_) * sizeof(T);
    chain_kernel<T><<<grid, 32 * kWarpsPerBlock, shared, cuda::stream()>>>(view(), pass, ring_bits_);
    BALSA_CHECK_LAUNCH();
  }
  void recurrence(index_t count, index_t group, index_t groups, index_t columns, const T* d, const T* M, const T* init,
                  T* out, T* last) {
    const dim3 grid{unsigned(groups), unsigned(columns)};
    const std::size_t shared = (kPanelValues + 2 * std::size_t(form_.w)) * sizeof(T);
    recurrence_kernel<T>
        <<<grid, kRecurrenceThreads, shared, cuda::stream()>>>(count, group, form_.w, d, M, init, out, last);
    BALSA_CHECK_LAUNCH();
  }

  trsv_spike::Form form_;
  trsv_spike::Partition part_;
  std::size_t nnz_ = 0;
  int ring_bits_ = 5;
  cuda::DeviceBuffer<index_t> row_ptr_, col_, source_, diag_pos_;
  cuda::DeviceBuffer<T> val_, diag_, inv_diag_, T_, U_;
  cuda::DeviceBuffer<T> d_, s_, e_, S_;  // per solve: states of the chains and of the groups
};

}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_spike(const Csr<T>& A, Triangle tri, DiagonalKind diag,
                                         const trsv_spike::Partition& part) {
  return std::make_unique<SpikeSolver<T>>(A, tri, diag, part);
}

#define BALSA_INSTANTIATE(T)                                                                  \
  template std::unique_ptr<Algorithm<T>> make_spike<T>(const Csr<T>&, Triangle, DiagonalKind, \
                                                       const trsv_spike::Partition&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
