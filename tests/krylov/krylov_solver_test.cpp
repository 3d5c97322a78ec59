// KrylovSolver's front end on the CPU (krylov/krylov_solver.cpp): the
// threads option, every bad input, the set-up trace and the names.
// Helpers: support/krylov_cpu_cases.hpp.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "balsa/setup_trace.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

// KrylovOptions::threads: checked at set-up; the solver and its nested
// preconditioner leave the caller's OpenMP setting as it was.
TEST(KrylovCpuThreads, RangeCheckedAndCallerSettingKept) {
  const Csr<double> A = laplacian_2d<double>(40, 40);
  EXPECT_THROW_MSG(KrylovSolver<double>(A, {.device = Device::Cpu, .threads = -2}), Error,
                   "KrylovOptions::threads = -2: must be 0");
  EXPECT_THROW_MSG(KrylovSolver<double>(A, {.device = Device::Cpu, .threads = hardware_threads() + 1}), Error,
                   "(this machine's hardware threads)");
  const int before = current_threads();
  KrylovOptions o = krylov_options(KrylovPreset::PcgIc0);
  o.device = Device::Cpu;
  o.threads = 1;
  KrylovSolver<double> pcg(A, o);
  EXPECT_EQ(current_threads(), before);
  const std::vector<double> b(std::size_t(A.rows), 1.0);
  std::vector<double> x(b.size(), 0.0);
  EXPECT_EQ(pcg.solve(std::span<const double>(b), std::span<double>(x)).outcome, KrylovOutcome::Converged);
  EXPECT_EQ(current_threads(), before);
}

// ---- bad input ----------------------------------------------------------------------------

TYPED_TEST(KrylovCpu, BadInput) {
  using T = TypeParam;
  const KrylovOptions cpu{.preconditioner = PreconditionerKind::None, .device = Device::Cpu};
  EXPECT_THROW(KrylovSolver<T>(test::random_sparse<T>(3, 4, 0.5, 1), cpu), DimensionError);
  // Not symmetric: CG names the entry; BiCGStab and check_symmetry = false accept it.
  Csr<T> U = to_csr(DenseMatrix<T>(2, 2));
  U.row_ptr = {0, 2, 3};
  U.col_idx = {0, 1, 1};
  U.values = {T(2), T(1), T(2)};
  EXPECT_THROW_MSG(KrylovSolver<T>(U, cpu), MatrixError, "A(0, 1) = 1");
  EXPECT_NO_THROW(KrylovSolver<T>(U, {.preconditioner = PreconditionerKind::None, .device = Device::Cpu,
                                      .check_symmetry = false}));
  EXPECT_NO_THROW(KrylovSolver<T>(U, {.method = KrylovMethod::BiCgStab, .preconditioner = PreconditionerKind::None,
                                      .device = Device::Cpu}));
  // The symmetry check runs beside the preconditioner's set-up, and its error
  // still wins over the set-up's (here IC(0)'s breakdown at a_00 = -1).
  U.values[0] = T(-1);
  KrylovOptions ic0{.preconditioner = PreconditionerKind::Ic0, .device = Device::Cpu};
  ic0.factor.on_breakdown = PivotBreakdown::Fail;
  EXPECT_THROW_MSG(KrylovSolver<T>(U, ic0), MatrixError, "A(0, 1) = 1");
  ic0.check_symmetry = false;
  EXPECT_THROW_MSG(KrylovSolver<T>(U, ic0), MatrixError, "pivot");
  // Unsorted columns, NaN in A.
  Csr<T> bad = laplacian_2d<T>(3, 3);
  std::swap(bad.col_idx[0], bad.col_idx[1]);
  EXPECT_THROW(KrylovSolver<T>(bad, cpu), MatrixError);
  Csr<T> nan = laplacian_2d<T>(3, 3);
  nan.values[4] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(KrylovSolver<T>(nan, cpu), MatrixError, "NaN");
  // Options.
  const Csr<T> A = laplacian_2d<T>(4, 4);
  auto with = [&](auto change) {
    KrylovOptions o = cpu;
    change(o);
    return o;
  };
  EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.stopping.tolerance = 0; })), Error, "tolerance");
  EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.stopping.tolerance = std::nan(""); })), Error, "tolerance");
  EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.stopping.max_iterations = -1; })), Error, "max_iterations");
  for (const int l : {0, 9})
    EXPECT_THROW_MSG(KrylovSolver<T>(A, with([&](auto& o) { o.method = KrylovMethod::BiCgStabL, o.l = l; })), Error,
                     "l in 1..8");
  if constexpr (std::is_same_v<T, float>)
    EXPECT_THROW_MSG(KrylovSolver<T>(A, with([](auto& o) { o.float_preconditioner = true; })), Error,
                     "float_preconditioner");
  if (!cuda::available()) {
    EXPECT_THROW(KrylovSolver<T>(A, with([](auto& o) { o.device = Device::Cuda; })), CudaError);
  }
  // Vectors.
  KrylovSolver<T> s(A, cpu);
  std::vector<T> b(16, T(1)), x(16, T(0)), short_b(15, T(1));
  EXPECT_THROW_MSG(s.solve(std::span<const T>(short_b), std::span<T>(x)), DimensionError, "b has 15");
  EXPECT_THROW_MSG(s.solve(std::span<const T>(b), std::span<T>(short_b)), DimensionError, "x has 15");
  b[3] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW_MSG(s.solve(std::span<const T>(b), std::span<T>(x)), Error, "index 3");
  b[3] = T(1);
  x[7] = std::numeric_limits<T>::infinity();
  EXPECT_THROW_MSG(s.solve(std::span<const T>(b), std::span<T>(x)), Error, "initial guess x at index 7");
  cuda::DeviceBuffer<T> db, dx;
  EXPECT_THROW_MSG(s.solve(db, dx), Error, "Device::Cuda");
  // An empty system.
  KrylovSolver<T> empty(Csr<T>{}, cpu);
  std::vector<T> none;
  EXPECT_EQ(empty.solve(std::span<const T>(none), std::span<T>(none)).outcome, KrylovOutcome::Converged);
  // Moved from.
  KrylovSolver<T> moved(std::move(s));
  EXPECT_THROW_MSG(s.rows(), Error, "moved");
  EXPECT_EQ(moved.rows(), 16);
}

// balsa::set_setup_trace (include/balsa/setup_trace.hpp): a set-up's phases
// go to the file while it is set, none after "" stops it.
TEST(KrylovSetupTrace, WritesTheTimelineWhileSet) {
  const std::string path = ::testing::TempDir() + "balsa-setup-trace.txt";
  std::remove(path.c_str());
  const Csr<double> A = laplacian_2d<double>(8, 8);
  const auto lines = [&] {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text;
  };
  set_setup_trace(path);
  KrylovSolver<double>(A, {.device = Device::Cpu});
  set_setup_trace("");
  const std::string traced = lines();
  EXPECT_NE(traced.find("setup-trace 0 "), std::string::npos) << traced;
  EXPECT_NE(traced.find(" krylov: checks\n"), std::string::npos) << traced;
  KrylovSolver<double>(A, {.device = Device::Cpu});
  EXPECT_EQ(lines(), traced);
  std::remove(path.c_str());
  EXPECT_THROW_MSG(set_setup_trace(::testing::TempDir() + "no-such-dir/trace.txt"), Error, "cannot open");
}

TEST(KrylovNames, ToString) {
  EXPECT_STREQ(to_string(KrylovMethod::BiCgStabL), "bicgstab(l)");
  EXPECT_STREQ(to_string(PreconditionerKind::Ic0), "ic0");
  EXPECT_STREQ(to_string(KrylovOutcome::NonFinite), "non-finite");
  EXPECT_STREQ(to_string(KrylovOutcome::Stagnation), "stagnation");
}

}  // namespace
}  // namespace balsa
