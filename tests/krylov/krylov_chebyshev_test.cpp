// The Chebyshev polynomial preconditioner on the CPU (krylov/chebyshev.cpp):
// its recurrence against Saad's Alg. 12.1 written out here, its symmetry and
// definiteness, Gershgorin's bound, PCG with it against plain CG, and its
// errors. The GPU path against this one: tests/krylov/gpu_krylov_test.cpp.
#include <cmath>
#include <limits>
#include <optional>

#include "balsa/generators.hpp"
#include "balsa/krylov.hpp"
#include "krylov/chebyshev.hpp"
#include "support/krylov_cpu_cases.hpp"
#include "support/poison.hpp"

namespace balsa {
namespace {

using namespace krylov_cpu_cases;

KrylovOptions chebyshev_options(int degree, double ratio = 30.0) {
  KrylovOptions o{.method = KrylovMethod::Cg, .preconditioner = PreconditionerKind::Chebyshev, .device = Device::Cpu};
  o.chebyshev = {.degree = degree, .ratio = ratio};
  return o;
}

// Saad Alg. 12.1 with the Jacobi scaling, in its two-vector form (d_k and
// x_k), from x_0 = 0 over `degree` products: the independent reference.
template <class T>
std::vector<double> saad_chebyshev(const Csr<T>& A, const std::vector<double>& r, int degree, double ratio) {
  const std::size_t n = r.size();
  std::vector<double> dinv(n), sums(n);
  double b = 0;
  for (index_t i = 0; i < A.rows; ++i) {
    double diagonal = 0, sum = 0;
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      sum += std::fabs(double(A.values[k]));
      if (A.col_idx[k] == i) diagonal = double(A.values[k]);
    }
    dinv[std::size_t(i)] = 1 / diagonal;
    b = std::max(b, sum / diagonal);
  }
  const double a = b / ratio, theta = (b + a) / 2, delta = (b - a) / 2, sigma = theta / delta;
  double rho = 1 / sigma;
  std::vector<double> d(n), x(n, 0.0), res(n);
  for (std::size_t i = 0; i < n; ++i) d[i] = dinv[i] * r[i] / theta;
  for (int k = 1; k <= degree + 1; ++k) {
    for (std::size_t i = 0; i < n; ++i) x[i] += d[i];
    if (k == degree + 1) break;
    for (index_t i = 0; i < A.rows; ++i) {
      double ax = 0;
      for (index_t q = A.row_ptr[i]; q < A.row_ptr[i + 1]; ++q) ax += double(A.values[q]) * x[A.col_idx[q]];
      res[std::size_t(i)] = r[std::size_t(i)] - ax;
    }
    const double next = 1 / (2 * sigma - rho);
    for (std::size_t i = 0; i < n; ++i) d[i] = next * rho * d[i] + 2 * next / delta * dinv[i] * res[i];
    rho = next;
  }
  return x;
}

template <class T>
std::vector<T> apply(krylov::Preconditioner<T>& M, const std::vector<T>& r) {
  std::vector<T> z = test::poisoned<T>(r.size());
  M.apply(std::span<const T>(r), std::span<T>(z));
  EXPECT_EQ(test::count_poisoned<T>(std::span<const T>(z)), 0u);
  return z;
}

template <class T>
double dot(const std::vector<T>& u, const std::vector<T>& v) {
  double s = 0;
  for (std::size_t i = 0; i < u.size(); ++i) s += double(u[i]) * double(v[i]);
  return s;
}

template <class T>
std::vector<std::pair<std::string, Csr<T>>> spd_matrices() {
  return {{"laplace2d 30", laplacian_2d<T>(30, 30)},
          {"laplace3d 10", laplacian_3d<T>(10, 10, 10)},
          {"random spd", random_spd<T>(3000, 6, 4)}};
}

TYPED_TEST(KrylovCpu, ChebyshevIsSaadsRecurrence) {
  using T = TypeParam;
  for (const auto& [name, A] : spd_matrices<T>())
    for (const int degree : {0, 1, 2, 5, 7, 16})
      for (const double ratio : {4.0, 30.0, 1000.0}) {
        SCOPED_TRACE(name + " degree " + std::to_string(degree) + " ratio " + std::to_string(ratio));
        auto M = krylov::make_chebyshev(A, chebyshev_options(degree, ratio));
        const std::vector<T> r = random_vector<T>(A.rows, 5);
        const std::vector<T> z = apply(*M, r);
        const std::vector<double> ref = saad_chebyshev(A, std::vector<double>(r.begin(), r.end()), degree, ratio);
        EXPECT_LE(test::relative_error<T>(z, std::vector<T>(ref.begin(), ref.end())), test::tolerance<T>(50 + 20 * degree));
      }
}

TYPED_TEST(KrylovCpu, ChebyshevIsSymmetricPositiveDefinite) {
  using T = TypeParam;
  for (const auto& [name, A] : spd_matrices<T>()) {
    SCOPED_TRACE(name);
    auto M = krylov::make_chebyshev(A, chebyshev_options(7));
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<T> u = random_vector<T>(A.rows, seed), v = random_vector<T>(A.rows, seed + 10);
      const std::vector<T> Mu = apply(*M, u), Mv = apply(*M, v);
      EXPECT_NEAR(dot(u, Mv), dot(v, Mu), test::tolerance<T>(200) * std::sqrt(dot(u, Mu) * dot(v, Mv)));
      EXPECT_GT(dot(u, Mu), 0.0);
    }
  }
}

TEST(KrylovChebyshev, BoundIsGershgorinsAndHolds) {
  const Csr<double> A = random_spd<double>(2000, 7, 9);
  std::vector<double> dinv(std::size_t(A.rows));
  krylov::device::DiagonalProblem problem;
  const double b = krylov::chebyshev_scaling<double, double>(A, std::span<const double>(A.values),
                                                             std::span<double>(dinv), problem);
  EXPECT_EQ(problem.row, -1);
  // The largest eigenvalue of D^{-1} A by power iteration stays below b.
  std::vector<double> x = random_vector<double>(A.rows, 2), y(x.size());
  double lambda = 0;
  for (int it = 0; it < 300; ++it) {
    const std::vector<double> ax = multiply(A, std::span<const double>(x));
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = dinv[i] * ax[i];
    lambda = std::sqrt(dot(y, y) / dot(x, x));
    const double norm = std::sqrt(dot(y, y));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = y[i] / norm;
  }
  EXPECT_LE(lambda, b * (1 + 1e-12));
  EXPECT_GT(lambda, b / 4);  // a bound, but not a loose one here
  const Csr<double> L = laplacian_3d<double>(8, 8, 8);  // interior rows: 6 + 6 off-diagonal ones over 6
  std::vector<double> dl(std::size_t(L.rows));
  const double bl = krylov::chebyshev_scaling<double, double>(L, std::span<const double>(L.values),
                                                              std::span<double>(dl), problem);
  EXPECT_EQ(bl, 2.0);
}

TYPED_TEST(KrylovCpu, PcgChebyshevBeatsCgInIterations) {
  using T = TypeParam;
  const double tol = tol_for<T>();
  for (const auto& [name, A] : spd_matrices<T>()) {
    SCOPED_TRACE(name);
    KrylovOptions o = chebyshev_options(7);
    o.stopping = {.tolerance = tol, .norm = StoppingNorm::Two};
    const KrylovStats p = expect_solves<T>(A, o, 5000 * tol);
    o.preconditioner = PreconditionerKind::None;
    const KrylovStats c = expect_solves<T>(A, o, 5000 * tol);
    EXPECT_LT(p.iterations * 3, c.iterations);
    EXPECT_EQ(p.chebyshev_degree, 7);
    EXPECT_EQ(p.preconditioner_matvecs, 7 * std::int64_t(p.matvecs));
    EXPECT_GT(p.spectrum_bound, 1.0);
  }
  KrylovOptions preset = krylov_options(KrylovPreset::PcgChebyshev);
  EXPECT_EQ(preset.preconditioner, PreconditionerKind::Chebyshev);
  EXPECT_EQ(to_string(KrylovPreset::PcgChebyshev), std::string("pcg-chebyshev"));
}

TEST(KrylovChebyshev, FloatPreconditionerInADoubleIteration) {
  const Csr<double> A = laplacian_3d<double>(12, 12, 12);
  KrylovOptions o = chebyshev_options(7);
  o.stopping = {.tolerance = 1e-10, .norm = StoppingNorm::Two};
  const KrylovStats d = expect_solves<double>(A, o, 1e-6);
  o.float_preconditioner = true;
  const KrylovStats f = expect_solves<double>(A, o, 1e-6);
  EXPECT_NEAR(f.iterations, d.iterations, 2);
  o.float_preconditioner = true;
  EXPECT_THROW(KrylovSolver<float>(laplacian_3d<float>(4, 4, 4), o), Error);
}

TEST(KrylovChebyshev, UpdateValuesRescales) {
  const Csr<double> A = laplacian_2d<double>(20, 20);
  KrylovOptions o = chebyshev_options(5);
  KrylovSolver<double> s(A, o);
  const double b0 = s.stats().spectrum_bound;
  std::vector<double> scaled = A.values;
  for (double& v : scaled) v *= 3;
  s.update_values(std::span<const double>(scaled));
  EXPECT_DOUBLE_EQ(s.stats().spectrum_bound, b0);  // D^{-1} A does not change
  std::vector<double> shifted = A.values;
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      if (A.col_idx[k] == i) shifted[std::size_t(k)] += 4;
  s.update_values(std::span<const double>(shifted));
  EXPECT_LT(s.stats().spectrum_bound, b0);
}

// A with row `row`'s diagonal entry set to `value`, or dropped (nullopt).
Csr<double> with_diagonal(const Csr<double>& A, index_t row, std::optional<double> value) {
  Csr<double> B{A.rows, A.cols, {0}, {}, {}};
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const bool diagonal = i == row && A.col_idx[k] == i;
      if (diagonal && !value) continue;
      B.col_idx.push_back(A.col_idx[k]);
      B.values.push_back(diagonal ? *value : A.values[k]);
    }
    B.row_ptr.push_back(index_t(B.col_idx.size()));
  }
  return B;
}

TEST(KrylovChebyshev, BadInputIsAClearError) {
  const Csr<double> A = laplacian_2d<double>(10, 10);
  for (const auto& [B, words] : {std::pair{with_diagonal(A, 7, -4.0), std::string("row 7 is not positive")},
                                 std::pair{with_diagonal(A, 7, 0.0), std::string("row 7 is not positive")},
                                 std::pair{with_diagonal(A, 3, std::nullopt), std::string("row 3 has no diagonal")}}) {
    SCOPED_TRACE(words);
    try {
      KrylovSolver<double> s(B, chebyshev_options(4));
      ADD_FAILURE() << "no error";
    } catch (const MatrixError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
  KrylovSolver<double> s(A, chebyshev_options(4));  // new values: the same checks, the old ones kept
  const double b0 = s.stats().spectrum_bound;
  const Csr<double> bad = with_diagonal(A, 5, -1.0);
  EXPECT_THROW(s.update_values(std::span<const double>(bad.values)), MatrixError);
  EXPECT_EQ(s.stats().spectrum_bound, b0);
  for (const auto& [degree, ratio] : {std::pair{-1, 30.0}, std::pair{65, 30.0}, std::pair{4, 1.0},
                                      std::pair{4, std::numeric_limits<double>::quiet_NaN()}}) {
    EXPECT_THROW(KrylovSolver<double>(A, chebyshev_options(degree, ratio)), Error);
  }
}

}  // namespace
}  // namespace balsa
