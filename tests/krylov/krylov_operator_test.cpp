// KrylovSolver with a user's matrix-free A and preconditioner M
// (balsa::LinearOperator) and the per-iterate callback on the CPU: an
// operator A equals the CSR A it multiplies by, a user M equals the built-in
// Jacobi, the callback sees every iteration's x, exceptions from every
// callback leave solve() unchanged and the solver works afterwards, bad
// shapes and options are refused.
#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "support/krylov_cpu_cases.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

// y = A x with the CPU solver's arithmetic (a row's sum in T, storage order),
// so that the operator's iteration is the CSR one, rounding included.
template <class T>
void product(const Csr<T>& A, std::span<const T> x, std::span<T> y) {
  for (index_t i = 0; i < A.rows; ++i) {
    T sum = T(0);
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) sum += A.values[k] * x[A.col_idx[k]];
    y[i] = sum;
  }
}

template <class T>
LinearOperator<T> operator_of(const Csr<T>& A) {
  return {A.rows, A.cols, [&A](std::span<const T> x, std::span<T> y) { product(A, x, y); }};
}

// z = D^{-1} r, D = diag(A): the built-in Jacobi's arithmetic.
template <class T>
LinearOperator<T> jacobi_of(const Csr<T>& A) {
  std::vector<T> d(std::size_t(A.rows));
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) d[std::size_t(i)] = A.values[k];
  return {A.rows, A.cols, [d](std::span<const T> r, std::span<T> z) {
            for (std::size_t i = 0; i < d.size(); ++i) z[i] = r[i] / d[i];
          }};
}

const KrylovMethod kMethods[] = {KrylovMethod::Cg, KrylovMethod::BiCgStab, KrylovMethod::BiCgStabL};

KrylovOptions cpu(KrylovMethod m, PreconditionerKind p = PreconditionerKind::None) {
  KrylovOptions o{.method = m, .preconditioner = p, .device = Device::Cpu};
  o.stopping.norm = StoppingNorm::Two;
  o.stopping.tolerance = 1e-8;
  return o;
}

template <class T>
struct Problem {
  Csr<T> A = laplacian_2d<T>(16, 12);
  std::vector<T> b = random_vector<T>(A.rows, 5);
  std::vector<T> x = std::vector<T>(b.size(), T(0));
  KrylovStats solve(KrylovSolver<T>& s) {
    std::fill(x.begin(), x.end(), T(0));
    return s.solve(std::span<const T>(b), std::span<T>(x));
  }
};

// The same iteration through the operator as through the CSR matrix, with
// and without a user M equal to Jacobi (then the same as the built-in one).
TYPED_TEST(KrylovCpu, OperatorAndUserJacobiEqualTheCsrSolver) {
  using T = TypeParam;
  Problem<T> p;
  const LinearOperator<T> A = operator_of(p.A), M = jacobi_of(p.A);
  for (const KrylovMethod m : kMethods) {
    for (const bool precondition : {false, true}) {
      SCOPED_TRACE(std::string(to_string(m)) + (precondition ? " jacobi" : ""));
      KrylovSolver<T> csr(p.A, cpu(m, precondition ? PreconditionerKind::Jacobi : PreconditionerKind::None));
      const KrylovStats want = p.solve(csr);
      const std::vector<T> x_csr = p.x;
      ASSERT_EQ(want.outcome, KrylovOutcome::Converged) << want.message;
      KrylovSolver<T> op(A, cpu(m), precondition ? &M : nullptr);
      const KrylovStats got = p.solve(op);
      EXPECT_EQ(got.outcome, KrylovOutcome::Converged) << got.message;
      EXPECT_EQ(got.iterations, want.iterations);
      EXPECT_EQ(got.matvecs, want.matvecs);
      EXPECT_EQ(got.history, want.history);
      EXPECT_EQ(p.x, x_csr);
      EXPECT_EQ(got.spmv, "operator");
      if (!precondition) continue;
      KrylovSolver<T> csr_m(p.A, cpu(m), M);  // CSR A, user M
      const KrylovStats with_m = p.solve(csr_m);
      EXPECT_EQ(with_m.history, want.history);
      EXPECT_EQ(p.x, x_csr);
    }
  }
}

// Every iteration's iterate, once, in order; its residual is the history's
// (the recursive residual, equal up to rounding) and the last is x.
TYPED_TEST(KrylovCpu, IterateCallbackSeesEveryIteration) {
  using T = TypeParam;
  Problem<T> p;
  const std::vector<T> zero(p.b.size(), T(0));
  for (const KrylovMethod m : kMethods) {
    SCOPED_TRACE(to_string(m));
    KrylovSolver<T> s(p.A, cpu(m, PreconditionerKind::Jacobi));
    std::vector<int> seen;
    std::vector<double> residuals;
    std::vector<T> last;
    s.set_iterate_callback([&](int k, std::span<const T> xk) {
      seen.push_back(k);
      const std::vector<T> ax = multiply(p.A, xk);
      residuals.push_back(relative_residual_of(std::span<const T>(ax), std::span<const T>(p.b)));
      last.assign(xk.begin(), xk.end());
    });
    const KrylovStats st = p.solve(s);
    ASSERT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
    ASSERT_EQ(int(seen.size()), st.iterations);
    for (int k = 0; k < st.iterations; ++k) {
      EXPECT_EQ(seen[std::size_t(k)], k + 1);
      const double want = st.history[std::size_t(k) + 1];
      EXPECT_NEAR(residuals[std::size_t(k)], want, 1e-3 * want + test::tolerance<T>(1000)) << "iteration " << k + 1;
    }
    EXPECT_EQ(last, p.x);
    // Cleared: no calls; the solve is the same.
    s.set_iterate_callback(nullptr);
    seen.clear();
    EXPECT_EQ(p.solve(s).history, st.history);
    EXPECT_TRUE(seen.empty());
  }
}

struct Stop {
  int at;
};

// An exception from a callback (here not a std::exception) leaves solve()
// as it was thrown; the solver then solves as before.
TYPED_TEST(KrylovCpu, CallbackExceptionsPropagateAndTheSolverRecovers) {
  using T = TypeParam;
  Problem<T> p;
  int calls = 0, throw_at = -1;
  auto maybe_throw = [&] {
    if (++calls == throw_at) throw Stop{calls};
  };
  const LinearOperator<T> A{p.A.rows, p.A.cols, [&](std::span<const T> x, std::span<T> y) {
                              maybe_throw();
                              product(p.A, x, y);
                            }};
  const LinearOperator<T> J = jacobi_of(p.A);
  const LinearOperator<T> M{p.A.rows, p.A.cols, [&](std::span<const T> r, std::span<T> z) {
                              maybe_throw();
                              J.apply(r, z);
                            }};
  for (const KrylovMethod m : kMethods) {
    SCOPED_TRACE(to_string(m));
    KrylovOptions o = cpu(m);
    o.progress = [&](int, double) { maybe_throw(); };
    KrylovSolver<T> s(A, o, &M);
    s.set_iterate_callback([&](int, std::span<const T>) { maybe_throw(); });
    throw_at = -1;
    calls = 0;
    const KrylovStats clean = p.solve(s);
    ASSERT_EQ(clean.outcome, KrylovOutcome::Converged) << clean.message;
    const int total = calls;
    ASSERT_GT(total, 8);
    for (const int at : {1, 2, 3, 5, 8, total / 2, total}) {
      calls = 0;
      throw_at = at;
      try {
        p.solve(s);
        ADD_FAILURE() << "no exception at call " << at;
      } catch (const Stop& e) {
        EXPECT_EQ(e.at, at);
      }
      throw_at = -1;
      EXPECT_EQ(p.solve(s).history, clean.history) << "after the exception at call " << at;
    }
  }
  // A std:: exception is not turned into a balsa::Error either.
  KrylovSolver<T> s(p.A, cpu(KrylovMethod::Cg));
  s.set_iterate_callback([](int k, std::span<const T>) {
    if (k == 3) throw std::logic_error("user's");
  });
  EXPECT_THROW(p.solve(s), std::logic_error);
  s.set_iterate_callback(nullptr);
  EXPECT_EQ(p.solve(s).outcome, KrylovOutcome::Converged);
}

TYPED_TEST(KrylovCpu, OperatorBadInput) {
  using T = TypeParam;
  Problem<T> p;
  const LinearOperator<T> A = operator_of(p.A), M = jacobi_of(p.A);
  const KrylovOptions o = cpu(KrylovMethod::Cg);
  LinearOperator<T> wide = A;
  wide.cols = A.cols + 1;
  EXPECT_THROW_MSG(KrylovSolver<T>(wide, o), DimensionError, "not square");
  LinearOperator<T> small = M;
  small.rows = small.cols = M.rows - 1;
  EXPECT_THROW_MSG(KrylovSolver<T>(A, o, &small), DimensionError, "A has 192 rows");
  EXPECT_THROW_MSG(KrylovSolver<T>(p.A, o, small), DimensionError, "A has 192 rows");
  EXPECT_THROW_MSG(KrylovSolver<T>(LinearOperator<T>{A.rows, A.cols, nullptr, nullptr}, o), Error, "neither apply nor apply_device");
  LinearOperator<T> device_only{A.rows, A.cols, nullptr, [](const T*, T*, StreamHandle) {}};
  EXPECT_THROW_MSG(KrylovSolver<T>(device_only, o), Error, "the CPU path needs apply");
  KrylovOptions ic0 = o;
  ic0.preconditioner = PreconditionerKind::Ic0;
  EXPECT_THROW_MSG(KrylovSolver<T>(A, ic0), Error, "give M instead");
  EXPECT_THROW_MSG(KrylovSolver<T>(A, ic0, &M), Error, "with a user M");
  EXPECT_THROW_MSG(KrylovSolver<T>(p.A, ic0, M), Error, "with a user M");
  KrylovOptions cuda = o;
  cuda.device = Device::Cuda;
  EXPECT_THROW_MSG(KrylovSolver<T>(A, cuda), Error, "Device::Cuda needs apply_device");
  EXPECT_THROW_MSG(KrylovSolver<T>(p.A, cuda, M), Error, "Device::Cuda needs apply_device");
  KrylovOptions mc = o;
  mc.ordering = KrylovOrdering::Multicolour;
  EXPECT_THROW_MSG(KrylovSolver<T>(A, mc), Error, "needs A as a CSR matrix");
  EXPECT_THROW_MSG(KrylovSolver<T>(p.A, mc, M), Error, "needs A as a CSR matrix");
  KrylovSolver<T> op(A, o);
  EXPECT_THROW_MSG(op.update_values(std::span<const T>(p.A.values)), Error, "operator");
  KrylovSolver<T> user_m(p.A, o, M);
  EXPECT_THROW_MSG(user_m.update_values(std::span<const T>(p.A.values)), Error, "user preconditioner");
  // A nonsymmetric operator is not checked (no entries to check): CG runs.
  EXPECT_EQ(p.solve(op).outcome, KrylovOutcome::Converged);
}

}  // namespace
}  // namespace balsa
