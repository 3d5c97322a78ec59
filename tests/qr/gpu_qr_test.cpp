// Multifrontal QR on the GPU (qr/gpu_multifrontal.cu): the task kernel against
// its host oracle on the same plan (R and Q^T B, outputs poisoned first),
// and SparseQR with Device::Cuda against the CPU path on random and real
// matrices: the same rank, residuals, minimum-norm solutions, many
// right-hand sides, refactorisation, dead pivots (their fronts and
// ancestors refactored on the CPU, or all of it), Auto's routing;
// staging (sec. 3.4) through a small device_memory_limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/qr.hpp"
#include "qr/gpu.hpp"
#include "qr/gpu_plan.hpp"
#include "qr/gpu_multifrontal_cpu.hpp"
#include "qr/gpu_stages.hpp"
#include "qr/ordering.hpp"
#include "qr/symbolic.hpp"
#include "support/poison.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}
double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k] - b[k]));
  return m;
}

Csr<double> tall_full_rank(index_t m, index_t n, double density, std::uint64_t seed) {
  return test::tall_full_rank(m, n, density, seed, 3.0);
}

std::vector<double> random_values(std::size_t n, std::uint64_t seed) { return random_vector<double>(index_t(n), seed); }

// A dense random m x n matrix (stored sparse: one front).
Csr<double> dense_random(index_t m, index_t n, std::uint64_t seed) {
  Coo<double> c;
  c.rows = m;
  c.cols = n;
  const std::vector<double> v = random_values(std::size_t(m) * std::size_t(n), seed);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      c.row_idx.push_back(i);
      c.col_idx.push_back(j);
      c.values.push_back(v[std::size_t(i) * std::size_t(n) + std::size_t(j)]);
    }
  return to_csr(c);
}

double residual_norm(const Csr<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> r(b);
  spmv(-1.0, A, std::span<const double>(x), 1.0, std::span<double>(r));
  return norm2(std::span<const double>(r));
}

TEST(GpuQr, TaskKernelMatchesItsHostOracle) {
  BALSA_REQUIRE_GPU();
  for (const Csr<double>& A : {tall_full_rank(900, 400, 0.01, 3), laplacian_2d_over_identity<double>(30, 30), laplacian_3d<double>(12, 12, 12),
                               *test::real_matrix_as<double>(test::data_file("Franz6_id1959_aug.mtx")),
                               transpose(*test::real_matrix_as<double>(test::data_file("lp_e226.mtx")))}) {
   for (const double dense_flops : {double(INFINITY), 1e6}) {  // tiles only; tiles and cuSOLVER
    SCOPED_TRACE(std::to_string(A.rows) + " x " + std::to_string(A.cols) + ", dense fronts from " + std::to_string(dense_flops));
    const qr::Symbolic s = qr::analyse(A, qr::column_ordering(A, QrOrdering::Colamd));
    const qr::GpuPlan plan = qr::make_gpu_plan(A, s, dense_flops);
    const qr::HostTileFactor host = qr::factorise_plan_host(plan, A.values);
    const std::vector<double> R_host = qr::r_values_host(plan, host);
    qr::GpuFactorPtr g = qr::gpu_prepare(plan, A.nnz());
    index_t launches = 0;
    // R's rows are unique up to sign (full rank); a rounding-sized entry
    // below a diagonal may reflect a row either way: rows compared by the
    // sign of their diagonal, Q^T B's rows with the same signs.
    std::vector<double> sign(plan.y_row.size(), 1.0);
    for (int run = 0; run < 2; ++run) {  // a refactorisation replays the same launches
      const std::vector<double> R = qr::gpu_factorise(*g, plan, A.values, launches);
      ASSERT_EQ(R.size(), R_host.size());
      double diff = 0;
      std::size_t y = 0;
      for (std::size_t f = 0; f < s.fronts.size(); ++f) {
        std::size_t k = std::size_t(plan.r_start[f]);
        for (index_t t = 0; t < s.fronts[f].pivots; ++t, ++y) {
          sign[y] = (R[k] < 0) == (R_host[k] < 0) ? 1.0 : -1.0;
          for (index_t l = t; l < s.fronts[f].n(); ++l, ++k) diff = std::max(diff, std::abs(R[k] - sign[y] * R_host[k]));
        }
      }
      EXPECT_LE(diff, 1e-11 * max_abs(R_host));
    }
    EXPECT_GT(launches, 0);
    const index_t nrhs = 3, ny = index_t(plan.y_row.size());
    std::vector<std::int64_t> rows(static_cast<std::size_t>(ny));
    for (index_t k = 0; k < ny; ++k) rows[std::size_t(k)] = k;
    qr::gpu_bind_r_rows(*g, rows);
    const std::vector<double> B = random_values(std::size_t(A.rows) * nrhs, 9);
    cuda::DeviceBuffer<double> Y(std::size_t(ny) * nrhs);
    test::poison(Y);  // NaN: every entry must be written
    qr::gpu_q_transpose(*g, plan, B, A.rows, nrhs, Y, ny);
    qr::gpu_synchronize(*g);
    const std::vector<double> Yh = Y.to_host(), Y_host = qr::q_transpose_host(plan, host, B, A.rows, nrhs);
    double ydiff = 0;
    for (index_t c = 0; c < nrhs; ++c)
      for (index_t k = 0; k < ny; ++k) {
        const std::size_t at = std::size_t(k) + std::size_t(ny) * std::size_t(c);
        ydiff = std::max(ydiff, std::abs(Yh[at] - sign[std::size_t(k)] * Y_host[at]));
      }
    EXPECT_LE(ydiff, 1e-11 * std::max(1.0, max_abs(Y_host)));
    for (double v : Yh) ASSERT_TRUE(std::isfinite(v));
   }
  }
}

// The GPU's arena equals the oracle's after every launch on dense blocks
// (one front each, natural order; no rounding-sized pivots, whose
// reflections may go either way, as in sparse fronts).
void expect_launch_by_launch(const Csr<double>& A, QrOrdering ordering) {
  const qr::Symbolic s = qr::analyse(A, qr::column_ordering(A, ordering));
  const qr::GpuPlan plan = qr::make_gpu_plan(A, s, INFINITY);
  qr::GpuFactorPtr g = qr::gpu_prepare(plan, A.nnz());
  const std::int64_t total = std::int64_t(plan.launch_start.size()) - 1;
  for (std::int64_t L = 0; L <= total; ++L) {
    index_t launches = 0;
    qr::gpu_factorise(*g, plan, A.values, launches, L);
    const std::vector<double> arena = qr::gpu_arena(*g), host = qr::factorise_plan_host(plan, A.values, L).arena;
    const double tol = 1e-12 * std::max(1.0, max_abs(host));
    if (max_diff(arena, host) <= tol) continue;
    std::size_t at = 0;
    while (std::abs(arena[at] - host[at]) <= tol) ++at;
    std::size_t f = 0;
    while (f + 1 < plan.offset.size() && plan.offset[f + 1] <= std::int64_t(at)) ++f;
    const std::size_t local = at - std::size_t(plan.offset[f]), ld = std::size_t(plan.ld[f]);
    std::string kinds;
    for (std::int64_t k = plan.launch_start[std::size_t(L - 1)]; k < plan.launch_start[std::size_t(L)]; ++k) {
      const qr::DeviceTask& t = plan.tasks[std::size_t(k)];
      if (t.kind != qr::kPackTask && t.front != plan.offset[f]) continue;
      kinds += " [kind " + std::to_string(t.kind) + " count " + std::to_string(t.count) + " tiles " +
               std::to_string(t.tiles[0]) + "," + std::to_string(t.tiles[1]) + "," + std::to_string(t.tiles[2]) + " col " +
               std::to_string(t.col) + " c " + std::to_string(t.c0) + ".." + std::to_string(t.c1) + " next " +
               std::to_string(t.next_count) + ":" + std::to_string(t.next_tiles[0]) + "," + std::to_string(t.next_tiles[1]) +
               "," + std::to_string(t.next_tiles[2]) + "]";
    }
    ADD_FAILURE() << "launch " << L - 1 << " of " << total << ": front " << f << " (" << plan.ld[f] << " rows, "
                  << plan.schedules[f].col_tiles << " column tiles) first differs at row " << local % ld << ", column "
                  << local / ld << ": gpu " << arena[at] << ", host " << host[at] << "; its tasks in that launch:" << kinds;
    return;
  }
}

// A dense front factored on the GPU is a QR: Q^T A (the GPU's reflectors,
// applied on the host) is the GPU's R on the final tiles and zero elsewhere.
TEST(GpuQr, DenseFrontsAreQrFactorisations) {
  BALSA_REQUIRE_GPU();
  for (const auto& [m, n] : {std::pair<index_t, index_t>{200, 200}, {700, 400}, {1500, 700}, {2815, 1032}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    const Csr<double> A = dense_random(m, n, 11);
    const qr::Symbolic s = qr::analyse(A, qr::column_ordering(A, QrOrdering::Natural));
    ASSERT_EQ(s.fronts.size(), 1u);
    const qr::GpuPlan plan = qr::make_gpu_plan(A, s, INFINITY);
    qr::GpuFactorPtr g = qr::gpu_prepare(plan, A.nnz());
    index_t launches = 0;
    qr::gpu_factorise(*g, plan, A.values, launches);
    const std::vector<double> F = qr::gpu_arena(*g), vt = qr::gpu_vt(*g);
    const qr::FrontSchedule& sch = plan.schedules[0];
    const index_t ld = plan.ld[0], nc = sch.col_tiles * qr::kTile;
    std::vector<double> QtA(F.size(), 0.0);
    for (std::size_t a = 0; a < A.values.size(); ++a) QtA[std::size_t(plan.s_dst[a])] = A.values[a];
    qr::apply_schedule_q_host(sch, F.data(), ld, vt.data(), QtA.data(), ld, nc, true);
    std::vector<index_t> bucket_of(static_cast<std::size_t>(ld / qr::kTile), -1);
    for (index_t j = 0; j < sch.col_tiles; ++j)
      if (sch.final_tile[std::size_t(j)] >= 0) bucket_of[std::size_t(sch.final_tile[std::size_t(j)])] = j;
    double off = 0, r_diff = 0;
    std::size_t worst = 0;
    for (index_t r = 0; r < ld; ++r)
      for (index_t col = 0; col < nc; ++col) {
        const std::size_t at = std::size_t(r) + std::size_t(ld) * std::size_t(col);
        const index_t j = bucket_of[std::size_t(r / qr::kTile)];
        if (j >= 0 && col >= j * qr::kTile + r % qr::kTile) {
          r_diff = std::max(r_diff, std::abs(QtA[at] - F[at]));
        } else if (std::abs(QtA[at]) > off) {
          off = std::abs(QtA[at]);
          worst = at;
        }
      }
    EXPECT_LE(off, 1e-11 * std::sqrt(double(m))) << "at row " << worst % std::size_t(ld) << ", column " << worst / std::size_t(ld);
    EXPECT_LE(r_diff, 1e-11 * std::sqrt(double(m)));
  }
}

TEST(GpuQr, LaunchByLaunchMatchesTheOracle) {
  BALSA_REQUIRE_GPU();
  for (const auto& [m, n] : {std::pair<index_t, index_t>{32, 32}, {64, 32}, {96, 32}, {64, 64}, {200, 100}, {130, 70}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " dense");
    expect_launch_by_launch(dense_random(m, n, 11), QrOrdering::Natural);
  }
}

struct Solved {
  std::vector<double> x;
  QrStats stats;
};
Solved solve_on(const Csr<double>& A, const std::vector<double>& b, index_t nrhs, Device d, double dense_flops = 1e10,
                Device r_device = Device::Auto) {
  QrOptions o;
  o.device = d;
  o.gpu_dense_front_flops = dense_flops;
  o.r_solve.device = r_device;
  SparseQR qr(A, o);
  Solved s{qr.solve(b, nrhs), qr.stats()};
  return s;
}

// GPU against CPU: rank, and (full rank) the same x; the residual's norm within 1e-10 relative.
void expect_gpu_matches_cpu(const Csr<double>& A, double x_tol, double dense_flops = 1e10, index_t nrhs = 2,
                            Device r_device = Device::Auto) {
  SCOPED_TRACE(std::to_string(A.rows) + " x " + std::to_string(A.cols) + ", dense fronts from " + std::to_string(dense_flops) +
               ", " + std::to_string(nrhs) + " right-hand sides, R solve " + to_string(r_device));
  const std::vector<double> B = random_values(std::size_t(A.rows) * std::size_t(nrhs), 4);
  const Solved gpu = solve_on(A, B, nrhs, Device::Cuda, dense_flops, r_device), cpu = solve_on(A, B, nrhs, Device::Cpu);
  EXPECT_EQ(gpu.stats.device, Device::Cuda);
  EXPECT_EQ(gpu.stats.fallback, "");
  EXPECT_EQ(gpu.stats.rank, cpu.stats.rank);
  EXPECT_GT(gpu.stats.gpu_launches, 0);
  EXPECT_TRUE(test::matches<double>(gpu.x, cpu.x, x_tol))
      << "singletons " << gpu.stats.singletons << ", fronts " << gpu.stats.fronts << ", largest " << gpu.stats.max_front_rows
      << " x " << gpu.stats.max_front_cols << ", launches " << gpu.stats.gpu_launches;
  for (index_t c = 0; c < nrhs; ++c) {
    const std::size_t m = std::size_t(A.rows), n = std::size_t(A.cols);
    const std::vector<double> b(B.begin() + std::ptrdiff_t(m * c), B.begin() + std::ptrdiff_t(m * (c + 1)));
    const std::vector<double> xg(gpu.x.begin() + std::ptrdiff_t(n * c), gpu.x.begin() + std::ptrdiff_t(n * (c + 1)));
    const std::vector<double> xc(cpu.x.begin() + std::ptrdiff_t(n * c), cpu.x.begin() + std::ptrdiff_t(n * (c + 1)));
    const double rg = residual_norm(A, xg, b), rc = residual_norm(A, xc, b);
    EXPECT_LE(std::abs(rg - rc), 1e-10 * rc + 1e-12 * norm2(std::span<const double>(b)));
  }
}

TEST(GpuQr, LeastSquaresMatchTheCpuPath) {
  BALSA_REQUIRE_GPU();
  expect_gpu_matches_cpu(tall_full_rank(3000, 1200, 0.004, 5), 1e-10, 1e10, 1, Device::Cpu);
  expect_gpu_matches_cpu(tall_full_rank(3000, 1200, 0.004, 5), 1e-10, 1e10, 1);
  expect_gpu_matches_cpu(tall_full_rank(3000, 1200, 0.004, 5), 1e-10);
  expect_gpu_matches_cpu(laplacian_2d_over_identity<double>(60, 60), 1e-10);
  expect_gpu_matches_cpu(transpose(*test::real_matrix_as<double>(test::data_file("lp_e226.mtx"))), 1e-8);
  expect_gpu_matches_cpu(*test::real_matrix_as<double>(test::data_file("Franz6_id1959_aug.mtx")), 1e-8);
  // The large fronts by cuSOLVER (hybrid), the rest by tiles.
  expect_gpu_matches_cpu(tall_full_rank(3000, 1200, 0.004, 5), 1e-10, 1e6);
  expect_gpu_matches_cpu(laplacian_3d<double>(14, 14, 14), 1e-10, 1e6);
}

TEST(GpuQr, WideSystemsGetTheMinimumNormSolution) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = *test::real_matrix_as<double>(test::data_file("lp_e226.mtx"));  // 223 x 472
  expect_gpu_matches_cpu(A, 1e-8);
  expect_gpu_matches_cpu(transpose(tall_full_rank(2000, 900, 0.005, 8)), 1e-10);
  expect_gpu_matches_cpu(transpose(tall_full_rank(2000, 900, 0.005, 8)), 1e-10, 1e6);
}

TEST(GpuQr, NewValuesAreFactorisedOnTheGpu) {
  BALSA_REQUIRE_GPU();
  Csr<double> A = tall_full_rank(2500, 1000, 0.004, 6);
  QrOptions o;
  o.device = Device::Cuda;
  SparseQR qr = SparseQR::analyse(A, o);
  for (double& v : A.values) v *= 1.5;
  qr.factorise(A);
  const std::vector<double> b = random_values(std::size_t(A.rows), 1);
  const std::vector<double> x = qr.solve(b), x2 = qr.solve(b);
  EXPECT_EQ(qr.stats().device, Device::Cuda);
  o.device = Device::Cpu;
  SparseQR cpu(A, o);
  const std::vector<double> xc = cpu.solve(b);
  // (x within the problem's condition: the residuals agree to 1e-10)
  EXPECT_TRUE(test::matches<double>(x, xc, 1e-6));
  EXPECT_LE(std::abs(residual_norm(A, x, b) - residual_norm(A, xc, b)), 1e-10 * residual_norm(A, xc, b));
  EXPECT_EQ(x, x2);
}

// A dead pivot near the root: its front and ancestors hold over 90% of the
// flops (the host oracle: 1 of 13 fronts, 96%), so the whole factorisation
// runs on the CPU and fallback says so.
TEST(GpuQr, DeadColumnsAtTheRootFallBackToHeathOnTheCpu) {
  BALSA_REQUIRE_GPU();
  Csr<double> A = tall_full_rank(1500, 600, 0.01, 2);
  Coo<double> c = to_coo(A);  // column 600 = 2 * column 5 (after the singletons, a dead column)
  c.cols = 601;
  for (std::size_t k = 0, n = c.values.size(); k < n; ++k)
    if (c.col_idx[k] == 5) {
      c.row_idx.push_back(c.row_idx[k]);
      c.col_idx.push_back(600);
      c.values.push_back(2 * c.values[k]);
    }
  A = to_csr(c);
  const std::vector<double> b = random_values(std::size_t(A.rows), 3);
  const Solved gpu = solve_on(A, b, 1, Device::Cuda), cpu = solve_on(A, b, 1, Device::Cpu);
  EXPECT_EQ(gpu.stats.rank, 600);
  EXPECT_EQ(gpu.stats.rank, cpu.stats.rank);
  EXPECT_EQ(gpu.stats.device, Device::Cpu);
  EXPECT_EQ(gpu.stats.gpu_fronts_redone, 0);
  EXPECT_NE(gpu.stats.fallback.find("(Heath); nearly all the work"), std::string::npos) << gpu.stats.fallback;
  EXPECT_LE(std::abs(residual_norm(A, gpu.x, b) - residual_norm(A, cpu.x, b)), 1e-10 * residual_norm(A, cpu.x, b));
}

// Eight independent 400 x 150 blocks; block 2's column 7 is twice its
// column 5: one dead pivot, in block 2's tree. Only its front and that
// front's ancestors are refactored on the CPU (the host oracle: 1 of 72
// fronts, 12% of the flops), the rest keep the GPU's factor.
Csr<double> blocks_with_a_dead_column() {
  const index_t blocks = 8, rows = 400, cols = 150, bad = 2;
  Coo<double> c;
  c.rows = blocks * rows;
  c.cols = blocks * cols;
  for (index_t k = 0; k < blocks; ++k) {
    const Coo<double> B = to_coo(test::tall_full_rank(rows, cols, 0.03, 60 + std::uint64_t(k), 3.0));
    for (std::size_t t = 0; t < B.values.size(); ++t) {
      const index_t j = B.col_idx[t];
      if (k == bad && j == 7) continue;
      for (int twice = 0; twice < (k == bad && j == 5 ? 2 : 1); ++twice) {
        c.row_idx.push_back(k * rows + B.row_idx[t]);
        c.col_idx.push_back(k * cols + (twice ? 7 : j));
        c.values.push_back(twice ? 2 * B.values[t] : B.values[t]);
      }
    }
  }
  return to_csr(c);
}

TEST(GpuQr, DeadPivotsRefactorOnlyTheirFrontsOnTheCpu) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = blocks_with_a_dead_column();
  for (double dense_flops : {1e10, 1e6}) {  // tiles alone; the large fronts by cuSOLVER
    SCOPED_TRACE(dense_flops);
    const std::vector<double> B = random_values(std::size_t(A.rows) * 2, 3);
    const Solved gpu = solve_on(A, B, 2, Device::Cuda, dense_flops), cpu = solve_on(A, B, 2, Device::Cpu);
    EXPECT_EQ(gpu.stats.device, Device::Cuda);
    EXPECT_EQ(gpu.stats.rank, 8 * 150 - 1);
    EXPECT_EQ(gpu.stats.rank, cpu.stats.rank);
    EXPECT_GE(gpu.stats.gpu_fronts_redone, 1);
    EXPECT_LT(gpu.stats.gpu_fronts_redone, gpu.stats.fronts / 4) << gpu.stats.fallback;
    EXPECT_EQ(gpu.stats.fallback.rfind("rank: ", 0), 0u) << gpu.stats.fallback;
    EXPECT_NE(gpu.stats.fallback.find("refactored on the CPU (Heath)"), std::string::npos);
    EXPECT_LE(test::relative_error<double>(gpu.x, cpu.x), 1e-10);
    // m < n: the minimum-norm solution of A^T x = b, b in its range.
    const Csr<double> At = transpose(A);
    std::vector<double> b(std::size_t(At.rows), 0.0);
    spmv(1.0, At, std::span<const double>(random_values(std::size_t(At.cols), 4)), 0.0, std::span<double>(b));
    const Solved wide = solve_on(At, b, 1, Device::Cuda, dense_flops), wide_cpu = solve_on(At, b, 1, Device::Cpu);
    EXPECT_EQ(wide.stats.device, Device::Cuda);
    EXPECT_EQ(wide.stats.rank, wide_cpu.stats.rank);
    EXPECT_LT(wide.stats.gpu_fronts_redone, wide.stats.fronts / 4) << wide.stats.fallback;
    EXPECT_LE(test::relative_error<double>(wide.x, wide_cpu.x), 1e-10);
  }
}

// A device_memory_limit too small for A's values and the maps: Auto stays
// on the CPU and says why, Cuda is a DeviceOutOfMemory naming the bytes.
TEST(GpuQr, AFactorTooLargeForTheDeviceIsReported) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = tall_full_rank(2000, 800, 0.005, 4);
  QrOptions o;
  o.gpu_min_flops = 0;
  o.gpu_min_intensity = 0;
  o.device_memory_limit = 1000;
  SparseQR qr(A, o);
  EXPECT_EQ(qr.stats().device, Device::Cpu);
  EXPECT_EQ(qr.stats().gpu_stages, 0);
  EXPECT_NE(qr.stats().fallback.find("more than the device budget (1000 bytes)"), std::string::npos) << qr.stats().fallback;
  EXPECT_GT(qr.stats().device_bytes, 1000u);
  const std::vector<double> b = random_values(std::size_t(A.rows), 2);
  o.device = Device::Cpu;
  EXPECT_EQ(qr.solve(b), SparseQR(A, o).solve(b));
  o.device = Device::Cuda;
  EXPECT_THROW_MSG(SparseQR(A, o), DeviceOutOfMemory, "more than the device budget (1000 bytes)");
}

// Staging (sec. 3.4), the plan level: the staged GPU factor against the
// one-arena GPU factor (R, the arena, Q^T B and Q Z to rounding: the same
// kernels on the same data; the staged host oracle against the one-arena
// one is qr_stages_test's, bitwise); refactorised twice.
TEST(GpuQr, StagedFactorMatchesTheOneArenaFactor) {
  BALSA_REQUIRE_GPU();
  for (const double dense_flops : {double(INFINITY), 1e6}) {  // tiles only; tiles and cuSOLVER
    const Csr<double> A = laplacian_2d_over_identity<double>(60, 60);
    SCOPED_TRACE("dense fronts from " + std::to_string(dense_flops));
    const qr::Symbolic s = qr::analyse(A, qr::column_ordering(A, QrOrdering::Colamd));
    const qr::GpuPlan plan = qr::make_gpu_plan(A, s, dense_flops);
    const std::size_t whole = plan.device_bytes(A.nnz()), limit = whole / 4;
    qr::StagedPlan staged = qr::make_staged_plan(plan, s, A.nnz(), limit);
    ASSERT_GE(staged.stages.size(), 5u);
    qr::GpuFactorPtr one = qr::gpu_prepare(plan, A.nnz());
    qr::GpuFactorPtr g = qr::gpu_prepare_staged(plan, std::move(staged), A.nnz(), limit);
    EXPECT_GE(qr::gpu_info(*g).stages, 5);
    EXPECT_LE(qr::gpu_info(*g).device_bytes, limit);
    EXPECT_GT(qr::gpu_info(*g).bytes_to_host, 8 * std::size_t(plan.arena));
    index_t launches = 0;
    const std::vector<double> R1 = qr::gpu_factorise(*one, plan, A.values, launches);
    for (int run = 0; run < 2; ++run) {
      const std::vector<double> R = qr::gpu_factorise(*g, plan, A.values, launches);
      ASSERT_EQ(R.size(), R1.size());
      EXPECT_LE(max_diff(R, R1), 1e-12 * max_abs(R1));
      EXPECT_LE(max_diff(qr::gpu_arena(*g), qr::gpu_arena(*one)), 1e-12 * max_abs(R1));
    }
    EXPECT_GT(launches, 0);
    const index_t nrhs = 3, ny = index_t(plan.y_row.size());
    std::vector<std::int64_t> rows(static_cast<std::size_t>(ny));
    for (index_t k = 0; k < ny; ++k) rows[std::size_t(k)] = k;
    qr::gpu_bind_r_rows(*g, rows);
    qr::gpu_bind_r_rows(*one, rows);
    const std::vector<double> B = random_values(std::size_t(A.rows) * nrhs, 9);
    cuda::DeviceBuffer<double> Y(std::size_t(ny) * nrhs), Y1(std::size_t(ny) * nrhs);
    test::poison(Y);
    qr::gpu_q_transpose(*g, plan, B, A.rows, nrhs, Y, ny);
    qr::gpu_q_transpose(*one, plan, B, A.rows, nrhs, Y1, ny);
    qr::gpu_synchronize(*g);
    const std::vector<double> Yh = Y.to_host(), Y1h = Y1.to_host();
    EXPECT_LE(max_diff(Yh, Y1h), 1e-12 * std::max(1.0, max_abs(Y1h)));
    // Q (Q^T B's R rows): the staged replay backward against the one arena's.
    const std::vector<double> X = qr::gpu_q_times(*g, plan, Y, ny, A.rows, nrhs), X1 = qr::gpu_q_times(*one, plan, Y1, ny, A.rows, nrhs);
    EXPECT_LE(max_diff(X, X1), 1e-12 * std::max(1.0, max_abs(X1)));
    for (double v : X) ASSERT_TRUE(std::isfinite(v));
  }
}

// SparseQR with a device_memory_limit 4x below the one-arena factor's
// bytes: factored in stages on the GPU (Cuda and Auto), the same solutions
// as the unstaged GPU run and the CPU path; tall and wide (m < n).
void expect_staged_matches(const Csr<double>& A, double dense_flops) {
  SCOPED_TRACE(std::to_string(A.rows) + " x " + std::to_string(A.cols) + ", dense fronts from " + std::to_string(dense_flops));
  const index_t nrhs = 2;
  const std::vector<double> B = random_values(std::size_t(A.rows) * std::size_t(nrhs), 4);
  const Solved one = solve_on(A, B, nrhs, Device::Cuda, dense_flops), cpu = solve_on(A, B, nrhs, Device::Cpu);
  ASSERT_EQ(one.stats.gpu_stages, 1);
  ASSERT_EQ(one.stats.staged_bytes_to_host, 0u);
  for (const Device d : {Device::Cuda, Device::Auto}) {
    QrOptions o;
    o.device = d;
    o.gpu_min_flops = 0;
    o.gpu_min_intensity = 0;
    o.gpu_dense_front_flops = dense_flops;
    o.device_memory_limit = one.stats.device_bytes / 4;
    SparseQR qr(A, o);
    const std::vector<double> x = qr.solve(B, nrhs);
    const QrStats& st = qr.stats();
    EXPECT_EQ(st.device, Device::Cuda);
    EXPECT_EQ(st.fallback, "");
    EXPECT_GT(st.gpu_stages, 1);
    EXPECT_LE(st.device_bytes, o.device_memory_limit);
    EXPECT_GE(one.stats.device_bytes, 3 * o.device_memory_limit);  // the factor >= 3x the limit
    EXPECT_GT(st.staged_bytes_to_host, 0u);
    EXPECT_EQ(st.rank, cpu.stats.rank);
    EXPECT_LE(max_diff(x, one.x), 1e-12 * std::max(1.0, max_abs(one.x)));
    EXPECT_TRUE(test::matches<double>(x, cpu.x, 1e-10));
    const index_t stages = st.gpu_stages;
    qr.factorise(A);  // a refactorisation replays the stages
    EXPECT_EQ(qr.stats().gpu_stages, stages);
    EXPECT_EQ(qr.stats().device, Device::Cuda);
    EXPECT_LE(max_diff(qr.solve(B, nrhs), x), 1e-13 * std::max(1.0, max_abs(x)));
  }
}

TEST(GpuQr, StagedLeastSquaresMatchTheUnstagedAndTheCpu) {
  BALSA_REQUIRE_GPU();
  expect_staged_matches(laplacian_2d_over_identity<double>(60, 60), 1e10);
  expect_staged_matches(laplacian_2d_over_identity<double>(60, 60), 1e6);
}

TEST(GpuQr, StagedWideSystemsGetTheMinimumNormSolution) {
  BALSA_REQUIRE_GPU();
  expect_staged_matches(transpose(laplacian_2d_over_identity<double>(60, 60)), 1e10);
}

// A limit above the maps but below the largest front's two windows: Cuda
// is a DeviceOutOfMemory naming the front (index, m x n), Auto the CPU
// with that reason.
TEST(GpuQr, ALimitBelowTheLargestFrontNamesIt) {
  BALSA_REQUIRE_GPU();
  const Csr<double> A = tall_full_rank(2000, 800, 0.005, 4);  // its root front takes most of the arena
  QrOptions o;
  o.gpu_min_flops = 0;
  o.gpu_min_intensity = 0;
  const std::size_t whole = SparseQR(A, o).stats().device_bytes;
  o.device_memory_limit = whole / 2;
  SparseQR qr(A, o);
  EXPECT_EQ(qr.stats().device, Device::Cpu);
  EXPECT_NE(qr.stats().fallback.find("auto: SparseQR on the GPU in stages: front "), std::string::npos) << qr.stats().fallback;
  EXPECT_NE(qr.stats().fallback.find(") alone needs"), std::string::npos) << qr.stats().fallback;
  o.device = Device::Cuda;
  EXPECT_THROW_MSG(SparseQR(A, o), DeviceOutOfMemory, ") alone needs");
  try {
    SparseQR failed(A, o);
  } catch (const DeviceOutOfMemory& e) {  // "front k (m x n)": the analysis' front k
    const std::string what = e.what();
    const std::size_t at = what.find("front ");
    ASSERT_NE(at, std::string::npos);
    const std::size_t x = what.find(" x ", at);
    ASSERT_NE(x, std::string::npos);
    EXPECT_GT(std::stol(what.substr(what.find('(', at) + 1)), 0) << what;  // m
    EXPECT_GT(std::stol(what.substr(x + 3)), 0) << what;                   // n
  }
}

TEST(GpuQr, AutoRoutesSmallProblemsToTheCpu) {
  BALSA_REQUIRE_GPU();
  const Csr<double> small = tall_full_rank(200, 80, 0.05, 1);
  SparseQR qr(small);
  EXPECT_EQ(qr.stats().device, Device::Cpu);
  EXPECT_NE(qr.stats().fallback.find("auto"), std::string::npos);
  QrOptions o;
  o.gpu_min_flops = 0;
  o.gpu_min_intensity = 0;
  SparseQR forced(small, o);
  EXPECT_EQ(forced.stats().device, Device::Cuda);
}

}  // namespace
}  // namespace balsa
