// The preconditioners of the Krylov solvers (krylov/preconditioner.hpp):
// Jacobi, and ILU(0)/IC(0) applied as two triangular solves (Picciau's thesis
// sec. 5.1.1: z = M^{-1} r with M = M_L M_R), optionally in float inside a
// double iteration (mixed precision).
//
// Setup (the Incomplete constructor). The triangular solvers' analysis
// depends on the factors' pattern only, which is known before any number:
// IC(0)'s L is A's lower triangle and U = L^T its transpose (for a
// structurally symmetric A, A's upper triangle, each entry's value found at
// its mirror: no transpose), ILU(0)'s L and U are A's lower and upper
// triangles. So the two solvers are built from those patterns, without
// values (taking the arrays, not copying them; the patterns come from the
// checked A, so the solvers skip their checks: detail::PrecheckedMatrix), on
// two threads of their own, each of which also uploads its value map (GPU),
// while this thread runs the IncompleteFactorization (analysis, factors);
// then the factors are pushed into the solvers as new values. The three
// tasks share the cores' OpenMP threads. An error of the factorisation wins
// over one of the solvers (those would only repeat it), as when they ran in
// turn.
//
// On the GPU (factors in A's precision) the factorisation too is analysed
// from A's pattern alone (detail::ValuesLater): the Krylov solver uploads A
// beside this set-up and then hands its device values to
// update_values_device, which factors them and pushes the factors, so A's
// lower triangle is neither copied on the host nor uploaded a second time.
//
// Streams: the factorisation and both solvers take the Krylov solver's
// stream (KrylovOptions::stream); the two solver threads enter it
// (cuda/caller_context.hpp). Nothing here synchronises the device, so the
// solvers' graph captures on those threads proceed undisturbed.
//
// The factor values reach the triangular solvers without leaving the device:
// IncompleteFactorization keeps them on the GPU; they are gathered into the
// L and U value orders there (trsv_gpu::gather_device) and handed to
// TriangularSolver::update_values(DeviceBuffer) (which stays on the device
// for level-set, sync-free-blocks and cuSPARSE; the other algorithms copy through the
// host). No host copy of the factors is made on the GPU path.
#include <omp.h>

#include <algorithm>
#include <optional>
#include <type_traits>

#include "cuda/caller_context.hpp"
#include "krylov/chebyshev.hpp"
#include "krylov/preconditioner.hpp"
#include "krylov/preconditioner_kernels.hpp"
#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "sparse/diagonal_check.hpp"
#include "sparse/transpose.hpp"
#include "sparse/triangle_pattern.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/off_diagonal.hpp"

namespace balsa::krylov {

namespace {

template <class To, class From>
std::vector<To> converted(std::span<const From> v) {
  return std::vector<To>(v.begin(), v.end());
}

// z = D^{-1} r, D = diag(A) (every diagonal entry must be nonzero). Set-up
// finds where each row's diagonal entry is in A's arrays (A canonical: a
// binary search per row, in parallel); new values are then one gather,
// checked in the same pass (no copy of A).
template <class T>
class Jacobi final : public Preconditioner<T> {
 public:
  Jacobi(const Csr<T>& A, Device device) : device_(device), diagonal_(diagonal_positions(A)) { set(A.values); }
  void apply(std::span<const T> r, std::span<T> z) override {
    const std::int64_t n = std::int64_t(r.size());
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
    for (std::int64_t i = 0; i < n; ++i) z[std::size_t(i)] = r[std::size_t(i)] * inv_[std::size_t(i)];
  }
  void apply_device(const T* r, T* z) override { device::scale(r, dinv_.data(), z, inv_.size()); }
  void update_values(std::span<const T> values) override { set(values); }
  void describe(KrylovStats&) const override {}

 private:
  // Row i's diagonal entry's position in A's arrays, or -1 when it is not stored.
  static std::vector<index_t> diagonal_positions(const Csr<T>& A) {
    std::vector<index_t> pos = parallel::fresh_vector<index_t>(std::size_t(A.rows));
#pragma omp parallel for schedule(static) if (A.rows > parallel::kParallelMin)
    for (index_t i = 0; i < A.rows; ++i) {
      const auto first = A.col_idx.begin() + A.row_ptr[i], last = A.col_idx.begin() + A.row_ptr[i + 1];
      const auto it = std::lower_bound(first, last, i);
      pos[std::size_t(i)] = it != last && *it == i ? index_t(it - A.col_idx.begin()) : -1;
    }
    return pos;
  }
  // 1 / the diagonal, and the rows with a missing or zero one, in one pass
  // (their error as require_nonzero_diagonal's: the first bad row named).
  void set(std::span<const T> values) {
    const index_t n = index_t(diagonal_.size());
    std::vector<T> inv = parallel::fresh_vector<T>(diagonal_.size());
    DiagonalReport r;
    index_t missing = 0, zero = 0, first_missing = n, first_zero = n;
#pragma omp parallel for reduction(+ : missing, zero) reduction(min : first_missing, first_zero) schedule(static) \
    if (n > parallel::kParallelMin)
    for (index_t i = 0; i < n; ++i) {
      const index_t p = diagonal_[std::size_t(i)];
      if (p < 0) {
        ++missing;
        first_missing = std::min(first_missing, i);
      } else if (values[std::size_t(p)] == T(0)) {
        ++zero;
        first_zero = std::min(first_zero, i);
      } else {
        inv[std::size_t(i)] = T(1) / values[std::size_t(p)];
      }
    }
    r.missing = missing;
    r.zero = zero;
    r.first_missing = missing ? first_missing : -1;
    r.first_zero = zero ? first_zero : -1;
    require_nonzero_diagonal(r);  // sparse/diagonal_check.hpp
    inv_ = std::move(inv);
    if (device_ == Device::Cuda) dinv_ = cuda::DeviceBuffer<T>(std::span<const T>(inv_));
  }
  Device device_;
  std::vector<index_t> diagonal_;
  std::vector<T> inv_;
  cuda::DeviceBuffer<T> dinv_;
};

// ILU(0) (M = L U, L unit lower) or IC(0) (M = L L^T), factored and applied in
// precision P (T, or float inside a double iteration).
template <class T, class P>
class Incomplete final : public Preconditioner<T> {
 public:
  Incomplete(const Csr<T>& A, const KrylovOptions& o)
      : device_(o.device), awaits_values_(o.device == Device::Cuda && std::is_same_v<T, P>) {
    IncompleteOptions fo = o.factor;
    const bool ic0 = o.preconditioner == PreconditionerKind::Ic0;
    fo.kind = ic0 ? IncompleteKind::Ic0 : IncompleteKind::Ilu0;
    fo.device = o.device;
    fo.stream = o.stream;
    // The solvers' patterns (no values), built on the solvers' threads, and
    // where their values come from in the factor pattern: IC(0) L is that
    // pattern itself, U = L^T takes its entries through the mirror or transpose map;
    // ILU(0) L (unit diagonal: the stored U diagonal is ignored) and U (the
    // diagonal and above) take theirs through their positions in A's
    // pattern, the factor pattern.
    // The solvers are set up on `share` threads each, beside the factorisation,
    // but solve on the outer call's: on the CPU, whose Auto weighs the threads
    // (trsv/auto_choice.cpp), they are told so (at most the machine's: an
    // OMP_NUM_THREADS above it is no error of the caller's options).
    const int outer = omp_get_max_threads();
    const int solve_threads = o.device == Device::Cpu ? std::min(outer, hardware_threads()) : 0;
    const TrsvOptions lo{.algorithm = o.trsv, .device = o.device, .triangle = Triangle::Lower,
                         .diagonal = ic0 ? DiagonalKind::NonUnit : DiagonalKind::Unit, .stream = o.stream,
                         .threads = solve_threads};
    const TrsvOptions uo{.algorithm = o.trsv, .device = o.device, .triangle = Triangle::Upper, .stream = o.stream,
                         .threads = solve_threads};
    const int share = std::max(1, outer / 3);
    const cuda::CallerContext caller(o.device == Device::Cuda);  // the tasks' device and stream are this thread's
    auto L = parallel::async_with_threads(share, [&] {
      const cuda::StreamScope on = caller.enter();
      trace::Span pattern("preconditioner: L pattern");
      Csr<P> S = triangle_pattern<P>(A, Triangle::Lower, ic0 ? nullptr : &lower_pos_);
      pattern.end();
      auto solver = std::make_unique<TriangularSolver<P>>(std::move(S), lo, detail::PrecheckedMatrix());
      upload_map(lower_pos_, dlower_pos_, dlower_);
      caller.finish();
      return solver;
    });
    auto U = parallel::async_with_threads(share, [&] {
      const cuda::StreamScope on = caller.enter();
      trace::Span pattern("preconditioner: U pattern");
      Csr<P> S = ic0 ? unit_lower_transpose(A, upper_pos_) : triangle_pattern<P>(A, Triangle::Upper, &upper_pos_);
      pattern.end();
      auto solver = std::make_unique<TriangularSolver<P>>(std::move(S), uo, detail::PrecheckedMatrix());
      upload_map(upper_pos_, dupper_pos_, dupper_);
      caller.finish();
      return solver;
    });
    try {
      const parallel::OpenMpThreads guard(share);
      if constexpr (std::is_same_v<T, P>) {  // A: checked by the caller (KrylovSolver)
        if (awaits_values_)  // the GPU path: A's values come from the device (update_values_device)
          fac_ = std::make_unique<IncompleteFactorization<P>>(A, fo, detail::PrecheckedMatrix(), detail::ValuesLater());
        else
          fac_ = std::make_unique<IncompleteFactorization<P>>(A, fo, detail::PrecheckedMatrix());
      } else {  // float values may overflow: checked again
        fac_ = std::make_unique<IncompleteFactorization<P>>(convert_values<P>(A), fo);
      }
    } catch (...) {
      // The factorisation's error wins; both solver tasks end first (they
      // refer to this object's members).
      L.wait();
      U.wait();
      throw;
    }
    trace::Span wait("preconditioner: wait for the L and U solvers");
    L_ = L.get();
    U_ = U.get();
    wait.end();
    allocate_device_vectors(std::size_t(A.rows));
    if (awaits_values_) return;
    const trace::Span span("preconditioner: factors into the solvers");
    push_factors();
  }

  void apply(std::span<const T> r, std::span<T> z) override {
    require_factors();
    y_host_.resize(r.size());  // once (the GPU path never needs it)
    if constexpr (std::is_same_v<T, P>) {
      L_->solve(r, std::span<P>(y_host_));
      U_->solve(std::span<const P>(y_host_), z);
    } else {
      const std::vector<P> rp = converted<P>(r);
      std::vector<P> zp(z.size());
      L_->solve(std::span<const P>(rp), std::span<P>(y_host_));
      U_->solve(std::span<const P>(y_host_), std::span<P>(zp));
      std::copy(zp.begin(), zp.end(), z.begin());
    }
  }

  void apply_device(const T* r, T* z) override {
    require_factors();
    const std::size_t n = y_.size();
    if constexpr (std::is_same_v<T, P>) {
      solve_device(*L_, r, y_.data());
      solve_device(*U_, y_.data(), z);
    } else {
      device::convert(r, r_.data(), n);
      solve_device(*L_, r_.data(), y_.data());
      solve_device(*U_, y_.data(), z_.data());
      device::convert(z_.data(), z, n);
    }
  }

  void update_values(std::span<const T> values) override {
    const std::vector<P> v = converted<P>(values);
    fac_->refactor(std::span<const P>(v));
    push_factors();
    awaits_values_ = false;
  }
  // On the GPU in T = P the factorisation takes A's device values as they
  // are; otherwise (CPU, or float factors of a double A, which the host
  // converts and checks for overflow) through the host.
  void update_values_device(const cuda::DeviceBuffer<T>& values) override {
    if constexpr (std::is_same_v<T, P>) {
      if (device_ == Device::Cuda) {
        const trace::Span span("preconditioner: factors from A's values on the device");
        fac_->refactor(values);
        push_factors();
        awaits_values_ = false;
        return;
      }
    }
    Preconditioner<T>::update_values_device(values);
  }
  bool awaits_values() const override { return awaits_values_; }

  void describe(KrylovStats& st) const override {
    require_factors();
    st.factor = fac_->stats();
    st.factor_seconds = fac_->stats().factor_seconds;
    st.lower = L_->stats();
    st.upper = U_->stats();
  }

 private:
  // U = L^T for IC(0), L = A's lower triangle (the factor pattern), without
  // values; positions[q] is the position in L of U's entry q. A's rows are
  // sorted, so row i of L is the start of A's row i: A's position p in row i
  // is L's L_ptr[i] + p - A_ptr[i].
  static Csr<P> unit_lower_transpose(const Csr<T>& A, std::vector<index_t>& positions) {
    const std::vector<index_t> L_ptr = triangle_row_ptr(A, Triangle::Lower);
    if (auto U = mirrored_upper(A, L_ptr, positions)) return std::move(*U);
    TransposedPattern t = transpose_pattern(A.rows, A.cols, A.row_ptr, A.col_idx, Triangle::Lower);
    positions = std::move(t.source);
    const std::int64_t nnz = std::int64_t(positions.size());
#pragma omp parallel for schedule(static) if (nnz > parallel::kParallelMin)
    for (std::int64_t q = 0; q < nnz; ++q) {
      const std::size_t i = std::size_t(t.col_idx[std::size_t(q)]);  // U's (j, i) is A's (i, j)
      positions[std::size_t(q)] += L_ptr[i] - A.row_ptr[i];
    }
    return Csr<P>{A.cols, A.rows, std::move(t.row_ptr), std::move(t.col_idx), {}};
  }
  // The same for a structurally symmetric A without a transpose (a counting
  // sort that scatters every entry): L^T's pattern is then A's upper
  // triangle, read row by row, and the mirror (j, i) of U's entry (i, j) is
  // found by a binary search in the lower part of A's row j. Every entry of
  // A's upper triangle having a mirror, and the two triangles the same size,
  // is what makes the pattern symmetric; otherwise nullopt (and the caller
  // transposes).
  static std::optional<Csr<P>> mirrored_upper(const Csr<T>& A, std::span<const index_t> L_ptr,
                                              std::vector<index_t>& positions) {
    Csr<P> U = triangle_pattern<P>(A, Triangle::Upper, nullptr);
    if (U.row_ptr.back() != L_ptr.back()) return std::nullopt;
    parallel::fresh_assign(positions, std::size_t(U.row_ptr.back()));
    index_t missing = 0;
#pragma omp parallel for reduction(+ : missing) schedule(static) if (A.rows > parallel::kParallelMin)
    for (index_t i = 0; i < A.rows; ++i)
      for (index_t q = U.row_ptr[i]; q < U.row_ptr[i + 1]; ++q) {
        const index_t j = U.col_idx[std::size_t(q)];
        const auto first = A.col_idx.begin() + A.row_ptr[j];
        const auto last = first + (L_ptr[std::size_t(j) + 1] - L_ptr[std::size_t(j)]);
        const auto it = std::lower_bound(first, last, i);
        if (it == last || *it != i) {
          ++missing;
          continue;
        }
        positions[std::size_t(q)] = L_ptr[std::size_t(j)] + index_t(it - first);
      }
    if (missing > 0) return std::nullopt;
    return U;
  }
  static void solve_device(TriangularSolver<P>& S, const P* b, P* x) { S.solve_device(b, x); }
  void require_factors() const {
    if (awaits_values_) throw Error("preconditioner: not factored yet (update_values_device gives it A's values)");
  }

  // A solver's value map (when it has one) and the buffer of its gathered
  // values, on the device (on the solver's set-up thread).
  void upload_map(const std::vector<index_t>& pos, cuda::DeviceBuffer<index_t>& dpos, cuda::DeviceBuffer<P>& gathered) {
    if (device_ != Device::Cuda || pos.empty()) return;
    const trace::Span span("preconditioner: value map upload");
    dpos = cuda::DeviceBuffer<index_t>(std::span<const index_t>(pos));
    gathered = cuda::DeviceBuffer<P>(pos.size());
  }
  // The device work vectors (the value maps are up already).
  void allocate_device_vectors(std::size_t n) {
    if (device_ != Device::Cuda) return;
    y_ = cuda::DeviceBuffer<P>(n);
    if constexpr (!std::is_same_v<T, P>) {
      r_ = cuda::DeviceBuffer<P>(n);
      z_ = cuda::DeviceBuffer<P>(n);
    }
  }

  // New factor values into the triangular solvers, through the value maps
  // (IC(0)'s L takes them as they are): on the device, gathers and device
  // updates (no host round trip); on the CPU, host gathers.
  void push_factors() {
    if (device_ == Device::Cuda) {
      const cuda::DeviceBuffer<P>& F = fac_->device_values();
      if (lower_pos_.empty()) {
        L_->update_values(F);
      } else {
        trsv_gpu::gather_device(dlower_pos_.data(), F.data(), dlower_.data(), dlower_.size());
        L_->update_values(dlower_);
      }
      trsv_gpu::gather_device(dupper_pos_.data(), F.data(), dupper_.data(), dupper_.size());
      U_->update_values(dupper_);
      return;
    }
    const std::span<const P> F(fac_->pattern().values);
    std::vector<P> part;
    if (lower_pos_.empty()) {
      L_->update_values(F);
    } else {
      trsv_gpu::detail::gather_positions(std::span<const index_t>(lower_pos_), F, part);
      L_->update_values(std::span<const P>(part));
    }
    trsv_gpu::detail::gather_positions(std::span<const index_t>(upper_pos_), F, part);
    U_->update_values(std::span<const P>(part));
  }

  Device device_;
  bool awaits_values_;  // the GPU path (T = P): analysed from A's pattern, factored at the first device update
  std::unique_ptr<IncompleteFactorization<P>> fac_;
  std::unique_ptr<TriangularSolver<P>> L_, U_;
  std::vector<index_t> lower_pos_, upper_pos_;  // L's (ILU(0); IC(0): none) and U's entries in the factor pattern
  std::vector<P> y_host_;
  cuda::DeviceBuffer<P> y_, r_, z_;  // intermediate; mixed precision: r and z in P
  cuda::DeviceBuffer<index_t> dlower_pos_, dupper_pos_;
  cuda::DeviceBuffer<P> dlower_, dupper_;
};

}  // namespace

template <class T>
std::unique_ptr<Preconditioner<T>> make_preconditioner(const Csr<T>& A, const KrylovOptions& o) {
  switch (o.preconditioner) {
    case PreconditionerKind::None: return nullptr;
    case PreconditionerKind::Jacobi: return std::make_unique<Jacobi<T>>(A, o.device);
    case PreconditionerKind::Chebyshev: return make_chebyshev(A, o);
    case PreconditionerKind::SapD:
    case PreconditionerKind::SapC:
      throw Error(std::string("Krylov solver: the ") + to_string(o.preconditioner) +
                  " preconditioner needs band storage: use balsa::BandedSolver (include/balsa/sap.hpp)");
    case PreconditionerKind::Ilu0:
    case PreconditionerKind::Ic0:
      if constexpr (std::is_same_v<T, double>)
        if (o.float_preconditioner) return std::make_unique<Incomplete<double, float>>(A, o);
      if (o.float_preconditioner)
        throw Error("Krylov solver: float_preconditioner needs a double iteration (T = double)");
      return std::make_unique<Incomplete<T, T>>(A, o);
  }
  throw Error("Krylov solver: unknown preconditioner");
}

#define BALSA_INSTANTIATE(T) \
  template std::unique_ptr<Preconditioner<T>> make_preconditioner(const Csr<T>&, const KrylovOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov
