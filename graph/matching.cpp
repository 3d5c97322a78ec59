// DB, diagonal boosting (include/balsa/reorder.hpp): the maximum-product
// matching of the SaP report (Li, Serban & Negrut, sec. 2.2.1, eq. 12, and
// sec. 3.3, DB-S1..S4) as a minimum-cost perfect matching with the weights
// c_ij = log a_i - log |a_ij| and the duals u (rows), v (columns); DB-S1 and
// DB-S4 run on the GPU on Device::Cuda (graph/matching_kernels.cu), DB-S2
// and DB-S3 here. structural_rank is a maximum matching of the pattern.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/reorder.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"
#include "core/call_scope.hpp"
#include "core/instantiate.hpp"
#include "graph/matching_kernels.hpp"

namespace balsa {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr index_t kNone = -1;

std::string s(std::int64_t x) { return std::to_string(x); }
std::size_t sz(index_t n) { return static_cast<std::size_t>(n); }
// Below this many entries a loop runs on one thread.
constexpr index_t kParallel = 100000;

// ---- maximum cardinality matching -------------------------------------------
//
// Rows 0..m-1 against columns 0..cols-1 of the pattern (ptr, idx), only the
// positions p with edge(i, p). Augments the matching (col_of: row -> column,
// row_of: column -> row, kNone where free) to a maximum one; returns how
// many augmenting paths it found. Depth-first searches in phases (Pothen
// and Fan's method with look-ahead and fairness): in a phase, one search
// from every free row, each column visited at most once per phase (so the
// phase's paths are disjoint and the phase is O(nnz)); a row first looks
// ahead for a free column (a pointer per row that only moves forward, as a
// matched column never becomes free again), then descends to the row
// matched to its next unvisited column; odd phases scan the rows backwards.
// A phase without an augmentation proves the matching maximum.
template <class Edge>
index_t augment_to_maximum(index_t m, index_t cols, const index_t* ptr, const index_t* idx, Edge edge,
                           std::vector<index_t>& col_of, std::vector<index_t>& row_of) {
  std::vector<index_t> roots, rows, path;
  for (index_t i = 0; i < m; ++i)
    if (col_of[i] == kNone && ptr[i + 1] > ptr[i]) roots.push_back(i);
  if (roots.empty()) return 0;
  std::vector<index_t> look(ptr, ptr + m), scanned(sz(m)), seen(sz(cols), -1);
  index_t total = 0;
  for (index_t phase = 0; !roots.empty(); ++phase) {
    const bool forward = phase % 2 == 0;
    index_t found = 0;
    for (const index_t root : roots) {
      rows.assign(1, root);  // the search's stack; path[t]: the column rows[t] descended through
      path.clear();
      scanned[root] = 0;
      while (!rows.empty()) {
        const index_t i = rows.back();
        index_t free_col = kNone;
        for (; look[i] < ptr[i + 1] && free_col == kNone; ++look[i])
          if (row_of[idx[look[i]]] == kNone && edge(i, look[i])) free_col = idx[look[i]];
        if (free_col != kNone) {  // augment along the stack
          seen[free_col] = phase;
          path.push_back(free_col);
          for (std::size_t t = 0; t < rows.size(); ++t) {
            col_of[rows[t]] = path[t];
            row_of[path[t]] = rows[t];
          }
          ++found;
          break;
        }
        index_t next = kNone;
        for (const index_t len = ptr[i + 1] - ptr[i]; scanned[i] < len && next == kNone; ++scanned[i]) {
          const index_t p = forward ? ptr[i] + scanned[i] : ptr[i + 1] - 1 - scanned[i];
          if (seen[idx[p]] != phase && edge(i, p)) next = idx[p];
        }
        if (next != kNone) {
          seen[next] = phase;
          path.push_back(next);
          rows.push_back(row_of[next]);
          scanned[rows.back()] = 0;
        } else {  // a dead end
          rows.pop_back();
          if (!path.empty()) path.pop_back();
        }
      }
    }
    total += found;
    if (found == 0) break;
    std::erase_if(roots, [&](index_t i) { return col_of[i] != kNone; });
  }
  return total;
}

// A greedy matching (first free column of each row), then a maximum one;
// returns its size.
template <class Edge>
index_t max_matching(index_t m, index_t cols, const index_t* ptr, const index_t* idx, Edge edge,
                     std::vector<index_t>& col_of, std::vector<index_t>& row_of) {
  col_of.assign(sz(m), kNone);
  row_of.assign(sz(cols), kNone);
  index_t size = 0;
  for (index_t i = 0; i < m; ++i)
    for (index_t p = ptr[i]; p < ptr[i + 1]; ++p)
      if (row_of[idx[p]] == kNone && edge(i, p)) {
        row_of[idx[p]] = i;
        col_of[i] = idx[p];
        ++size;
        break;
      }
  return size + augment_to_maximum(m, cols, ptr, idx, edge, col_of, row_of);
}
template <class Edge>
index_t max_matching(index_t m, index_t cols, const index_t* ptr, const index_t* idx, Edge edge) {
  std::vector<index_t> col_of, row_of;
  return max_matching(m, cols, ptr, idx, edge, col_of, row_of);
}

template <class T>
[[noreturn]] void throw_singular(const Csr<T>& A) {
  // The rank of the nonzeros' pattern: DB's graph has no stored zeros.
  const index_t n = A.rows, r = max_matching(n, n, A.row_ptr.data(), A.col_idx.data(),
                                             [&](index_t, index_t p) { return A.values[p] != T(0); });
  throw StructurallySingular(r, n,
                             "diagonal boosting: A (" + s(n) + " x " + s(n) + ") is structurally singular: structural rank " +
                                 s(r) + " < " + s(n) + " (of its nonzero entries; stored zeros count as none): no row permutation puts " +
                                 "nonzeros on the whole diagonal, so A is singular");
}

// ---- the weighted matching (DB-S2, DB-S3) -------------------------------------

// The duals and the matching: u and col_of by row, v and row_of by column.
struct Solution {
  std::vector<double> u, v;
  std::vector<index_t> col_of, row_of;
};

// DB-S2 (report sec. 3.3) on the CSR (ptr, idx) of A with the weights c:
// u_i = min_j c_ij and v_j = min_i (c_ij - u_i), then a maximum matching of
// the tight edges, those with reduced cost (c_ij - u_i) - v_j = 0 (exactly 0
// at each column's minimum, as that is the same expression): a greedy pass
// and augment_to_maximum, the report's "match as many pairs of nodes as
// possible". Returns the number matched, or -1 when a row or a column has
// no nonzero (structurally singular).
index_t initial_match(index_t n, const index_t* ptr, const index_t* idx, const double* c, Solution& s) {
  s.u.assign(sz(n), kInf);
  s.v.assign(sz(n), kInf);
#pragma omp parallel for schedule(static) if (ptr[n] > kParallel)
  for (index_t i = 0; i < n; ++i)
    for (index_t p = ptr[i]; p < ptr[i + 1]; ++p) s.u[i] = std::min(s.u[i], c[p]);
  for (index_t i = 0; i < n; ++i) {
    if (s.u[i] == kInf) return -1;
    for (index_t p = ptr[i]; p < ptr[i + 1]; ++p) s.v[idx[p]] = std::min(s.v[idx[p]], c[p] - s.u[i]);
  }
  for (index_t j = 0; j < n; ++j)
    if (s.v[j] == kInf) return -1;
  return max_matching(n, n, ptr, idx, [&](index_t i, index_t p) { return (c[p] - s.u[i]) - s.v[idx[p]] <= 0; },
                      s.col_of, s.row_of);
}

// DB-S3 (report sec. 3.3): shortest augmenting paths from the rows DB-S2
// left free, over A's CSR (the report's search from the free columns over
// A^T is the same problem; measured on random-valued 3D operators, neither
// side is the cheaper). What a search touches per column sits in one
// 32-byte record (the dual, the matched row, and the search's distance,
// predecessor and stamp): columns are reached in random order, so a
// column visited costs one cache line rather than one per array.
//
// augment(root): Dijkstra from the free row `root` over the columns (binary
// heap, lazy deletion), the distance of a column k being the least sum of
// reduced costs (c_ij - v_j) - u_i >= 0 of the unmatched edges of an
// alternating path root -> ... -> k (matched edges are tight, cost 0);
// tentative paths no shorter than the nearest free column found so far are
// pruned. With D the distance of the free column reached, the dual update
// u_root += D, and for every finalised column k (d_k < D) v_k -= D - d_k and
// u_{row(k)} += D - d_k, which keeps every reduced cost >= 0 (Dijkstra's
// d_l <= d_k + r_kl, and d >= D for the rest) and the matched edges and the
// new path tight; then the augmentation along the path. Returns false when
// no free column is reachable from the root.
struct Searcher {
  struct Column {
    double v = 0;
    double dist = kInf;
    index_t row = kNone;      // matched row
    index_t pred = kNone;     // the row a search reached it from
    std::uint32_t stamp = 0;  // the search that finalised it
  };
  const index_t* ptr;
  const index_t* idx;
  const double* c;  // +inf: no edge
  std::vector<double> u;
  std::vector<index_t> col_of;
  std::vector<Column> col;
  std::vector<index_t> touched, done;
  std::uint32_t epoch = 0;
  std::vector<std::pair<double, index_t>> heap;

  bool augment(index_t root) {
    ++epoch;
    double best = kInf;
    index_t sink = kNone;
    const auto relax = [&](index_t i, double di) {
      const double ui = u[i];
      for (index_t p = ptr[i]; p < ptr[i + 1]; ++p) {
        Column& k = col[idx[p]];
        if (k.stamp == epoch) continue;
        const double d = di + std::max(0.0, (c[p] - k.v) - ui);  // (+inf: no edge)
        if (d >= best || d >= k.dist) continue;
        if (k.dist == kInf) touched.push_back(idx[p]);
        k.dist = d;
        k.pred = i;
        if (k.row == kNone) {
          best = d;
          sink = idx[p];
        } else {
          heap.emplace_back(d, idx[p]);
          std::push_heap(heap.begin(), heap.end(), std::greater<>());
        }
      }
    };
    relax(root, 0.0);
    while (!heap.empty() && heap.front().first < best) {
      const auto [d, j] = heap.front();
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.pop_back();
      Column& k = col[j];
      if (k.stamp == epoch || d > k.dist) continue;  // finalised already, or a stale entry
      k.stamp = epoch;
      done.push_back(j);
      relax(k.row, d);
    }
    heap.clear();
    if (sink != kNone) {
      u[root] += best;
      for (const index_t j : done) {
        Column& k = col[j];
        const double delta = best - k.dist;
        k.v -= delta;
        u[k.row] += delta;
      }
      for (index_t j = sink;;) {
        const index_t i = col[j].pred, previous = col_of[i];
        col[j].row = i;
        col_of[i] = j;
        if (i == root) break;
        j = previous;
      }
    }
    for (const index_t j : touched) col[j].dist = kInf;
    touched.clear();
    done.clear();
    return sink != kNone;
  }
};

// DB-S3's driver: a search from every free row. Returns the number of
// augmentations, or -1 when a row has no augmenting path.
index_t shortest_paths(index_t n, const index_t* ptr, const index_t* idx, const double* c, Solution& s) {
  if (std::find(s.col_of.begin(), s.col_of.end(), kNone) == s.col_of.end()) return 0;
  Searcher S{ptr, idx, c, std::move(s.u), std::move(s.col_of), std::vector<Searcher::Column>(sz(n)), {}, {}, 0, {}};
  for (index_t j = 0; j < n; ++j) {
    S.col[j].v = s.v[j];
    S.col[j].row = s.row_of[j];
  }
  index_t augmentations = 0;
  for (index_t i = 0; i < n; ++i) {
    if (S.col_of[i] != kNone) continue;
    if (!S.augment(i)) return -1;
    ++augmentations;
  }
  s.u = std::move(S.u);
  s.col_of = std::move(S.col_of);
  for (index_t j = 0; j < n; ++j) {
    s.v[j] = S.col[j].v;
    s.row_of[j] = S.col[j].row;
  }
  return augmentations;
}

// DB-S1 on the CPU: a_i and the weights (+inf for stored zeros).
template <class T>
void weights_cpu(const Csr<T>& A, std::vector<double>& amax, std::vector<double>& c) {
  const index_t n = A.rows;
  amax.assign(sz(n), 0.0);
  c.resize(A.values.size());
#pragma omp parallel for schedule(static) if (A.nnz() > kParallel)
  for (index_t i = 0; i < n; ++i) {
    double m = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) m = std::max(m, std::abs(double(A.values[p])));
    amax[i] = m;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const double a = std::abs(double(A.values[p]));
      c[p] = a == 0 ? kInf : matching::weight(m, a);
    }
  }
}

// DB-S1 (report sec. 3.3): a_i and the weights of eq. (12), on the GPU or
// the CPU.
template <class T>
void db_weights(const Csr<T>& A, bool gpu, std::vector<double>& amax, std::vector<double>& c, MatchingStats& st) {
  const auto t0 = Clock::now();
  if (gpu && A.rows > 0) {
    matching::Weights w = matching::device_weights(A);
    amax = std::move(w.amax);
    c = std::move(w.c);
    st.t_s1 = w.t_kernel;
    st.t_transfer += w.t_transfer;
  } else {
    weights_cpu(A, amax, c);
    st.t_s1 = seconds_since(t0);
  }
}

// log |prod_j a_(row_perm[j], j)| (summed in order: the same sum whatever the threads).
template <class T>
double diagonal_log_product(const Csr<T>& A, const std::vector<index_t>& row_perm) {
  const index_t n = A.rows;
  std::vector<double> logs(sz(n));
#pragma omp parallel for schedule(static) if (n > kParallel)
  for (index_t j = 0; j < n; ++j) {
    const index_t i = row_perm[j];
    const auto first = A.col_idx.begin() + A.row_ptr[i], last = A.col_idx.begin() + A.row_ptr[i + 1];
    logs[j] = std::log(std::abs(double(A.values[sz(index_t(std::lower_bound(first, last, j) - A.col_idx.begin()))])));
  }
  return std::accumulate(logs.begin(), logs.end(), 0.0);
}

// DB-S4's I-matrix scaling from the duals (unit without options.scaling);
// returns the seconds spent copying.
double db_scaling(const Solution& m, const std::vector<double>& amax, bool scaling, bool gpu, DiagonalBoosting& db,
                  MatchingStats& st) {
  const index_t n = db.n;
  if (!scaling) {
    db.row_scale.assign(sz(n), 1.0);
    db.col_scale.assign(sz(n), 1.0);
  } else if (gpu && n > 0) {
    matching::Scaling sc = matching::device_scaling(m.u, m.v, amax);
    db.row_scale = std::move(sc.row_scale);
    db.col_scale = std::move(sc.col_scale);
    st.t_transfer += sc.t_transfer;
    return sc.t_transfer;
  } else {
    db.row_scale.resize(sz(n));
    db.col_scale.resize(sz(n));
#pragma omp parallel for schedule(static) if (n > kParallel)
    for (index_t i = 0; i < n; ++i) {
      db.row_scale[i] = matching::row_scale(m.u[i], amax[i]);
      db.col_scale[i] = matching::col_scale(m.v[i]);
    }
  }
  return 0;
}

}  // namespace

template <class T>
DiagonalBoosting diagonal_boosting(const Csr<T>& A, const MatchingOptions& options) try {
  const auto t_start = Clock::now();
  const CallScope on(options, "MatchingOptions");  // DB-S1 and S4 on the GPU
  require_square(A, "diagonal boosting");
  validate(A, /*require_sorted=*/true);
  require_finite(A);
  const Device device = resolve_device(options.device);
  const bool gpu = device == Device::Cuda;
  if (gpu && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? "diagonal boosting: Device::Cuda: no CUDA GPU found"
                                            : "diagonal boosting: Device::Cuda: balsa was built without CUDA");
  const index_t n = A.rows;
  DiagonalBoosting db;
  db.n = n;
  MatchingStats& st = db.stats;
  st.device = device;

  // DB-S1 (report sec. 3.3): a_i and the weights of eq. (12).
  std::vector<double> amax, c;
  db_weights(A, gpu, amax, c, st);

  // DB-S2 (sec. 3.3): the initial duals and partial matching.
  auto t0 = Clock::now();
  Solution m;
  st.initial_matches = initial_match(n, A.row_ptr.data(), A.col_idx.data(), c.data(), m);
  if (st.initial_matches < 0) throw_singular(A);
  st.t_s2 = seconds_since(t0);

  // DB-S3 (sec. 3.3): shortest augmenting paths from the rows DB-S2 left free.
  t0 = Clock::now();
  st.augmentations = shortest_paths(n, A.row_ptr.data(), A.col_idx.data(), c.data(), m);
  if (st.augmentations < 0) throw_singular(A);
  st.t_s3 = seconds_since(t0);

  // DB-S4 (sec. 3.3): Q, the I-matrix scaling and the diagonal's product.
  t0 = Clock::now();
  db.row_perm = m.row_of;
  db.structural_rank = n;
  db.log_product = diagonal_log_product(A, db.row_perm);
  const double s4_transfer = db_scaling(m, amax, options.scaling, gpu, db, st);  // (copies count in t_transfer, not in t_s4)
  db.u = std::move(m.u);
  db.v = std::move(m.v);
  st.t_s4 = seconds_since(t0) - s4_transfer;
  st.t_total = seconds_since(t_start);
  return db;
} catch (...) {
  rethrow_as_balsa_error("diagonal_boosting");
}

template <class T>
index_t structural_rank(const Csr<T>& A) try {
  validate(A);
  // A square A storing its whole diagonal has the identity as a perfect
  // matching: its rank is n without a search (the search's phases took
  // 0.63 s on bcsstk13, 2003 rows: DirectSolver asked it of every named
  // UMFPACK or CHOLMOD factorisation).
  if (A.rows == A.cols && parallel::first_where(A.rows, [&](index_t i) {
        const auto first = A.col_idx.begin() + A.row_ptr[i], last = A.col_idx.begin() + A.row_ptr[i + 1];
        return std::find(first, last, i) == last;
      }) == A.rows)
    return A.rows;
  return max_matching(A.rows, A.cols, A.row_ptr.data(), A.col_idx.data(), [](index_t, index_t) { return true; });
} catch (...) {
  rethrow_as_balsa_error("structural_rank");
}

template <class T>
Csr<T> apply_boosting(const Csr<T>& A, const DiagonalBoosting& db) try {
  require_square(A, "apply_boosting");
  validate(A);
  const index_t n = A.rows;
  if (db.n != n || db.row_perm.size() != sz(n) || db.row_scale.size() != sz(n) ||
      db.col_scale.size() != sz(n))
    throw DimensionError("apply_boosting: the boosting is for n = " + s(db.n) + " (row_perm " +
                         s(std::int64_t(db.row_perm.size())) + ", row_scale " + s(std::int64_t(db.row_scale.size())) +
                         ", col_scale " + s(std::int64_t(db.col_scale.size())) + " entries), A is " + s(n) + " x " + s(n));
  check_permutation(db.row_perm, n);
  Csr<T> B;
  B.rows = B.cols = n;
  B.row_ptr.assign(sz(n) + 1, 0);
  for (index_t k = 0; k < n; ++k) {
    const index_t i = db.row_perm[k];
    B.row_ptr[k + 1] = B.row_ptr[k] + (A.row_ptr[i + 1] - A.row_ptr[i]);
  }
  B.col_idx.resize(A.col_idx.size());
  B.values.resize(A.values.size());
#pragma omp parallel for schedule(static) if (A.nnz() > kParallel)
  for (index_t k = 0; k < n; ++k) {
    const index_t i = db.row_perm[k];
    const double r = db.row_scale[i];
    for (index_t p = A.row_ptr[i], q = B.row_ptr[k]; p < A.row_ptr[i + 1]; ++p, ++q) {
      B.col_idx[q] = A.col_idx[p];
      B.values[q] = T(r * double(A.values[p]) * db.col_scale[A.col_idx[p]]);
    }
  }
  return B;
} catch (...) {
  rethrow_as_balsa_error("apply_boosting");
}

#define BALSA_INSTANTIATE(T)                                                                  \
  template DiagonalBoosting diagonal_boosting<T>(const Csr<T>&, const MatchingOptions&); \
  template index_t structural_rank<T>(const Csr<T>&);                                    \
  template Csr<T> apply_boosting<T>(const Csr<T>&, const DiagonalBoosting&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa
