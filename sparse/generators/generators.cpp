// balsa: grid Laplacians (2D 5-point, 3D 7- and 27-point) in natural,
// red-black or random ordering, and the chain and star lower-triangular
// matrices, built directly in canonical CSR.
//
// Every row is produced independently (its grid point, its neighbours, the
// new numbers of those neighbours), so the rows are filled in parallel and the
// result does not depend on the number of OpenMP threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

struct Grid {
  index_t nx = 1, ny = 1, nz = 1;
  index_t n = 0;     // nx * ny * nz
  index_t nxny = 0;  // nx * ny
};

Grid make_grid(const char* who, index_t nx, index_t ny, index_t nz) {
  const std::string w(who);
  if (nx <= 0) throw Error(w + ": nx must be positive (got " + std::to_string(nx) + ")");
  if (ny <= 0) throw Error(w + ": ny must be positive (got " + std::to_string(ny) + ")");
  if (nz <= 0) throw Error(w + ": nz must be positive (got " + std::to_string(nz) + ")");
  Grid g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  const char* dims = nz == 1 ? ": grid size nx*ny" : ": grid size nx*ny*nz";
  g.nxny = checked_index(std::int64_t(nx) * ny, w + dims);
  g.n = checked_index(std::int64_t(g.nxny) * nz, w + dims);
  return g;
}

// perm[new] = old grid point. Empty for the natural ordering (identity).
std::vector<index_t> grid_permutation(const Grid& g, GridOrdering ordering, std::uint64_t seed) {
  switch (ordering) {
    case GridOrdering::Natural:
      return {};
    case GridOrdering::Random:
      return random_permutation(g.n, seed);
    case GridOrdering::RedBlack: {
      std::vector<index_t> perm(static_cast<std::size_t>(g.n));
      std::size_t pos = 0;
      for (int colour = 0; colour < 2; ++colour) {
        index_t p = 0;
        for (index_t z = 0; z < g.nz; ++z)
          for (index_t y = 0; y < g.ny; ++y)
            for (index_t x = 0; x < g.nx; ++x, ++p)
              if ((x + y + z) % 2 == colour) perm[pos++] = p;
      }
      return perm;
    }
  }
  throw Error("grid ordering: unknown GridOrdering value");
}

// Number of stored entries (diagonal included) in the row of grid point (x, y, z).
inline index_t stencil_count(const Grid& g, bool full27, index_t x, index_t y, index_t z) {
  const index_t cx = 1 + (x > 0) + (x < g.nx - 1);
  const index_t cy = 1 + (y > 0) + (y < g.ny - 1);
  const index_t cz = 1 + (z > 0) + (z < g.nz - 1);
  return full27 ? cx * cy * cz : cx + cy + cz - 2;
}

// Columns of the row of grid point p = (x, y, z) in natural numbering, in
// ascending order (z slowest, x fastest). Returns how many were written.
inline int stencil_columns(const Grid& g, bool full27, index_t x, index_t y, index_t z, index_t* out) {
  int k = 0;
  for (int dz = -1; dz <= 1; ++dz) {
    if ((dz < 0 && z == 0) || (dz > 0 && z == g.nz - 1)) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      if ((dy < 0 && y == 0) || (dy > 0 && y == g.ny - 1)) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx < 0 && x == 0) || (dx > 0 && x == g.nx - 1)) continue;
        const int nonzero_offsets = (dx != 0) + (dy != 0) + (dz != 0);
        if (!full27 && nonzero_offsets > 1) continue;
        out[k++] = (x + dx) + g.nx * (y + dy) + g.nxny * (z + dz);
      }
    }
  }
  return k;
}

template <class T>
Csr<T> build_stencil(const Grid& g, bool full27, T diag, GridOrdering ordering, std::uint64_t seed) {
  const std::vector<index_t> perm = grid_permutation(g, ordering, seed);
  const std::vector<index_t> inv = perm.empty() ? std::vector<index_t>{} : inverse_permutation(perm);
  const bool natural = perm.empty();
  const std::int64_t n = g.n;

  Csr<T> A;
  A.rows = A.cols = g.n;
  A.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);

  auto coords = [&](index_t p, index_t& x, index_t& y, index_t& z) {
    z = p / g.nxny;
    const index_t r = p - z * g.nxny;
    y = r / g.nx;
    x = r - y * g.nx;
  };

#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    index_t x, y, z;
    coords(natural ? static_cast<index_t>(i) : perm[static_cast<std::size_t>(i)], x, y, z);
    A.row_ptr[static_cast<std::size_t>(i) + 1] = stencil_count(g, full27, x, y, z);
  }
  // The caller checked the total against max_index with the closed formula.
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) A.row_ptr[i + 1] += A.row_ptr[i];

  const auto nnz = static_cast<std::size_t>(A.row_ptr.back());
  A.col_idx.resize(nnz);
  A.values.resize(nnz);

#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    index_t x, y, z;
    coords(natural ? static_cast<index_t>(i) : perm[static_cast<std::size_t>(i)], x, y, z);
    const auto start = static_cast<std::size_t>(A.row_ptr[static_cast<std::size_t>(i)]);
    index_t* cols = A.col_idx.data() + start;
    const int k = stencil_columns(g, full27, x, y, z, cols);
    if (!natural) {
      // Renumber the neighbours and restore ascending order (insertion sort:
      // at most 27 entries).
      for (int a = 0; a < k; ++a) cols[a] = inv[static_cast<std::size_t>(cols[a])];
      for (int a = 1; a < k; ++a) {
        const index_t c = cols[a];
        int b = a - 1;
        while (b >= 0 && cols[b] > c) {
          cols[b + 1] = cols[b];
          --b;
        }
        cols[b + 1] = c;
      }
    }
    T* vals = A.values.data() + start;
    for (int a = 0; a < k; ++a) vals[a] = cols[a] == static_cast<index_t>(i) ? diag : T(-1);
  }
  return A;
}

}  // namespace

template <class T>
Csr<T> laplacian_2d(index_t nx, index_t ny, GridOrdering ordering, std::uint64_t seed) try {
  const Grid g = make_grid("laplacian_2d", nx, ny, 1);
  // Each point plus its horizontal and vertical neighbour pairs.
  const std::int64_t nnz = 5 * std::int64_t(g.n) - 2 * std::int64_t(nx) - 2 * std::int64_t(ny);
  checked_index(nnz, "laplacian_2d: number of nonzeros");
  return build_stencil<T>(g, false, T(4), ordering, seed);
} catch (...) {
  rethrow_as_balsa_error("laplacian_2d");
}

template <class T>
Csr<T> laplacian_3d(index_t nx, index_t ny, index_t nz, Stencil3d stencil, GridOrdering ordering,
                    std::uint64_t seed) try {
  const Grid g = make_grid("laplacian_3d", nx, ny, nz);
  const std::int64_t X = nx, Y = ny, Z = nz;
  const bool full27 = stencil == Stencil3d::Point27;
  // 27-point: the product of the per-axis counts sum_x (1 + [x>0] + [x<nx-1]) = 3nx - 2.
  // 7-point: n diagonal entries plus two per grid edge along each axis.
  const std::int64_t nnz =
      full27 ? (3 * X - 2) * (3 * Y - 2) * (3 * Z - 2) : 7 * X * Y * Z - 2 * (Y * Z + X * Z + X * Y);
  checked_index(nnz, "laplacian_3d: number of nonzeros");
  return build_stencil<T>(g, full27, full27 ? T(26) : T(6), ordering, seed);
} catch (...) {
  rethrow_as_balsa_error("laplacian_3d");
}

namespace {
// Diagonal 2 and one -1 per row i > 0 at column (i - 1) (chain) or 0 (star).
template <class T>
Csr<T> two_per_row(const char* who, index_t n, bool chain) {
  if (n < 0) throw Error(std::string(who) + ": n must be non-negative (got " + std::to_string(n) + ")");
  const std::int64_t nnz = n > 0 ? 2 * std::int64_t(n) - 1 : 0;
  checked_index(nnz, std::string(who) + ": number of nonzeros");
  Csr<T> A;
  A.rows = A.cols = n;
  A.row_ptr.resize(static_cast<std::size_t>(n) + 1);
  A.col_idx.resize(static_cast<std::size_t>(nnz));
  A.values.resize(static_cast<std::size_t>(nnz));
  A.row_ptr[0] = 0;
  for (index_t i = 0; i < n; ++i) {
    const auto p = static_cast<std::size_t>(i == 0 ? 0 : 2 * std::int64_t(i) - 1);
    if (i > 0) {
      A.col_idx[p] = chain ? i - 1 : 0;
      A.values[p] = T(-1);
    }
    A.col_idx[p + (i > 0)] = i;
    A.values[p + (i > 0)] = T(2);
    A.row_ptr[std::size_t(i) + 1] = static_cast<index_t>(2 * std::int64_t(i) + 1);
  }
  return A;
}
}  // namespace

template <class T>
Csr<T> chain_lower(index_t n) try {
  return two_per_row<T>("chain_lower", n, true);
} catch (...) {
  rethrow_as_balsa_error("chain_lower");
}

// A = Q Q^T with Q tridiagonal ones plus mu at offsets +-w (Picciau's thesis
// sec. 5.1.2 and 5.3.2). Q is symmetric, so A = Q^2: a_ij = sum_k q_ik q_kj
// over the five diagonals k - i in {-w, -1, 0, 1, w}, half-bandwidth 2w.
template <class T>
Csr<T> thesis_banded_spd(index_t n, double mu, index_t w) try {
  if (n < 0) throw DimensionError("thesis_banded_spd: n must be >= 0, got " + std::to_string(n));
  if (w < 2) throw DimensionError("thesis_banded_spd: the offset w must be >= 2, got " + std::to_string(w));
  if (!std::isfinite(mu)) throw Error("thesis_banded_spd: mu must be finite");
  checked_index(std::int64_t(n) * (4 * std::int64_t(w) + 1), "thesis_banded_spd: entries");
  const index_t offsets[5] = {-w, -1, 0, 1, w};
  auto q = [&](index_t d) { return d == -1 || d == 0 || d == 1 ? 1.0 : mu; };  // q_{i,i+d}
  Csr<T> A;
  A.rows = A.cols = n;
  std::vector<double> acc(std::size_t(4 * w + 1));
  std::vector<bool> hit(acc.size());
  for (index_t i = 0; i < n; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(hit.begin(), hit.end(), false);
    for (const index_t a : offsets) {
      const index_t k = i + a;
      if (k < 0 || k >= n) continue;
      for (const index_t b : offsets) {
        const index_t j = k + b;
        if (j < 0 || j >= n) continue;
        acc[std::size_t(j - i + 2 * w)] += q(a) * q(b);
        hit[std::size_t(j - i + 2 * w)] = true;
      }
    }
    for (std::size_t t = 0; t < acc.size(); ++t)
      if (hit[t] && acc[t] != 0.0) {
        A.col_idx.push_back(i + index_t(t) - 2 * w);
        A.values.push_back(T(acc[t]));
      }
    A.row_ptr.push_back(index_t(A.col_idx.size()));
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("thesis_banded_spd");
}
template <class T>
Csr<T> star_lower(index_t n) try {
  return two_per_row<T>("star_lower", n, false);
} catch (...) {
  rethrow_as_balsa_error("star_lower");
}

template <class T>
Csr<T> laplacian_2d_over_identity(index_t nx, index_t ny) try {
  const Csr<T> L = laplacian_2d<T>(nx, ny);
  checked_index(2 * std::int64_t(L.rows), "laplacian_2d_over_identity: number of rows");
  checked_index(std::int64_t(L.nnz()) + L.rows, "laplacian_2d_over_identity: number of nonzeros");
  Csr<T> A = L;
  A.rows = 2 * L.rows;
  for (index_t i = 0; i < L.rows; ++i) {
    A.col_idx.push_back(i);
    A.values.push_back(T(1));
    A.row_ptr.push_back(index_t(A.col_idx.size()));
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("laplacian_2d_over_identity");
}

#define BALSA_INSTANTIATE(T)                                                                          \
  template Csr<T> laplacian_2d<T>(index_t, index_t, GridOrdering, std::uint64_t);                     \
  template Csr<T> laplacian_2d_over_identity<T>(index_t, index_t);                                    \
  template Csr<T> laplacian_3d<T>(index_t, index_t, index_t, Stencil3d, GridOrdering, std::uint64_t); \
  template Csr<T> chain_lower<T>(index_t);                                                            \
  template Csr<T> thesis_banded_spd<T>(index_t, double, index_t);                                                            \
  template Csr<T> star_lower<T>(index_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
