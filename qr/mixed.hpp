// Internal: per-front rank decisions for the GPU's multifrontal QR (issue
// 43). The GPU factors every front without Heath's rule; a front whose
// factor shows a dead pivot (|R(j, j)| <= the tolerance, or no R row) is
// in D. A front's factor depends only on its subtree, so every front
// outside X = D and its ancestors keeps the GPU's factor (a tile front:
// R's rows and Q as the tile schedule's bundles, or the dense library's
// reflectors), and only the fronts of X are factored again on the CPU
// (qr::factor_front, Heath's rule as SPQR: Heath, "Some extensions of an
// algorithm for sparse linear least squares problems", SIAM J. Sci. Stat.
// Comput. 3(2), 1982; Davis, "Algorithm 915, SuiteSparseQR", ACM TOMS
// 38(1), 2011, sec. 2.3), in postorder, a GPU-factored child handing its
// contribution block over from the arena. Heath's decisions in X see the
// CPU path's contribution blocks up to an orthogonal transform of their
// rows, which keeps column norms: the ranks are the CPU path's.
//
// The mixed factor is a qr::Numeric (tile fronts carry FrontFactor::tile),
// so assemble_r, q_transpose_times and q_times take it as they are: its
// solves run on the host.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "qr/gpu_multifrontal_cpu.hpp"
#include "qr/gpu_plan.hpp"
#include "qr/numeric_cpu.hpp"

namespace balsa::qr {

// The fronts of X, from the GPU's arena (plan's layout).
struct Redo {
  std::vector<char> in_x;     // per front: 1 when it is factored again on the CPU
  index_t dead = 0;           // |D|: fronts with a dead pivot
  index_t fronts = 0;         // |X|
  double flops = 0;           // X's fronts as dense QRs (front_flops)
  double all_flops = 0;       // every front's
  double share() const { return all_flops > 0 ? flops / all_flops : 0.0; }
};
Redo fronts_to_redo(const Symbolic& s, const GpuPlan& plan, std::span<const double> arena, double tolerance);

// stats().fallback's words for it, e.g. "3 fronts with a dead pivot; they
// and their 5 ancestors (8 of 120 fronts, 12% of the flops) were
// refactored on the CPU (Heath)".
std::string describe(const Redo& redo, index_t fronts);

// The mixed factor of A22 (s's fronts; plan and h: the GPU's factor of the
// same values, h's arena, VT records and dense fronts' tau downloaded):
// fronts outside redo.in_x from h, the others by factor_front. Error when
// the plan and the analysis disagree (a bug).
Numeric mixed_factorise(const Csr<double>& A22, const Symbolic& s, const GpuPlan& plan, const HostTileFactor& h,
                        const Redo& redo, double tolerance);

}  // namespace balsa::qr
