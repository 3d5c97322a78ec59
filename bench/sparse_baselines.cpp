// UMFPACK, CHOLMOD and SuperLU, the baselines of `balsa-bench sparse`
// (bench/sparse_baselines.hpp), and the child process that bounds them in time.
#include "sparse_baselines.hpp"

#include <cholmod.h>
#include <fmt/core.h>
#include <omp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <umfpack.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "bench_math.hpp"
#include "core/clock.hpp"
// SuperLU last: its headers define TRUE, FALSE, EMPTY and friends.
#include <slu_ddefs.h>

namespace balsa::bench {

namespace {

// Repeats `once` (which fills r and returns false to stop: a failure) while
// under `repeat` runs and `budget_seconds`; medians of the times.
template <class F>
DirectResult repeated(int repeat, double budget_seconds, F&& once) {
  DirectResult r;
  std::vector<double> factor, solve;
  const auto start = Clock::now();
  for (int k = 0; k < std::max(1, repeat); ++k) {
    r = DirectResult{};
    const bool ok = once(r);
    factor.push_back(r.factor_seconds);
    solve.push_back(r.solve_seconds);
    if (!ok || seconds_since(start) >= budget_seconds) break;
  }
  r.factor_seconds = median(factor);
  r.solve_seconds = median(solve);
  r.repeats = int(factor.size());
  return r;
}

std::string umfpack_status(int status) {
  switch (status) {
    case UMFPACK_OK: return "ok";
    case UMFPACK_WARNING_singular_matrix: return "singular matrix (UMFPACK_WARNING_singular_matrix)";
    case UMFPACK_WARNING_determinant_underflow: return "ok (determinant underflow)";
    case UMFPACK_WARNING_determinant_overflow: return "ok (determinant overflow)";
    case UMFPACK_ERROR_out_of_memory: return "out of memory (UMFPACK_ERROR_out_of_memory)";
    case UMFPACK_ERROR_invalid_matrix: return "invalid matrix (UMFPACK_ERROR_invalid_matrix)";
    default: return fmt::format("UMFPACK error {}", status);
  }
}

std::string cholmod_status(int status, std::size_t minor) {
  switch (status) {
    case CHOLMOD_OK: return "ok";
    case CHOLMOD_NOT_POSDEF: return fmt::format("not positive definite (CHOLMOD_NOT_POSDEF at column {})", minor);
    case CHOLMOD_DSMALL: return "ok (CHOLMOD_DSMALL: a tiny diagonal of L)";
    case CHOLMOD_OUT_OF_MEMORY: return "out of memory (CHOLMOD_OUT_OF_MEMORY)";
    case CHOLMOD_TOO_LARGE: return "too large (CHOLMOD_TOO_LARGE: integer overflow)";
    case CHOLMOD_INVALID: return "invalid input (CHOLMOD_INVALID)";
    default: return fmt::format("CHOLMOD status {}", status);
  }
}

std::string cholmod_ordering(int ordering) {
  switch (ordering) {
    case CHOLMOD_NATURAL: return "natural";
    case CHOLMOD_GIVEN: return "given";
    case CHOLMOD_AMD: return "AMD";
    case CHOLMOD_METIS: return "METIS";
    case CHOLMOD_NESDIS: return "NESDIS";
    case CHOLMOD_COLAMD: return "COLAMD";
    case CHOLMOD_POSTORDERED: return "postordered";
    default: return fmt::format("{}", ordering);
  }
}

// CHOLMOD's workspace (cholmod_l_start / cholmod_l_finish) for one baseline run.
struct CholmodCommon {
  cholmod_common c;
  CholmodCommon() {
    cholmod_l_start(&c);
    c.print = 0;  // the status says what went wrong; nothing on the terminal
  }
  ~CholmodCommon() { cholmod_l_finish(&c); }
  CholmodCommon(const CholmodCommon&) = delete;
  CholmodCommon& operator=(const CholmodCommon&) = delete;
};

// A's CSC arrays copied into a CHOLMOD matrix read through its lower
// triangle (stype -1), and b as a dense n x 1 (both untimed, as the CSC copy).
cholmod_sparse* cholmod_lower(const Csc<double>& A, cholmod_common& c) {
  cholmod_sparse* S = cholmod_l_allocate_sparse(std::size_t(A.rows), std::size_t(A.cols), std::size_t(A.nnz()), 1, 1,
                                                -1, CHOLMOD_REAL, &c);
  if (S == nullptr) return nullptr;
  std::copy(A.col_ptr.begin(), A.col_ptr.end(), static_cast<SuiteSparse_long*>(S->p));
  std::copy(A.row_idx.begin(), A.row_idx.end(), static_cast<SuiteSparse_long*>(S->i));
  std::copy(A.values.begin(), A.values.end(), static_cast<double*>(S->x));
  return S;
}
cholmod_dense* cholmod_column(std::span<const double> b, cholmod_common& c) {
  cholmod_dense* B = cholmod_l_allocate_dense(b.size(), 1, b.size(), CHOLMOD_REAL, &c);
  if (B != nullptr) std::copy(b.begin(), b.end(), static_cast<double*>(B->x));
  return B;
}

}  // namespace

DirectResult umfpack_solve(const Csc<double>& A, std::span<const double> b, int repeat, double budget_seconds) {
  // The 64-bit interface (umfpack_dl_*): the 32-bit one runs out of index
  // range (reported as out of memory) on 3D problems of 64^3 and more.
  const SuiteSparse_long n = A.rows;
  const std::vector<SuiteSparse_long> col_ptr(A.col_ptr.begin(), A.col_ptr.end()),
      row_idx(A.row_idx.begin(), A.row_idx.end());
  return repeated(repeat, budget_seconds, [&](DirectResult& r) {
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_dl_defaults(control);
    void *symbolic = nullptr, *numeric = nullptr;
    const auto t0 = Clock::now();
    SuiteSparse_long status = umfpack_dl_symbolic(n, n, col_ptr.data(), row_idx.data(), A.values.data(), &symbolic, control, info);
    if (status == UMFPACK_OK)
      status = umfpack_dl_numeric(col_ptr.data(), row_idx.data(), A.values.data(), symbolic, &numeric, control, info);
    r.factor_seconds = seconds_since(t0);
    r.status = umfpack_status(int(status));
    r.failed = status != UMFPACK_OK && status != UMFPACK_WARNING_determinant_underflow &&
               status != UMFPACK_WARNING_determinant_overflow;
    r.lu_nnz = info[UMFPACK_LNZ] + info[UMFPACK_UNZ];
    const bool symmetric = info[UMFPACK_STRATEGY_USED] == UMFPACK_STRATEGY_SYMMETRIC;
    const int ordering = int(info[UMFPACK_ORDERING_USED]);
    r.detail = fmt::format("strategy {}, ordering {}, numeric memory {:.3g} MB", symmetric ? "symmetric" : "unsymmetric",
                           ordering == UMFPACK_ORDERING_AMD      ? (symmetric ? "AMD" : "COLAMD")
                           : ordering == UMFPACK_ORDERING_METIS  ? "METIS"
                           : ordering == UMFPACK_ORDERING_CHOLMOD ? "CHOLMOD"
                                                                  : fmt::format("{}", ordering),
                           info[UMFPACK_NUMERIC_SIZE] * info[UMFPACK_SIZE_OF_UNIT] / 1e6);
    if (numeric != nullptr && !r.failed) {
      r.x.assign(static_cast<std::size_t>(n), 0.0);
      const auto t1 = Clock::now();
      status = umfpack_dl_solve(UMFPACK_A, col_ptr.data(), row_idx.data(), A.values.data(), r.x.data(), b.data(),
                                numeric, control, info);
      r.solve_seconds = seconds_since(t1);
      r.ran = true;
      if (status != UMFPACK_OK) {
        r.status = umfpack_status(int(status));
        r.failed = true;
      }
    }
    umfpack_dl_free_symbolic(&symbolic);
    umfpack_dl_free_numeric(&numeric);
    return !r.failed;
  });
}

DirectResult cholmod_solve(const Csc<double>& A, std::span<const double> b, int repeat, double budget_seconds) {
  CholmodCommon common;
  cholmod_common& c = common.c;
  cholmod_sparse* S = cholmod_lower(A, c);
  cholmod_dense* B = cholmod_column(b, c);
  if (S == nullptr || B == nullptr) {
    cholmod_l_free_sparse(&S, &c);
    cholmod_l_free_dense(&B, &c);
    DirectResult r;
    r.failed = true;
    r.status = cholmod_status(c.status, 0);
    return r;
  }
  DirectResult result = repeated(repeat, budget_seconds, [&](DirectResult& r) {
    const auto t0 = Clock::now();
    cholmod_factor* L = cholmod_l_analyze(S, &c);
    if (L != nullptr) cholmod_l_factorize(S, L, &c);
    r.factor_seconds = seconds_since(t0);
    r.status = cholmod_status(c.status, L != nullptr ? L->minor : 0);
    r.failed = L == nullptr || (c.status != CHOLMOD_OK && c.status != CHOLMOD_DSMALL);
    if (L != nullptr) {
      r.lu_nnz = c.lnz;
      r.detail = fmt::format("{}, ordering {}, {:.3g} flops, peak memory {:.3g} MB",
                             L->is_super ? "supernodal" : "simplicial", cholmod_ordering(int(L->ordering)), c.fl,
                             double(c.memory_usage) / 1e6);
    }
    if (!r.failed) {
      const auto t1 = Clock::now();
      cholmod_dense* X = cholmod_l_solve(CHOLMOD_A, L, B, &c);
      r.solve_seconds = seconds_since(t1);
      if (X != nullptr) {
        const double* x = static_cast<const double*>(X->x);
        r.x.assign(x, x + A.rows);
        r.ran = true;
      } else {
        r.failed = true;
        r.status = cholmod_status(c.status, 0);
      }
      cholmod_l_free_dense(&X, &c);
    }
    cholmod_l_free_factor(&L, &c);
    return !r.failed;
  });
  cholmod_l_free_sparse(&S, &c);
  cholmod_l_free_dense(&B, &c);
  return result;
}

DirectResult superlu_solve(const Csc<double>& A, std::span<const double> b, int repeat, double budget_seconds) {
  const int n = A.rows, nnz = A.nnz();
  return repeated(repeat, budget_seconds, [&](DirectResult& r) {
    // dgssvx equilibrates A and b in place: copies (untimed, as the CSC conversion).
    std::vector<double> values(A.values), rhs(b.begin(), b.end()), x(static_cast<std::size_t>(n), 0.0);
    std::vector<int> col_ptr(A.col_ptr.begin(), A.col_ptr.end()), row_idx(A.row_idx.begin(), A.row_idx.end());
    const std::size_t N = static_cast<std::size_t>(n);
    std::vector<int> perm_r(N), perm_c(N), etree(N);
    std::vector<double> R(N), C(N);
    superlu_options_t options;
    set_default_options(&options);  // Equil YES, ColPerm COLAMD, DiagPivotThresh 1.0, no refinement
    options.PrintStat = NO;
    options.ConditionNumber = NO;
    SuperMatrix SA, L, U, B, X;
    dCreate_CompCol_Matrix(&SA, n, n, nnz, values.data(), row_idx.data(), col_ptr.data(), SLU_NC, SLU_D, SLU_GE);
    dCreate_Dense_Matrix(&B, n, 1, rhs.data(), n, SLU_DN, SLU_D, SLU_GE);
    dCreate_Dense_Matrix(&X, n, 1, x.data(), n, SLU_DN, SLU_D, SLU_GE);
    SuperLUStat_t stat;
    StatInit(&stat);
    GlobalLU_t glu;
    mem_usage_t mem{0, 0};
    char equed[2] = "N";
    double rpg = 0, rcond = 0, ferr = 0, berr = 0;
    int info = 0;
    // Factorise only (B with no columns), then solve with the factors.
    B.ncol = 0;
    const auto t0 = Clock::now();
    dgssvx(&options, &SA, perm_c.data(), perm_r.data(), etree.data(), equed, R.data(), C.data(), &L, &U, nullptr, 0,
           &B, &X, &rpg, &rcond, &ferr, &berr, &glu, &mem, &stat, &info);
    r.factor_seconds = seconds_since(t0);
    r.detail = fmt::format("COLAMD, equilibration '{}'", equed);
    if (info == 0 || info == n + 1) {
      r.detail += fmt::format(", LU memory {:.3g} MB", double(mem.for_lu) / 1e6);
      r.lu_nnz = double(static_cast<SCformat*>(L.Store)->nnz) + double(static_cast<NCformat*>(U.Store)->nnz);
      options.Fact = FACTORED;
      B.ncol = 1;
      const auto t1 = Clock::now();
      dgssvx(&options, &SA, perm_c.data(), perm_r.data(), etree.data(), equed, R.data(), C.data(), &L, &U, nullptr, 0,
             &B, &X, &rpg, &rcond, &ferr, &berr, &glu, &mem, &stat, &info);
      r.solve_seconds = seconds_since(t1);
      r.ran = true;
      r.x = x;
      r.status = info == 0 ? "ok" : fmt::format("dgssvx info {}", info);
      r.failed = info != 0 && info != n + 1;
    } else {
      r.failed = true;
      r.status = info > 0 && info <= n ? fmt::format("singular: U({0},{0}) is exactly zero (dgssvx info {0})", info)
                 : info > n            ? fmt::format("out of memory ({} bytes allocated, dgssvx info)", info - n)
                                       : fmt::format("dgssvx: argument {} is invalid", -info);
    }
    if (info >= 0 && info <= n + 1) {  // L and U were allocated (also for a zero pivot)
      Destroy_SuperNode_Matrix(&L);
      Destroy_CompCol_Matrix(&U);
    }
    Destroy_SuperMatrix_Store(&SA);
    Destroy_SuperMatrix_Store(&B);
    Destroy_SuperMatrix_Store(&X);
    StatFree(&stat);
    return !r.failed;
  });
}

namespace {
// What the child writes into the shared page before x.
struct SharedHeader {
  int ran, failed, repeats;
  double factor_seconds, solve_seconds, lu_nnz;
  char status[256], detail[256];
};
void copy_text(char (&to)[256], const std::string& from) {
  std::strncpy(to, from.c_str(), sizeof to - 1);
  to[sizeof to - 1] = '\0';
}
}  // namespace

DirectResult run_isolated(const std::function<DirectResult()>& solver, index_t n, double timeout_seconds) {
  if (timeout_seconds <= 0) return solver();
  const std::size_t bytes = sizeof(SharedHeader) + sizeof(double) * std::size_t(n);
  void* shared = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw Error(fmt::format("bench sparse: cannot map {} bytes for a baseline's result", bytes));
  auto* head = static_cast<SharedHeader*>(shared);
  auto* x = reinterpret_cast<double*>(static_cast<char*>(shared) + sizeof(SharedHeader));
  std::memset(head, 0, sizeof(SharedHeader));
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    munmap(shared, bytes);
    throw Error("bench sparse: fork failed");
  }
  if (pid == 0) {  // the child: solve, copy back, leave without running the parent's atexit handlers
    // libgomp's thread pool is the parent's and does not survive fork: a
    // parallel region (CHOLMOD has some) would wait for its threads forever.
    // No active level makes every region run on this one thread.
    omp_set_max_active_levels(0);
    int code = 0;
    try {
      const DirectResult r = solver();
      head->ran = r.ran;
      head->failed = r.failed;
      head->repeats = r.repeats;
      head->factor_seconds = r.factor_seconds;
      head->solve_seconds = r.solve_seconds;
      head->lu_nnz = r.lu_nnz;
      copy_text(head->status, r.status);
      copy_text(head->detail, r.detail);
      if (r.ran) std::copy(r.x.begin(), r.x.begin() + std::min<std::size_t>(r.x.size(), std::size_t(n)), x);
    } catch (const std::exception& e) {
      copy_text(head->status, std::string("error: ") + e.what());
      head->failed = 1;
      code = 1;
    }
    _exit(code);
  }
  DirectResult r;
  int wstatus = 0;
  const auto start = Clock::now();
  bool done = false;
  while (!done) {
    const pid_t w = waitpid(pid, &wstatus, WNOHANG);
    if (w == pid) {
      done = true;
    } else if (seconds_since(start) > timeout_seconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      r.failed = true;
      r.status = fmt::format("timed out after {:g} s", timeout_seconds);
      munmap(shared, bytes);
      return r;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(seconds_since(start) < 1 ? 1 : 20));
    }
  }
  if (WIFSIGNALED(wstatus)) {
    r.failed = true;
    r.status = fmt::format("killed by signal {} ({})", WTERMSIG(wstatus),
                           WTERMSIG(wstatus) == SIGKILL ? "out of memory?" : strsignal(WTERMSIG(wstatus)));
  } else if (head->status[0] == '\0') {
    r.failed = true;
    r.status = fmt::format("exited with code {} without a result (an abort inside the solver)", WEXITSTATUS(wstatus));
  } else {
    r.ran = head->ran;
    r.failed = head->failed;
    r.repeats = head->repeats;
    r.factor_seconds = head->factor_seconds;
    r.solve_seconds = head->solve_seconds;
    r.lu_nnz = head->lu_nnz;
    r.status = head->status;
    r.detail = head->detail;
    if (r.ran) r.x.assign(x, x + n);
  }
  munmap(shared, bytes);
  return r;
}

std::string umfpack_version() {
  return fmt::format("UMFPACK {}.{}.{} (SuiteSparse, default control)", UMFPACK_MAIN_VERSION, UMFPACK_SUB_VERSION,
                     UMFPACK_SUBSUB_VERSION);
}
std::string cholmod_version() {
  return fmt::format("CHOLMOD {}.{}.{} (SuiteSparse, default settings, lower triangle)", CHOLMOD_MAIN_VERSION,
                     CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION);
}
std::string superlu_version() {
  return fmt::format("SuperLU {}.{}.{} (sequential: dgssvx, equilibration, COLAMD)", SUPERLU_MAJOR_VERSION,
                     SUPERLU_MINOR_VERSION, SUPERLU_PATCH_VERSION);
}

}  // namespace balsa::bench
