// SaP's sparse pipeline steps (sap/sparse_pipeline.hpp): drop-off, the
// third-stage reordering, assembly.
#include "sap/sparse_pipeline.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "balsa/reorder.hpp"
#include "core/instantiate.hpp"

namespace balsa::sap {

namespace {

// The smallest k whose tail sum_{d > k} mass[d] is at most `budget`.
index_t smallest_kept(const std::vector<double>& mass, double budget) {
  double tail = 0;
  for (index_t d = index_t(mass.size()) - 1; d >= 0; --d) {
    if (tail + mass[std::size_t(d)] > budget) return d;
    tail += mass[std::size_t(d)];
  }
  return 0;
}

template <class T>
double squared(T v) {
  return double(v) * double(v);
}

}  // namespace

index_t bandwidth_cap(index_t n, double flops, index_t max_bandwidth) {
  index_t cap = std::max<index_t>(n - 1, 0);
  if (max_bandwidth > 0) cap = std::min(cap, max_bandwidth);
  if (flops > 0 && n > 0) cap = std::min<index_t>(cap, index_t(std::min(std::sqrt(flops / double(n)), 1e9)));
  return cap;
}

template <class T>
DropResult drop_whole(const Csr<T>& C, double tolerance, index_t cap) {
  std::vector<double> mass(std::size_t(std::max<index_t>(C.rows, 1)), 0.0);
  double total = 0;
  for (index_t i = 0; i < C.rows; ++i)
    for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p) {
      const double v = squared(C.values[p]);
      mass[std::size_t(std::abs(i - C.col_idx[p]))] += v;
      total += v;
    }
  DropResult r;
  r.k = std::min(smallest_kept(mass, tolerance * tolerance * total), cap);
  double dropped = 0;
  for (index_t i = 0; i < C.rows; ++i)
    for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p)
      if (std::abs(i - C.col_idx[p]) > r.k) {
        ++r.dropped;
        dropped += squared(C.values[p]);
      }
  r.dropped_norm = total > 0 ? std::sqrt(dropped / total) : 0.0;
  return r;
}

template <class T>
DropResult drop_per_block(const Csr<T>& C, const Blocks& blocks, double tolerance, index_t cap) {
  const index_t P = blocks.count();
  DropResult r;
  r.bandwidths.assign(std::size_t(P), 0);
  std::vector<double> dropped(std::size_t(P), 0.0), outside(std::size_t(P), 0.0), norm(std::size_t(P), 0.0);
  std::vector<std::int64_t> n_dropped(std::size_t(P), 0), n_outside(std::size_t(P), 0);
  index_t largest = 1;
  for (index_t b = 0; b < P; ++b) largest = std::max(largest, blocks.size(b));
  // One histogram per thread, allocated here: no allocation (and so no
  // exception) inside the parallel region.
  std::vector<std::vector<double>> masses(static_cast<std::size_t>(omp_get_max_threads()),
                                          std::vector<double>(static_cast<std::size_t>(largest)));
#pragma omp parallel for schedule(dynamic, 1)
  for (index_t b = 0; b < P; ++b) {
    const index_t s = blocks.start(b), e = s + blocks.size(b);
    std::vector<double>& mass = masses[std::size_t(omp_get_thread_num())];
    mass.assign(std::size_t(std::max<index_t>(e - s, 1)), 0.0);
    double rows = 0, out = 0;
    std::int64_t n_out = 0;
    for (index_t i = s; i < e; ++i)
      for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p) {
        const index_t j = C.col_idx[p];
        const double v = squared(C.values[p]);
        rows += v;
        if (j < s || j >= e) {
          out += v;
          ++n_out;
        } else {
          mass[std::size_t(std::abs(i - j))] += v;
        }
      }
    const index_t k = std::min(smallest_kept(mass, tolerance * tolerance * rows), cap);
    double drop = 0;
    std::int64_t n_drop = 0;
    for (index_t d = k + 1; d < index_t(mass.size()); ++d) drop += mass[std::size_t(d)];
    for (index_t i = s; i < e; ++i)
      for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p) {
        const index_t j = C.col_idx[p];
        n_drop += (j >= s && j < e && std::abs(i - j) > k) ? 1 : 0;
      }
    r.bandwidths[std::size_t(b)] = k;
    dropped[std::size_t(b)] = drop;
    outside[std::size_t(b)] = out;
    norm[std::size_t(b)] = rows;
    n_dropped[std::size_t(b)] = n_drop;
    n_outside[std::size_t(b)] = n_out;
  }
  double total = 0, d = 0, o = 0;
  for (index_t b = 0; b < P; ++b) {
    r.k = std::max(r.k, r.bandwidths[std::size_t(b)]);
    total += norm[std::size_t(b)];
    d += dropped[std::size_t(b)];
    o += outside[std::size_t(b)];
    r.dropped += n_dropped[std::size_t(b)];
    r.outside += n_outside[std::size_t(b)];
  }
  r.dropped_norm = total > 0 ? std::sqrt(d / total) : 0.0;
  r.outside_norm = total > 0 ? std::sqrt(o / total) : 0.0;
  return r;
}

template <class T>
std::vector<index_t> third_stage(const Csr<T>& C, const Blocks& blocks, index_t& blocks_reordered) {
  const index_t P = blocks.count();
  std::vector<index_t> perm(std::size_t(C.rows));
  std::vector<char> changed(std::size_t(P), 0);
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1)
  for (index_t b = 0; b < P; ++b) {
    const index_t s = blocks.start(b), m = blocks.size(b);
    try {
      Csr<T> local;  // C's diagonal block b (pattern; values unused by CM)
      local.rows = local.cols = m;
      local.row_ptr.assign(std::size_t(m) + 1, 0);
      for (index_t i = 0; i < m; ++i) {
        for (index_t p = C.row_ptr[s + i]; p < C.row_ptr[s + i + 1]; ++p) {
          const index_t j = C.col_idx[p] - s;
          if (j >= 0 && j < m) {
            local.col_idx.push_back(j);
            local.values.push_back(T(1));
          }
        }
        local.row_ptr[std::size_t(i) + 1] = index_t(local.col_idx.size());
      }
      const Ordering o = cuthill_mckee(local);
      const bool better = o.bandwidth_after < o.bandwidth_before;
      for (index_t i = 0; i < m; ++i) perm[std::size_t(s + i)] = s + (better ? o.perm[std::size_t(i)] : i);
      changed[std::size_t(b)] = better;
    } catch (...) {
#pragma omp critical(balsa_third_stage)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  blocks_reordered = index_t(std::count(changed.begin(), changed.end(), 1));
  return perm;
}

template <class T>
Banded<T> assemble(const Csr<T>& C, index_t k, const Blocks& blocks, const std::vector<index_t>& bandwidths) {
  Banded<T> band(C.rows, k);
  const index_t P = blocks.count();
#pragma omp parallel for schedule(dynamic, 1)
  for (index_t b = 0; b < P; ++b) {
    const index_t s = blocks.start(b), e = s + blocks.size(b);
    const bool own = !bandwidths.empty();
    const index_t kb = own ? bandwidths[std::size_t(b)] : k;
    for (index_t i = s; i < e; ++i)
      for (index_t p = C.row_ptr[i]; p < C.row_ptr[i + 1]; ++p) {
        const index_t j = C.col_idx[p];
        if (std::abs(i - j) > kb || (own && (j < s || j >= e))) continue;
        band(i, j) = C.values[p];
      }
  }
  return band;
}

#define BALSA_INSTANTIATE(T)                                                                         \
  template DropResult drop_whole(const Csr<T>&, double, index_t);                                    \
  template DropResult drop_per_block(const Csr<T>&, const Blocks&, double, index_t);                 \
  template std::vector<index_t> third_stage(const Csr<T>&, const Blocks&, index_t&);                 \
  template Banded<T> assemble(const Csr<T>&, index_t, const Blocks&, const std::vector<index_t>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::sap
