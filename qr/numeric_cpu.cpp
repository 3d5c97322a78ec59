// The CPU numeric phase of multifrontal QR (qr/numeric_cpu.hpp; sparse QR
// paper sec. 2): assembly of each front from its rows of A and its
// children's contribution blocks (copies only), Householder QR over the
// staircase (LAPACK dgeqrf/dormqr by panel), R's rows and the panels'
// Householder vectors kept compact; independent subtrees in parallel.
#include "qr/numeric_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <string>

#include "core/lapack.hpp"

namespace balsa::qr {

namespace {

// OpenBLAS's thread count is process-wide: a guard sets it for a scope.
// Guards count themselves under one mutex (several SparseQR objects may
// factor or solve at once on different threads): the first saves the
// caller's count, the last restores it; in between the latest set wins
// (a performance matter only).
class BlasThreads {
 public:
  explicit BlasThreads(int threads) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (active_++ == 0) saved_ = openblas_get_num_threads();
    openblas_set_num_threads(now_ = threads);
  }
  ~BlasThreads() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (--active_ == 0) openblas_set_num_threads(saved_);
  }
  BlasThreads(const BlasThreads&) = delete;
  BlasThreads& operator=(const BlasThreads&) = delete;
  void set(int threads) {
    if (threads == now_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    openblas_set_num_threads(now_ = threads);
  }
  static int saved() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return saved_;
  }

 private:
  int now_ = -1;
  static inline std::mutex mutex_;
  static inline int active_ = 0, saved_ = 1;
};

}  // namespace

void geqrf(int m, int n, double* a, int lda, double* tau) {
  int info = 0, lwork = -1;
  double query = 0;
  LAPACK_dgeqrf(&m, &n, a, &lda, tau, &query, &lwork, &info);
  lwork = std::max(1, int(query));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  LAPACK_dgeqrf(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  if (info != 0) throw Error("QR: LAPACK dgeqrf failed (info " + std::to_string(info) + ")");
}

// C = Q^T C or Q C (trans "T" / "N") with k reflectors of A (LAPACK
// dormqr; declared in numeric_cpu.hpp). C of at most 8 columns takes the reflectors one by one
// (dorm2r): the block reflector's T costs m k^2 / 2 flops, k / 2 times the
// products themselves for one column.
void ormqr(const char* trans, int m, int n, int k, const double* a, int lda, const double* tau, double* c, int ldc) {
  int info = 0, lwork = -1;
  if (n <= 8) {  // dorm2r's loop (lapack.h does not declare that auxiliary routine)
    const bool forward = trans[0] == 'T';  // Q^T = H(k) ... H(1): H(1) first
    const int one = 1;
    double work[8];
    std::vector<double> v(static_cast<std::size_t>(std::max(m, 1)));
    for (int t = 0; t < k; ++t) {
      const int i = forward ? t : k - 1 - t, len = m - i;
      const double* column = a + std::size_t(i) * std::size_t(lda);
      v[0] = 1.0;  // the reflector's implicit unit head
      std::copy(column + i + 1, column + m, v.begin() + 1);
      LAPACK_dlarf("L", &len, &n, v.data(), &one, tau + i, c + i, &ldc, work);
    }
    return;
  }
  double query = 0;
  LAPACK_dormqr("L", trans, &m, &n, &k, a, &lda, tau, c, &ldc, &query, &lwork, &info);
  lwork = std::max(1, int(query));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  LAPACK_dormqr("L", trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, &info);
  if (info != 0) throw Error("QR: LAPACK dormqr failed (info " + std::to_string(info) + ")");
}

namespace {

// Panel p's reflectors one column at a time (LAPACK dlarfg, dlarf), each
// over its own rows of the staircase and applied to the panel's columns
// to its right: what dgeqrf computes (the rows below a reflector's end
// are zero in its column), without the products with those zeros.
void staircase_panel(double* F, index_t m, const Panel& p, const std::vector<index_t>& stair, double* tau) {
  const index_t right = p.row + p.cols;
  std::vector<double> work(static_cast<std::size_t>(std::max<index_t>(1, p.cols)));
  for (index_t j = p.row; j < p.row + p.k; ++j) {
    double* x = F + std::size_t(m) * std::size_t(j);
    int len = int(reflector_end(stair, m, j) - j), one = 1;
    LAPACK_dlarfg(&len, x + j, x + j + 1, &one, tau + j);
    if (j + 1 < right) {
      const double d = x[j];
      x[j] = 1.0;
      int cols = int(right - j - 1), ld = int(m);
      LAPACK_dlarf("L", &len, &cols, x + j, &one, tau + j, x + std::size_t(m) + j, &ld, work.data());
      x[j] = d;
    }
  }
}

// The blocked Householder QR of a front over its staircase panels: each
// panel factored over the rows that reach it (column by column up to 64
// columns, dgeqrf for the wide dense rest), its block reflector applied
// (dormqr) to those rows of the columns to its right. Returns false as
// soon as a pivotal column's |R(j, j)| <= tolerance (Heath's path then
// takes the front); else ff.k reflectors.
bool staircase_qr(FrontFactor& ff, std::vector<double>& F, index_t n, index_t pivots, const std::vector<index_t>& stair,
                  double tolerance) {
  const index_t m = ff.m;
  ff.tau.assign(std::size_t(std::min(m, n)), 0.0);
  index_t row = 0;
  for (const Panel& p : ff.panels) {
    double* panel = F.data() + std::size_t(p.row) + std::size_t(m) * std::size_t(p.row);
    if (p.cols <= kPanelWidth) {
      staircase_panel(F.data(), m, p, stair, ff.tau.data());
    } else {
      geqrf(int(p.rows), int(p.cols), panel, int(m), ff.tau.data() + p.row);
    }
    for (index_t j = p.row; j < std::min(p.row + p.cols, pivots); ++j)
      if (!(std::abs(F[std::size_t(j) + std::size_t(m) * j]) > tolerance)) return false;
    const index_t right = p.row + p.cols;
    if (right < n)
      ormqr("T", int(p.rows), int(n - right), int(p.k), panel, int(m), ff.tau.data() + p.row,
            F.data() + std::size_t(p.row) + std::size_t(m) * right, int(m));
    row = p.row + p.k;
  }
  ff.flops = panel_flops(ff.panels, m, n, stair);
  ff.k = row;
  ff.tau.resize(std::size_t(row));
  return true;
}

// Heath's column-by-column Householder QR of the m x n front F (pivotal
// columns 0 .. pivots-1 may die): reflectors into V (one panel of m rows),
// R's rows stay in F, reflector t's row.
void heath_qr(const Front& Fr, FrontFactor& ff, std::vector<double>& F, index_t n, double tolerance) {
  const index_t m = ff.m;
  std::vector<index_t> cols;
  std::vector<double> tau;
  index_t row = 0;
  for (index_t j = 0; j < n && row < m; ++j) {
    double* x = F.data() + std::size_t(m) * j;
    int len = int(m - row), one = 1;
    if (j < Fr.pivots) {
      if (const double norm = cblas_dnrm2(len, x + row, one); !(norm > tolerance)) {
        std::fill(x + row, x + m, 0.0);  // dead: dropped (SPQR's E)
        ff.dropped2 += norm * norm;
        continue;
      }
    }
    double t = 0;
    LAPACK_dlarfg(&len, x + row, x + row + 1, &one, &t);
    if (j + 1 < n && len > 0) {  // apply H = I - t v v^T to the columns right of j
      const double d = x[row];
      x[row] = 1.0;
      int cols_right = int(n - j - 1), ld = int(m);
      std::vector<double> work(static_cast<std::size_t>(cols_right));
      LAPACK_dlarf("L", &len, &cols_right, x + row, &one, &t, x + std::size_t(m) + row, &ld, work.data());
      x[row] = d;
    }
    cols.push_back(j);
    tau.push_back(t);
    ++row;
  }
  ff.k = row;
  ff.tau = tau;
  ff.panels = {Panel{0, m, n, ff.k, 0}};
  ff.V.assign(std::size_t(m) * std::size_t(ff.k), 0.0);
  for (index_t t = 0; t < ff.k; ++t) {  // reflector t: 1 at row t, F below it in column cols[t]
    const index_t j = cols[std::size_t(t)];
    ff.V[std::size_t(t) + std::size_t(m) * t] = 1.0;
    for (index_t r = t + 1; r < m; ++r) {
      ff.V[std::size_t(r) + std::size_t(m) * t] = F[std::size_t(r) + std::size_t(m) * j];
      F[std::size_t(r) + std::size_t(m) * j] = 0.0;
    }
  }
  ff.live = index_t(std::count_if(cols.begin(), cols.end(), [&](index_t j) { return j < Fr.pivots; }));
  ff.r_cols.assign(cols.begin(), cols.begin() + ff.live);
  // The contribution rows: reflectors live .. k-1, on the non-pivotal columns in order.
  ff.cb_rows = ff.k - ff.live;
}

// The factored front F kept compact: R's live rows from their diagonal
// on, the staircase panels' reflector blocks (Heath's V is already one),
// and the contribution block for the parent; F is then dropped.
void keep_compact(const Front& Fr, FrontFactor& ff, const std::vector<double>& F, bool heath) {
  const index_t m = ff.m, n = Fr.n();
  ff.r_start.resize(std::size_t(ff.live));
  std::size_t size = 0;
  for (index_t t = 0; t < ff.live; ++t) {
    ff.r_start[std::size_t(t)] = size;
    size += std::size_t(n - ff.r_col(t));
  }
  ff.R.resize(size);
  for (index_t t = 0; t < ff.live; ++t)
    for (index_t l = ff.r_col(t); l < n; ++l)
      ff.R[ff.r_start[std::size_t(t)] + std::size_t(l - ff.r_col(t))] = F[std::size_t(t) + std::size_t(m) * l];
  if (!heath && !ff.panels.empty()) {
    ff.panels.resize(std::size_t(std::count_if(ff.panels.begin(), ff.panels.end(), [&](const Panel& p) { return p.row < ff.k; })));
    const Panel& last = ff.panels.back();
    ff.V.resize(last.at + std::size_t(last.rows) * std::size_t(last.k));
    for (const Panel& p : ff.panels)
      for (index_t c = 0; c < p.k; ++c)
        std::copy_n(F.data() + std::size_t(p.row) + std::size_t(m) * std::size_t(p.row + c), std::size_t(p.rows),
                    ff.V.data() + p.at + std::size_t(p.rows) * std::size_t(c));
  }
  const index_t rows = ff.cb_rows, cols = n - Fr.pivots;  // R's rows beyond the live pivots go to the parent
  ff.cb.assign(std::size_t(rows) * std::size_t(cols), 0.0);
  for (index_t u = 0; u < cols; ++u)
    for (index_t r = 0; r <= std::min(u, rows - 1); ++r)
      ff.cb[std::size_t(r) + std::size_t(rows) * u] = F[std::size_t(ff.live + r) + std::size_t(m) * (Fr.pivots + u)];
}

}  // namespace

// Front f assembled and factored; its children's contribution blocks freed.
void factor_front(const Csr<double>& A, const Symbolic& s, Numeric& num, index_t f, std::vector<index_t>& local,
                  double tolerance) {
  const Front& Fr = s.fronts[std::size_t(f)];
  FrontFactor& ff = num.fronts[std::size_t(f)];
  const index_t n = Fr.n();
  // The rows in their natural order (A's, then each child's actual
  // contribution rows) and their leftmost front columns; the front holds
  // them sorted by that column (the staircase), natural row t at ff.place[t].
  const std::vector<index_t> leftmost =
      row_leftmost(s, f, [&](index_t ch) { return num.fronts[std::size_t(ch)].cb_rows; }, local);
  const index_t m = ff.m = index_t(leftmost.size());
  std::vector<index_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t a, index_t b) { return leftmost[std::size_t(a)] < leftmost[std::size_t(b)]; });
  ff.place.resize(std::size_t(m));
  for (index_t t = 0; t < m; ++t) ff.place[std::size_t(order[std::size_t(t)])] = t;
  const std::vector<index_t>& place = ff.place;
  for (index_t l = 0; l < n; ++l) local[std::size_t(Fr.cols[std::size_t(l)])] = l;
  std::vector<double> F(std::size_t(m) * std::size_t(n), 0.0);
  index_t t = 0;
  for (index_t i : Fr.rows) {  // A's rows
    const std::size_t row = std::size_t(place[std::size_t(t)]);
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a)
      F[row + std::size_t(m) * local[std::size_t(s.q_inverse[std::size_t(A.col_idx[a])])]] += A.values[a];
    ++t;
  }
  for (index_t ch : Fr.children) {  // the children's contribution blocks (upper trapezoidal)
    const Front& C = s.fronts[std::size_t(ch)];
    FrontFactor& cf = num.fronts[std::size_t(ch)];
    const index_t rows = cf.cb_rows, cols = C.n() - C.pivots;
    for (index_t u = 0; u < cols; ++u) {
      const index_t l = local[std::size_t(C.cols[std::size_t(C.pivots + u)])];
      for (index_t r = 0; r <= std::min(u, rows - 1); ++r)
        F[std::size_t(place[std::size_t(t + r)]) + std::size_t(m) * l] = cf.cb[std::size_t(r) + std::size_t(rows) * u];
    }
    t += rows;
    std::vector<double>().swap(cf.cb);
  }
  for (index_t l = 0; l < n; ++l) local[std::size_t(Fr.cols[std::size_t(l)])] = -1;
  // Fast path: blocked QR over the staircase; Heath's path when a pivot
  // comes out small or the staircase leaves a column without rows.
  bool dead = m < Fr.pivots;
  if (!dead) {
    const std::vector<index_t> stair = stair_of(leftmost, n);
    ff.panels = staircase_panels(m, n, stair);
    const std::vector<double> assembled = F;
    dead = !staircase_qr(ff, F, n, Fr.pivots, stair, tolerance);
    if (dead) F = assembled;
    ff.live = Fr.pivots;
    ff.cb_rows = ff.k - ff.live;
  }
  if (dead) {
    ff.flops = front_flops(m, n);
    heath_qr(Fr, ff, F, n, tolerance);
#pragma omp atomic
    ++num.dead_fronts;
  }
  keep_compact(Fr, ff, F, dead);
}

namespace {

// Runs the fronts of a subtree forest as tasks: a front starts when its
// last child ends (waiting counts them down).
struct SubtreeTasks {
  const Csr<double>& A;
  const Symbolic& s;
  Numeric& num;
  double tolerance;
  const std::vector<char>& top;  // fronts left to the sequential phase
  std::vector<std::vector<index_t>>& local;
  std::vector<std::atomic<index_t>> waiting;
  std::exception_ptr error;
  std::atomic<bool> failed{false};

  void spawn(index_t f) {
#pragma omp task firstprivate(f) default(shared)
    {
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          std::vector<index_t>& map = local[std::size_t(omp_get_thread_num())];
          if (map.empty()) map.assign(std::size_t(A.cols), -1);
          factor_front(A, s, num, f, map, tolerance);
          const index_t p = s.fronts[std::size_t(f)].parent;
          if (p >= 0 && !top[std::size_t(p)] && waiting[std::size_t(p)].fetch_sub(1) == 1) spawn(p);
        } catch (...) {
#pragma omp critical(balsa_qr_factor_error)
          if (!error) error = std::current_exception();
          failed = true;
        }
      }
    }
  }
};

}  // namespace

std::size_t FrontFactor::bytes() const {
  return 8 * (V.size() + tau.size() + R.size() + r_start.size()) + sizeof(index_t) * (place.size() + r_cols.size()) +
         sizeof(Panel) * panels.size() +
         (tile ? sizeof(index_t) * tile->row.size() + 8 * tile->vt.size() + sizeof(Bundle) * tile->schedule.bundles.size()
               : 0);
}

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
  const index_t nf = index_t(s.fronts.size());
  num.fronts.resize(std::size_t(nf));
  const int threads = omp_get_max_threads();
  // The top: fronts over 1e8 flops (BLAS's threads pay there) and their
  // ancestors; below it, whole subtrees, independent of each other.
  std::vector<char> top(std::size_t(nf), 0);
  for (index_t f = 0; f < nf; ++f) {  // postorder: a parent after its children
    const Front& F = s.fronts[std::size_t(f)];
    if (front_flops(F.m(), F.n()) > kLargeFrontFlops) top[std::size_t(f)] = 1;
    if (top[std::size_t(f)] && F.parent >= 0) top[std::size_t(F.parent)] = 1;
  }
  // One BLAS thread inside the tasks, the caller's count for the top. A
  // tiny problem (under 1e7 flops in all) runs on one thread: a team costs
  // more.
  BlasThreads blas(1);
  std::vector<std::vector<index_t>> local(static_cast<std::size_t>(threads));
  const bool tasks_pay = threads > 1 && s.dense_flops > 1e7;
  if (tasks_pay) {
    SubtreeTasks tasks{A, s, num, tolerance, top, local, std::vector<std::atomic<index_t>>(std::size_t(nf)), nullptr};
    for (index_t f = 0; f < nf; ++f) tasks.waiting[std::size_t(f)] = index_t(s.fronts[std::size_t(f)].children.size());
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (index_t f = 0; f < nf; ++f)
      if (!top[std::size_t(f)] && s.fronts[std::size_t(f)].children.empty()) tasks.spawn(f);
    if (tasks.error) std::rethrow_exception(tasks.error);
  }
  local[0].assign(std::size_t(A.cols), -1);
  for (index_t f = 0; f < nf; ++f) {  // the top (everything when no tasks ran)
    if (tasks_pay && !top[std::size_t(f)]) continue;
    blas.set(top[std::size_t(f)] ? BlasThreads::saved() : 1);
    factor_front(A, s, num, f, local[0], tolerance);
  }
  sum_fronts(num);
  return num;
}

void sum_fronts(Numeric& num) {
  num.rank = 0;
  num.flops = 0;
  double dropped2 = 0;
  for (const FrontFactor& ff : num.fronts) {
    num.rank += ff.live;
    num.flops += ff.flops;
    dropped2 += ff.dropped2;
  }
  num.dropped = std::sqrt(dropped2);
}

namespace {

// Q^T C (trans "T") or Q C ("N") for the front's reflectors, panel by
// panel over the rows each reaches: C m x nrhs, column-major.
void apply_front_q(const FrontFactor& ff, const char* trans, double* C, index_t nrhs) {
  const bool forward = trans[0] == 'T';
  if (ff.tile) {  // the GPU's reflectors: the tile schedule's bundles, or the dense library's
    const TileFront& t = *ff.tile;
    if (t.dense_m > 0) {
      ormqr(trans, int(t.dense_m), int(nrhs), int(t.dense_k), ff.V.data(), int(ff.m), ff.tau.data(), C, int(ff.m));
    } else {
      apply_schedule_q_host(t.schedule, ff.V.data(), ff.m, t.vt.data(), C, ff.m, nrhs, forward);
    }
    return;
  }
  const index_t np = index_t(ff.panels.size());
  for (index_t x = 0; x < np; ++x) {
    const Panel& p = ff.panels[std::size_t(forward ? x : np - 1 - x)];
    if (p.k > 0)
      ormqr(trans, int(p.rows), int(nrhs), int(p.k), ff.V.data() + p.at, int(p.rows), ff.tau.data() + p.row,
            C + p.row, int(ff.m));
  }
}

}  // namespace

void q_transpose_times(const Symbolic& s, const Numeric& num, const std::vector<double>& B, index_t nrhs,
                       const std::vector<index_t>& front_row, double* Y, index_t ldy) {
  const BlasThreads blas(1);  // a few right-hand sides: threads cost more than they give
  const index_t M = s.m;
  // Front by front in postorder: its rows of B and its children's
  // transformed contribution rows, its reflectors applied; R's rows to Y,
  // the contribution rows to the parent.
  std::vector<std::vector<double>> cb(s.fronts.size());
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    const Front& Fr = s.fronts[std::size_t(f)];
    const FrontFactor& ff = num.fronts[std::size_t(f)];
    const index_t m = ff.m;
    std::vector<double> bf(std::size_t(m) * std::size_t(nrhs), 0.0);
    const std::vector<index_t>& place = ff.place;
    index_t t = 0;  // (a tile front's place is -1 for the rows its plan drops: zero rows)
    for (index_t i : Fr.rows) {
      if (const index_t row = place[std::size_t(t)]; row >= 0)
        for (index_t c = 0; c < nrhs; ++c) bf[std::size_t(row) + std::size_t(m) * c] = B[std::size_t(i) + std::size_t(M) * c];
      ++t;
    }
    for (index_t ch : Fr.children) {
      const index_t rows = num.fronts[std::size_t(ch)].cb_rows;
      for (index_t r = 0; r < rows; ++r)
        if (const index_t row = place[std::size_t(t + r)]; row >= 0)
          for (index_t c = 0; c < nrhs; ++c)
            bf[std::size_t(row) + std::size_t(m) * c] = cb[std::size_t(ch)][std::size_t(r) + std::size_t(rows) * c];
      t += rows;
      std::vector<double>().swap(cb[std::size_t(ch)]);
    }
    apply_front_q(ff, "T", bf.data(), nrhs);
    const index_t rows = ff.cb_rows;
    cb[std::size_t(f)].assign(std::size_t(rows) * std::size_t(nrhs), 0.0);
    const auto at = [&](index_t k, index_t c) {  // row k of [R; cb] (0: a zero row)
      const index_t row = ff.row_of(k);
      return row < 0 ? 0.0 : bf[std::size_t(row) + std::size_t(m) * c];
    };
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t k = 0; k < ff.live; ++k) Y[std::size_t(front_row[std::size_t(f)] + k) + std::size_t(ldy) * c] = at(k, c);
      for (index_t r = 0; r < rows; ++r) cb[std::size_t(f)][std::size_t(r) + std::size_t(rows) * c] = at(ff.live + r, c);
    }
  }
}

std::vector<double> q_times(const Symbolic& s, const Numeric& num, const double* Z, index_t ldz, index_t nrhs,
                            const std::vector<index_t>& front_row) {
  const BlasThreads blas(1);
  const index_t M = s.m;
  // Parents first: each front's R rows from Z, its contribution rows from
  // what its parent handed down, the rest 0; its reflectors applied; its
  // rows of A (F) are X's, its children's rows handed down.
  std::vector<double> X(std::size_t(M) * std::size_t(nrhs), 0.0);
  std::vector<std::vector<double>> down(s.fronts.size());
  for (index_t f = index_t(s.fronts.size()) - 1; f >= 0; --f) {
    const Front& Fr = s.fronts[std::size_t(f)];
    const FrontFactor& ff = num.fronts[std::size_t(f)];
    const index_t m = ff.m;
    std::vector<double> v(std::size_t(m) * std::size_t(nrhs), 0.0);
    const auto set = [&](index_t k, index_t c, double value) {  // row k of [R; cb] (a zero row stays 0)
      if (const index_t row = ff.row_of(k); row >= 0) v[std::size_t(row) + std::size_t(m) * c] = value;
    };
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t t = 0; t < ff.live; ++t) set(t, c, Z[std::size_t(front_row[std::size_t(f)] + t) + std::size_t(ldz) * c]);
      for (index_t r = 0; r < ff.cb_rows; ++r)
        set(ff.live + r, c, down[std::size_t(f)][std::size_t(r) + std::size_t(ff.cb_rows) * c]);
    }
    std::vector<double>().swap(down[std::size_t(f)]);
    apply_front_q(ff, "N", v.data(), nrhs);
    const std::vector<index_t>& place = ff.place;
    const auto row_value = [&](index_t t, index_t c) {  // natural row t's (a row the plan drops: 0)
      const index_t row = place[std::size_t(t)];
      return row < 0 ? 0.0 : v[std::size_t(row) + std::size_t(m) * c];
    };
    index_t t = 0;
    for (index_t i : Fr.rows) {
      for (index_t c = 0; c < nrhs; ++c) X[std::size_t(i) + std::size_t(M) * c] = row_value(t, c);
      ++t;
    }
    for (index_t ch : Fr.children) {
      const index_t rows = num.fronts[std::size_t(ch)].cb_rows;
      down[std::size_t(ch)].assign(std::size_t(rows) * std::size_t(nrhs), 0.0);
      for (index_t c = 0; c < nrhs; ++c)
        for (index_t r = 0; r < rows; ++r) down[std::size_t(ch)][std::size_t(r) + std::size_t(rows) * c] = row_value(t + r, c);
      t += rows;
    }
  }
  return X;
}

}  // namespace balsa::qr
