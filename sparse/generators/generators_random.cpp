// balsa: random test matrices (random banded lower, block-diagonal lower,
// banded diagonally dominant, random SPD), built directly in canonical CSR.
//
// Reproducibility: each row draws from its own Random, seeded from (seed,
// generator, row) through splitmix64, so rows are generated in parallel and
// the matrix does not depend on the number of OpenMP threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "balsa/generators.hpp"
#include "sparse/generators/sampling.hpp"
#include "sparse/generators/splitmix.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {

using detail::sample_distinct;

// Salts keep the row streams of different generators apart for one seed.
enum Salt : std::uint64_t { kBanded = 1, kBlock = 2, kDominant = 3, kSpd = 4 };

// Seed of stream `stream` (a row) of a generator: distinct streams of one
// (seed, salt) give distinct seeds (splitmix64_mix is a bijection).
inline Random row_rng(std::uint64_t seed, Salt salt, std::int64_t stream) {
  return Random(detail::splitmix64_mix(detail::splitmix64_mix(seed ^ (std::uint64_t(salt) << 56)) + static_cast<std::uint64_t>(stream)));
}

// A value uniform in [-1, 1) in precision T (the cast to float may round up to 1).
template <class T>
inline T draw_value(Random& rng) {
  const T v = static_cast<T>(rng.uniform(-1.0, 1.0));
  return v < T(1) ? v : std::nextafter(T(1), T(0));
}

// sum_{i<n} min(c, i), exact in int64 for n, c < 2^31.
std::int64_t sum_min(std::int64_t n, std::int64_t c) {
  return n <= c ? n * (n - 1) / 2 : c * (c - 1) / 2 + (n - c) * c;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}

// row_ptr from per-row counts stored in row_ptr[i + 1]; throws IndexOverflow
// (naming `who`) when the total does not fit index_t.
void prefix_counts(std::vector<index_t>& row_ptr, const char* who) {
  std::int64_t total = 0;
  for (std::size_t i = 1; i < row_ptr.size(); ++i) {
    total += row_ptr[i];
    row_ptr[i] = checked_index(total, std::string(who) + ": number of nonzeros");
  }
}

// Lower-triangular rows whose strictly-lower columns are `k` distinct samples
// of [lo, lo + m); the diagonal is 1 + sum |l_ij| and comes last.
template <class T>
void fill_lower_row(Random& rng, index_t i, index_t lo, index_t m, index_t k, index_t* cols, T* vals,
                    std::vector<index_t>& scratch) {
  sample_distinct(rng, m, k, cols, scratch);
  double sum = 0.0;
  for (index_t a = 0; a < k; ++a) {
    cols[a] += lo;
    vals[a] = draw_value<T>(rng);
    sum += std::abs(double(vals[a]));
  }
  cols[k] = i;
  vals[k] = static_cast<T>(1.0 + sum);
}

}  // namespace

template <class T>
Csr<T> random_lower_banded(index_t rows, index_t window, index_t per_row, std::uint64_t seed) try {
  const std::string w = "random_lower_banded: ";
  require(rows >= 0, w + "rows must be non-negative (got " + std::to_string(rows) + ")");
  require(window >= 0, w + "window must be non-negative (got " + std::to_string(window) + ")");
  require(per_row >= 0, w + "per_row must be non-negative (got " + std::to_string(per_row) + ")");
  const std::int64_t n = rows, c = std::min(per_row, window);
  const std::int64_t nnz = n + sum_min(n, c);  // row i: min(c, i) + 1 entries
  checked_index(nnz, w + "number of nonzeros");

  Csr<T> A;
  A.rows = A.cols = rows;
  A.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i)
    A.row_ptr[std::size_t(i) + 1] = A.row_ptr[std::size_t(i)] + static_cast<index_t>(std::min(c, i)) + 1;
  A.col_idx.resize(static_cast<std::size_t>(nnz));
  A.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel
  {
    std::vector<index_t> scratch;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto m = static_cast<index_t>(std::min<std::int64_t>(window, i));
      const auto k = static_cast<index_t>(std::min(c, i));
      const auto start = static_cast<std::size_t>(A.row_ptr[std::size_t(i)]);
      Random rng = row_rng(seed, kBanded, i);
      fill_lower_row(rng, index_t(i), index_t(i) - m, m, k, A.col_idx.data() + start, A.values.data() + start,
                     scratch);
    }
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("random_lower_banded");
}

template <class T>
Csr<T> random_block_diagonal_lower(index_t blocks, index_t block_size, double density, std::uint64_t seed) try {
  const std::string w = "random_block_diagonal_lower: ";
  require(blocks >= 0, w + "blocks must be non-negative (got " + std::to_string(blocks) + ")");
  require(block_size > 0, w + "block_size must be positive (got " + std::to_string(block_size) + ")");
  require(density >= 0.0 && density <= 1.0, w + "density must be in [0, 1] (got " + std::to_string(density) + ")");
  const index_t rows = checked_index(std::int64_t(blocks) * block_size, w + "blocks*block_size");
  // Fail fast, before the counting pass: row r has at least floor(r * density)
  // >= r * density - 1 entries below the diagonal.
  const double bs = block_size;
  const double least = double(rows) + double(blocks) * std::max(0.0, density * bs * (bs - 1) / 2 - bs);
  checked_index(static_cast<std::int64_t>(std::min(least, 1e18)), w + "number of nonzeros");

  // Row r of a block (0-based in the block) has floor(r * density + u)
  // strictly-lower entries, u uniform in [0, 1) (stochastic rounding of the
  // mean r * density), at most r. Pass 1 counts, pass 2 replays the stream.
  auto entries = [&](Random& rng, index_t r) {
    const double k = std::floor(double(r) * density + rng.uniform());
    return std::min(static_cast<index_t>(k), r);
  };
  Csr<T> A;
  A.rows = A.cols = rows;
  A.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    Random rng = row_rng(seed, kBlock, i);
    A.row_ptr[std::size_t(i) + 1] = entries(rng, static_cast<index_t>(i % block_size)) + 1;
  }
  prefix_counts(A.row_ptr, "random_block_diagonal_lower");
  A.col_idx.resize(static_cast<std::size_t>(A.nnz()));
  A.values.resize(static_cast<std::size_t>(A.nnz()));
#pragma omp parallel
  {
    std::vector<index_t> scratch;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const auto r = static_cast<index_t>(i % block_size);
      Random rng = row_rng(seed, kBlock, i);
      const index_t k = entries(rng, r);
      const auto start = static_cast<std::size_t>(A.row_ptr[std::size_t(i)]);
      fill_lower_row(rng, index_t(i), index_t(i) - r, r, k, A.col_idx.data() + start, A.values.data() + start,
                     scratch);
    }
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("random_block_diagonal_lower");
}

// Row i of banded_dominant(N, K, d): put(j, a_ij) for j = max(0, i-K) ..
// min(N-1, i+K), j != i, in order, then put(i, a_ii) (the draws in one order
// whatever the storage, so the CSR and the band generators agree).
template <class T, class Put>
void dominant_row(std::uint64_t seed, std::int64_t i, std::int64_t N, std::int64_t K, double d, Put&& put) try {
  Random rng = row_rng(seed, kDominant, i);
  double sum = 0.0;
  for (std::int64_t j = std::max<std::int64_t>(0, i - K); j <= std::min(N - 1, i + K); ++j) {
    if (j == i) continue;
    const T v = draw_value<T>(rng);
    put(j, v);
    sum += std::abs(double(v));
  }
  // a_ii = d * sum_{j != i} |a_ij|. A row with no off-diagonal entries
  // (n = 1 or half_bandwidth = 0) would get a zero diagonal; it gets d.
  put(i, static_cast<T>(sum > 0.0 ? d * sum : d));
} catch (...) {
  rethrow_as_balsa_error("dominant_row");
}

template <class T>
Csr<T> banded_dominant(index_t n, index_t half_bandwidth, double d, std::uint64_t seed) try {
  const std::string w = "banded_dominant: ";
  require(n >= 0, w + "n must be non-negative (got " + std::to_string(n) + ")");
  require(half_bandwidth >= 0, w + "half_bandwidth must be non-negative (got " + std::to_string(half_bandwidth) + ")");
  require(std::isfinite(d) && d >= 0.0, w + "d must be finite and non-negative (got " + std::to_string(d) + ")");
  const std::int64_t N = n, K = n > 0 ? std::min<std::int64_t>(half_bandwidth, N - 1) : 0;
  checked_index(N * (2 * K + 1) - K * (K + 1), w + "number of nonzeros");

  Csr<T> A;
  A.rows = A.cols = n;
  A.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < N; ++i)
    A.row_ptr[std::size_t(i) + 1] =
        A.row_ptr[std::size_t(i)] + static_cast<index_t>(std::min(N - 1, i + K) - std::max<std::int64_t>(0, i - K) + 1);
  A.col_idx.resize(static_cast<std::size_t>(A.nnz()));
  A.values.resize(static_cast<std::size_t>(A.nnz()));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < N; ++i) {
    const auto first = std::size_t(A.row_ptr[std::size_t(i)]);
    const std::int64_t j0 = std::max<std::int64_t>(0, i - K);
    dominant_row<T>(seed, i, N, K, d, [&](std::int64_t j, T v) {
      const std::size_t p = first + std::size_t(j - j0);  // every column of the band is stored
      A.col_idx[p] = static_cast<index_t>(j);
      A.values[p] = v;
    });
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("banded_dominant");
}

template <class T>
Banded<T> banded_dominant_band(index_t n, index_t half_bandwidth, double d, std::uint64_t seed) try {
  const std::string w = "banded_dominant_band: ";
  require(n >= 0, w + "n must be non-negative (got " + std::to_string(n) + ")");
  require(half_bandwidth >= 0, w + "half_bandwidth must be non-negative (got " + std::to_string(half_bandwidth) + ")");
  require(std::isfinite(d) && d >= 0.0, w + "d must be finite and non-negative (got " + std::to_string(d) + ")");
  const index_t K = n > 0 ? std::min<index_t>(half_bandwidth, n - 1) : 0;
  Banded<T> A(n, K);
  // Row by row, drawing in banded_dominant's order (same values).
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    dominant_row<T>(seed, i, n, K, d, [&](std::int64_t j, T v) { A(index_t(i), index_t(j)) = v; });
  return A;
} catch (...) {
  rethrow_as_balsa_error("banded_dominant_band");
}

template <class T>
Csr<T> random_spd(index_t n, index_t per_row, std::uint64_t seed) try {
  const std::string w = "random_spd: ";
  require(n >= 0, w + "n must be non-negative (got " + std::to_string(n) + ")");
  require(per_row >= 0, w + "per_row must be non-negative (got " + std::to_string(per_row) + ")");
  // Strictly lower part L: row i gets floor(per_row / 2 + u) distinct columns
  // of [0, i) (at most i); mirrored, each row has about per_row off-diagonal
  // entries on average (early rows more, late rows fewer).
  auto entries = [&](Random& rng, index_t i) {
    return std::min(static_cast<index_t>(std::floor(0.5 * per_row + rng.uniform())), i);
  };
  // Fail fast: L has at least sum_i min(i, floor(per_row / 2)) entries.
  checked_index(n + 2 * sum_min(n, per_row / 2), w + "number of nonzeros");
  std::vector<index_t> lptr(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    Random rng = row_rng(seed, kSpd, i);
    lptr[std::size_t(i) + 1] = entries(rng, static_cast<index_t>(i));
  }
  prefix_counts(lptr, "random_spd");
  const std::int64_t lnnz = lptr.back();
  checked_index(2 * lnnz + n, w + "number of nonzeros");
  std::vector<index_t> lcol(static_cast<std::size_t>(lnnz));
  std::vector<T> lval(static_cast<std::size_t>(lnnz));
#pragma omp parallel
  {
    std::vector<index_t> scratch;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      Random rng = row_rng(seed, kSpd, i);
      const index_t k = entries(rng, static_cast<index_t>(i));
      const auto s = static_cast<std::size_t>(lptr[std::size_t(i)]);
      sample_distinct(rng, static_cast<index_t>(i), k, lcol.data() + s, scratch);
      for (index_t a = 0; a < k; ++a) lval[s + std::size_t(a)] = draw_value<T>(rng);
    }
  }
  // Row i of A: its L row, the diagonal, then the entries (j, i) of L, j > i.
  Csr<T> A;
  A.rows = A.cols = n;
  A.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t p = 0; p < lnnz; ++p) ++A.row_ptr[std::size_t(lcol[std::size_t(p)]) + 1];
  for (std::int64_t i = 0; i < n; ++i)
    A.row_ptr[std::size_t(i) + 1] += A.row_ptr[std::size_t(i)] + (lptr[std::size_t(i) + 1] - lptr[std::size_t(i)]) + 1;
  A.col_idx.resize(static_cast<std::size_t>(A.nnz()));
  A.values.resize(static_cast<std::size_t>(A.nnz()));
  std::vector<index_t> next(static_cast<std::size_t>(n));  // next free upper slot of each row
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto ls = static_cast<std::size_t>(lptr[std::size_t(i)]);
    const auto le = static_cast<std::size_t>(lptr[std::size_t(i) + 1]);
    auto p = static_cast<std::size_t>(A.row_ptr[std::size_t(i)]);
    for (std::size_t q = ls; q < le; ++q, ++p) {
      A.col_idx[p] = lcol[q];
      A.values[p] = lval[q];
    }
    A.col_idx[p] = static_cast<index_t>(i);  // diagonal, value set below
    next[std::size_t(i)] = static_cast<index_t>(p + 1);
  }
  // Mirror serially in row order of L, so each row's upper part is ascending.
  for (std::int64_t i = 0; i < n; ++i)
    for (auto q = lptr[std::size_t(i)]; q < lptr[std::size_t(i) + 1]; ++q) {
      const auto p = static_cast<std::size_t>(next[std::size_t(lcol[std::size_t(q)])]++);
      A.col_idx[p] = static_cast<index_t>(i);
      A.values[p] = lval[std::size_t(q)];
    }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    double sum = 0.0;
    std::size_t diag_pos = 0;
    for (auto p = std::size_t(A.row_ptr[std::size_t(i)]); p < std::size_t(A.row_ptr[std::size_t(i) + 1]); ++p) {
      if (A.col_idx[p] == i) diag_pos = p;
      else sum += std::abs(double(A.values[p]));
    }
    A.values[diag_pos] = static_cast<T>(1.0 + sum);
  }
  return A;
} catch (...) {
  rethrow_as_balsa_error("random_spd");
}

#define BALSA_INSTANTIATE(T)                                                               \
  template Csr<T> random_lower_banded<T>(index_t, index_t, index_t, std::uint64_t);         \
  template Csr<T> random_block_diagonal_lower<T>(index_t, index_t, double, std::uint64_t);  \
  template Csr<T> banded_dominant<T>(index_t, index_t, double, std::uint64_t);              \
  template Banded<T> banded_dominant_band<T>(index_t, index_t, double, std::uint64_t);      \
  template Csr<T> random_spd<T>(index_t, index_t, std::uint64_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)
#undef BALSA_INSTANTIATE

}  // namespace balsa
