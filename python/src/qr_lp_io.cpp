// balsa._balsa.Qr, linprog, read_mps, read_matrix, write_matrix: sparse QR
// (include/balsa/qr.hpp), the simplex solver (lp.hpp) and Matrix Market
// files (matrix_market.hpp) behind balsa.SparseQR, balsa.linprog and the
// readers.
#include <algorithm>

#include "balsa/lp.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/qr.hpp"
#include "python/src/common.hpp"
#include "python/src/stats.hpp"

namespace balsa::python {

namespace {

class Qr {
 public:
  nb::object stream_owner;  // make_released: destroyed after the factor
  Qr(std::int64_t rows, std::int64_t cols, const Indices& indptr, const Indices& indices, const In<double>& data,
     const std::string& ordering, double rank_tolerance, const std::string& device, std::uintptr_t stream)
      : qr_(csr_from(rows, cols, indptr, indices, data), options(ordering, rank_tolerance, device, stream)) {}

  // nrhs right-hand sides column-major in B (rows x nrhs), answers in X (cols x
  // nrhs).
  void solve(const In<double>& B, const Out<double>& X, index_t nrhs) {
    const std::vector<double> x = nrhs == 1 ? qr_.solve(span_of(B)) : qr_.solve(span_of(B), nrhs);
    std::copy(x.begin(), x.end(), X.data());
  }
  void factorise(std::int64_t rows, std::int64_t cols, const Indices& indptr, const Indices& indices,
                 const In<double>& data) {
    qr_.factorise(csr_from(rows, cols, indptr, indices, data));
  }
  nb::dict stats() const { return to_dict(qr_.stats()); }

 private:
  static QrOptions options(const std::string& ordering, double rank_tolerance, const std::string& device,
                           std::uintptr_t stream) {
    QrOptions o;
    o.ordering = named<QrOrdering>(ordering);
    o.rank_tolerance = rank_tolerance;
    o.device = named<Device>(device);
    o.r_solve.device = o.device == Device::Cuda ? Device::Cuda : Device::Auto;
    o.stream = stream_from(stream);
    return o;
  }
  SparseQR qr_;
};

std::vector<double> vector_of(const In<double>& a) { return {a.data(), a.data() + a.shape(0)}; }

// The LP's arrays as a dict (balsa.read_mps builds a balsa.LinearProgram of
// it).
nb::dict lp_dict(LinearProgram&& lp) {
  nb::dict d;
  d["sense"] = to_string(lp.sense);
  d["shape"] = nb::make_tuple(lp.A.rows, lp.A.cols);
  d["indptr"] = to_numpy(std::move(lp.A.col_ptr));
  d["indices"] = to_numpy(std::move(lp.A.row_idx));
  d["data"] = to_numpy(std::move(lp.A.values));
  d["cost"] = to_numpy(std::move(lp.cost));
  d["objective_constant"] = lp.objective_constant;
  d["col_lower"] = to_numpy(std::move(lp.col_lower));
  d["col_upper"] = to_numpy(std::move(lp.col_upper));
  d["row_lower"] = to_numpy(std::move(lp.row_lower));
  d["row_upper"] = to_numpy(std::move(lp.row_upper));
  nb::list rows, cols;
  for (const std::string& s : lp.row_names) rows.append(text(s));
  for (const std::string& s : lp.col_names) cols.append(text(s));
  d["row_names"] = rows;
  d["col_names"] = cols;
  d["name"] = text(lp.name);
  d["integer"] = to_numpy(std::move(lp.integer));
  return d;
}

// The simplex solver on an LP given by its CSC matrix and bound arrays.
nb::dict linprog(std::int64_t rows, std::int64_t cols, const Indices& col_ptr, const Indices& row_idx,
                 const In<double>& values, const In<double>& cost, double objective_constant,
                 const In<double>& col_lower, const In<double>& col_upper, const In<double>& row_lower,
                 const In<double>& row_upper, bool maximize, const std::string& device, std::int64_t max_iterations,
                 double time_limit, bool presolve, std::uintptr_t stream) {
  LinearProgram lp;
  lp.name = "linprog";
  lp.sense = maximize ? ObjectiveSense::Maximize : ObjectiveSense::Minimize;
  lp.A.rows = checked_index(rows, "rows");
  lp.A.cols = checked_index(cols, "columns");
  lp.A.col_ptr.assign(col_ptr.data(), col_ptr.data() + col_ptr.shape(0));
  lp.A.row_idx.assign(row_idx.data(), row_idx.data() + row_idx.shape(0));
  lp.A.values = vector_of(values);
  lp.cost = vector_of(cost);
  lp.objective_constant = objective_constant;
  lp.col_lower = vector_of(col_lower);
  lp.col_upper = vector_of(col_upper);
  lp.row_lower = vector_of(row_lower);
  lp.row_upper = vector_of(row_upper);
  SimplexOptions o;
  o.device = named<Device>(device);
  if (max_iterations >= 0) o.max_iterations = max_iterations;  // -1: the default
  o.time_limit_seconds = time_limit;
  o.presolve = presolve;
  o.stream = stream_from(stream);
  auto [sol, st] = released([&] {
    SimplexSolver solver(lp, o);
    LpSolution s = solver.solve();
    return std::pair{std::move(s), solver.stats()};
  });
  nb::dict d;
  d["status"] = to_string(sol.status);
  d["objective"] = sol.objective;
  d["x"] = to_numpy(std::move(sol.x));
  d["row_activity"] = to_numpy(std::move(sol.row_activity));
  d["row_dual"] = to_numpy(std::move(sol.row_dual));
  d["reduced_cost"] = to_numpy(std::move(sol.reduced_cost));
  d["iterations"] = sol.iterations;
  d["max_primal_infeasibility"] = sol.max_primal_infeasibility;
  d["max_dual_infeasibility"] = sol.max_dual_infeasibility;
  d["stats"] = to_dict(st);
  return d;
}

template <class T>
nb::tuple read_matrix(const std::string& path) {
  Csr<T> A = released([&] { return read_matrix_market_csr<T>(path); });
  return nb::make_tuple(A.rows, A.cols, to_numpy(std::move(A.row_ptr)), to_numpy(std::move(A.col_idx)),
                        to_numpy(std::move(A.values)));
}

template <class T>
void write_matrix(const std::string& path, std::int64_t rows, std::int64_t cols, const Indices& indptr,
                  const Indices& indices, const In<T>& data) {
  const Csr<T> A = csr_from(rows, cols, indptr, indices, data);
  validate(A);
  write_matrix_market(path, A);
}

}  // namespace

void bind_qr(nb::module_& m) {
  nb::class_<Qr>(m, "Qr")
      .def_static(
          "create",
          [](std::int64_t rows, std::int64_t cols, const Indices& indptr, const Indices& indices,
             const In<double>& data, const std::string& ordering, double rank_tolerance, const std::string& device,
             std::uintptr_t stream, std::optional<nb::object> owner) {
            return make_released<Qr>(std::move(owner).value_or(nb::none()), rows, cols, indptr, indices, data, ordering,
                                     rank_tolerance, device, stream);
          },
          nb::rv_policy::take_ownership)
      .def("solve", &Qr::solve, without_gil())
      .def("factorise", &Qr::factorise, without_gil())
      .def("stats", &Qr::stats);
}

void bind_lp(nb::module_& m) {
  m.def("linprog", &linprog);
  m.def("read_mps", [](const std::string& path) { return lp_dict(released([&] { return read_mps(path); })); });
}

void bind_io(nb::module_& m) {
  m.def("read_matrix_f64", &read_matrix<double>);
  m.def("read_matrix_f32", &read_matrix<float>);
  m.def("write_matrix_f64", &write_matrix<double>, without_gil());
  m.def("write_matrix_f32", &write_matrix<float>, without_gil());
}

}  // namespace balsa::python
