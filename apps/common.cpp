#include "common.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>

namespace balsa::app {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <class T>
LoadedMatrix<T> load_matrix(const std::string& path, const MtxReadOptions& options) {
  LoadedMatrix<T> m;
  Stopwatch total;
  Coo<T> coo;
  if (path == "-") {
    coo = read_matrix_market<T>(std::cin, "<stdin>", options, &m.header);
  } else {
    std::error_code ec;
    m.bytes = std::filesystem::file_size(path, ec);
    coo = read_matrix_market<T>(path, options, &m.header);
  }
  m.read_seconds = total.seconds();
  m.A = to_csr(coo);
  m.total_seconds = total.seconds();
  return m;
}

template <class T>
void save_matrix(const std::string& path, const Csr<T>& A, const MtxWriteOptions& options) {
  if (path == "-")
    write_matrix_market(std::cout, A, options);
  else
    write_matrix_market(std::filesystem::path(path), A, options);
}

const std::map<std::string, Triangle>& triangle_names() {
  static const std::map<std::string, Triangle> m{{"lower", Triangle::Lower}, {"upper", Triangle::Upper}};
  return m;
}

const std::map<std::string, MtxSymmetry>& storage_names() {
  static const std::map<std::string, MtxSymmetry> m{{"general", MtxSymmetry::General},
                                                    {"symmetric", MtxSymmetry::Symmetric},
                                                    {"skew-symmetric", MtxSymmetry::SkewSymmetric}};
  return m;
}

template LoadedMatrix<double> load_matrix<double>(const std::string&, const MtxReadOptions&);
template LoadedMatrix<float> load_matrix<float>(const std::string&, const MtxReadOptions&);
template void save_matrix<double>(const std::string&, const Csr<double>&, const MtxWriteOptions&);
template void save_matrix<float>(const std::string&, const Csr<float>&, const MtxWriteOptions&);

}  // namespace balsa::app
