// Internal: a linear system seen through row and column permutations and
// scalings, C(i, j) = rs[i] * A(rp[i], cp[j]) * cs[j] (DB's D_r Q A D_c,
// then symmetric reorderings). A x = b is C y = c with c_i = rs[i] b[rp[i]]
// and x[cp[j]] = cs[j] y[j]. Used by SaP's sparse pipeline and balsa::solve.
#pragma once

#include <span>
#include <vector>

#include "balsa/reorder.hpp"
#include "balsa/sparse.hpp"

namespace balsa {

struct SystemMap {
  std::vector<index_t> rp, cp;
  std::vector<double> rs, cs;

  explicit SystemMap(index_t n = 0)
      : rp(std::size_t(n)), cp(std::size_t(n)), rs(std::size_t(n), 1.0), cs(std::size_t(n), 1.0) {
    for (index_t i = 0; i < n; ++i) rp[std::size_t(i)] = cp[std::size_t(i)] = i;
  }
  // The map of DB: C = apply_boosting(A, db).
  static SystemMap boosting(const DiagonalBoosting& db) {
    SystemMap m(db.n);
    for (std::size_t i = 0; i < std::size_t(db.n); ++i) {
      m.rp[i] = db.row_perm[i];
      m.rs[i] = db.row_scale[std::size_t(db.row_perm[i])];
      m.cs[i] = db.col_scale[i];
    }
    return m;
  }
  // After C' = P C P^T (perm[new] = old).
  void then_symmetric(std::span<const index_t> perm) {
    SystemMap m(index_t(perm.size()));
    for (std::size_t i = 0; i < perm.size(); ++i) {
      const std::size_t o = std::size_t(perm[i]);
      m.rp[i] = rp[o];
      m.cp[i] = cp[o];
      m.rs[i] = rs[o];
      m.cs[i] = cs[o];
    }
    *this = std::move(m);
  }
  // c = D_r Q b; y = x mapped in (x0 of the inner solve); x = D_c y mapped out.
  template <class T>
  void rhs_in(std::span<const T> b, std::span<T> c) const {
    for (std::size_t i = 0; i < rp.size(); ++i) c[i] = T(rs[i] * double(b[std::size_t(rp[i])]));
  }
  template <class T>
  void x_in(std::span<const T> x, std::span<T> y) const {
    for (std::size_t j = 0; j < cp.size(); ++j) y[j] = T(double(x[std::size_t(cp[j])]) / cs[j]);
  }
  template <class T>
  void x_out(std::span<const T> y, std::span<T> x) const {
    for (std::size_t j = 0; j < cp.size(); ++j) x[std::size_t(cp[j])] = T(cs[j] * double(y[j]));
  }
};

}  // namespace balsa
