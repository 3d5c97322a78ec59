// balsa::SparseQR (include/balsa/qr.hpp): checks, ordering, analysis,
// factorisation and least-squares solves (qr/ordering.cpp,
// qr/symbolic.cpp, qr/numeric.cpp).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "balsa/qr.hpp"
#include "qr/numeric.hpp"
#include "qr/ordering.hpp"
#include "qr/symbolic.hpp"

namespace balsa {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
std::string s(std::int64_t v) { return std::to_string(v); }

std::size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? std::size_t(pages) * std::size_t(size) : std::size_t(1) << 34;
}
}  // namespace

struct SparseQR::Impl {
  QrOptions options;
  bool transposed = false;  // m < n: A^T is factored (minimum-norm solves)
  bool factorised = false;
  qr::Symbolic symbolic;
  qr::Numeric numeric;
  QrStats stats;
  std::vector<index_t> row_ptr, col_idx;  // the analysed pattern (factorise checks new values against it)

  // A's values (A^T when transposed) checked and factored.
  void factorise(const Csr<double>& A) {
    require_finite(A);
    const auto t0 = Clock::now();
    const double eps = std::numeric_limits<double>::epsilon();
    const double tol = options.rank_tolerance >= 0 ? options.rank_tolerance
                                                   : 20.0 * double(A.rows + A.cols) * eps * qr::max_column_norm(A);
    numeric = qr::factorise(A, symbolic, tol);
    factorised = true;
    stats.tolerance = tol;
    stats.rank = numeric.rank;
    stats.heath_fronts = numeric.dead_fronts;
    stats.flops_done = numeric.flops;
    stats.t_factorise = since(t0);
  }
};

SparseQR::SparseQR(const Csr<double>& A, const QrOptions& options) : SparseQR(A, options, true) {}

SparseQR SparseQR::analyse(const Csr<double>& A, const QrOptions& options) { return SparseQR(A, options, false); }

SparseQR::SparseQR(const Csr<double>& A, const QrOptions& options, bool factorise_now) : impl_(new Impl) {
  try {
    validate(A);
    if (!is_canonical(A)) throw MatrixError("SparseQR: A has unsorted or duplicate entries in a row (sum them first: "
                                            "to_csr(to_coo(A)))");
    if (A.rows == 0 || A.cols == 0)
      throw DimensionError("SparseQR: A is empty (" + s(A.rows) + " x " + s(A.cols) + ")");
    Impl& m = *impl_;
    m.options = options;
    m.row_ptr = A.row_ptr;
    m.col_idx = A.col_idx;
    m.transposed = A.rows < A.cols;
    const Csr<double> At = m.transposed ? transpose(A) : Csr<double>{};
    const Csr<double>& F = m.transposed ? At : A;  // the matrix factored
    auto t0 = Clock::now();
    std::vector<index_t> q = qr::column_ordering(F, options.ordering);
    m.stats.t_order = since(t0);
    t0 = Clock::now();
    m.symbolic = qr::analyse(F, std::move(q));
    m.stats.t_analyse = since(t0);
    QrStats& st = m.stats;
    st.rows = A.rows;
    st.cols = A.cols;
    st.nnz = A.nnz();
    st.ordering = options.ordering;
    st.fronts = index_t(m.symbolic.fronts.size());
    for (const qr::Front& front : m.symbolic.fronts) {
      st.max_front_rows = std::max(st.max_front_rows, front.m());
      st.max_front_cols = std::max(st.max_front_cols, front.n());
    }
    st.flops = m.symbolic.flops;
    st.r_nnz = m.symbolic.r_nnz;
    st.front_bytes = m.symbolic.front_bytes;
    st.intensity = st.flops / (8.0 * double(st.nnz + st.r_nnz));
    const std::size_t limit = options.memory_limit ? options.memory_limit : physical_memory() / 2;
    if (st.front_bytes > limit)
      throw HostOutOfMemory("SparseQR: the fronts of this " + s(A.rows) + " x " + s(A.cols) + " matrix need " +
                            s(std::int64_t(st.front_bytes)) + " bytes (R has " + s(st.r_nnz) + " entries), " +
                            s(std::int64_t(limit)) + (options.memory_limit ? " allowed (memory_limit)" : " is half the memory"));
    if (factorise_now) m.factorise(F);
  } catch (...) {
    delete impl_;
    throw;
  }
}

SparseQR::~SparseQR() { delete impl_; }
SparseQR::SparseQR(SparseQR&& o) noexcept : impl_(std::exchange(o.impl_, nullptr)) {}
SparseQR& SparseQR::operator=(SparseQR&& o) noexcept {
  std::swap(impl_, o.impl_);
  return *this;
}

namespace {
template <class Impl>
Impl& live(Impl* impl) {
  if (!impl) throw Error("SparseQR: used after being moved from");
  return *impl;
}
}  // namespace

void SparseQR::factorise(const Csr<double>& A) {
  Impl& m = live(impl_);
  validate(A);
  if (A.rows != m.stats.rows || A.cols != m.stats.cols || A.row_ptr != m.row_ptr || A.col_idx != m.col_idx)
    throw DimensionError("SparseQR::factorise: A is " + s(A.rows) + " x " + s(A.cols) + " with " + s(A.nnz()) +
                         " entries and a pattern unlike the analysed one: " + s(m.stats.rows) + " x " + s(m.stats.cols) + " with " +
                         s(std::int64_t(m.col_idx.size())));
  if (m.transposed) {
    m.factorise(transpose(A));
  } else {
    m.factorise(A);
  }
}

std::vector<double> SparseQR::solve(std::span<const double> b) { return solve(b, 1); }

std::vector<double> SparseQR::solve(std::span<const double> B, index_t nrhs) {
  Impl& m = live(impl_);
  if (!m.factorised) throw Error("SparseQR::solve: A is analysed but not factorised (call factorise(A) first)");
  if (nrhs < 1 || B.size() != std::size_t(m.stats.rows) * std::size_t(nrhs))
    throw DimensionError("SparseQR::solve: " + s(std::int64_t(B.size())) + " right-hand-side values for " + s(nrhs) +
                         " columns of " + s(m.stats.rows) + " rows");
  for (std::size_t i = 0; i < B.size(); ++i)
    if (!std::isfinite(B[i]))
      throw MatrixError("SparseQR::solve: b(" + s(std::int64_t(i % std::size_t(m.stats.rows))) + ") is not finite");
  const auto t0 = Clock::now();
  const std::vector<double> Bv(B.begin(), B.end());
  std::vector<double> X = m.transposed ? qr::solve_min_norm(m.symbolic, m.numeric, Bv, nrhs)
                                       : qr::solve(m.symbolic, m.numeric, Bv, nrhs);
  m.stats.t_solve = since(t0);
  return X;
}

const QrStats& SparseQR::stats() const { return live(impl_).stats; }
bool SparseQR::factorised() const { return live(impl_).factorised; }

}  // namespace balsa
