// balsa's quick start (README): default options everywhere, so it runs on
// the GPU when there is one and on the CPU otherwise.
#include <balsa/balsa.hpp>

#include <cstdio>
#include <vector>

int main() try {
  // A 3D Poisson problem: the 7-point Laplacian on a 40^3 grid, b = A x_true.
  const balsa::Csr<double> A = balsa::laplacian_3d<double>(40, 40, 40);
  const std::vector<double> x_true = balsa::random_vector<double>(A.rows, 1);
  const std::vector<double> b = balsa::multiply(A, std::span<const double>(x_true));

  // CG preconditioned by IC(0): analysis and factorisation here, then any number of solves.
  balsa::KrylovSolver<double> pcg(A);
  std::vector<double> x(b.size(), 0.0);  // initial guess in, solution out
  const balsa::KrylovStats st = pcg.solve(std::span<const double>(b), std::span<double>(x));
  std::printf("%s on %s: %d iterations, error %.1e\n", balsa::to_string(st.outcome), balsa::to_string(st.device),
              st.iterations, balsa::relative_error<double>(x, x_true));

  // A triangular solve with its lower triangle (the algorithm is chosen from the analysis).
  const balsa::Csr<double> L = balsa::extract_triangle(A, balsa::Triangle::Lower);
  balsa::TriangularSolver<double> lower(L);
  lower.solve(std::span<const double>(b), std::span<double>(x));
  std::printf("triangular solve: %s on %s, %d levels\n", balsa::to_string(lower.stats().algorithm),
              balsa::to_string(lower.stats().device), lower.stats().levels);
  return st.outcome == balsa::KrylovOutcome::Converged ? 0 : 1;
} catch (const balsa::Error& e) {  // every failure is a balsa::Error naming the problem
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
