// Internal: R of the whole factorisation as one sparse upper-triangular
// matrix (sparse QR paper sec. 2: R kept sparse; the least-squares solve
// ends with one triangular solve, which balsa's TriangularSolver runs on
// the CPU or the GPU). Its rows: the singletons' (R11 R12, A's rows as
// they stand), then the fronts' in postorder; its columns: the live
// columns in the factor's order (singletons first, then A22's permuted
// order). Dead columns (Heath, or dead singletons) have no column: x is 0
// there (the basic solution), and their entries in live rows are dropped.
#pragma once

#include <vector>

#include "qr/numeric_cpu.hpp"
#include "qr/singletons.hpp"

namespace balsa::qr {

struct SparseR {
  Csr<double> R;                   // rank x rank, upper triangular, canonical; rows 0 .. sg.live()-1: the
                                   // live singletons' in their order (moved into the R solver at the first solve)
  std::vector<index_t> column;     // F's column (A's, or A^T's) of R's column p
  std::vector<index_t> singleton_rows;  // F's row of R's row t < sg.live() (the live singletons' pivot rows)
  std::vector<index_t> front_row;  // per front: R's row of its first R row
};

// R from F's singleton rows (sg) and the factored fronts of A22 (s, num);
// the fronts' own copies of their R rows are freed.
SparseR assemble_r(const Csr<double>& F, const Singletons& sg, const Symbolic& s, Numeric& num);

// R at full rank of A22 (no Heath column: every front's R row t holds
// front columns t .. n-1, all live), whose pattern depends on the analysis
// alone: made once, then each factorisation only writes R's values. The
// fronts' rows are R's last values, in the fronts' order, each row's
// entries as FrontFactor keeps them (the GPU's gather of R writes them
// there directly).
struct RLayout {
  std::vector<index_t> singleton_src;  // F's entry of each of R's first values (the singletons' rows, R11 R12)
  std::size_t front_at() const { return singleton_src.size(); }  // R's first value of the fronts' rows
};
// r: R's pattern at full rank (values sized, unset); the layout that fills it.
RLayout full_rank_r(const Csr<double>& F, const Singletons& sg, const Symbolic& s, SparseR& r);
// The singletons' values of R from F (same pattern as when laid out).
void singleton_values(const RLayout& L, const Csr<double>& F, std::vector<double>& values);
// The fronts' R rows of num (no dead front) into r's values (r: full_rank_r's
// pattern; front f's rows from R's row front_row[f] on); their copies freed.
void front_values(const Symbolic& s, Numeric& num, SparseR& r);

}  // namespace balsa::qr
