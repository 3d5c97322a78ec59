// Symbolic analysis of multifrontal QR (qr/symbolic.hpp). The column
// elimination tree of A^T A, its postorder, R's column counts and the
// relaxed supernodes come from CHOLMOD's supernodal analysis of A^T (the
// Cholesky factor of A^T A has R's pattern for a strong-Hall A, and bounds
// it otherwise; A^T A is never formed); the fronts, row assignment
// (staircase), sizes, flops and stages are balsa's (paper sec. 2).
#include "qr/symbolic.hpp"

#include <cholmod.h>

#include "qr/cholmod_view.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace balsa::qr {

double front_flops(index_t m, index_t n) {
  double f = 0;
  for (index_t j = 0; j < std::min(m, n); ++j) f += 4.0 * double(m - j) * double(n - j);
  return f;
}

std::vector<Panel> staircase_panels(index_t m, index_t n, const std::vector<index_t>& stair) {
  std::vector<Panel> panels;
  std::size_t at = 0;
  index_t row = 0;
  for (index_t j0 = 0; j0 < n && row < m; j0 += kPanelWidth) {  // row == j0 but in the last panel
    const index_t j1 = std::min(n, j0 + kPanelWidth);
    const bool dense = stair[std::size_t(j0)] >= m;  // every row reaches column j0: the rest is one dense QR
    Panel p;
    p.row = row;
    p.rows = dense ? m - row : std::max(stair[std::size_t(j1 - 1)], std::min(m, row + (j1 - j0))) - row;
    p.cols = dense ? n - j0 : j1 - j0;
    p.k = std::min(p.rows, p.cols);
    p.at = at;
    at += std::size_t(p.rows) * std::size_t(p.k);
    panels.push_back(p);
    row += p.k;
    if (dense) break;
  }
  return panels;
}

index_t reflector_end(const std::vector<index_t>& stair, index_t m, index_t j) {
  return std::min(m, std::max(stair[std::size_t(j)], j + 1));
}

double panel_flops(const std::vector<Panel>& panels, index_t m, index_t n, const std::vector<index_t>& stair) {
  double f = 0;
  for (const Panel& p : panels) {
    const index_t right = p.row + p.cols;
    if (p.cols <= kPanelWidth) {  // column by column over the staircase
      for (index_t j = p.row; j < p.row + p.k; ++j)
        f += 4.0 * double(reflector_end(stair, m, j) - j) * double(right - j);
    } else {
      f += front_flops(p.rows, p.cols);
    }
    f += 4.0 * double(p.rows) * double(n - right) * double(p.k);  // the block reflector on the columns right of it
  }
  return f;
}

std::vector<index_t> stair_of(const std::vector<index_t>& leftmost, index_t n) {
  std::vector<index_t> stair(static_cast<std::size_t>(n), 0);
  for (index_t l : leftmost) ++stair[std::size_t(l)];
  for (index_t j = 1; j < n; ++j) stair[std::size_t(j)] += stair[std::size_t(j - 1)];
  return stair;
}

namespace {

struct Cholmod {
  cholmod_common c;
  Cholmod() { cholmod_l_start(&c); }
  ~Cholmod() { cholmod_l_finish(&c); }
};

// Each stage's fronts and the contribution blocks alive while it runs fit
// in `budget` bytes (a front larger than the budget is a stage alone).
std::vector<index_t> stages(const std::vector<Front>& fronts, std::size_t budget) {
  std::vector<index_t> starts{0};
  std::size_t used = 0;
  for (index_t f = 0; f < index_t(fronts.size()); ++f) {
    const Front& F = fronts[std::size_t(f)];
    const std::size_t bytes = 8 * (std::size_t(F.m()) * F.n() + std::size_t(F.cb_rows()) * (F.n() - F.pivots));
    if (budget > 0 && used > 0 && used + bytes > budget) {
      starts.push_back(f);
      used = 0;
    }
    used += bytes;
  }
  starts.push_back(index_t(fronts.size()));
  return starts;
}

// CHOLMOD's supernodal analysis of A^T A in the order q: the final column
// order (q composed with the postorder), the fronts' columns (relaxed
// supernodes, pivotal first) and each column's front.
void supernodal_fronts(const Csr<double>& A, const std::vector<index_t>& q, Symbolic& s) {
  const index_t n = A.cols;
  Cholmod cm;
  cholmod_common& c = cm.c;
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_GIVEN;
  c.postorder = 1;
  c.supernodal = CHOLMOD_SUPERNODAL;
  std::vector<SuiteSparse_long> p, idx;
  cholmod_sparse At = transpose_pattern(A, p, idx);
  std::vector<SuiteSparse_long> perm(q.begin(), q.end());
  cholmod_factor* L = cholmod_l_analyze_p(&At, perm.data(), nullptr, 0, &c);
  if (!L || c.status < CHOLMOD_OK) {
    if (L) cholmod_l_free_factor(&L, &c);
    throw Error("QR analysis: CHOLMOD's analysis of A^T A failed (status " + std::to_string(c.status) + ")");
  }
  struct Free {
    cholmod_factor*& L;
    cholmod_common& c;
    ~Free() {
      if (L) cholmod_l_free_factor(&L, &c);
    }
  } free_on_exit{L, c};
  // The final order: the given one composed with the postorder.
  const auto* Lperm = static_cast<const SuiteSparse_long*>(L->Perm);
  s.q.assign(Lperm, Lperm + n);
  s.q_inverse.assign(std::size_t(n), 0);
  for (index_t j = 0; j < n; ++j) s.q_inverse[std::size_t(s.q[std::size_t(j)])] = j;
  const auto* super = static_cast<const SuiteSparse_long*>(L->super);
  const auto* pi = static_cast<const SuiteSparse_long*>(L->pi);
  const auto* Ls = static_cast<const SuiteSparse_long*>(L->s);
  const index_t nsuper = index_t(L->nsuper);
  s.fronts.resize(std::size_t(nsuper));
  s.col_front.assign(std::size_t(n), -1);
  for (index_t f = 0; f < nsuper; ++f) {
    Front& F = s.fronts[std::size_t(f)];
    F.pivots = index_t(super[f + 1] - super[f]);
    F.cols.assign(Ls + pi[f], Ls + pi[f + 1]);
    for (auto j = super[f]; j < super[f + 1]; ++j) s.col_front[std::size_t(j)] = f;
  }
  cholmod_l_free_factor(&L, &c);
}

// The assembly tree: a front's parent holds its first non-pivotal column.
void link_fronts(Symbolic& s) {
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    Front& F = s.fronts[std::size_t(f)];
    if (F.n() > F.pivots) {
      F.parent = s.col_front[std::size_t(F.cols[std::size_t(F.pivots)])];
      s.fronts[std::size_t(F.parent)].children.push_back(f);
    }
  }
}

// Rows to the front of their leftmost column, each front's rows by that
// column (the staircase, sec. 2).
void assign_rows(const Csr<double>& A, Symbolic& s) {
  const index_t n = A.cols;
  s.leftmost.assign(std::size_t(A.rows), -1);
  for (index_t i = 0; i < A.rows; ++i) {
    index_t lm = n;
    for (index_t a = A.row_ptr[i]; a < A.row_ptr[i + 1]; ++a) lm = std::min(lm, s.q_inverse[std::size_t(A.col_idx[a])]);
    if (lm < n) {
      s.leftmost[std::size_t(i)] = lm;
      s.fronts[std::size_t(s.col_front[std::size_t(lm)])].rows.push_back(i);
    }
  }
  for (Front& F : s.fronts)
    std::stable_sort(F.rows.begin(), F.rows.end(),
                     [&](index_t a, index_t b) { return s.leftmost[std::size_t(a)] < s.leftmost[std::size_t(b)]; });
}

// Each front's rows, flops, R's and V's sizes (postorder: the children's
// sizes are known).
void size_fronts(Symbolic& s) {
  std::vector<index_t> local(static_cast<std::size_t>(s.n), -1);
  for (index_t f = 0; f < index_t(s.fronts.size()); ++f) {
    Front& F = s.fronts[std::size_t(f)];
    for (index_t ch : F.children) F.child_rows += s.fronts[std::size_t(ch)].cb_rows();
    const auto cb = [&](index_t ch) { return s.fronts[std::size_t(ch)].cb_rows(); };
    const std::vector<index_t> stair = stair_of(row_leftmost(s, f, cb, local), F.n());
    const std::vector<Panel> panels = staircase_panels(F.m(), F.n(), stair);
    s.flops += panel_flops(panels, F.m(), F.n(), stair);
    s.dense_flops += front_flops(F.m(), F.n());
    std::int64_t r = 0;
    for (index_t t = 0; t < F.r_rows(); ++t) r += F.n() - t;
    s.r_nnz += r;
    const std::size_t v = panels.empty() ? 0 : panels.back().at + std::size_t(panels.back().rows) * panels.back().k;
    s.factor_bytes += 8 * (std::size_t(r) + v);
    const std::size_t bytes = 8 * std::size_t(F.m()) * std::size_t(F.n());
    s.max_front_bytes = std::max(s.max_front_bytes, bytes);
    if (front_flops(F.m(), F.n()) <= kLargeFrontFlops) s.max_task_front_bytes = std::max(s.max_task_front_bytes, bytes);
  }
}

}  // namespace

Symbolic analyse(const Csr<double>& A, std::vector<index_t> q, std::size_t budget) {
  Symbolic s;
  s.m = A.rows;
  s.n = A.cols;
  if (A.cols == 0) {
    s.stage_starts = {0, 0};
    s.leftmost.assign(std::size_t(A.rows), -1);
    return s;
  }
  supernodal_fronts(A, q, s);
  link_fronts(s);
  assign_rows(A, s);
  size_fronts(s);
  s.stage_starts = stages(s.fronts, budget);
  return s;
}

}  // namespace balsa::qr
