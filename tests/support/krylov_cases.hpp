// Systems shared by the CPU and GPU Krylov tests.
#pragma once

#include "balsa/sparse.hpp"

namespace balsa::test {

// 2D convection-diffusion -Laplace(u) + (c, c/2) . grad(u) on an m x m grid,
// central differences, h = 1/(m+1): nonsymmetric, nonsingular.
template <class T>
Csr<T> convection_diffusion(index_t m, double c) {
  const double h = 1.0 / (m + 1);
  Coo<T> A;
  A.rows = A.cols = m * m;
  auto add = [&](index_t i, index_t j, double v) {
    A.row_idx.push_back(i), A.col_idx.push_back(j), A.values.push_back(T(v));
  };
  for (index_t y = 0; y < m; ++y)
    for (index_t x = 0; x < m; ++x) {
      const index_t i = y * m + x;
      add(i, i, 4.0);
      if (x > 0) add(i, i - 1, -1.0 - c * h / 2);
      if (x + 1 < m) add(i, i + 1, -1.0 + c * h / 2);
      if (y > 0) add(i, i - m, -1.0 - c * h / 4);
      if (y + 1 < m) add(i, i + m, -1.0 + c * h / 4);
    }
  return to_csr(A);
}

}  // namespace balsa::test
