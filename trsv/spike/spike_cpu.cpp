// The spike solver on the CPU (trsv/spike/spike_cpu.hpp): the GPU's chains,
// recurrence and passes (trsv/spike/spike_plan.hpp), OpenMP over chains.
#include "trsv/spike/spike_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/instantiate.hpp"
#include "core/parallel.hpp"

namespace balsa::trsv_spike {

template <class T>
CpuSpike<T>::CpuSpike(Form form, const Partition& part, std::span<const T> values)
    : form_(std::move(form)), part_(part) {
  set_values(values);
}

template <class T>
void CpuSpike<T>::chain(index_t r0, index_t r1, const T* b, const T* state, T* x, T* tail, std::vector<T>& work) const {
  const index_t w = form_.w, base = r0 - w;  // work[k - base]: form row k, the state first
  work.resize(std::size_t(r1 - base));
  for (index_t j = 0; j < w; ++j) work[std::size_t(j)] = state ? state[j] : T(0);
  for (index_t k = r0; k < r1; ++k) {
    const index_t i = form_.row(k);
    T acc = b ? b[i] : T(0);
    for (index_t p = form_.row_ptr[k]; p < form_.row_ptr[k + 1]; ++p) acc -= val_[p] * work[form_.col[p] - base];
    const T xk = acc / diag_[k];
    work[k - base] = xk;
    if (x) x[i] = xk;
  }
  if (tail)
    for (index_t j = 0; j < w; ++j) tail[j] = work[std::size_t(r1 - w + j - base)];
}

namespace {
// out = d + Tm s (Tm column-major w x w; s may be null: zero).
template <class T>
void recurrence_step(index_t w, const T* d, const T* Tm, const T* s, T* out) {
  for (index_t r = 0; r < w; ++r) out[r] = d[r];
  if (!s) return;
  for (index_t j = 0; j < w; ++j) {
    const T sj = s[j];
    for (index_t r = 0; r < w; ++r) out[r] += Tm[std::size_t(j) * w + r] * sj;
  }
}
}  // namespace

template <class T>
void CpuSpike<T>::set_values(std::span<const T> values) {
  const index_t n = form_.n, w = form_.w;
  val_.resize(form_.col.size());
  diag_.resize(std::size_t(n));
  parallel::gather(std::span<const index_t>(form_.source), values, std::span<T>(val_));
  for (index_t k = 0; k < n; ++k) diag_[k] = form_.diag_pos[k] < 0 ? T(1) : values[form_.diag_pos[k]];
  const std::size_t ww = std::size_t(w) * std::size_t(w);
  T_.assign(std::size_t(part_.P) * ww, T(0));
  U_.assign(part_.Q > 1 ? std::size_t(part_.Q) * ww : 0, T(0));
  if (w == 0) return;
  // Column j of T_i (U_q): the chain (group) solved from a zero b and the state e_j.
  auto spikes = [&](index_t chains, index_t rows, std::vector<T>& out) {
#pragma omp parallel
    {
      std::vector<T> work, unit(std::size_t(w), T(0));
#pragma omp for collapse(2) schedule(dynamic, 4)
      for (index_t c = 0; c < chains; ++c)
        for (index_t j = 0; j < w; ++j) {
          const index_t r0 = c * rows, r1 = index_t(std::min<std::int64_t>(n, std::int64_t(r0) + rows));
          std::fill(unit.begin(), unit.end(), T(0));
          unit[std::size_t(j)] = T(1);
          chain(r0, r1, nullptr, unit.data(), nullptr, out.data() + std::size_t(c) * ww + std::size_t(j) * w, work);
        }
    }
  };
  spikes(part_.P, part_.m, T_);
  if (part_.Q > 1) spikes(part_.Q, part_.G * part_.m, U_);
}

template <class T>
void CpuSpike<T>::solve(const T* b, T* x) const {
  const index_t P = part_.P, w = form_.w, G = part_.G, Q = part_.Q, m = part_.m, n = form_.n;
  if (n == 0) return;
  std::vector<T> d(std::size_t(P) * w), s(std::size_t(P) * w);
  const std::size_t ww = std::size_t(w) * std::size_t(w);
  auto rows_of = [&](index_t i, index_t& r0, index_t& r1) {
    r0 = i * m;
    r1 = index_t(std::min<std::int64_t>(n, std::int64_t(r0) + m));
  };
#pragma omp parallel
  {
    std::vector<T> work;
#pragma omp for schedule(static)
    for (index_t i = 0; i < P; ++i) {  // the independent chain solves: d_i
      index_t r0, r1;
      rows_of(i, r0, r1);
      chain(r0, r1, b, nullptr, nullptr, d.data() + std::size_t(i) * w, work);
    }
  }
  // The recurrence s_i = d_i + T_i s_{i-1}: groups from zero, the groups'
  // ends in sequence through U_q, the groups again from their true states.
  std::vector<T> e(std::size_t(Q) * std::size_t(w)), S(std::size_t(Q) * std::size_t(w));
  if (Q > 1) {
#pragma omp parallel for schedule(static)
    for (index_t q = 0; q < Q; ++q) {
      std::vector<T> cur(std::size_t(w), T(0)), next(std::size_t(w), T(0));
      for (index_t i = q * G; i < std::min(P, (q + 1) * G); ++i) {
        recurrence_step(w, d.data() + std::size_t(i) * w, T_.data() + std::size_t(i) * ww,
                        i == q * G ? nullptr : cur.data(), next.data());
        cur.swap(next);
      }
      std::copy(cur.begin(), cur.end(), e.begin() + std::ptrdiff_t(q) * w);
    }
    for (index_t q = 0; q < Q; ++q)
      recurrence_step(w, e.data() + std::size_t(q) * w, U_.data() + std::size_t(q) * ww,
                      q == 0 ? nullptr : S.data() + std::size_t(q - 1) * w, S.data() + std::size_t(q) * w);
  }
#pragma omp parallel for schedule(static)
  for (index_t q = 0; q < Q; ++q)
    for (index_t i = q * G; i < std::min(P, (q + 1) * G); ++i) {
      const T* before =
          i > 0 ? (i == q * G ? S.data() + std::size_t(q - 1) * w : s.data() + std::size_t(i - 1) * w) : nullptr;
      recurrence_step(w, d.data() + std::size_t(i) * w, T_.data() + std::size_t(i) * ww, before,
                      s.data() + std::size_t(i) * w);
    }
#pragma omp parallel
  {
    std::vector<T> work;
#pragma omp for schedule(static)
    for (index_t i = 0; i < P; ++i) {  // every chain from its true state: x
      index_t r0, r1;
      rows_of(i, r0, r1);
      chain(r0, r1, b, i > 0 ? s.data() + std::size_t(i - 1) * w : nullptr, x, nullptr, work);
    }
  }
}

#define BALSA_INSTANTIATE(T) template class CpuSpike<T>;
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_spike
