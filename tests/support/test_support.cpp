#include "support/test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"

namespace balsa::test {

std::filesystem::path data_file(const std::string& name) {
  return std::filesystem::path(BALSA_TEST_DATA_DIR) / name;
}

std::vector<std::filesystem::path> real_matrices() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(BALSA_TEST_DATA_DIR))
    if (e.path().extension() == ".mtx") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
struct TempRoot {
  std::filesystem::path path;
  TempRoot() {
    path = std::filesystem::temp_directory_path() / ("balsa-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};
}  // namespace

std::filesystem::path temp_dir() {
  static TempRoot root;
  static int counter = 0;
  auto p = root.path / std::to_string(counter++);
  std::filesystem::create_directories(p);
  return p;
}

std::filesystem::path write_temp_file(const std::string& name, const std::string& text) {
  const std::filesystem::path p = temp_dir() / name;
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  EXPECT_TRUE(out.good()) << "cannot write " << p;
  return p;
}

template <class T>
Csr<T> random_sparse(index_t rows, index_t cols, double density, std::uint64_t seed) {
  Random rng(seed);
  Coo<T> coo;
  coo.rows = rows;
  coo.cols = cols;
  const auto target = static_cast<std::int64_t>(density * double(rows) * double(cols));
  for (std::int64_t k = 0; k < target; ++k) {
    coo.row_idx.push_back(static_cast<index_t>(rng.below(std::uint64_t(rows))));
    coo.col_idx.push_back(static_cast<index_t>(rng.below(std::uint64_t(cols))));
    coo.values.push_back(static_cast<T>(rng.uniform(-1.0, 1.0)));
  }
  return to_csr(coo);
}

template <class T>
double relative_error(std::span<const T> x, std::span<const T> ref) {
  if (x.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = std::abs(double(x[i]) - double(ref[i]));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    num = std::max(num, d);
    den = std::max(den, std::abs(double(ref[i])));
  }
  return num / std::max(den, 1e-300);
}

template <class T>
std::optional<Csr<T>> real_matrix_as(const std::filesystem::path& file) {
  const Csr<double> A = read_matrix_market_csr<double>(file);
  for (const double v : A.values)
    if (std::abs(v) > double(std::numeric_limits<T>::max())) return std::nullopt;
  return convert_values<T>(A);
}

Csr<double> tall_full_rank(index_t m, index_t n, double density, std::uint64_t seed, double diagonal) {
  Coo<double> c = to_coo(random_sparse<double>(m, n, density, seed));
  for (index_t j = 0; j < n; ++j) {
    c.row_idx.push_back(j);
    c.col_idx.push_back(j);
    c.values.push_back(diagonal + 0.01 * j);
  }
  return to_csr(c);
}

template std::optional<Csr<float>> real_matrix_as<float>(const std::filesystem::path&);
template std::optional<Csr<double>> real_matrix_as<double>(const std::filesystem::path&);
template Csr<float> random_sparse<float>(index_t, index_t, double, std::uint64_t);
template Csr<double> random_sparse<double>(index_t, index_t, double, std::uint64_t);
template double relative_error<float>(std::span<const float>, std::span<const float>);
template double relative_error<double>(std::span<const double>, std::span<const double>);

}  // namespace balsa::test
