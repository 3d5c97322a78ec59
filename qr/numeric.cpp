// The CPU numeric phase of multifrontal QR (qr/numeric.hpp; sparse QR
// paper sec. 2): assembly of each front from its rows of A and its
// children's contribution blocks (copies only), dense Householder QR
// (LAPACK dgeqrf), R's rows kept with the Householder vectors; fronts of
// the same height in the tree are independent and run in parallel.
#include "qr/numeric.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>
#include <string>

extern "C" {
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
double dnrm2_(const int* n, const double* x, const int* incx);
void dlarfg_(const int* n, double* alpha, double* x, const int* incx, double* tau);
void dlarf_(const char* side, const int* m, const int* n, const double* v, const int* incv, const double* tau, double* c,
            const int* ldc, double* work);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int threads);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork, int* info);
}

namespace balsa::qr {

namespace {

// Fronts grouped by height (leaves 0): a front's children are all lower.
std::vector<std::vector<index_t>> by_height(const Symbolic& s) {
  std::vector<index_t> height(s.fronts.size(), 0);
  index_t top = 0;
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    for (index_t ch : s.fronts[std::size_t(f)].children)
      height[std::size_t(f)] = std::max(height[std::size_t(f)], height[std::size_t(ch)] + 1);
    top = std::max(top, height[std::size_t(f)]);
  }
  std::vector<std::vector<index_t>> levels(s.fronts.empty() ? 0 : std::size_t(top) + 1);
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) levels[std::size_t(height[std::size_t(f)])].push_back(f);
  return levels;
}

void geqrf(int m, int n, double* a, int lda, double* tau) {
  int info = 0, lwork = -1;
  double query = 0;
  dgeqrf_(&m, &n, a, &lda, tau, &query, &lwork, &info);
  lwork = std::max(1, int(query));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  dgeqrf_(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  if (info != 0) throw Error("QR: LAPACK dgeqrf failed (info " + std::to_string(info) + ")");
}

// C = Q^T C or Q C (trans "T" / "N") with k reflectors of A (LAPACK dormqr).
void ormqr(const char* trans, int m, int n, int k, const double* a, int lda, const double* tau, double* c, int ldc) {
  int info = 0, lwork = -1;
  double query = 0;
  dormqr_("L", trans, &m, &n, &k, a, &lda, tau, c, &ldc, &query, &lwork, &info);
  lwork = std::max(1, int(query));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  dormqr_("L", trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, &info);
  if (info != 0) throw Error("QR: LAPACK dormqr failed (info " + std::to_string(info) + ")");
}

constexpr index_t kPanel = 64;  // columns per panel: LAPACK's dormqr runs unblocked (dorm2r) for k <= its block size 32

// The blocked Householder QR of a front whose rows are sorted by their
// leftmost column (sec. 2's staircase: stair[j] rows reach column j): each
// panel of 64 columns is factored over the rows that reach it (at least as
// many rows as columns while rows remain, the extra ones zero there, so
// reflector t stays in column t) and its block reflector applied to those
// rows only. Returns false as soon as a pivotal column's |R(j, j)| <=
// tolerance (Heath's path then takes the front); else ff.k reflectors.
bool staircase_qr(FrontFactor& ff, index_t n, index_t pivots, const std::vector<index_t>& stair, double tolerance) {
  const index_t m = ff.m;
  ff.tau.assign(std::size_t(std::min(m, n)), 0.0);
  index_t row = 0;
  for (index_t j0 = 0; j0 < n && row < m; j0 += kPanel) {
    const index_t j1 = std::min(n, j0 + kPanel), width = j1 - j0;
    const index_t end = std::max(stair[std::size_t(j1 - 1)], std::min(m, row + width));
    const index_t rows = end - row, kp = std::min(rows, width);
    double* panel = ff.F.data() + std::size_t(row) + std::size_t(m) * j0;
    const bool rest = end == m;  // every row reaches this panel: the rest is one dense QR (LAPACK's own blocking)
    const index_t last = rest ? n : j1;
    if (rest) {
      ff.flops += front_flops(m - row, n - j0);
      geqrf(int(m - row), int(n - j0), panel, int(m), ff.tau.data() + row);
    } else {
      ff.flops += front_flops(rows, width) + 4.0 * double(rows) * double(n - j1) * double(kp);
      geqrf(int(rows), int(width), panel, int(m), ff.tau.data() + row);
    }
    for (index_t j = j0; j < std::min(last, pivots); ++j)
      if (!(std::abs(ff.F[std::size_t(j) + std::size_t(m) * j]) > tolerance)) return false;
    if (rest) {
      row += std::min(m - row, n - j0);
      break;
    }
    if (j1 < n)
      ormqr("T", int(rows), int(n - j1), int(kp), panel, int(m), ff.tau.data() + row,
            ff.F.data() + std::size_t(row) + std::size_t(m) * j1, int(m));
    row += kp;
  }
  ff.k = row;
  ff.tau.resize(std::size_t(row));
  return true;
}

// Heath's column-by-column Householder QR of the m x n front F (pivotal
// columns 0 .. pivots-1 may die): reflectors into V, R's rows stay in F.
void heath_qr(const Front& Fr, FrontFactor& ff, index_t n, double tolerance) {
  const index_t m = ff.m;
  std::vector<index_t> cols;
  std::vector<double> tau;
  index_t row = 0;
  for (index_t j = 0; j < n && row < m; ++j) {
    double* x = ff.F.data() + std::size_t(m) * j;
    int len = int(m - row), one = 1;
    if (j < Fr.pivots) {
      if (const double norm = dnrm2_(&len, x + row, &one); !(norm > tolerance)) {
        std::fill(x + row, x + m, 0.0);  // dead: dropped (SPQR's E)
        ff.dropped2 += norm * norm;
        continue;
      }
    }
    double t = 0;
    dlarfg_(&len, x + row, x + row + 1, &one, &t);
    if (j + 1 < n && len > 0) {  // apply H = I - t v v^T to the columns right of j
      const double d = x[row];
      x[row] = 1.0;
      int cols_right = int(n - j - 1), ld = int(m);
      std::vector<double> work(static_cast<std::size_t>(cols_right));
      dlarf_("L", &len, &cols_right, x + row, &one, &t, x + std::size_t(m) + row, &ld, work.data());
      x[row] = d;
    }
    cols.push_back(j);
    tau.push_back(t);
    ++row;
  }
  ff.k = row;
  ff.tau = tau;
  ff.V.assign(std::size_t(m) * std::size_t(ff.k), 0.0);
  for (index_t t = 0; t < ff.k; ++t) {  // reflector t: 1 at row t, F below it in column cols[t]
    const index_t j = cols[std::size_t(t)];
    ff.V[std::size_t(t) + std::size_t(m) * t] = 1.0;
    for (index_t r = t + 1; r < m; ++r) {
      ff.V[std::size_t(r) + std::size_t(m) * t] = ff.F[std::size_t(r) + std::size_t(m) * j];
      ff.F[std::size_t(r) + std::size_t(m) * j] = 0.0;
    }
  }
  ff.live = index_t(std::count_if(cols.begin(), cols.end(), [&](index_t j) { return j < Fr.pivots; }));
  ff.r_cols.assign(cols.begin(), cols.begin() + ff.live);
  // The contribution rows: reflectors live .. k-1, on the non-pivotal columns in order.
  ff.cb_rows = ff.k - ff.live;
}

// Front f assembled and factored; its children's contribution blocks freed.
void factor_front(const Csr<double>& A, const Symbolic& s, Numeric& num, index_t f, std::vector<index_t>& local,
                  double tolerance) {
  const Front& Fr = s.fronts[std::size_t(f)];
  FrontFactor& ff = num.fronts[std::size_t(f)];
  const index_t n = Fr.n();
  ff.m = index_t(Fr.rows.size());
  for (index_t ch : Fr.children) ff.m += num.fronts[std::size_t(ch)].cb_rows;
  const index_t m = ff.m;
  for (index_t l = 0; l < n; ++l) local[std::size_t(Fr.cols[std::size_t(l)])] = l;
  // The rows in their natural order (A's, then each child's contribution
  // rows) and their leftmost front columns; the front holds them sorted by
  // that column (the staircase), natural row t at front row ff.place[t].
  std::vector<index_t> leftmost;
  leftmost.reserve(std::size_t(m));
  for (index_t i : Fr.rows) leftmost.push_back(local[std::size_t(s.leftmost[std::size_t(i)])]);
  for (index_t ch : Fr.children) {
    const Front& C = s.fronts[std::size_t(ch)];
    for (index_t r = 0; r < num.fronts[std::size_t(ch)].cb_rows; ++r)
      leftmost.push_back(local[std::size_t(C.cols[std::size_t(C.pivots + r)])]);
  }
  std::vector<index_t> order(static_cast<std::size_t>(m)), stair(static_cast<std::size_t>(n), 0);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t a, index_t b) { return leftmost[std::size_t(a)] < leftmost[std::size_t(b)]; });
  ff.place.resize(std::size_t(m));
  for (index_t t = 0; t < m; ++t) ff.place[std::size_t(order[std::size_t(t)])] = t;
  for (index_t l : leftmost) ++stair[std::size_t(l)];
  for (index_t j = 1; j < n; ++j) stair[std::size_t(j)] += stair[std::size_t(j - 1)];
  const std::vector<index_t>& place = ff.place;
  ff.F.assign(std::size_t(m) * std::size_t(n), 0.0);
  index_t t = 0;
  for (index_t i : Fr.rows) {  // A's rows
    const std::size_t row = std::size_t(place[std::size_t(t)]);
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a)
      ff.F[row + std::size_t(m) * local[std::size_t(s.q_inverse[std::size_t(A.col_idx[a])])]] += A.values[a];
    ++t;
  }
  for (index_t ch : Fr.children) {  // the children's contribution blocks (upper trapezoidal)
    const Front& C = s.fronts[std::size_t(ch)];
    FrontFactor& cf = num.fronts[std::size_t(ch)];
    const index_t rows = cf.cb_rows, cols = C.n() - C.pivots;
    for (index_t u = 0; u < cols; ++u) {
      const index_t l = local[std::size_t(C.cols[std::size_t(C.pivots + u)])];
      for (index_t r = 0; r <= std::min(u, rows - 1); ++r)
        ff.F[std::size_t(place[std::size_t(t + r)]) + std::size_t(m) * l] = cf.cb[std::size_t(r) + std::size_t(rows) * u];
    }
    t += rows;
    std::vector<double>().swap(cf.cb);
  }
  for (index_t l = 0; l < n; ++l) local[std::size_t(Fr.cols[std::size_t(l)])] = -1;
  // Fast path: blocked QR over the staircase; Heath's path when a pivot
  // comes out small or the staircase leaves a column without rows.
  bool dead = m < Fr.pivots;
  if (!dead) {
    const std::vector<double> assembled = ff.F;
    dead = !staircase_qr(ff, n, Fr.pivots, stair, tolerance);
    if (dead) ff.F = assembled;
    ff.live = Fr.pivots;
    ff.cb_rows = ff.k - ff.live;
  }
  if (dead) {
    ff.flops = front_flops(m, n);
    heath_qr(Fr, ff, n, tolerance);
#pragma omp atomic
    ++num.dead_fronts;
  }
  const index_t rows = ff.cb_rows, cols = n - Fr.pivots;  // R's rows beyond the live pivots go to the parent
  ff.cb.assign(std::size_t(rows) * std::size_t(cols), 0.0);
  for (index_t u = 0; u < cols; ++u)
    for (index_t r = 0; r <= std::min(u, rows - 1); ++r)
      ff.cb[std::size_t(r) + std::size_t(rows) * u] = ff.F[std::size_t(ff.live + r) + std::size_t(m) * (Fr.pivots + u)];
}

}  // namespace

double max_column_norm(const Csr<double>& A) {
  // Scaled by each column's largest entry: no overflow near 1e155, no
  // underflow near 1e-160.
  std::vector<double> scale(static_cast<std::size_t>(A.cols), 0.0), sum(scale.size(), 0.0);
  for (index_t a = 0; a < A.nnz(); ++a) {
    double& s = scale[std::size_t(A.col_idx[a])];
    s = std::max(s, std::abs(A.values[a]));
  }
  for (index_t a = 0; a < A.nnz(); ++a) {
    const std::size_t c = std::size_t(A.col_idx[a]);
    if (scale[c] > 0) sum[c] += (A.values[a] / scale[c]) * (A.values[a] / scale[c]);
  }
  double m = 0;
  for (std::size_t c = 0; c < scale.size(); ++c) m = std::max(m, scale[c] * std::sqrt(sum[c]));
  return m;
}

Numeric factorise(const Csr<double>& A, const Symbolic& s, double tolerance) {
  Numeric num;
  num.fronts.resize(s.fronts.size());
  const int threads = omp_get_max_threads();
  std::vector<std::vector<index_t>> local(static_cast<std::size_t>(threads));
  std::exception_ptr error;  // the first failure, rethrown with its type
  // Independent fronts (one level of the tree) run in parallel with
  // single-threaded BLAS, on fewer threads (or one) when the level is too
  // small to pay for a team; a large front (over 1e8 flops) runs alone with
  // BLAS's threads. OpenBLAS's thread count is global: set only on change.
  const int blas_threads = openblas_get_num_threads();
  int blas_now = blas_threads;
  auto set_blas = [&](int t) {
    if (t != blas_now) openblas_set_num_threads(blas_now = t);
  };
  struct Restore {
    int threads;
    ~Restore() { openblas_set_num_threads(threads); }
  } restore{blas_threads};
  auto run = [&](const std::vector<index_t>& fronts, int team, int blas) {
    if (fronts.empty()) return;
    set_blas(blas);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (team > 1)
    for (std::size_t x = 0; x < fronts.size(); ++x) {
      try {
        std::vector<index_t>& map = local[std::size_t(omp_get_thread_num())];
        if (map.empty()) map.assign(std::size_t(A.cols), -1);
        factor_front(A, s, num, fronts[x], map, tolerance);
      } catch (...) {
#pragma omp critical(balsa_qr_factor_error)
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  };
  for (const std::vector<index_t>& level : by_height(s)) {
    std::vector<index_t> small, large;
    double small_flops = 0;
    for (index_t f : level) {
      const Front& F = s.fronts[std::size_t(f)];
      const double flops = front_flops(F.m(), F.n());
      if (flops > 1e8) {
        large.push_back(f);
      } else {
        small.push_back(f);
        small_flops += flops;
      }
    }
    // A thread per 2e6 flops of the level at most: a team costs more than
    // the tiny fronts of a deep tree's upper levels.
    const int team = int(std::clamp<double>(std::min(double(small.size()), small_flops / 2e6), 1, threads));
    run(small, team, 1);
    for (index_t f : large) run({f}, 1, blas_threads);
  }
  double dropped2 = 0;
  for (const FrontFactor& ff : num.fronts) {
    num.rank += ff.live;
    num.flops += ff.flops;
    dropped2 += ff.dropped2;
  }
  num.dropped = std::sqrt(dropped2);
  return num;
}

std::vector<double> solve(const Symbolic& s, const Numeric& num, const std::vector<double>& B, index_t nrhs,
                          std::vector<double>* residual_norms) {
  const index_t M = s.m, n = s.n;
  std::vector<double> y(std::size_t(n) * std::size_t(nrhs), 0.0), res2(std::size_t(nrhs), 0.0);
  for (index_t i = 0; i < M; ++i)  // empty rows of A: all residual
    if (s.leftmost[std::size_t(i)] < 0)
      for (index_t c = 0; c < nrhs; ++c) res2[std::size_t(c)] += B[std::size_t(i) + std::size_t(M) * c] * B[std::size_t(i) + std::size_t(M) * c];
  // Q^T B, front by front in postorder: each front's rows of B and its
  // children's transformed contribution rows, its reflectors applied.
  std::vector<std::vector<double>> cb(s.fronts.size());
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    const Front& Fr = s.fronts[std::size_t(f)];
    const FrontFactor& ff = num.fronts[std::size_t(f)];
    const index_t m = ff.m, k = ff.k;
    std::vector<double> bf(std::size_t(m) * std::size_t(nrhs), 0.0);
    const std::vector<index_t>& place = ff.place;
    index_t t = 0;
    for (index_t i : Fr.rows) {
      for (index_t c = 0; c < nrhs; ++c) bf[std::size_t(place[std::size_t(t)]) + std::size_t(m) * c] = B[std::size_t(i) + std::size_t(M) * c];
      ++t;
    }
    for (index_t ch : Fr.children) {
      const index_t rows = num.fronts[std::size_t(ch)].cb_rows;
      for (index_t c = 0; c < nrhs; ++c)
        for (index_t r = 0; r < rows; ++r)
          bf[std::size_t(place[std::size_t(t + r)]) + std::size_t(m) * c] = cb[std::size_t(ch)][std::size_t(r) + std::size_t(rows) * c];
      t += rows;
      std::vector<double>().swap(cb[std::size_t(ch)]);
    }
    if (k > 0) ormqr("T", int(m), int(nrhs), int(k), ff.reflectors(), int(m), ff.tau.data(), bf.data(), int(m));
    const index_t rr = ff.live, rows = ff.cb_rows;
    cb[std::size_t(f)].assign(std::size_t(rows) * std::size_t(nrhs), 0.0);
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t row = 0; row < rr; ++row)
        y[std::size_t(Fr.cols[std::size_t(ff.r_col(row))]) + std::size_t(n) * c] = bf[std::size_t(row) + std::size_t(m) * c];
      for (index_t r = 0; r < rows; ++r)
        cb[std::size_t(f)][std::size_t(r) + std::size_t(rows) * c] = bf[std::size_t(rr + r) + std::size_t(m) * c];
      for (index_t r = k; r < m; ++r) res2[std::size_t(c)] += bf[std::size_t(r) + std::size_t(m) * c] * bf[std::size_t(r) + std::size_t(m) * c];
    }
  }
  // R x = y, fronts in reverse postorder (parents' columns first).
  std::vector<double> x(std::size_t(n) * std::size_t(nrhs), 0.0);
  for (index_t f = index_t(s.fronts.size()) - 1; f >= 0; --f) {
    const Front& Fr = s.fronts[std::size_t(f)];
    const FrontFactor& ff = num.fronts[std::size_t(f)];
    const index_t m = ff.m;
    for (index_t c = 0; c < nrhs; ++c)
      for (index_t t = ff.live - 1; t >= 0; --t) {  // R's row t: diagonal at front column j
        const index_t j = ff.r_col(t);
        double sum = y[std::size_t(Fr.cols[std::size_t(j)]) + std::size_t(n) * c];
        for (index_t l = j + 1; l < Fr.n(); ++l)
          sum -= ff.F[std::size_t(t) + std::size_t(m) * l] * x[std::size_t(Fr.cols[std::size_t(l)]) + std::size_t(n) * c];
        x[std::size_t(Fr.cols[std::size_t(j)]) + std::size_t(n) * c] = sum / ff.F[std::size_t(t) + std::size_t(m) * j];
      }
  }
  std::vector<double> X(x.size());
  for (index_t c = 0; c < nrhs; ++c)
    for (index_t j = 0; j < n; ++j) X[std::size_t(s.q[std::size_t(j)]) + std::size_t(n) * c] = x[std::size_t(j) + std::size_t(n) * c];
  if (residual_norms) {
    residual_norms->resize(std::size_t(nrhs));
    for (index_t c = 0; c < nrhs; ++c) (*residual_norms)[std::size_t(c)] = std::sqrt(res2[std::size_t(c)]);
  }
  return X;
}

std::vector<double> solve_min_norm(const Symbolic& s, const Numeric& num, const std::vector<double>& B, index_t nrhs) {
  const index_t M = s.m, n = s.n;  // A^T is M x n: x has M entries, b has n
  std::vector<double> z(std::size_t(n) * std::size_t(nrhs), 0.0), acc(z.size());
  for (index_t c = 0; c < nrhs; ++c)  // P^T b: permuted column j of A^T is A's row q[j]
    for (index_t j = 0; j < n; ++j) acc[std::size_t(j) + std::size_t(n) * c] = B[std::size_t(s.q[std::size_t(j)]) + std::size_t(n) * c];
  // R^T z = P^T b: R's rows in postorder; row t's column j first, then its
  // entries to the right update the columns they reach.
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    const Front& Fr = s.fronts[std::size_t(f)];
    const FrontFactor& ff = num.fronts[std::size_t(f)];
    for (index_t c = 0; c < nrhs; ++c)
      for (index_t t = 0; t < ff.live; ++t) {
        const index_t j = ff.r_col(t);
        const std::size_t at = std::size_t(Fr.cols[std::size_t(j)]) + std::size_t(n) * c;
        z[at] = acc[at] / ff.F[std::size_t(t) + std::size_t(ff.m) * j];
        for (index_t l = j + 1; l < Fr.n(); ++l)
          acc[std::size_t(Fr.cols[std::size_t(l)]) + std::size_t(n) * c] -= ff.F[std::size_t(t) + std::size_t(ff.m) * l] * z[at];
      }
  }
  // x = Q [z; 0]: parents first; each front's R rows from z, its
  // contribution rows from what its parent handed down, the rest 0.
  std::vector<double> X(std::size_t(M) * std::size_t(nrhs), 0.0);
  std::vector<std::vector<double>> down(s.fronts.size());
  for (index_t f = index_t(s.fronts.size()) - 1; f >= 0; --f) {
    const Front& Fr = s.fronts[std::size_t(f)];
    const FrontFactor& ff = num.fronts[std::size_t(f)];
    const index_t m = ff.m;
    std::vector<double> v(std::size_t(m) * std::size_t(nrhs), 0.0);
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t t = 0; t < ff.live; ++t)
        v[std::size_t(t) + std::size_t(m) * c] = z[std::size_t(Fr.cols[std::size_t(ff.r_col(t))]) + std::size_t(n) * c];
      for (index_t r = 0; r < ff.cb_rows; ++r)
        v[std::size_t(ff.live + r) + std::size_t(m) * c] = down[std::size_t(f)][std::size_t(r) + std::size_t(ff.cb_rows) * c];
    }
    std::vector<double>().swap(down[std::size_t(f)]);
    if (ff.k > 0) ormqr("N", int(m), int(nrhs), int(ff.k), ff.reflectors(), int(m), ff.tau.data(), v.data(), int(m));
    const std::vector<index_t>& place = ff.place;
    index_t t = 0;
    for (index_t i : Fr.rows) {  // A^T's rows: x's entries
      for (index_t c = 0; c < nrhs; ++c) X[std::size_t(i) + std::size_t(M) * c] = v[std::size_t(place[std::size_t(t)]) + std::size_t(m) * c];
      ++t;
    }
    for (index_t ch : Fr.children) {
      const index_t rows = num.fronts[std::size_t(ch)].cb_rows;
      down[std::size_t(ch)].assign(std::size_t(rows) * std::size_t(nrhs), 0.0);
      for (index_t c = 0; c < nrhs; ++c)
        for (index_t r = 0; r < rows; ++r)
          down[std::size_t(ch)][std::size_t(r) + std::size_t(rows) * c] = v[std::size_t(place[std::size_t(t + r)]) + std::size_t(m) * c];
      t += rows;
    }
  }
  return X;
}

}  // namespace balsa::qr
