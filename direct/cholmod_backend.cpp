// CHOLMOD's Cholesky (supernodal or simplicial, CHOLMOD's choice) behind
// DirectSolver (direct/backend.hpp), the 64-bit interface (cholmod_l_*).
// A symmetric: its CSR arrays are its CSC arrays; stype = -1 makes CHOLMOD
// read the lower triangle only (rows >= column in each column). CHOLMOD
// factorises LL' (supernodal) or LDL' (simplicial); a nonpositive pivot of
// either is "not positive definite".
//
// Counts: the analysis' Common->lnz (nnz(L)) and Common->fl (the LL' flop
// count) are exact for the factor CHOLMOD builds (amalgamation zeros left
// out) and stay after the factorisation; the peak memory is an estimate
// before (what the analysis holds, the numeric factor's supernodal size
// L->xsize or lnz, A's permuted copy and the workspace) and CHOLMOD's own
// Common->memory_usage (its peak during the factorisation) after.
#include <cholmod.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "direct/backend.hpp"

namespace balsa::direct {

namespace {

static_assert(std::is_same_v<SuiteSparse_long, std::int64_t>, "cholmod_l_* indices are std::int64_t");

// CHOLMOD's workspace and its factor, freed in that order's reverse.
struct Common {
  cholmod_common c{};
  Common() {
    cholmod_l_start(&c);
    c.print = 0;  // statuses become balsa errors; CHOLMOD prints nothing
  }
  ~Common() { cholmod_l_finish(&c); }
  Common(const Common&) = delete;
  Common& operator=(const Common&) = delete;
};
struct Factor {
  cholmod_common& c;
  cholmod_factor* L = nullptr;
  ~Factor() {
    if (L) cholmod_l_free_factor(&L, &c);
  }
};

class CholmodBackend final : public Backend {
 public:
  explicit CholmodBackend(const Matrix& A) : A_(A) {
    wrap_matrix();
    factor_.L = L_ = cholmod_l_analyze(&S_, &c_);
    check_status("analysing A");
    predicted_ = {static_cast<std::int64_t>(c_.lnz), c_.fl, predicted_peak(), 0};
  }

  DirectMethod method() const override { return DirectMethod::Cholmod; }
  FactorCounts predicted() const override { return predicted_; }

  FactorCounts factorize() override {
    c_.memory_usage = c_.memory_inuse;  // the peak of this factorisation only
    S_.x = const_cast<double*>(A_.values.data());
    cholmod_l_factorize(&S_, L_, &c_);
    check_status("factorising A");
    if (c_.status == CHOLMOD_NOT_POSDEF) throw_not_positive_definite(std::int64_t(L_->minor));
    if (const std::int64_t j = first_nonpositive_pivot(); j >= 0) throw_not_positive_definite(j);
    return {predicted_.factor_entries, predicted_.flops, double(c_.memory_usage), cholmod_l_rcond(L_, &c_)};
  }

  void solve(double* B, std::int64_t k) override {
    cholmod_dense b{};
    b.nrow = std::size_t(A_.n);
    b.ncol = std::size_t(k);
    b.nzmax = b.d = std::size_t(A_.n);
    b.nzmax *= std::size_t(k);
    b.x = B;
    b.xtype = CHOLMOD_REAL;
    b.dtype = CHOLMOD_DOUBLE;
    cholmod_dense* x = cholmod_l_solve(CHOLMOD_A, L_, &b, &c_);
    check_status("solving");
    const double* xs = static_cast<const double*>(x->x);
    std::copy(xs, xs + std::size_t(A_.n) * std::size_t(k), B);
    cholmod_l_free_dense(&x, &c_);
  }

 private:
  // S_: A's arrays seen as CHOLMOD's packed, sorted, symmetric CSC (no copy).
  void wrap_matrix() {
    S_.nrow = S_.ncol = std::size_t(A_.n);
    S_.nzmax = A_.idx.size();
    S_.p = const_cast<std::int64_t*>(A_.ptr.data());
    S_.i = const_cast<std::int64_t*>(A_.idx.data());
    S_.x = const_cast<double*>(A_.values.data());
    S_.stype = -1;
    S_.itype = CHOLMOD_LONG;
    S_.xtype = CHOLMOD_REAL;
    S_.dtype = CHOLMOD_DOUBLE;
    S_.sorted = 1;
    S_.packed = 1;
  }
  double predicted_peak() const {
    const double numeric = std::max(double(L_->xsize), c_.lnz);
    return double(c_.memory_inuse) + 8.0 * numeric + 16.0 * double(A_.idx.size()) + 64.0 * double(A_.n);
  }
  void check_status(const char* doing) {
    if (c_.status == CHOLMOD_OUT_OF_MEMORY) throw_out_of_memory("CHOLMOD", doing, A_);
    if (c_.status < 0) throw Error("CHOLMOD: " + std::string(doing) + " failed (status " + std::to_string(c_.status) + ")");
  }
  // A simplicial factor is CHOLMOD's LDL' (is_ll false), which goes through
  // an indefinite A: the first step j with D(j, j) <= 0 (D(j, j) is the
  // first entry of L's column j), or -1 (positive definite).
  std::int64_t first_nonpositive_pivot() const {
    if (L_->is_super || L_->is_ll) return -1;
    const auto* p = static_cast<const std::int64_t*>(L_->p);
    const auto* x = static_cast<const double*>(L_->x);
    for (std::int64_t j = 0; j < A_.n; ++j)
      if (!(x[p[j]] > 0)) return j;
    return -1;
  }
  // step: where the factorisation failed, in the fill-reducing order;
  // L->Perm maps it back to A's column.
  [[noreturn]] void throw_not_positive_definite(std::int64_t step) {
    const std::int64_t column = L_->Perm ? static_cast<const std::int64_t*>(L_->Perm)[step] : step;
    throw NotPositiveDefinite(column, "CHOLMOD: A is not positive definite (column " + std::to_string(column) +
                                          ": a nonpositive pivot)");
  }

  const Matrix& A_;
  Common common_;
  cholmod_common& c_ = common_.c;
  Factor factor_{c_};
  cholmod_sparse S_{};
  cholmod_factor* L_ = nullptr;
  FactorCounts predicted_;
};

}  // namespace

std::unique_ptr<Backend> make_cholmod(const Matrix& A) { return std::make_unique<CholmodBackend>(A); }

}  // namespace balsa::direct
