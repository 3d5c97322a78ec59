// Uses the installed library: generate, convert, multiply, report.
#include <balsa/balsa.hpp>
#include <cstdio>

int main() {
  const balsa::Csr<double> A = balsa::laplacian_2d<double>(10, 10);
  const std::vector<double> x(100, 1.0);
  const std::vector<double> y = balsa::multiply(A, std::span<const double>(x));
  double sum = 0;
  for (double v : y) sum += v;
  // Row sums of the 5-point Laplacian: 4 - neighbours; over the grid they add to 2*(nx+ny) = 40.
  std::printf("consumer: n=%d nnz=%d sum=%g cuda=%d\n", A.rows, A.nnz(), sum, int(balsa::cuda::built_with_cuda()));
  return sum == 40.0 ? 0 : 1;
}
