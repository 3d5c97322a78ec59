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

// The options a Python KrylovSolver names (the Python layer checked them).
struct KrylovCall {
  std::string method, preconditioner, norm, trsv, device;
  double tolerance, absolute_tolerance;
  int max_iterations, threads;
  bool check_symmetry;
  std::uintptr_t stream;
  int restart;  // GMRES's (0: the library's default)
  // progress(iteration, relative residual) (None: none; kept alive by the
  // Krylov wrapper, called with the GIL taken back).
  nb::object progress = nb::none();

  KrylovOptions options() const {
    KrylovOptions o = krylov_options_named(method, preconditioner);
    o.stopping.tolerance = tolerance;
    o.stopping.absolute_tolerance = absolute_tolerance;
    o.stopping.max_iterations = max_iterations;
    o.stopping.norm = named<StoppingNorm>(norm);
    o.trsv = named<TrsvAlgorithm>(trsv);
    o.check_symmetry = check_symmetry;
    o.device = named<Device>(device);
    o.stream = stream_from(stream);
    o.threads = threads;
    set_restart(o);
    if (!progress.is_none())
      o.progress = [h = nb::handle(progress)](int k, double residual) {
        nb::gil_scoped_acquire gil;
        h(k, residual);
      };
    return o;
  }

  // KrylovOptions::restart where the library has it (GMRES, from issue 41's
  // kmethods work); a restart asked of a library without it is refused.
  template <class O>
  void set_restart(O& o) const {
    if constexpr (requires { o.restart; }) {
      if (restart > 0) o.restart = restart;
    } else if (restart > 0) {
      throw Error("restart: this build has no GMRES");
    }
  }
};

// Python callables as a LinearOperator of n x n (None: that form absent).
// host(x) gets a NumPy copy of x and returns y (the Python layer checked
// its shape and dtype; a wrong length is a DimensionError here still);
// device(x, y, stream) gets device addresses and writes y on that stream.
// Both run with the GIL taken back (the solve runs without it); their
// exceptions leave the solve as they are (krylov.hpp). The handles are
// borrowed: the Krylov wrapper below keeps the objects.
template <class T>
LinearOperator<T> python_operator(index_t n, nb::handle host, nb::handle device, const char* name) {
  LinearOperator<T> L{n, n, nullptr, nullptr};
  if (!host.is_none())
    L.apply = [host, name](std::span<const T> x, std::span<T> y) {
      nb::gil_scoped_acquire gil;
      const nb::object r = host(to_numpy(std::vector<T>(x.begin(), x.end())));
      const In<T> a = nb::cast<In<T>>(r);
      if (a.shape(0) != y.size())
        throw DimensionError(std::string(name) + "'s product has " + std::to_string(a.shape(0)) + " values, not " +
                             std::to_string(y.size()));
      std::copy(a.data(), a.data() + y.size(), y.begin());
    };
  if (!device.is_none())
    L.apply_device = [device](const T* x, T* y, StreamHandle stream) {
      nb::gil_scoped_acquire gil;
      device(reinterpret_cast<std::uintptr_t>(x), reinterpret_cast<std::uintptr_t>(y),
             reinterpret_cast<std::uintptr_t>(stream));
    };
  return L;
}

template <class T>
class Krylov {
 public:
  nb::object stream_owner;  // destroyed after the solver
  // The Python callables the solver's operators and callback call (kept
  // alive here, destroyed after the solver).
  nb::object a_host, a_device, m_host, m_device, callback, progress;
  explicit Krylov(KrylovSolver<T>&& s) : solver_(std::move(s)) {}

  // A as CSR, M (optional) as Python callables.
  static Krylov* create(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data,
                        nb::object m_host, nb::object m_device, const KrylovCall& c, nb::object owner) {
    const KrylovOptions o = c.options();
    const Csr<T> A = csr_from(n, n, indptr, indices, data);
    std::optional<LinearOperator<T>> M;
    if (!m_host.is_none() || !m_device.is_none()) M = python_operator<T>(A.rows, m_host, m_device, "M");
    return keep(released([&] { return M ? KrylovSolver<T>(A, o, *M) : KrylovSolver<T>(A, o); }), owner, nb::none(),
                nb::none(), m_host, m_device, c.progress);
  }
  // A (and M, optional) as Python callables.
  static Krylov* create_operator(std::int64_t n, nb::object a_host, nb::object a_device, nb::object m_host,
                                 nb::object m_device, const KrylovCall& c, nb::object owner) {
    const KrylovOptions o = c.options();
    const index_t rows = checked_index(n, "rows");
    const LinearOperator<T> A = python_operator<T>(rows, a_host, a_device, "A");
    std::optional<LinearOperator<T>> M;
    if (!m_host.is_none() || !m_device.is_none()) M = python_operator<T>(rows, m_host, m_device, "M");
    return keep(released([&] { return KrylovSolver<T>(A, o, M ? &*M : nullptr); }), owner, a_host, a_device, m_host,
                m_device, c.progress);
  }

  // f(k, x_k) after every iteration (None: no callback).
  void set_callback(nb::object f) {
    callback = f;
    if (f.is_none()) return solver_.set_iterate_callback(nullptr);
    solver_.set_iterate_callback([h = nb::handle(f)](int k, std::span<const T> x) {
      nb::gil_scoped_acquire gil;
      h(k, to_numpy(std::vector<T>(x.begin(), x.end())));
    });
  }

  // x: initial guess in, answer out.
  KrylovStats solve(const In<T>& b, const Out<T>& x) { return solver_.solve(span_of(b), span_of(x)); }
  KrylovStats solve_device(std::uintptr_t b, std::uintptr_t x) {
    return solver_.solve_device(device_pointer<const T>(b), device_pointer<T>(x));
  }
  void update_values(const In<T>& values) { solver_.update_values(span_of(values)); }
  nb::dict stats() const { return to_dict(solver_.stats()); }

 private:
  static Krylov* keep(KrylovSolver<T>&& s, nb::object owner, nb::object ah, nb::object ad, nb::object mh,
                      nb::object md, nb::object progress) {
    auto w = std::make_unique<Krylov>(std::move(s));
    w->stream_owner = std::move(owner);
    w->progress = std::move(progress);
    w->a_host = std::move(ah), w->a_device = std::move(ad), w->m_host = std::move(mh), w->m_device = std::move(md);
    return w.release();
  }
  KrylovSolver<T> solver_;
};

template <class T>
class Banded {
 public:
  nb::object stream_owner;  // make_released: destroyed after the solver
  Banded(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const std::string& variant,
         index_t partitions, bool spd, double tolerance, int max_iterations, bool float_preconditioner,
         const std::string& device, const std::vector<int>& devices, std::uintptr_t stream)
      : solver_(csr_from(n, n, indptr, indices, data),
                options(variant, partitions, spd, tolerance, max_iterations, float_preconditioner, device, devices,
                        stream)) {}

  KrylovStats solve(const In<T>& b, const Out<T>& x) { return solver_.solve(span_of(b), span_of(x)); }
  // New values, same n and half-bandwidth: factored again.
  void update_values(std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data) {
    solver_.update_values(to_banded(csr_from(n, n, indptr, indices, data), solver_.stats().k));
  }
  nb::dict stats() const { return to_dict(solver_.stats()); }

 private:
  static BandedOptions options(const std::string& variant, index_t partitions, bool spd, double tolerance,
                               int max_iterations, bool float_preconditioner, const std::string& device,
                               const std::vector<int>& devices, std::uintptr_t stream) {
    BandedOptions o;
    o.devices = devices;
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
  double tolerance, absolute_tolerance, time_budget;
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
  o.stopping.absolute_tolerance = c.absolute_tolerance;
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
      .def_static("create", &Krylov<T>::create, nb::arg("n"), nb::arg("indptr"), nb::arg("indices"),
                  nb::arg("data"), nb::arg("m_host").none(), nb::arg("m_device").none(), nb::arg("call"),
                  nb::arg("owner").none(), nb::rv_policy::take_ownership)
      .def_static("create_operator", &Krylov<T>::create_operator, nb::arg("n"), nb::arg("a_host").none(),
                  nb::arg("a_device").none(), nb::arg("m_host").none(), nb::arg("m_device").none(), nb::arg("call"),
                  nb::arg("owner").none(), nb::rv_policy::take_ownership)
      .def("set_callback", &Krylov<T>::set_callback, nb::arg("f").none())
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
             bool float_preconditioner, const std::string& device, const std::vector<int>& devices,
             std::uintptr_t stream, std::optional<nb::object> owner) {
            return make_released<Banded<T>>(std::move(owner).value_or(nb::none()), n, indptr, indices, data, variant,
                                            partitions, spd, tolerance, max_iterations, float_preconditioner, device,
                                            devices, stream);
          },
          nb::rv_policy::take_ownership)
      .def("solve", [](Banded<T>& s, const In<T>& b,
                       const Out<T>& x) { return to_dict(released([&] { return s.solve(b, x); })); })
      .def("update_values", &Banded<T>::update_values, without_gil())
      .def("stats", &Banded<T>::stats);
  m.def(solve_name, [](std::int64_t n, const Indices& indptr, const Indices& indices, const In<T>& data, const In<T>& b,
                       const Out<T>& x, index_t columns, const std::string& method, double tolerance,
                       double absolute_tolerance, int max_iterations, bool direct_fallback, const std::string& device, std::uintptr_t stream,
                       double time_budget, int threads, const std::string& acceptance) {
    const SolveCall c{method,         device,  acceptance,      tolerance, absolute_tolerance,
                      time_budget,    max_iterations, threads, direct_fallback, stream};
    return to_dict(released([&] { return solve_system(n, indptr, indices, data, b, x, columns, c); }));
  });
}

}  // namespace

void bind_krylov(nb::module_& m) {
  nb::class_<KrylovCall>(m, "KrylovCall")
      .def("__init__",
           [](KrylovCall* c, const std::string& method, const std::string& preconditioner, double tolerance,
              double absolute_tolerance, int max_iterations, const std::string& norm, const std::string& trsv,
              bool check_symmetry, const std::string& device, std::uintptr_t stream, int threads, int restart) {
             new (c) KrylovCall{method,         preconditioner, norm,    trsv,           device, tolerance,
                                absolute_tolerance, max_iterations, threads, check_symmetry, stream, restart};
           })
      .def_rw("progress", &KrylovCall::progress, nb::arg().none());
  bind_one<float>(m, "KrylovF32", "BandedF32", "solve_f32");
  bind_one<double>(m, "KrylovF64", "BandedF64", "solve_f64");
  m.def("krylov_presets", [] { return enum_names<KrylovPreset>(); });
  m.def("krylov_methods", [] { return enum_names<KrylovMethod>(); });
  m.def("preconditioners", [] { return enum_names<PreconditionerKind>(); });
  m.def("solve_methods", [] { return enum_names<SolveMethod>(); });
  m.def("acceptances", [] { return enum_names<Acceptance>(); });
}

}  // namespace balsa::python
