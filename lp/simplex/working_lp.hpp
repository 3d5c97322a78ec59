// Internal: the computational form the simplex iterates on (thesis 7.1):
//
//   minimise c^T x  subject to  [A I] (x_S; x_L) = 0,  lower <= x <= upper,
//
// n structural variables x_S and m logicals x_L (x_L = -A x_S, so a row
// lo <= a_i x <= up becomes -up <= x_{n+i} <= -lo). Variables are numbered
// 0..n-1 (structural) and n..n+m-1 (logical). A maximisation is turned into a
// minimisation by negating c. Presolve (presolve.hpp) and scaling happen
// before; `Scaling` maps the solution back.
#pragma once

#include <vector>

#include "balsa/lp.hpp"
#include "balsa/sparse.hpp"

namespace balsa::lp {

struct WorkingLp {
  index_t m = 0, n = 0;
  Csc<double> A;          // m x n
  Csr<double> rows;       // A row-wise (PRICE over a sparse rho)
  std::vector<double> cost;          // n + m (logicals 0)
  std::vector<double> lower, upper;  // n + m
  index_t variables() const { return n + m; }
};

// Row and column factors (powers of two): the scaled matrix is R A S; x = S x',
// row activities and duals y = R y', reduced costs d = d' / S.
struct Scaling {
  std::vector<double> row, col;  // m, n (all 1 when unscaled)
};

// Builds the working LP from a (presolved) LinearProgram: negated costs for a
// maximisation, logical bounds, and (when `scale`) geometric-mean scaling
// passes followed by equilibration.
WorkingLp make_working_lp(const LinearProgram& lp, bool scale, Scaling& scaling);

}  // namespace balsa::lp
