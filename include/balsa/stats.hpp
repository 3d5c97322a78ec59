// balsa: structural statistics of a sparse matrix (what `balsa info` prints).
#pragma once

#include <cstdint>

#include "balsa/sparse.hpp"

namespace balsa {

struct LevelStats {
  index_t levels = 0;       // number of dependency levels of the triangular solve
  index_t max_width = 0;    // rows in the widest level
  index_t min_width = 0;
  double mean_width = 0.0;  // rows / levels
};

struct StructureStats {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;
  std::int64_t nnz_lower = 0;  // strictly below the diagonal
  std::int64_t nnz_upper = 0;  // strictly above
  std::int64_t nnz_diagonal = 0;
  index_t lower_bandwidth = 0;  // max (i - j) over stored entries, 0 if none below
  index_t upper_bandwidth = 0;  // max (j - i)
  index_t row_nnz_min = 0;
  index_t row_nnz_max = 0;
  double row_nnz_mean = 0.0;
  double row_nnz_stddev = 0.0;
  index_t empty_rows = 0;
  DiagonalReport diagonal;
  bool pattern_symmetric = false;  // square and (i,j) stored iff (j,i) stored
  bool values_symmetric = false;   // and a_ij == a_ji
  bool finite = true;              // no NaN/Inf
  // Dependency levels of the solve with each triangle (square matrices only).
  LevelStats lower_levels;
  LevelStats upper_levels;
};

// `A` must be canonical CSR (sorted columns, no duplicates).
template <class T> StructureStats structure_stats(const Csr<T>& A);

}  // namespace balsa
