// balsa._balsa.Krylov{F32,F64}, solve_{f32,f64}, Banded{F32,F64}: the
// iterative solvers (include/balsa/krylov.hpp, solve.hpp, sap.hpp) behind
// balsa.KrylovSolver, balsa.solve and balsa.BandedSolver.
#include "balsa/krylov.hpp"

#include "balsa/sap.hpp"
#include "balsa/solve.hpp"
#include "python/src/common.hpp"
#include "python/src/stats.hpp"

namespace balsa::python {

namespace {

// A preset name ("pcg-ic0") or a method name ("bicgstab(l)"); a non-empty
// preconditioner replaces the preset's.
KrylovOptions krylov_options_named(const std::string& method, const std::string& preconditioner) {
  KrylovOptions o;
  bool preset = false;
  for (const auto& n : EnumNames<KrylovPreset>::names)
    if (method == n.name) {
      o = krylov_options(n.value);
      preset = true;
    }
  if (!preset) o.method = named<KrylovMethod>(method);
  if (!preconditioner.empty()) o.preconditioner = named<PreconditionerKind>(preconditioner);
  return o;
}

template <class T>
class Krylov {
 public:
  nb::object stream_owner;  // make_released: destroyed after the solver
  Krylov(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const std::string& method,
         const std::string& preconditioner, double tolerance, int max_iterations, const std::string& norm,
         const std::string& trsv, bool check_symmetry, const std::string& device, std::uintptr_t stream,
         int threads)
      : solver_(csr_from(n, n, indptr, indices, data), options(method, preconditioner, tolerance, max_iterations, norm,
                                                               trsv, check_symmetry, device, stream, threads)) {}

  // x: initial guess in, answer out.
  KrylovStats solve(const In<T>& b, const Out<T>& x) { return solver_.solve(span_of(b), span_of(x)); }
  KrylovStats solve_device(std::uintptr_t b, std::uintptr_t x) {
    return solver_.solve_device(device_pointer<const T>(b), device_pointer<T>(x));
  }
  void update_values(const In<T>& values) { solver_.update_values(span_of(values)); }
  nb::dict stats() const { return to_dict(solver_.stats()); }

 private:
  static KrylovOptions options(const std::string& method, const std::string& preconditioner, double tolerance,
                               int max_iterations, const std::string& norm, const std::string& trsv,
                               bool check_symmetry, const std::string& device, std::uintptr_t stream,
                               int threads) {
    KrylovOptions o = krylov_options_named(method, preconditioner);
    o.stopping.tolerance = tolerance;
    o.stopping.max_iterations = max_iterations;
    o.stopping.norm = named<StoppingNorm>(norm);
    o.trsv = named<TrsvAlgorithm>(trsv);
    o.check_symmetry = check_symmetry;
    o.device = named<Device>(device);
    o.stream = stream_from(stream);
    o.threads = threads;
    return o;
  }
  KrylovSolver<T> solver_;
};

template <class T>
class Banded {
 public:
  nb::object stream_owner;  // make_released: destroyed after the solver
  Banded(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const std::string& variant,
         index_t partitions, bool spd, double tolerance, int max_iterations, bool float_preconditioner,
         const std::string& device, std::uintptr_t stream)
      : solver_(csr_from(n, n, indptr, indices, data),
                options(variant, partitions, spd, tolerance, max_iterations, float_preconditioner, device, stream)) {}

  KrylovStats solve(const In<T>& b, const Out<T>& x) { return solver_.solve(span_of(b), span_of(x)); }
  // New values, same n and half-bandwidth: factored again.
  void update_values(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data) {
    solver_.update_values(to_banded(csr_from(n, n, indptr, indices, data), solver_.stats().k));
  }
  nb::dict stats() const { return to_dict(solver_.stats()); }

 private:
  static BandedOptions options(const std::string& variant, index_t partitions, bool spd, double tolerance,
                               int max_iterations, bool float_preconditioner, const std::string& device,
                               std::uintptr_t stream) {
    BandedOptions o;
    o.variant = named<SapVariant>(variant);
    o.partitions = partitions;
    o.spd = spd;
    o.stopping.tolerance = tolerance;
    o.stopping.max_iterations = max_iterations;
    o.float_preconditioner = float_preconditioner;
    o.device = named<Device>(device);
    o.stream = stream_from(stream);
    return o;
  }
  BandedSolver<T> solver_;
};

// balsa::solve on n x k right-hand sides B (column-major, flattened): X is
// the initial guess in, the answers out (same layout). time_budget <= 0:
// none (the automatic one); threads 0: the process's setting.
struct SolveCall {
  std::string method, device, acceptance;
  double tolerance, time_budget;
  int max_iterations, threads;
  bool direct_fallback;
  std::uintptr_t stream;
};

template <class T>
SolveReport solve_system(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data,
                         const In<T>& b, const Out<T>& x, index_t columns, const SolveCall& c) {
  SolveOptions o;
  o.method = named<SolveMethod>(c.method);
  o.stopping.tolerance = c.tolerance;
  o.stopping.max_iterations = c.max_iterations;
  o.direct_fallback = c.direct_fallback;
  o.device = named<Device>(c.device);
  o.stream = stream_from(c.stream);
  o.acceptance = named<Acceptance>(c.acceptance);
  if (c.time_budget > 0) o.time_budget = c.time_budget;
  o.threads = c.threads;
  const std::span<const T> bs = span_of(b);
  const std::span<T> xs = span_of(x);
  if (columns < 1 || bs.size() != std::size_t(n) * std::size_t(columns) || xs.size() != bs.size())
    throw DimensionError("balsa.solve: b and x must hold n x k values");
  DenseMatrix<T> B(index_t(n), columns), X(index_t(n), columns);
  std::copy(bs.begin(), bs.end(), B.values.begin());
  std::copy(xs.begin(), xs.end(), X.values.begin());
  SolveReport r = solve(csr_from(n, n, indptr, indices, data), B, X, o);
  std::copy(X.values.begin(), X.values.end(), xs.begin());
  return r;
}

template <class T>
void bind_one(nb::module_& m, const char* krylov, const char* banded, const char* solve_name) {
  nb::class_<Krylov<T>>(m, krylov)
      .def_static(
          "create",
          [](std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data,
             const std::string& method, const std::string& preconditioner, double tolerance, int max_iterations,
             const std::string& norm, const std::string& trsv, bool check_symmetry, const std::string& device,
             std::uintptr_t stream, int threads, std::optional<nb::object> owner) {
            return make_released<Krylov<T>>(std::move(owner).value_or(nb::none()), n, indptr, indices, data, method,
                                            preconditioner, tolerance, max_iterations, norm, trsv, check_symmetry,
                                            device, stream, threads);
          },
          nb::rv_policy::take_ownership)
      .def("solve", [](Krylov<T>& k, const In<T>& b,
                       const Out<T>& x) { return to_dict(released([&] { return k.solve(b, x); })); })
      .def("solve_device", [](Krylov<T>& k, std::uintptr_t b,
                              std::uintptr_t x) { return to_dict(released([&] { return k.solve_device(b, x); })); })
      .def("update_values", &Krylov<T>::update_values, without_gil())
      .def("stats", &Krylov<T>::stats);
  nb::class_<Banded<T>>(m, banded)
      .def_static(
          "create",
          [](std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data,
             const std::string& variant, index_t partitions, bool spd, double tolerance, int max_iterations,
             bool float_preconditioner, const std::string& device, std::uintptr_t stream,
             std::optional<nb::object> owner) {
            return make_released<Banded<T>>(std::move(owner).value_or(nb::none()), n, indptr, indices, data, variant,
                                            partitions, spd, tolerance, max_iterations, float_preconditioner, device,
                                            stream);
          },
          nb::rv_policy::take_ownership)
      .def("solve", [](Banded<T>& s, const In<T>& b,
                       const Out<T>& x) { return to_dict(released([&] { return s.solve(b, x); })); })
      .def("update_values", &Banded<T>::update_values, without_gil())
      .def("stats", &Banded<T>::stats);
  m.def(solve_name, [](std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const In<T>& b,
                       const Out<T>& x, index_t columns, const std::string& method, double tolerance,
                       int max_iterations, bool direct_fallback, const std::string& device, std::uintptr_t stream,
                       double time_budget, int threads, const std::string& acceptance) {
    const SolveCall c{method, device, acceptance, tolerance, time_budget, max_iterations, threads, direct_fallback,
                      stream};
    return to_dict(released([&] { return solve_system(n, indptr, indices, data, b, x, columns, c); }));
  });
}

}  // namespace

void bind_krylov(nb::module_& m) {
  bind_one<float>(m, "KrylovF32", "BandedF32", "solve_f32");
  bind_one<double>(m, "KrylovF64", "BandedF64", "solve_f64");
  m.def("krylov_presets", [] { return enum_names<KrylovPreset>(); });
  m.def("krylov_methods", [] { return enum_names<KrylovMethod>(); });
  m.def("preconditioners", [] { return enum_names<PreconditionerKind>(); });
  m.def("solve_methods", [] { return enum_names<SolveMethod>(); });
  m.def("acceptances", [] { return enum_names<Acceptance>(); });
}

}  // namespace balsa::python
