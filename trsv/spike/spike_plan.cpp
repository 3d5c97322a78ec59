// The spike solver's analysis (lower form, partition, cost model;
// trsv/spike/spike_plan.hpp). Its CPU algorithm: trsv/spike/spike_cpu.cpp.
#include "trsv/spike/spike_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/instantiate.hpp"
#include "core/parallel.hpp"

namespace balsa::trsv_spike {

template <class T>
index_t bandwidth(const Csr<T>& M, Triangle tri) {
  index_t w = 0;
  const bool lower = tri == Triangle::Lower;
#pragma omp parallel for reduction(max : w) schedule(static) if (M.rows >= parallel::kParallelMin)
  for (index_t i = 0; i < M.rows; ++i) {
    const index_t b = M.row_ptr[i], e = M.row_ptr[i + 1];
    if (b == e) continue;
    // Lower: the first column is the farthest; Upper: the last.
    const index_t reach = lower ? i - M.col_idx[b] : M.col_idx[e - 1] - i;
    w = std::max(w, reach);
  }
  return w;
}

template <class T>
Form make_form(const Csr<T>& M, Triangle tri, DiagonalKind diag) {
  Form f;
  f.n = M.rows;
  f.reversed = tri == Triangle::Upper;
  f.w = bandwidth(M, tri);
  f.row_ptr.assign(std::size_t(f.n) + 1, 0);
  f.diag_pos.assign(std::size_t(f.n), -1);
  const index_t n = f.n;
  for (index_t k = 0; k < n; ++k) {
    const index_t i = f.row(k);
    index_t off = 0;
    for (index_t p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p) {
      if (M.col_idx[p] != i)
        ++off;
      else if (diag == DiagonalKind::NonUnit)
        f.diag_pos[k] = p;
    }
    f.row_ptr[k + 1] = f.row_ptr[k] + off;
  }
  f.col.resize(std::size_t(f.row_ptr[n]));
  f.source.resize(f.col.size());
#pragma omp parallel for schedule(static) if (n >= parallel::kParallelMin)
  for (index_t k = 0; k < n; ++k) {
    const index_t i = f.row(k);
    index_t q = f.row_ptr[k];
    if (!f.reversed) {
      for (index_t p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p)
        if (M.col_idx[p] != i) f.col[q] = M.col_idx[p], f.source[q++] = p;
    } else {  // mirrored columns ascend as M's descend
      for (index_t p = M.row_ptr[i + 1] - 1; p >= M.row_ptr[i]; --p)
        if (M.col_idx[p] != i) f.col[q] = n - 1 - M.col_idx[p], f.source[q++] = p;
    }
  }
  return f;
}

double predict_seconds(const Partition& p, index_t w, double entries, const CostModel& c) {
  if (p.P == 0) return 0.0;
  const double step = c.step_base + c.step_per_w2 * double(w) * double(w);
  const double steps = w == 0 ? 0.0 : p.Q > 1 ? double(2 * p.G + p.Q) : double(p.P);
  return 2.0 * double(p.m) * (c.row + c.entry * entries) + steps * step + (p.Q > 1 ? 5.0 : 3.0) * c.launch;
}

namespace {
Partition cut(index_t n, index_t m) {
  Partition p;
  p.m = std::max<index_t>(1, m);
  p.P = n == 0 ? 0 : index_t((std::int64_t(n) + p.m - 1) / p.m);
  p.G = std::max<index_t>(1, index_t(std::ceil(std::sqrt(double(p.P)))));
  p.Q = p.P == 0 ? 0 : (p.P + p.G - 1) / p.G;
  return p;
}
}  // namespace

Partition make_partition(index_t n, index_t w, double entries, index_t chain_rows, const CostModel& c) {
  if (chain_rows > 0) return cut(n, chain_rows);
  Partition best = cut(n, std::max<index_t>(n, 1));
  double best_t = predict_seconds(best, w, entries, c);
  for (std::int64_t m = std::max<index_t>(32, w); m < n; m *= 2) {
    const Partition p = cut(n, index_t(m));
    const double t = predict_seconds(p, w, entries, c);
    if (t < best_t) best = p, best_t = t;
  }
  return best;
}

std::int64_t spike_values(const Partition& p, index_t w) {
  return (std::int64_t(p.P) + std::int64_t(p.Q)) * std::int64_t(w) * std::int64_t(w);
}

void describe(SpikeStats& s, const Partition& p, index_t w, std::size_t value_bytes) {
  s.bandwidth = w;
  s.chain_rows = p.m;
  s.chains = p.P;
  s.groups = p.Q;
  s.spike_bytes = spike_values(p, w) * std::int64_t(value_bytes);
}

std::string refusal(index_t w, const Partition& p, std::size_t value_bytes, std::int64_t max_bytes, bool gpu) {
  if (gpu && w > kMaxBandwidth)
    return "bandwidth " + std::to_string(w) + " above the spike solver's " + std::to_string(kMaxBandwidth);
  const double bytes = double(spike_values(p, w)) * double(value_bytes);
  if (bytes > double(max_bytes))
    return "the spikes of bandwidth " + std::to_string(w) + " need " + std::to_string(std::int64_t(bytes) >> 20) +
           " MB, above spike_max_bytes (" + std::to_string(max_bytes >> 20) + " MB)";
  return {};
}

#define BALSA_INSTANTIATE(T)                                         \
  template index_t bandwidth<T>(const Csr<T>&, Triangle);            \
  template Form make_form<T>(const Csr<T>&, Triangle, DiagonalKind);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_spike
