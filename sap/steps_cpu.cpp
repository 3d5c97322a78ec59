// The CPU reference of SaP's steps (sap/steps_cpu.hpp): the blocks' LU without
// pivoting, their solves, the coupling blocks, the truncated spikes and the
// reduced systems (report sec. 2.1 and 3.1), in plain loops over the band;
// the k x k dense algebra goes to BLAS/LAPACK (core/lapack.hpp).
#include "sap/steps_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "core/lapack.hpp"
#include "core/instantiate.hpp"
#include "core/number_text.hpp"

namespace balsa::sap {

namespace {
std::string s(std::int64_t v) { return std::to_string(v); }

// The pivot of row `row` after the rule: itself, or boosted (boosted++).
template <class P>
P checked_pivot(P u, const BoostRule& rule, index_t row, index_t block, bool reversed, int& boosted) {
  if (!std::isfinite(double(u))) throw_pivot_error(1, double(u), rule, row, block, reversed);
  if (std::abs(double(u)) >= rule.small()) return u;
  if (!rule.enabled) throw_pivot_error(0, double(u), rule, row, block, reversed);
  ++boosted;
  return P(u < P(0) ? -rule.boosted() : rule.boosted());
}
}  // namespace

void throw_pivot_error(int kind, double u, const BoostRule& rule, index_t row, index_t block, bool reversed) {
  const std::string f = reversed ? "UL" : "LU";
  auto g = [](double v) { return number_text(v, 3); };
  if (kind == 1)
    throw MatrixError("SaP: the " + f + " factorisation of block " + s(block) + " overflowed at row " + s(row) +
                      " (pivot " + g(u) + ")");
  throw MatrixError("SaP: zero pivot at row " + s(row) + " (block " + s(block) + ") of the " + f +
                    " factorisation without pivoting: |u| = " + g(std::abs(u)) +
                    " < boost_threshold * max|a_ij| = " + g(rule.small()) +
                    "; enable pivot boosting or reorder the matrix");
}

template <class P>
std::vector<index_t> block_bandwidths(const Banded<P>& F, const Blocks& blocks) {
  std::vector<index_t> kb(std::size_t(blocks.count()), 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (index_t b = 0; b < blocks.count(); ++b) {
    const index_t s0 = blocks.start(b), e = s0 + blocks.size(b);
    index_t best = 0;
    for (index_t c = s0; c < e; ++c)
      for (index_t r = std::max(s0, c - F.k); r <= std::min(e - 1, c + F.k); ++r)
        if (F(r, c) != P(0)) best = std::max(best, r > c ? r - c : c - r);
    kb[std::size_t(b)] = best;
  }
  return kb;
}

template <class P>
int factor_blocks(Banded<P>& F, const Blocks& blocks, const BoostRule& rule, bool reversed) {
  int boosted = 0;
  index_t failed = blocks.count();  // the first block that threw (its error is the one reported)
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : boosted)
  for (index_t b = 0; b < blocks.count(); ++b) try {
    const index_t s0 = blocks.start(b), e = s0 + blocks.size(b), k = blocks.bandwidth(b, F.k);
    // Right-looking elimination: column j's multipliers, then the (k x k)
    // window to its lower right; the band keeps the fill (no pivoting).
    for (index_t j = s0; j < e; ++j) {
      const index_t row = reversed ? s0 + e - 1 - j : j;
      const P piv = F(j, j) = checked_pivot(F(j, j), rule, row, b, reversed, boosted);
      const index_t last = std::min(e - 1, j + k);
      for (index_t i = j + 1; i <= last; ++i) F(i, j) /= piv;
      for (index_t c = j + 1; c <= last; ++c) {
        const P u = F(j, c);
        if (u == P(0)) continue;
        for (index_t i = j + 1; i <= last; ++i) F(i, c) -= F(i, j) * u;
      }
    }
  } catch (...) {
#pragma omp critical(balsa_sap_factor_error)
    if (b < failed) {
      failed = b;
      error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return boosted;
}

template <class P>
void reverse_blocks(Banded<P>& F, const Blocks& blocks) {
  // Reversing a block's columns' storage maps (i, j) to (s+e-1-i, s+e-1-j)
  // (include/balsa/sparse.hpp, Banded); entries outside the block stay outside.
#pragma omp parallel for schedule(dynamic, 1)
  for (index_t b = 0; b < blocks.count(); ++b) {
    const auto first = F.data.begin() + std::int64_t(blocks.start(b)) * F.ld();
    std::reverse(first, first + std::int64_t(blocks.size(b)) * F.ld());
  }
}

template <class P>
void solve_blocks(const Banded<P>& F, const Blocks& blocks, P* x) {
#pragma omp parallel for schedule(dynamic, 1)
  for (index_t b = 0; b < blocks.count(); ++b) {
    const index_t s0 = blocks.start(b), e = s0 + blocks.size(b), k = blocks.bandwidth(b, F.k);
    for (index_t i = s0; i < e; ++i) {  // L y = x (unit diagonal)
      P sum = x[i];
      for (index_t j = std::max(s0, i - k); j < i; ++j) sum -= F(i, j) * x[j];
      x[i] = sum;
    }
    for (index_t i = e - 1; i >= s0; --i) {  // U x = y
      P sum = x[i];
      for (index_t j = i + 1; j <= std::min(e - 1, i + k); ++j) sum -= F(i, j) * x[j];
      x[i] = sum / F(i, i);
    }
  }
}

template <class P>
void coupling_blocks(const Banded<P>& A, const Blocks& blocks, Interfaces<P>& c) {
  const index_t k = A.k;
  c.resize(k, blocks.count() - 1);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < c.count; ++i) {
    const index_t t = blocks.start(i + 1);
    P* B = Interfaces<P>::at(c.B, i, k);
    P* C = Interfaces<P>::at(c.C, i, k);
    for (index_t col = 0; col < k; ++col)
      for (index_t r = 0; r < k; ++r) {
        B[std::size_t(col) * k + r] = col <= r ? A(t - k + r, t + col) : P(0);
        C[std::size_t(col) * k + r] = r <= col ? A(t + r, t - k + col) : P(0);
      }
  }
}

template <class P>
void truncated_spikes(const Banded<P>& lu, const Banded<P>& ul, const Blocks& blocks, Interfaces<P>& c) {
  const index_t k = c.k;
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < c.count; ++i) {
    const index_t t = blocks.start(i + 1), e = t + blocks.size(i + 1);
    std::vector<P> X(std::size_t(k) * k);
    // V_i^(b): bottom blocks of block i's L and U (rows/columns t-k .. t-1).
    for (index_t col = 0; col < k; ++col)
      for (index_t r = 0; r < k; ++r) X[std::size_t(col) * k + r] = lu(t - k + r, t - k + col);
    P* V = Interfaces<P>::at(c.V, i, k);
    std::copy_n(Interfaces<P>::at(c.B, i, k), std::size_t(k) * k, V);
    lapack::trsm_left('L', 'U', k, k, X.data(), k, V, k);
    lapack::trsm_left('U', 'N', k, k, X.data(), k, V, k);
    // W_{i+1}^(t): bottom blocks of block i+1's reversed LU (rows/columns e-k .. e-1).
    for (index_t col = 0; col < k; ++col)
      for (index_t r = 0; r < k; ++r) X[std::size_t(col) * k + r] = ul(e - k + r, e - k + col);
    std::vector<P> Y(std::size_t(k) * k);
    const P* C = Interfaces<P>::at(c.C, i, k);
    for (index_t col = 0; col < k; ++col)
      for (index_t r = 0; r < k; ++r) Y[std::size_t(col) * k + r] = C[std::size_t(col) * k + (k - 1 - r)];
    lapack::trsm_left('L', 'U', k, k, X.data(), k, Y.data(), k);
    lapack::trsm_left('U', 'N', k, k, X.data(), k, Y.data(), k);
    P* W = Interfaces<P>::at(c.W, i, k);
    for (index_t col = 0; col < k; ++col)
      for (index_t r = 0; r < k; ++r) W[std::size_t(col) * k + r] = Y[std::size_t(col) * k + (k - 1 - r)];
  }
}

template <class P>
void reduced_systems(Interfaces<P>& c) {
  const index_t k = c.k;
  index_t singular = c.count;
  int pivot = 0;
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < c.count; ++i) {
    P* R = Interfaces<P>::at(c.R, i, k);
    std::fill_n(R, std::size_t(k) * k, P(0));
    for (index_t d = 0; d < k; ++d) R[std::size_t(d) * k + d] = P(1);
    lapack::gemm(k, k, k, P(-1), Interfaces<P>::at(c.W, i, k), k, Interfaces<P>::at(c.V, i, k), k, P(1), R, k);
    std::vector<int> ipiv(static_cast<std::size_t>(k));
    int info = 0;
    lapack::getrf(k, R, ipiv.data(), &info);
    if (info == 0) lapack::getri(k, R, ipiv.data(), &info);
    if (info != 0) {
#pragma omp critical(balsa_sap_singular)
      if (i < singular) {
        singular = i;
        pivot = info;
      }
    }
  }
  if (singular < c.count)
    throw MatrixError("SaP-C: the reduced system of interface " + s(singular) + " (between blocks " + s(singular) +
                      " and " + s(singular + 1) + ") is singular (U(" + s(pivot) + ", " + s(pivot) +
                      ") = 0 in its LU); use SaP-D or fewer partitions");
}

template <class P>
void coupling_corrections(const Interfaces<P>& c, const Blocks& blocks, const P* g, P* rhs) {
  const index_t k = c.k;
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < c.count; ++i) {
    const index_t t = blocks.start(i + 1);
    const P* gb = g + (t - k);
    const P* gt = g + t;
    const P* V = Interfaces<P>::at(c.V, i, k);
    const P* W = Interfaces<P>::at(c.W, i, k);
    const P* R = Interfaces<P>::at(c.R, i, k);
    const P* B = Interfaces<P>::at(c.B, i, k);
    const P* C = Interfaces<P>::at(c.C, i, k);
    auto at = [k](const P* M, index_t r, index_t col) { return M[std::size_t(col) * k + r]; };
    std::vector<P> u(static_cast<std::size_t>(k)), xt(u), xb(u);
    for (index_t r = 0; r < k; ++r) {  // eq. 9b's right-hand side: g^(t)_{i+1} - W g^(b)_i
      P sum = gt[r];
      for (index_t col = 0; col < k; ++col) sum -= at(W, r, col) * gb[col];
      u[std::size_t(r)] = sum;
    }
    for (index_t r = 0; r < k; ++r) {  // eq. 9b: x~(t)_{i+1} = R^{-1} u
      P sum = 0;
      for (index_t col = 0; col < k; ++col) sum += at(R, r, col) * u[std::size_t(col)];
      xt[std::size_t(r)] = sum;
    }
    for (index_t r = 0; r < k; ++r) {  // eq. 9c: x~(b)_i = g^(b)_i - V x~(t)_{i+1}
      P sum = gb[r];
      for (index_t col = 0; col < k; ++col) sum -= at(V, r, col) * xt[std::size_t(col)];
      xb[std::size_t(r)] = sum;
    }
    for (index_t r = 0; r < k; ++r) {  // eq. 10: block i's bottom rows lose B x~(t), block i+1's top rows C x~(b)
      P bx = 0, cx = 0;
      for (index_t col = 0; col < k; ++col) {
        bx += at(B, r, col) * xt[std::size_t(col)];
        cx += at(C, r, col) * xb[std::size_t(col)];
      }
      rhs[t - k + r] -= bx;
      rhs[t + r] -= cx;
    }
  }
}

#define BALSA_INSTANTIATE(P)                                                                            \
  template std::vector<index_t> block_bandwidths(const Banded<P>&, const Blocks&);                      \
  template int factor_blocks(Banded<P>&, const Blocks&, const BoostRule&, bool);                        \
  template void reverse_blocks(Banded<P>&, const Blocks&);                                              \
  template void solve_blocks(const Banded<P>&, const Blocks&, P*);                                      \
  template void coupling_blocks(const Banded<P>&, const Blocks&, Interfaces<P>&);                       \
  template void truncated_spikes(const Banded<P>&, const Banded<P>&, const Blocks&, Interfaces<P>&);    \
  template void reduced_systems(Interfaces<P>&);                                                        \
  template void coupling_corrections(const Interfaces<P>&, const Blocks&, const P*, P*);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa::sap
