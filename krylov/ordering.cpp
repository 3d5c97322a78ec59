// The Krylov solvers' multicolour ordering (krylov/ordering.hpp): the
// colouring (graph/colouring.cpp), P A P^T's pattern with the map of its
// entries back to A's (sparse/transpose.hpp), its values by one
// gather, and the vectors through P (host loops; device gathers on the
// solver's stream).
#include "krylov/ordering.hpp"

#include "core/instantiate.hpp"
#include "core/parallel.hpp"
#include "core/setup_trace.hpp"
#include "graph/colouring.hpp"
#include "krylov/preconditioner_kernels.hpp"
#include "sparse/transpose.hpp"

namespace balsa::krylov {

template <class T>
Reordering::Reordering(const Csr<T>& A, Csr<T>& PA) {
  trace::Span colouring("krylov: multicolour ordering: colouring");
  Colouring c = graph::greedy_colouring(A.rows, A.row_ptr, A.col_idx, /*rows_sorted=*/true);
  colouring.end();
  const trace::Span span("krylov: multicolour ordering: P A P^T");
  colours_ = c.count;
  perm_ = std::move(c.perm);
  std::vector<index_t>& inverse = c.colour;  // reused: inverse[old] = new
#pragma omp parallel for schedule(static) if (A.rows > parallel::kParallelMin)
  for (index_t i = 0; i < A.rows; ++i) inverse[std::size_t(perm_[std::size_t(i)])] = i;
  PermutedPattern p = permuted_pattern(A.rows, A.row_ptr, A.col_idx, perm_, inverse);
  source_ = std::move(p.source);
  PA = Csr<T>{A.rows, A.cols, std::move(p.row_ptr), std::move(p.col_idx), parallel::fresh_vector<T>(source_.size())};
  values(std::span<const T>(A.values), std::span<T>(PA.values));
}

template <class T>
void Reordering::values(std::span<const T> a_values, std::span<T> out) const {
  parallel::gather(std::span<const index_t>(source_), a_values, out);
}

template <class T>
void Reordering::in(std::span<const T> v, std::span<T> y) const {
  parallel::gather(std::span<const index_t>(perm_), v, y);
}

template <class T>
void Reordering::out(std::span<const T> y, std::span<T> v) const {
  const std::int64_t n = std::int64_t(perm_.size());
#pragma omp parallel for schedule(static) if (n > parallel::kParallelMin)
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(perm_[std::size_t(i)])] = y[std::size_t(i)];
}

void Reordering::upload() { device_perm_ = cuda::DeviceBuffer<index_t>(std::span<const index_t>(perm_)); }

template <class T>
void Reordering::in_device(const T* v, T* y) const {
  device::gather(v, device_perm_.data(), y, perm_.size());
}

template <class T>
void Reordering::out_device(const T* y, T* v) const {
  device::scatter(y, device_perm_.data(), v, perm_.size());
}

#define BALSA_INSTANTIATE(T)                                                \
  template Reordering::Reordering(const Csr<T>&, Csr<T>&);                  \
  template void Reordering::values(std::span<const T>, std::span<T>) const; \
  template void Reordering::in(std::span<const T>, std::span<T>) const;     \
  template void Reordering::out(std::span<const T>, std::span<T>) const;    \
  template void Reordering::in_device(const T*, T*) const;                  \
  template void Reordering::out_device(const T*, T*) const;
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::krylov
