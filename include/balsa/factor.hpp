// balsa: incomplete factorisations with zero fill-in, ILU(0) and IC(0)
// (Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., sec. 10.3;
// the preconditioners of Picciau's thesis ch. 5), analyse once, factor many
// times, on the CPU (the oracle) or the GPU.
//
//   balsa::IncompleteFactorization<double> ic(A, {.kind = balsa::IncompleteKind::Ic0,
//                                                  .device = balsa::Device::Cuda});
//   ic.stats().shift;            // the diagonal shift that was needed (0: none)
//   ic.refactor(new_values);     // same pattern, new numbers
//
// Storage of the factors (pattern(), values in pattern order):
//   Ilu0  A's own pattern, one array: the strictly lower entries are L's
//         (unit diagonal, not stored), the diagonal and upper entries U's;
//         M = L U.
//   Ic0   the lower triangle of A with its diagonal: L, with M = L L^T.
//         Only A's lower triangle is read (A is taken to be symmetric; the
//         Krylov front end checks that for CG).
//
// Pivot breakdown. Row i breaks down when
//   Ilu0: |u_ii| <= pivot_tolerance * |a_ii| (or u_ii is not finite),
//   Ic0:  the value under the square root, d_i = a_ii - sum_k l_ik^2, is
//         <= pivot_tolerance * a_ii or <= 0 (or not finite),
// or when any other factor entry of row i is not finite; a_ii is the
// diagonal of the matrix being factored (shifted, after a restart).
// With PivotBreakdown::Shift (the default) the factorisation is restarted on
// A + alpha * diag(A) (Manteuffel's shift: every a_ii becomes
// a_ii + alpha * a_ii, rounded as one product and one sum in T),
// alpha = first_shift, doubled on each further breakdown, at most max_shifts
// restarts (so at most 1 + max_shifts attempts); stats() reports the alpha
// used, the attempts and the first row that broke down. With
// PivotBreakdown::Fail, or when every shift breaks down, a MatrixError names
// the row and the pivot.
//
// The GPU performs the CPU reference's floating-point operations in the same
// order (no fused multiply-add), so both devices give the same factors,
// bit for bit, and the same breakdowns.
#pragma once

#include <memory>
#include <span>

#include "balsa/core.hpp"
#include "balsa/cuda.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

enum class IncompleteKind { Ilu0, Ic0 };
template <>
struct EnumNames<IncompleteKind> {
  static constexpr const char* what = "incomplete factorisation";
  static constexpr EnumName<IncompleteKind> names[] = {{IncompleteKind::Ilu0, "ilu0"}, {IncompleteKind::Ic0, "ic0"}};
};
enum class PivotBreakdown { Shift, Fail };
template <>
struct EnumNames<PivotBreakdown> {
  static constexpr const char* what = "pivot breakdown policy";
  static constexpr EnumName<PivotBreakdown> names[] = {{PivotBreakdown::Shift, "shift"}, {PivotBreakdown::Fail, "fail"}};
};

struct IncompleteOptions {
  IncompleteKind kind = IncompleteKind::Ilu0;
  Device device = Device::Auto;  // resolve_device: the GPU when present
  PivotBreakdown on_breakdown = PivotBreakdown::Shift;
  double pivot_tolerance = 1e-12;
  double first_shift = 1e-3;
  int max_shifts = 20;
  // The CUDA stream of the factorisation's GPU work (include/balsa/core.hpp;
  // nullptr: the calling thread's per-thread default stream).
  StreamHandle stream = nullptr;
  int threads = 0;  // CPU (OpenMP) threads of each call; 0: the caller's (include/balsa/core.hpp)
};

struct IncompleteStats {
  IncompleteKind kind = IncompleteKind::Ilu0;
  Device device = Device::Cpu;
  index_t rows = 0;
  index_t nnz = 0;             // entries of the factor pattern
  index_t levels = 0;          // dependency levels of the row-by-row factorisation
  double shift = 0.0;          // alpha of the successful attempt (0: no breakdown)
  int attempts = 0;            // factorisations run by the last factor/refactor call
  index_t breakdown_row = -1;  // first row that broke down in that call's first attempt (-1: none)
  double analysis_seconds = 0.0;  // constructor: checks, pattern, levels, uploads
  double factor_seconds = 0.0;    // the last factor/refactor call, every attempt included
  int factorizations = 0;         // factor/refactor calls so far
  // Device::Cuda: the numeric factorisation ran on the host (values up to
  // the device after), because its dependency levels are too many for the
  // GPU's level schedule to win (deep chains: banded matrices).
  bool host_numeric = false;
  // Where the dependency levels of the analysis ran (Device::Cuda: the
  // device sweep, on a GPU factorisation when the rule allows it), their
  // time, and why the host ran them (empty when the device did).
  Device level_sets_device = Device::Cpu;
  double level_sets_seconds = 0.0;
  std::string level_sets_reason;
};

template <class T>
class IncompleteFactorization {
 public:
  // Checks A (square, canonical, every diagonal entry stored, finite values),
  // analyses the pattern and factors A's values.
  IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options = {});
  // Internal: the same without the checks of A's structure and values
  // (detail::PrecheckedMatrix); a missing diagonal is still an error.
  IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options, detail::PrecheckedMatrix);
  // Internal: the same analysing A's pattern only (A's values are not read,
  // A.values may be empty); the first factors come with a refactor (on the
  // GPU, from values already on the device). Until then pattern(),
  // factors() and device_values() throw, and stats().factorizations is 0.
  IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options, detail::PrecheckedMatrix,
                          detail::ValuesLater);
  ~IncompleteFactorization();
  IncompleteFactorization(IncompleteFactorization&&) noexcept;
  IncompleteFactorization& operator=(IncompleteFactorization&&) noexcept;

  // New values for A's pattern, in A's CSR order (checked: length, finite).
  // On an error the previous factors and stats() are kept.
  void refactor(std::span<const T> values);
  // The same from device memory (Device::Cuda only): no host round trip.
  void refactor(const cuda::DeviceBuffer<T>& values);

  // The factor pattern (see above) with the current factors as values. On
  // the GPU the factors live in device_values(); this call downloads them
  // when the host copy is older (after the constructor or a refactor), and
  // nothing else does.
  const Csr<T>& pattern() const;
  // A copy of the factors, on the host (a download where needed, as pattern()).
  Csr<T> factors() const;
  // Device::Cuda: the factor values on the device, in pattern() order.
  const cuda::DeviceBuffer<T>& device_values() const;

  const IncompleteStats& stats() const;
  index_t rows() const;

 private:
  IncompleteFactorization(const Csr<T>& A, const IncompleteOptions& options, bool checked, bool values_later);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The CPU reference of one factorisation attempt, in place on `values` (in
// `pattern`'s CSR order: A's pattern for Ilu0, its lower triangle for Ic0).
// `diagonal` holds each row's diagonal position in the pattern. Returns -1
// on success, else the first row whose pivot broke down (values are then
// partly factored; that row's diagonal slot holds its pivot: u_ii, or d_i
// for Ic0). The oracle of the GPU kernels' tests.
template <class T>
index_t incomplete_factor_reference(IncompleteKind kind, const Csr<T>& pattern, std::span<const index_t> diagonal,
                                    std::span<T> values, double pivot_tolerance);

}  // namespace balsa
