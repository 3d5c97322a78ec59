// balsa._balsa.Trsv{F32,F64}: TriangularSolver (include/balsa/trsv.hpp)
// behind balsa.TriangularSolver (python/balsa/trsv.py).
#include "balsa/trsv.hpp"

#include <algorithm>

#include "python/src/common.hpp"
#include "python/src/stats.hpp"

namespace balsa::python {

namespace {

template <class T>
class Trsv {
 public:
  nb::object stream_owner;  // make_released: destroyed after the solver
  Trsv(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const std::string& triangle,
       bool unit, bool transpose, const std::string& algorithm, const std::string& device, std::uintptr_t stream,
       int threads)
      : solver_(csr_from(n, n, indptr, indices, data),
                options(triangle, unit, transpose, algorithm, device, stream, threads)) {}

  void solve(const In<T>& b, const Out<T>& x) { solver_.solve(span_of(b), span_of(x)); }

  // `columns` right-hand sides, column-major in B and X (rows() * columns).
  void solve_columns(const In<T>& B, const Out<T>& X, index_t columns) {
    DenseMatrix<T> b(solver_.rows(), columns), x;
    std::copy_n(B.data(), b.values.size(), b.values.begin());
    solver_.solve(b, x);
    std::copy(x.values.begin(), x.values.end(), X.data());
  }

  // Device arrays (CuPy), asynchronous on the solver's stream.
  void solve_device(std::uintptr_t b, std::uintptr_t x, index_t columns) {
    solver_.solve_device(device_pointer<const T>(b), device_pointer<T>(x), columns);
  }

  void check() { solver_.check_last_solve(); }
  void update_values(const In<T>& values) { solver_.update_values(span_of(values)); }
  // Pattern changes (TriangularSolver::replace_columns, update_pattern).
  void replace_columns(const Indices& columns, const Indices& col_ptr, const Indices& row_idx, const In<T>& values) {
    solver_.replace_columns(span_of(columns), span_of(col_ptr), span_of(row_idx), span_of(values));
  }
  void update_pattern(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data) {
    solver_.update_pattern(csr_from(n, n, indptr, indices, data));
  }
  nb::dict stats() const { return to_dict(solver_.stats()); }
  index_t rows() const { return solver_.rows(); }

 private:
  static TrsvOptions options(const std::string& triangle, bool unit, bool transpose, const std::string& algorithm,
                             const std::string& device, std::uintptr_t stream, int threads) {
    TrsvOptions o;
    o.triangle = named<Triangle>(triangle);
    o.diagonal = unit ? DiagonalKind::Unit : DiagonalKind::NonUnit;
    o.operation = transpose ? Operation::Transpose : Operation::NonTranspose;
    o.algorithm = named<TrsvAlgorithm>(algorithm);
    o.device = named<Device>(device);
    o.stream = stream_from(stream);
    o.threads = threads;
    return o;
  }
  TriangularSolver<T> solver_;
};

template <class T>
void bind_one(nb::module_& m, const char* name) {
  nb::class_<Trsv<T>>(m, name)
      .def_static(
          "create",
          [](std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data,
             const std::string& triangle, bool unit, bool transpose, const std::string& algorithm,
             const std::string& device, std::uintptr_t stream, int threads, std::optional<nb::object> owner) {
            return make_released<Trsv<T>>(std::move(owner).value_or(nb::none()), n, indptr, indices, data, triangle,
                                          unit, transpose, algorithm, device, stream, threads);
          },
          nb::rv_policy::take_ownership)
      .def("solve", &Trsv<T>::solve, without_gil())
      .def("solve_columns", &Trsv<T>::solve_columns, without_gil())
      .def("solve_device", &Trsv<T>::solve_device, without_gil())
      .def("check", &Trsv<T>::check, without_gil())
      .def("update_values", &Trsv<T>::update_values, without_gil())
      .def("replace_columns", &Trsv<T>::replace_columns, without_gil())
      .def("update_pattern", &Trsv<T>::update_pattern, without_gil())
      .def("stats", &Trsv<T>::stats)
      .def_prop_ro("rows", &Trsv<T>::rows);
}

}  // namespace

void bind_trsv(nb::module_& m) {
  bind_one<float>(m, "TrsvF32");
  bind_one<double>(m, "TrsvF64");
  m.def("trsv_algorithms", [] { return enum_names<TrsvAlgorithm>(); });
}

}  // namespace balsa::python
