// balsa::SparseQR (include/balsa/qr.hpp): checks, ordering, analysis,
// factorisation and least-squares solves (qr/ordering.cpp,
// qr/symbolic.cpp, qr/numeric_cpu.cpp).
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "balsa/qr.hpp"
#include "balsa/cuda.hpp"
#include "qr/gpu.hpp"
#include "qr/gpu_plan.hpp"
#include "qr/mixed.hpp"
#include "qr/numeric_cpu.hpp"
#include "qr/ordering.hpp"
#include "qr/r_factor.hpp"
#include "qr/singletons.hpp"
#include "qr/symbolic.hpp"
#include "core/call_scope.hpp"
#include "core/pimpl.hpp"
#include "core/clock.hpp"
#include "core/memory.hpp"
#include "core/exceptions.hpp"

namespace balsa {

namespace {
std::string s(std::int64_t v) { return std::to_string(v); }
}  // namespace

struct SparseQR::Impl {
  static constexpr const char* kOwner = "SparseQR";  // (live_impl's error)
  QrOptions options;
  bool transposed = false;  // m < n: A^T is factored (minimum-norm solves)
  bool factorised = false;
  qr::Singletons single;    // F's column singletons (F: the matrix factored, A or A^T)
  qr::Symbolic symbolic;    // the fronts of F's remaining matrix A22
  qr::Numeric numeric;
  qr::SparseR r;            // R, sparse (singletons' rows, then the fronts')
  std::unique_ptr<TriangularSolver<double>> r_solver;  // made at the first solve after a factorisation
  // R at full rank (no Heath column): its pattern depends on the analysis
  // alone (qr/r_factor.hpp), so a factorisation only writes its values and
  // the R solver of the last one takes them by update_values.
  qr::RLayout r_layout;
  bool r_is_layout = false;       // r holds that pattern (made for this analysis)
  bool r_solver_current = false;  // r_solver holds r's current values
  QrStats stats;
  std::vector<index_t> row_ptr, col_idx;  // the analysed pattern (factorise checks new values against it)
  // The GPU path: the plan of the current analysis (made at its first GPU
  // factorisation), the device factor, and whether the last factorisation
  // ran there (the solves then apply Q on the GPU).
  std::optional<qr::GpuPlan> plan;
  qr::GpuFactorPtr gpu;
  bool on_gpu = false;

  double tolerance(const Csr<double>& F) const {
    const double eps = std::numeric_limits<double>::epsilon();
    return options.rank_tolerance >= 0 ? options.rank_tolerance
                                       : 20.0 * double(F.rows + F.cols) * eps * qr::max_column_norm(F);
  }

  // A22: F itself when there are no singletons (no copy).
  static const Csr<double>& rest_of(const Csr<double>& F, const qr::Singletons& sg, Csr<double>& storage) {
    if (sg.cols.empty()) return F;
    storage = qr::remaining_matrix(F, sg);
    return storage;
  }

  // An analysis: F's singletons, the ordering and fronts of the rest, the
  // stats they give (over a copy of the current ones).
  struct Analysis {
    qr::Singletons single;
    qr::Symbolic symbolic;
    QrStats stats;
  };

  // The analysis of F with the singletons `found`; the memory and index
  // checks. Changes nothing here (a throw leaves the factor as it was).
  Analysis analysis_of(const Csr<double>& F, qr::Singletons found) const {
    Analysis a{std::move(found), {}, stats};
    Csr<double> storage;
    const Csr<double>& A22 = rest_of(F, a.single, storage);
    auto t0 = Clock::now();
    std::vector<index_t> q = qr::column_ordering(A22, options.ordering);
    QrStats& st = a.stats;
    st.t_order = seconds_since(t0);
    t0 = Clock::now();
    a.symbolic = qr::analyse(A22, std::move(q));
    st.t_analyse = seconds_since(t0);
    const qr::Symbolic& sym = a.symbolic;
    st.singletons = a.single.live();
    st.fronts = index_t(sym.fronts.size());
    st.max_front_rows = st.max_front_cols = 0;
    for (const qr::Front& front : sym.fronts) {
      st.max_front_rows = std::max(st.max_front_rows, front.m());
      st.max_front_cols = std::max(st.max_front_cols, front.n());
    }
    std::int64_t r11 = 0;  // R11 and R12: the singletons' rows as they stand in F
    for (std::size_t k = 0; k < a.single.cols.size(); ++k)
      if (const index_t i = a.single.rows[k]; i >= 0) r11 += F.row_ptr[i + 1] - F.row_ptr[i];
    st.flops = sym.flops;
    st.dense_flops = sym.dense_flops;
    st.r_nnz = sym.r_nnz + r11;
    st.factor_bytes = sym.factor_bytes + 12 * std::size_t(r11);
    st.max_front_bytes = sym.max_front_bytes;
    const double bytes = 8.0 * double(st.nnz + st.r_nnz);
    st.intensity = bytes > 0 ? st.flops / bytes : 0.0;  // 0 flops on an all-zero A, not 0 / 0
    if (st.r_nnz > max_index)
      throw IndexOverflow("SparseQR: R of this " + s(st.rows) + " x " + s(st.cols) + " matrix has " + s(st.r_nnz) +
                          " entries, more than balsa's 32-bit sparse indices hold");
    // The peak, about: the factor, R assembled beside the fronts' copies,
    // and each front being factored twice over (the assembled copy kept
    // for Heath's path): the largest alone, a task-sized one per thread.
    const std::size_t limit = options.memory_limit ? options.memory_limit : physical_memory() / 2;
    const std::size_t need = st.factor_bytes + 12 * std::size_t(st.r_nnz) + 2 * sym.max_front_bytes +
                             2 * std::size_t(omp_get_max_threads()) * sym.max_task_front_bytes;
    if (need > limit)
      throw HostOutOfMemory("SparseQR: the factorisation of this " + s(st.rows) + " x " + s(st.cols) + " matrix needs " +
                            s(std::int64_t(need)) + " bytes (R has " + s(st.r_nnz) + " entries), " +
                            s(std::int64_t(limit)) + (options.memory_limit ? " allowed (memory_limit)" : " is half the memory"));
    return a;
  }

  void commit(Analysis&& a) {
    plan.reset();
    gpu.reset();
    r_solver.reset();
    r_is_layout = false;
    single = std::move(a.single);
    symbolic = std::move(a.symbolic);
    stats = std::move(a.stats);
  }

  // The GPU path's choice (QrOptions::device): Cuda asks for it, Auto
  // takes it when a GPU is present and the analysis finds enough work.
  bool wants_gpu() {
    if (options.device == Device::Cpu) return false;
    if (options.device == Device::Cuda) {
      if (!cuda::available()) throw CudaError("SparseQR: device cuda, but no CUDA GPU is available");
      return true;
    }
    if (!cuda::available()) return false;
    if (stats.flops < options.gpu_min_flops || stats.intensity < options.gpu_min_intensity) {
      stats.fallback = "auto: " + std::to_string(stats.flops) + " flops at intensity " + std::to_string(stats.intensity) +
                       " are below the GPU's thresholds";
      return false;
    }
    return true;
  }

  // R's values at full rank, the singletons' set from F: the layout's
  // pattern in r, made once per analysis (a factorisation with Heath's
  // columns replaces it with its own; the R solver then goes too).
  std::vector<double>& full_rank_values(const Csr<double>& F) {
    if (!r_is_layout) {
      r_layout = qr::full_rank_r(F, single, symbolic, r);
      r_is_layout = true;
      r_solver.reset();
    }
    qr::singleton_values(r_layout, F, r.R.values);
    return r.R.values;
  }

  // The device factor of the plan: the one arena, or (sec. 3.4) the plan
  // in stages when the arena does not fit the GPU's free memory or
  // device_memory_limit. DeviceOutOfMemory when a front alone does not fit.
  qr::GpuFactorPtr prepare_gpu(index_t nnz) {
    const std::size_t limit = options.device_memory_limit;
    try {
      return qr::gpu_prepare(*plan, nnz, limit);
    } catch (const DeviceOutOfMemory&) {
      qr::StagedPlan staged = qr::make_staged_plan(*plan, symbolic, nnz, qr::gpu_budget(limit));
      return qr::gpu_prepare_staged(*plan, std::move(staged), nnz, limit);
    }
  }

  // The fronts factored on the GPU (sec. 3): the plan (once per analysis),
  // the device factor, R's rows back to the host. A pivot <= the tolerance
  // makes a mixed factor (factorise_mixed). Empty when the CPU must take
  // over: (Auto) a front does not fit the GPU, even in stages (sec. 3.4), or
  // the fronts a dead pivot sends back hold over 90% of the flops.
  std::optional<qr::Numeric> factorise_on_gpu(const Csr<double>& F, const Csr<double>& A22, double tol) {
    const qr::Symbolic& sym = symbolic;
    if (!plan) {
      const auto t0 = Clock::now();
      plan = qr::make_gpu_plan(A22, sym, options.gpu_dense_front_flops);
      stats.t_gpu_plan = seconds_since(t0);
      gpu.reset();
    }
    stats.gpu_tasks = index_t(plan->tasks.size());
    stats.gpu_bundles = plan->bundles;
    stats.device_bytes = plan->device_bytes(A22.nnz());
    if (!gpu) {
      try {
        gpu = prepare_gpu(A22.nnz());
      } catch (const DeviceOutOfMemory& e) {
        if (options.device == Device::Cuda) throw;
        stats.fallback = std::string("auto: ") + e.what();
        return std::nullopt;
      }
    }
    index_t launches = 0;
    std::vector<double>& values = full_rank_values(F);  // the fronts' R rows land in R's values directly
    qr::gpu_factorise(*gpu, *plan, A22.values, launches, std::span<double>(values).subspan(r_layout.front_at()));
    const qr::GpuFactorInfo info = qr::gpu_info(*gpu);
    stats.gpu_launches = launches;
    stats.gpu_stages = info.stages;
    stats.device_bytes = info.device_bytes;
    stats.staged_bytes_to_host = info.bytes_to_host;
    stats.t_gpu_device = info.device_seconds;
    qr::Numeric num;
    num.fronts.resize(sym.fronts.size());
    for (std::size_t f = 0; f < sym.fronts.size(); ++f) {
      const qr::Front& Fr = sym.fronts[f];
      qr::FrontFactor& ff = num.fronts[f];
      ff.m = Fr.m();
      ff.live = Fr.pivots;
      ff.cb_rows = Fr.cb_rows();
      for (index_t t = 0; t < Fr.pivots; ++t)  // R(j, j): its row's first entry
        if (!(std::abs(values[std::size_t(r.R.row_ptr[std::size_t(r.front_row[f] + t)])]) > tol))
          return factorise_mixed(A22, tol);  // Heath's rule acts there
      num.rank += ff.live;
    }
    num.flops = sym.flops;
    on_gpu = true;
    stats.device = Device::Cuda;
    return num;
  }

  // A dead pivot in the GPU's factor (qr/mixed.hpp): the fronts with one
  // and their ancestors factored again on the CPU (Heath's rule), every
  // other front kept as the GPU factored it; the solves of this mixed
  // factor run on the host. Empty (the whole factorisation on the CPU)
  // when those fronts hold nearly all the flops.
  std::optional<qr::Numeric> factorise_mixed(const Csr<double>& A22, double tol) {
    const qr::HostTileFactor h{qr::gpu_arena(*gpu), qr::gpu_vt(*gpu), qr::gpu_tau(*gpu)};
    const qr::Redo redo = qr::fronts_to_redo(symbolic, *plan, h.arena, tol);
    stats.fallback = "rank: " + qr::describe(redo, index_t(symbolic.fronts.size()));
    if (redo.share() > kMostFlops) {
      stats.fallback += "; nearly all the work: the whole factorisation ran again on the CPU";
      return std::nullopt;
    }
    qr::Numeric num = qr::mixed_factorise(A22, symbolic, *plan, h, redo, tol);
    stats.gpu_fronts_redone = redo.fronts;
    on_gpu = false;
    stats.device = Device::Cuda;
    return num;
  }
  static constexpr double kMostFlops = 0.9;  // X's share of the fronts' flops above which the CPU takes all

  // The R solver (made at the first solve after a factorisation; R moves
  // into it). Device::Auto means the CPU on both paths (qr.hpp): one solve
  // per factorisation does not pay the GPU solver's analysis (bench qr: on
  // the 3D Laplacian 30^3, 2.4 s against the CPU's 0.23 s).
  TriangularSolver<double>& r_solver_for() {
    if (r_solver && !r_solver_current) r_solver->update_values(r.R.values);  // (same pattern: r_is_layout)
    if (!r_solver) {
      TrsvOptions o = options.r_solve;
      if (o.device == Device::Auto) o.device = Device::Cpu;
      o.stream = options.stream;  // the factor's stream (qr.hpp)
      o.triangle = Triangle::Upper;
      o.operation = transposed ? Operation::Transpose : Operation::NonTranspose;
      // R's layout stays for the next factorisation's values; another R moves in.
      r_solver = r_is_layout ? std::make_unique<TriangularSolver<double>>(r.R, o)
                             : std::make_unique<TriangularSolver<double>>(std::move(r.R), o);
    }
    r_solver_current = true;
    return *r_solver;
  }

  // R y = c or R^T y = c in place (c rank x nrhs, host vectors), on the R
  // solver's device.
  void host_r_solve(std::vector<double>& c, index_t nrhs) {
    const index_t rank = index_t(r.column.size());
    if (rank == 0) return;
    TriangularSolver<double>& solver = r_solver_for();
    std::vector<double> y(c.size());
    if (nrhs == 1) {
      solver.solve(std::span<const double>(c), std::span<double>(y));
    } else {
      DenseMatrix<double> C, Y(rank, nrhs);
      C.rows = rank;
      C.cols = nrhs;
      C.values = std::move(c);
      solver.solve(C, Y);
      y = std::move(Y.values);
    }
    c = std::move(y);
  }

  // Y (rank x nrhs, host) solved in place from the device copy Yd: on the
  // GPU by the R solver, or on the host when it is a CPU one.
  void device_r_solve(cuda::DeviceBuffer<double>& Yd, std::vector<double>& Y, index_t nrhs) {
    if (r.column.empty()) return;
    TriangularSolver<double>& solver = r_solver_for();
    if (solver.stats().device != Device::Cuda) {
      Yd.download(Y);
      host_r_solve(Y, nrhs);
      Yd.upload(Y);
      return;
    }
    cuda::DeviceBuffer<double> Xd(Y.size());
    if (nrhs == 1) {
      solver.solve(Yd, Xd);
    } else {
      solver.solve(Yd, Xd, nrhs);
    }
    solver.check_last_solve();
    Yd = std::move(Xd);
    Yd.download(Y);
  }

  // Y = R^{-1} (Q^T B2 on the fronts' R rows; Y's singleton rows as given), on the GPU.
  void gpu_qt_r_solve(const std::vector<double>& B2, index_t nrhs, std::vector<double>& Y) {
    const index_t rank = index_t(r.column.size());
    cuda::DeviceBuffer<double> Yd(std::max<std::size_t>(Y.size(), 1));
    if (!Y.empty()) Yd.upload(Y);
    qr::gpu_q_transpose(*gpu, *plan, B2, symbolic.m, nrhs, Yd, rank);  // Yd ready on the stream for the R solve
    if (Y.empty()) return;
    device_r_solve(Yd, Y, nrhs);
  }

  // X2 = Q [R^{-T} Y; 0] on the GPU (A22's rows); Y is left R^{-T} Y.
  std::vector<double> gpu_r_solve_q(std::vector<double>& Y, index_t nrhs) {
    const index_t rank = index_t(r.column.size());
    cuda::DeviceBuffer<double> Yd(std::max<std::size_t>(Y.size(), 1));
    if (!Y.empty()) {
      Yd.upload(Y);
      device_r_solve(Yd, Y, nrhs);
    }
    return qr::gpu_q_times(*gpu, *plan, Yd, rank, symbolic.m, nrhs);
  }

  // F's values (A^T when transposed) checked and factored. The singletons
  // are found again with the values (known: found by the caller with
  // them): other ones than analysed (an entry now <= the tolerance, or a
  // pattern-only analysis meeting small entries) mean the analysis is
  // redone (and committed before the numeric phase, which the GPU plan
  // follows). Until the new factor stands, there is none (a throw leaves
  // the object analysed and not factorised).
  void factorise(const Csr<double>& F, const qr::Singletons* known = nullptr) {
    factorised = false;
    r_solver_current = false;
    require_finite(F);
    auto t0 = Clock::now();
    const double tol = tolerance(F);
    std::optional<qr::Singletons> found;
    if (!known) found = qr::find_singletons(F, tol);
    const qr::Singletons& now = known ? *known : *found;
    const double t_find = seconds_since(t0);
    std::optional<Analysis> redo;  // (its time is the analysis')
    if (!(now == single)) redo = analysis_of(F, now);
    const qr::Singletons& sg = redo ? redo->single : single;
    t0 = Clock::now();
    Csr<double> storage;
    const Csr<double>& A22 = rest_of(F, sg, storage);
    if (redo) {  // (commit drops the old analysis' GPU plan)
      commit(std::move(*redo));
      ++stats.reanalyses;
    }
    on_gpu = false;
    stats.device = Device::Cpu;
    stats.fallback.clear();
    stats.gpu_launches = 0;
    stats.gpu_stages = 0;
    stats.staged_bytes_to_host = 0;
    stats.gpu_fronts_redone = 0;
    std::optional<qr::Numeric> num;
    if (wants_gpu()) num = factorise_on_gpu(F, A22, tol);
    if (!num) num = qr::factorise(A22, symbolic, tol);
    if (!on_gpu) {  // the CPU's fronts, or a mixed factor's (factorise_mixed): R from their rows
      if (num->dead_fronts == 0) {
        full_rank_values(F);
        qr::front_values(symbolic, *num, r);
      } else {  // Heath's columns: R's pattern is this factorisation's
        r = qr::assemble_r(F, single, symbolic, *num);
        r_is_layout = false;
        r_solver.reset();
      }
    }
    numeric = std::move(*num);
    if (on_gpu) {  // Y's row of each front R row (the GPU's Q^T b writes them)
      std::vector<std::int64_t> rows;
      rows.reserve(plan->y_row.size());
      for (std::size_t f = 0; f < symbolic.fronts.size(); ++f)
        for (index_t t = 0; t < symbolic.fronts[f].pivots; ++t) rows.push_back(r.front_row[f] + t);
      qr::gpu_bind_r_rows(*gpu, rows);
    }
    factorised = true;
    stats.tolerance = tol;
    stats.rank = single.live() + numeric.rank;
    stats.heath_fronts = numeric.dead_fronts;
    stats.flops_done = numeric.flops;
    stats.dropped_norm = numeric.dropped;
    std::size_t kept = 12 * std::size_t(r.R.nnz()) +
                       4 * (std::size_t(r.R.rows) + 1 + r.column.size() + r.singleton_rows.size() + r.front_row.size());
    for (const qr::FrontFactor& ff : numeric.fronts) kept += ff.bytes();
    stats.factor_bytes = kept;
    stats.t_factorise = t_find + seconds_since(t0);
  }
};

SparseQR::SparseQR(const Csr<double>& A, const QrOptions& options) : SparseQR(A, options, true) {}

SparseQR SparseQR::analyse(const Csr<double>& A, const QrOptions& options) { return SparseQR(A, options, false); }

SparseQR::SparseQR(const Csr<double>& A, const QrOptions& options, bool factorise_now) try : impl_(std::make_unique<Impl>()) {
  validate(A);
  if (!is_canonical(A)) throw MatrixError("SparseQR: A has unsorted or duplicate entries in a row (sum them first: "
                                          "to_csr(to_coo(A)))");
  if (A.rows == 0 || A.cols == 0)
    throw DimensionError("SparseQR: A is empty (" + s(A.rows) + " x " + s(A.cols) + ")");
  const CallScope on(options, "QrOptions");
  Impl& m = *impl_;
  m.options = options;
  m.row_ptr = A.row_ptr;
  m.col_idx = A.col_idx;
  m.transposed = A.rows < A.cols;
  const Csr<double> At = m.transposed ? transpose(A) : Csr<double>{};
  const Csr<double>& F = m.transposed ? At : A;  // the matrix factored
  QrStats& st = m.stats;
  st.rows = A.rows;
  st.cols = A.cols;
  st.nnz = A.nnz();
  st.ordering = options.ordering;
  // Singletons by value when the values come now (SPQR's), else by the
  // pattern (factorise checks them).
  if (factorise_now) require_finite(F);
  const qr::Singletons found = qr::find_singletons(F, factorise_now ? m.tolerance(F) : -1.0);
  m.commit(m.analysis_of(F, found));
  if (factorise_now) m.factorise(F, &found);
} catch (...) {
  rethrow_as_balsa_error("SparseQR::SparseQR");
}

SparseQR::~SparseQR() = default;
SparseQR::SparseQR(SparseQR&&) noexcept = default;
SparseQR& SparseQR::operator=(SparseQR&&) noexcept = default;

void SparseQR::factorise(const Csr<double>& A) try {
  Impl& m = live_impl(impl_);
  const CallScope on(m.options, "QrOptions");
  validate(A);
  if (A.rows != m.stats.rows || A.cols != m.stats.cols || A.row_ptr != m.row_ptr || A.col_idx != m.col_idx)
    throw DimensionError("SparseQR::factorise: A is " + s(A.rows) + " x " + s(A.cols) + " with " + s(A.nnz()) +
                         " entries and a pattern unlike the analysed one: " + s(m.stats.rows) + " x " + s(m.stats.cols) + " with " +
                         s(std::int64_t(m.col_idx.size())));
  if (m.transposed) {
    m.factorise(transpose(A));
  } else {
    m.factorise(A);
  }
} catch (...) {
  rethrow_as_balsa_error("SparseQR::factorise");
}

std::vector<double> SparseQR::solve(std::span<const double> b) { return solve(b, 1); }

std::vector<double> SparseQR::solve(std::span<const double> B, index_t nrhs) try {
  Impl& m = live_impl(impl_);
  const CallScope on(m.options, "QrOptions");
  if (!m.factorised) throw Error("SparseQR::solve: A is analysed but not factorised (call factorise(A) first)");
  if (nrhs < 1 || B.size() != std::size_t(m.stats.rows) * std::size_t(nrhs))
    throw DimensionError("SparseQR::solve: " + s(std::int64_t(B.size())) + " right-hand-side values for " + s(nrhs) +
                         " columns of " + s(m.stats.rows) + " rows");
  for (std::size_t i = 0; i < B.size(); ++i)
    if (!std::isfinite(B[i]))
      throw MatrixError("SparseQR::solve: b(" + s(std::int64_t(i % std::size_t(m.stats.rows))) + ") is not finite");
  const auto t0 = Clock::now();
  const qr::Singletons& sg = m.single;
  const qr::SparseR& r = m.r;
  const index_t rank = index_t(r.column.size());  // (R itself may have moved into the solver)
  const index_t ns = index_t(r.singleton_rows.size());  // R's first rows: the singletons' (Q = I there)
  const index_t M = m.symbolic.m;  // A22's rows
  // R y = c or R^T y = c by the triangular solver, c and y rank x nrhs.
  std::vector<double> X, Y(std::size_t(rank) * std::size_t(nrhs), 0.0);
  if (!m.transposed) {  // Y = Q^T b on R's rows (Q = I on the singletons'), R x = Y
    const index_t rows = m.stats.rows, n = m.stats.cols;
    std::vector<double> B2(std::size_t(M) * std::size_t(nrhs));
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t t = 0; t < ns; ++t)
        Y[std::size_t(t) + std::size_t(rank) * c] = B[std::size_t(r.singleton_rows[std::size_t(t)]) + std::size_t(rows) * c];
      for (index_t i = 0; i < M; ++i)
        B2[std::size_t(i) + std::size_t(M) * c] = B[std::size_t(sg.rest_rows[std::size_t(i)]) + std::size_t(rows) * c];
    }
    if (m.on_gpu) {
      m.gpu_qt_r_solve(B2, nrhs, Y);
    } else {
      qr::q_transpose_times(m.symbolic, m.numeric, B2, nrhs, r.front_row, Y.data(), rank);
      m.host_r_solve(Y, nrhs);
    }
    X.assign(std::size_t(n) * std::size_t(nrhs), 0.0);  // dead columns: 0
    for (index_t c = 0; c < nrhs; ++c)
      for (index_t p = 0; p < rank; ++p)
        X[std::size_t(r.column[std::size_t(p)]) + std::size_t(n) * c] = Y[std::size_t(p) + std::size_t(rank) * c];
  } else {  // F = A^T (Mf x Nf): R^T z = P^T b on the live columns, x = Q [z; 0]
    const index_t Nf = m.stats.rows, Mf = m.stats.cols;
    for (index_t c = 0; c < nrhs; ++c)
      for (index_t p = 0; p < rank; ++p)
        Y[std::size_t(p) + std::size_t(rank) * c] = B[std::size_t(r.column[std::size_t(p)]) + std::size_t(Nf) * c];
    X.assign(std::size_t(Mf) * std::size_t(nrhs), 0.0);
    std::vector<double> X2;
    if (m.on_gpu) {
      X2 = m.gpu_r_solve_q(Y, nrhs);
    } else {
      m.host_r_solve(Y, nrhs);
      X2 = qr::q_times(m.symbolic, m.numeric, Y.data(), rank, nrhs, r.front_row);
    }
    for (index_t c = 0; c < nrhs; ++c) {
      for (index_t t = 0; t < ns; ++t)
        X[std::size_t(r.singleton_rows[std::size_t(t)]) + std::size_t(Mf) * c] = Y[std::size_t(t) + std::size_t(rank) * c];
      for (index_t i = 0; i < M; ++i)
        X[std::size_t(sg.rest_rows[std::size_t(i)]) + std::size_t(Mf) * c] = X2[std::size_t(i) + std::size_t(M) * c];
    }
  }
  m.stats.t_solve = seconds_since(t0);
  return X;
} catch (...) {
  rethrow_as_balsa_error("SparseQR::solve");
}

const QrStats& SparseQR::stats() const { return live_impl(impl_).stats; }
bool SparseQR::factorised() const { return live_impl(impl_).factorised; }

}  // namespace balsa
