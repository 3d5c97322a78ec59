// KrylovSolver on the GPU with a user's device operator A and preconditioner
// M (balsa::LinearOperator::apply_device; here balsa's own SpMV of A and of
// D^{-1}) against the CPU path on the CSR matrix; the per-iterate callback
// on the GPU; exceptions from the callbacks leave solve() unchanged, the
// stream clean and the solver usable.
#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include "balsa/cuda.hpp"
#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using krylov_cpu_cases::tol_for;

template <class T>
class KrylovOperatorGpu : public ::testing::Test {};
TYPED_TEST_SUITE(KrylovOperatorGpu, krylov_cpu_cases::ValueTypes);

// D^{-1} as a diagonal CSR matrix.
template <class T>
Csr<T> inverse_diagonal(const Csr<T>& A) {
  Csr<T> D{A.rows, A.cols, {0}, {}, {}};
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) D.values.push_back(T(1) / A.values[k]);
    D.col_idx.push_back(i);
    D.row_ptr.push_back(index_t(D.col_idx.size()));
  }
  return D;
}

// The product y = B x by balsa's device SpMV (on the current stream: the solver's).
template <class T>
LinearOperator<T> device_operator(const cuda::DeviceCsr<T>& B) {
  LinearOperator<T> L{B.rows, B.cols, nullptr, nullptr};
  L.apply_device = [&B](const T* x, T* y, StreamHandle stream) {
    EXPECT_NE(stream, nullptr);
    cuda::spmv(B, x, y);
  };
  return L;
}

template <class T>
KrylovOptions options(KrylovMethod m, PreconditionerKind p, Device d) {
  KrylovOptions o{.method = m, .preconditioner = p, .device = d};
  o.stopping.norm = StoppingNorm::Two;
  o.stopping.tolerance = tol_for<T>();
  return o;
}

TYPED_TEST(KrylovOperatorGpu, DeviceOperatorAndUserMMatchTheCpu) {
  BALSA_REQUIRE_GPU();
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(40, 30);
  const cuda::DeviceCsr<T> dA = cuda::to_device(A), dD = cuda::to_device(inverse_diagonal(A));
  const LinearOperator<T> opA = device_operator(dA), opM = device_operator(dD);
  const std::vector<T> b = random_vector<T>(A.rows, 9);
  for (const KrylovMethod m : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL}) {
    SCOPED_TRACE(to_string(m));
    std::vector<T> want(b.size(), T(0)), got(b.size(), T(42));
    KrylovSolver<T> cpu(A, options<T>(m, PreconditionerKind::Jacobi, Device::Cpu));
    const KrylovStats ws = cpu.solve(std::span<const T>(b), std::span<T>(want));
    KrylovSolver<T> gpu(opA, options<T>(m, PreconditionerKind::None, Device::Auto), &opM);  // Auto: the GPU
    std::fill(got.begin(), got.end(), T(0));
    const KrylovStats gs = gpu.solve(std::span<const T>(b), std::span<T>(got));
    EXPECT_EQ(gs.device, Device::Cuda);
    EXPECT_EQ(gs.outcome, KrylovOutcome::Converged) << gs.message;
    EXPECT_NEAR(gs.iterations, ws.iterations, 2);
    EXPECT_LE(test::relative_error<T>(got, want), 1e3 * tol_for<T>());
    // CSR A with the device M.
    KrylovSolver<T> csr_m(A, options<T>(m, PreconditionerKind::None, Device::Cuda), opM);
    std::fill(got.begin(), got.end(), T(0));
    EXPECT_NEAR(csr_m.solve(std::span<const T>(b), std::span<T>(got)).iterations, ws.iterations, 2);
    EXPECT_LE(test::relative_error<T>(got, want), 1e3 * tol_for<T>());
  }
}

TYPED_TEST(KrylovOperatorGpu, IterateCallbackSeesEveryIteration) {
  BALSA_REQUIRE_GPU();
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(30, 30);
  const std::vector<T> b = random_vector<T>(A.rows, 4);
  for (const KrylovMethod m : {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL}) {
    SCOPED_TRACE(to_string(m));
    KrylovSolver<T> s(A, options<T>(m, PreconditionerKind::Jacobi, Device::Cuda));
    std::vector<int> seen;
    std::vector<double> residuals;
    std::vector<T> last;
    s.set_iterate_callback([&](int k, std::span<const T> xk) {
      seen.push_back(k);
      const std::vector<T> ax = multiply(A, xk);
      residuals.push_back(relative_residual_of(std::span<const T>(ax), std::span<const T>(b)));
      last.assign(xk.begin(), xk.end());
    });
    std::vector<T> x(b.size(), T(0));
    const KrylovStats st = s.solve(std::span<const T>(b), std::span<T>(x));
    ASSERT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    ASSERT_EQ(int(seen.size()), st.iterations);
    for (int k = 0; k < st.iterations; ++k) {
      EXPECT_EQ(seen[std::size_t(k)], k + 1);
      const double want = st.history[std::size_t(k) + 1];
      EXPECT_NEAR(residuals[std::size_t(k)], want, 1e-2 * want + 1e3 * test::tolerance<T>(1)) << "iteration " << k + 1;
    }
    EXPECT_EQ(last, x);
  }
}

TYPED_TEST(KrylovOperatorGpu, ExceptionsPropagateAndTheSolverRecovers) {
  BALSA_REQUIRE_GPU();
  using T = TypeParam;
  const Csr<T> A = laplacian_2d<T>(30, 20);
  const cuda::DeviceCsr<T> dA = cuda::to_device(A);
  const std::vector<T> b = random_vector<T>(A.rows, 2);
  int calls = 0, throw_at = -1;
  const LinearOperator<T> op = device_operator(dA);
  LinearOperator<T> throwing = op;
  throwing.apply_device = [&](const T* x, T* y, StreamHandle s) {
    if (++calls == throw_at) throw std::out_of_range("user's device product");
    op.apply_device(x, y, s);
  };
  KrylovSolver<T> s(throwing, options<T>(KrylovMethod::Cg, PreconditionerKind::None, Device::Cuda));
  std::vector<T> x(b.size(), T(0));
  const KrylovStats clean = s.solve(std::span<const T>(b), std::span<T>(x));
  ASSERT_EQ(clean.outcome, KrylovOutcome::Converged);
  for (const int at : {1, 2, 7, calls / 2}) {
    calls = 0;
    throw_at = at;
    std::fill(x.begin(), x.end(), T(0));
    EXPECT_THROW(s.solve(std::span<const T>(b), std::span<T>(x)), std::out_of_range);
    throw_at = -1;
    std::fill(x.begin(), x.end(), T(0));
    const KrylovStats again = s.solve(std::span<const T>(b), std::span<T>(x));
    EXPECT_EQ(again.outcome, KrylovOutcome::Converged);
    EXPECT_EQ(again.iterations, clean.iterations);
  }
  s.set_iterate_callback([](int k, std::span<const T>) {
    if (k == 4) throw std::domain_error("user's callback");
  });
  std::fill(x.begin(), x.end(), T(0));
  EXPECT_THROW(s.solve(std::span<const T>(b), std::span<T>(x)), std::domain_error);
  s.set_iterate_callback(nullptr);
  std::fill(x.begin(), x.end(), T(0));
  EXPECT_EQ(s.solve(std::span<const T>(b), std::span<T>(x)).iterations, clean.iterations);
}

}  // namespace
}  // namespace balsa
