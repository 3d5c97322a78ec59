// balsa: the convection-diffusion generator and the scrambling that makes a
// well-behaved matrix look like a real one (include/balsa/generators.hpp):
// the general-systems benchmark's generated problems (balsa-bench sparse).
//
// Rows are produced independently (each grid point's stencil), so they are
// filled in parallel and the result does not depend on the thread count.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "core/exceptions.hpp"
#include "core/instantiate.hpp"
#include "sparse/generators/splitmix.hpp"

namespace balsa {

namespace {

// One axis of the problem: its points, stride in the natural numbering, and
// the stencil's values toward the lower (i - 1) and upper (i + 1) neighbour
// and onto the diagonal.
struct Axis {
  index_t n = 1;
  std::int64_t stride = 1;
  double lower = 0, upper = 0, diag = 0;
};

std::vector<Axis> make_axes(index_t nx, index_t ny, index_t nz, double peclet, ConvectionScheme scheme) {
  const int dims = nz > 1 ? 3 : ny > 1 ? 2 : 1;
  const index_t sizes[3] = {nx, ny, nz};
  const double beta = peclet / std::sqrt(double(dims));
  std::vector<Axis> axes;
  std::int64_t stride = 1;
  for (int d = 0; d < dims; ++d) {
    Axis a;
    a.n = sizes[d];
    a.stride = stride;
    stride *= sizes[d];
    const double h = 1.0 / (double(a.n) + 1.0);
    const double diffusion = 1.0 / (h * h);
    a.lower = a.upper = -diffusion;
    a.diag = 2.0 * diffusion;
    if (scheme == ConvectionScheme::Upwind) {  // beta >= 0: (u_i - u_{i-1}) / h
      a.diag += beta / h;
      a.lower -= beta / h;
    } else {  // (u_{i+1} - u_{i-1}) / (2h)
      a.lower -= beta / (2 * h);
      a.upper += beta / (2 * h);
    }
    axes.push_back(a);
  }
  return axes;
}

}  // namespace

template <class T>
Csr<T> convection_diffusion_3d(index_t nx, index_t ny, index_t nz, double peclet, ConvectionScheme scheme) try {
  const std::string who = "convection_diffusion_3d";
  if (nx <= 0 || ny <= 0 || nz <= 0)
    throw DimensionError(who + ": the grid sizes must be positive (got " + std::to_string(nx) + " x " +
                         std::to_string(ny) + " x " + std::to_string(nz) + ")");
  if (!std::isfinite(peclet) || peclet < 0)
    throw Error(who + ": the Peclet number must be finite and >= 0 (got " + std::to_string(peclet) + ")");
  const std::int64_t n64 = std::int64_t(nx) * ny * nz;
  const index_t n = checked_index(n64, who + ": grid size nx*ny*nz");
  const std::vector<Axis> axes = make_axes(nx, ny, nz, peclet, scheme);
  // n diagonal entries plus two per grid edge along each axis.
  std::int64_t nnz = n64;
  for (const Axis& a : axes) nnz += 2 * (n64 / a.n) * (a.n - 1);
  checked_index(nnz, who + ": number of nonzeros");

  double diag = 0;
  for (const Axis& a : axes) diag += a.diag;
  // The coordinate of point p along an axis.
  auto coord = [](const Axis& a, std::int64_t p) { return index_t((p / a.stride) % a.n); };

  Csr<T> A;
  A.rows = A.cols = n;
  A.row_ptr.assign(std::size_t(n) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < n64; ++p) {
    index_t count = 1;
    for (const Axis& a : axes) {
      const index_t c = coord(a, p);
      count += (c > 0) + (c < a.n - 1);
    }
    A.row_ptr[std::size_t(p) + 1] = count;
  }
  for (std::size_t i = 0; i < std::size_t(n); ++i) A.row_ptr[i + 1] += A.row_ptr[i];
  A.col_idx.resize(std::size_t(nnz));
  A.values.resize(std::size_t(nnz));
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < n64; ++p) {
    std::size_t k = std::size_t(A.row_ptr[std::size_t(p)]);
    auto put = [&](std::int64_t col, double v) {
      A.col_idx[k] = index_t(col);
      A.values[k++] = T(v);
    };
    // Ascending columns: the lower neighbours from the largest stride down,
    // the diagonal, the upper neighbours from the smallest stride up.
    for (auto a = axes.rbegin(); a != axes.rend(); ++a)
      if (coord(*a, p) > 0) put(p - a->stride, a->lower);
    put(p, diag);
    for (const Axis& a : axes)
      if (coord(a, p) < a.n - 1) put(p + a.stride, a.upper);
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("convection_diffusion_3d");
}

template <class T>
Csr<T> scramble(const Csr<T>& A, std::uint64_t seed, const ScrambleOptions& options) try {
  require_square(A, "scramble");
  validate(A, true);
  if (!std::isfinite(options.scale_decades) || options.scale_decades < 0 || options.scale_decades > 100)
    throw Error("scramble: scale_decades must be in [0, 100] (got " + std::to_string(options.scale_decades) + ")");
  const index_t n = A.rows;
  // Independent streams for the row permutation, the column permutation and
  // the factors, each from the seed.
  std::uint64_t state = seed;
  const std::uint64_t row_seed = detail::splitmix64_next(state), col_seed = detail::splitmix64_next(state),
                      scale_seed = detail::splitmix64_next(state);
  std::vector<index_t> identity(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) identity[std::size_t(i)] = i;
  const std::vector<index_t> rows = options.permute_rows ? random_permutation(n, row_seed) : identity;
  const std::vector<index_t> cols = options.permute_columns ? random_permutation(n, col_seed) : identity;
  Csr<T> B = permute(A, std::span<const index_t>(rows), std::span<const index_t>(cols));
  const int E = int(std::lround(options.scale_decades * std::log2(10.0)));
  if (E > 0) {
    Random rng(scale_seed);
    for (index_t i = 0; i < n; ++i) {
      const int e = int(rng.below(std::uint64_t(2 * E))) - E;
      const double factor = std::ldexp(rng.uniform(1.0, 2.0), e);
      for (index_t p = B.row_ptr[std::size_t(i)]; p < B.row_ptr[std::size_t(i) + 1]; ++p)
        B.values[std::size_t(p)] = T(double(B.values[std::size_t(p)]) * factor);
    }
  }
  return B;
} catch (...) {
  rethrow_as_balsa_error("scramble");
}

#define BALSA_INSTANTIATE(T)                                                                              \
  template Csr<T> convection_diffusion_3d<T>(index_t, index_t, index_t, double, ConvectionScheme);      \
  template Csr<T> scramble<T>(const Csr<T>&, std::uint64_t, const ScrambleOptions&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
