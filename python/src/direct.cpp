// balsa._balsa.Direct{F32,F64}: balsa::DirectSolver (include/balsa/direct.hpp)
// behind balsa.DirectSolver and balsa.factorized (python/balsa/direct.py),
// and its stats as a dict (python/src/stats.hpp).
#include "balsa/direct.hpp"

#include <algorithm>

#include "python/src/common.hpp"
#include "python/src/stats.hpp"

namespace balsa::python {

namespace {

template <class T>
class Direct {
 public:
  Direct(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const std::string& method,
         int threads, const std::string& device)
      : solver_(csr_from(n, n, indptr, indices, data), options(method, threads, device)) {}

  // b: `columns` right-hand sides, column-major, flat; x the same shape.
  void solve(const In<T>& b, std::int64_t columns, const Out<T>& x) {
    if (columns == 1) return solver_.solve(span_of(b), span_of(x));
    const index_t n = solver_.stats().n;
    DenseMatrix<T> B(n, checked_index(columns, "columns")), X(n, B.cols);
    if (b.shape(0) != B.values.size() || x.shape(0) != B.values.size())
      throw DimensionError("DirectSolver.solve: b and x must hold n x columns values");
    std::copy(b.data(), b.data() + b.shape(0), B.values.begin());
    solver_.solve(B, X);
    std::copy(X.values.begin(), X.values.end(), x.data());
  }
  void update_values(const In<T>& values) { solver_.update_values(span_of(values)); }
  nb::dict stats() const { return to_dict(solver_.stats()); }

 private:
  static DirectOptions options(const std::string& method, int threads, const std::string& device) {
    DirectOptions o;
    o.method = named<DirectMethod>(method);
    o.threads = threads;
    o.device = named<Device>(device);
    return o;
  }
  DirectSolver<T> solver_;
};

template <class T>
void bind_one(nb::module_& m, const char* name) {
  nb::class_<Direct<T>>(m, name)
      .def(nb::init<std::int64_t, const Indices&, const Indices&, const In<T>&, const std::string&, int,
                    const std::string&>(),
           without_gil())
      .def("solve", &Direct<T>::solve, without_gil())
      .def("update_values", &Direct<T>::update_values, without_gil())
      .def("stats", &Direct<T>::stats);
}

}  // namespace

void bind_direct(nb::module_& m) {
  bind_one<float>(m, "DirectF32");
  bind_one<double>(m, "DirectF64");
  m.def("direct_methods", [] { return enum_names<DirectMethod>(); });
}

}  // namespace balsa::python
