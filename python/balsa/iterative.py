"""balsa.KrylovSolver, balsa.solve and balsa.BandedSolver: the iterative
solvers (include/balsa/krylov.hpp, solve.hpp, sap.hpp)."""

import warnings

import numpy as np

from . import _arrays as arr
from . import _scalars as num
from ._core import core
from ._errors import ConvergenceError, ConvergenceWarning


def _pick(dtype, f32, f64):
    return f64 if dtype == arr.FLOATS[1] else f32


def _vector_rhs(b, n, dtype, who, device_id=None):
    r = arr.rhs(b, n, dtype, who, device_id=device_id)
    if not r.vector:
        raise arr.DimensionError(f"{who}: b must be a vector of {n} values (one right-hand side), not {r.array.shape}")
    return r


def _host_start(x0, n, dtype, who):
    """The initial guess on the host (a fresh array the solver overwrites)."""
    if x0 is None:
        return np.zeros(n, dtype=dtype)
    g = arr.rhs(x0, n, dtype, who, name="x0")
    if not g.vector:
        raise arr.DimensionError(f"{who}: x0 must be a vector of {n} values")
    return _finite_start(arr.to_host(g).copy(), who)


def _finite_start(x, who):
    """x0 (a host array) when it holds no NaN or Inf."""
    if not np.isfinite(x).all():
        raise ValueError(f"{who}: x0 must not contain NaN or Inf")
    return x


def _start(x0, r, n, dtype, who):
    """The initial guess as r's kind (a fresh array the solver overwrites)."""
    if r.device == "cuda" and x0 is None:
        return arr._cupy().zeros(n, dtype=dtype)
    host = _host_start(x0, n, dtype, who)
    return arr.like_input(host, r)


def _stopping(tol, maxiter, default_maxiter, who):
    """(tol, maxiter) checked: tol positive and finite, maxiter a positive
    integer (None: the solver's default, `default_maxiter`)."""
    maxiter = num.integer(maxiter, "maxiter", who, allow_none=True, maximum=num.INT32_MAX)
    return num.real(tol, "tol", who, positive=True), default_maxiter if maxiter is None else maxiter


def _warn_unless_converged(info, who):
    if not info["converged"]:
        warnings.warn(f"{who}: {info['outcome']}: {info['message']}", ConvergenceWarning, stacklevel=3)


class KrylovSolver:
    """A preconditioned Krylov solver for one sparse matrix, set up once.

    method : a preset ("pcg-ic0", "pcg-ilu0", "pcg-jacobi", "pcg-chebyshev",
        "cg", "bicgstab-ilu0", "bicgstab2-ilu0", "bicgstab-jacobi",
        "bicgstab2-jacobi", "bicgstab", "bicgstab2"; in the multicolour
        ordering: "pcg-ic0-mc", "bicgstab-ilu0-mc", "bicgstab2-ilu0-mc") or a
        method ("cg", "bicgstab", "bicgstab(l)") with `preconditioner`.
    preconditioner : None (the preset's), "none", "jacobi", "ilu0", "ic0",
        "chebyshev" (a polynomial of degree 7 in D^-1 A: set up on the device
        without any host analysis), "sap-d", "sap-c".
    tol : relative residual asked (in `norm`, "inf" or "2"), positive and finite.
    maxiter : a positive integer, or None for the default (10000).
    trsv : the preconditioner's triangular-solve algorithm.
    check_symmetry : CG refuses a nonsymmetric A (MatrixError) when True.
    device, stream, threads : as for TriangularSolver.

    solve(b, x0=None) returns x as b's kind; a contiguous CuPy b on a GPU
    solver is read where it is and x is a new CuPy array (x0 is copied
    into it through the host). `info` holds the last solve's stats
    (iterations, outcome, residuals, history, times); a solve that does not
    converge warns (ConvergenceWarning) and returns the last iterate.
    """

    def __init__(self, A, method="pcg-ic0", preconditioner=None, tol=1e-8, maxiter=10000, norm="inf", trsv="auto",
                 check_symmetry=True, device="auto", stream=None, threads=0):
        who = "balsa.KrylovSolver"
        arr.check_device(device, who)
        tol, maxiter = _stopping(tol, maxiter, 10000, who)
        m = arr.csr_arrays(A, who)
        self.dtype, self.shape = m.dtype, m.shape
        self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)
        cls = _pick(self.dtype, core.KrylovF32, core.KrylovF64)
        handle, owner = arr.stream_handle(stream)
        self._solver = cls.create(m.shape[0], m.indptr, m.indices, m.data, method, preconditioner or "", float(tol),
                           maxiter, norm, trsv, bool(check_symmetry), device, handle, num.threads(threads, who), owner)
        self.device = self._solver.stats()["device"]
        self._device_id = arr.current_cuda_device() if self.device == "cuda" else None
        self.info = None
        self.last_device_pointers = None

    def solve(self, b, x0=None):
        who = "balsa.KrylovSolver.solve"
        n = self.shape[0]
        r = _vector_rhs(b, n, self.dtype, who, self._device_id)
        x = _start(x0, r, n, self.dtype, who)
        if r.device == "cuda" and self.device == "cuda":
            xp = x.data.ptr
            self.last_device_pointers = (r.pointer, xp)
            self.info = self._solver.solve_device(r.pointer, xp)
        elif r.device == "cuda":
            xh = arr._cupy().asnumpy(x)
            self.info = self._solver.solve(arr.to_host(r), xh)
            x.set(xh)
        else:
            self.info = self._solver.solve(r.array, x)
        _warn_unless_converged(self.info, who)
        return x

    def update_values(self, values):
        """New values for A's pattern (array in CSR order, or a sparse matrix):
        the preconditioner is factored again."""
        self._solver.update_values(arr.host_values(values, self._pattern, self.dtype, "balsa.KrylovSolver"))

    @property
    def stats(self):
        return self._solver.stats()


def solve(A, b, method="auto", tol=1e-8, maxiter=2000, direct_fallback=True, x0=None, device="auto", stream=None,
          return_info=False, time_budget=None, threads=0, acceptance="either"):
    """x = A \\ b for a square sparse A, as fast to the answer as balsa can
    (include/balsa/solve.hpp). method="auto" predicts each method's time to
    the answer (the direct solvers' own analysis: "cholmod", "umfpack",
    "klu"; the iterative ones' cost model: "cg", "pcg-jacobi", "pcg-chebyshev",
    "pcg-ic0", "db-bicgstab2-ilu0"; SaP's "sap-d", "sap-c", "sap-lu") and the device
    (small systems stay on the CPU), and attempts them fastest first within
    a time budget; another name runs that method, then a direct fallback
    unless direct_fallback is False. An answer is accepted when its backward
    error (acceptance: "either", "componentwise" or "normwise") is at most
    tol.

    b may be a vector or an n x k matrix (NumPy or CuPy): one plan and one
    set-up (one factorisation, one preconditioner) serve every column, as
    with SciPy's spsolve. x comes back as b's kind and shape. time_budget:
    seconds for the whole chain (None: 1.75x the predicted direct time when a
    direct method fits); threads: host threads (0: the process's setting).
    Raises ConvergenceError when a column is not solved (its `info` says why
    each method failed). return_info: (x, info) with the plan, the chain,
    each column's backward errors and times."""
    who = "balsa.solve"
    arr.check_device(device, who)
    tol, maxiter = _stopping(tol, maxiter, 2000, who)
    time_budget = num.real(time_budget, "time_budget (seconds)", who, positive=True, allow_none=True)
    threads = num.integer(threads, "threads", who, minimum=0, maximum=num.INT32_MAX)
    m = arr.csr_arrays(A, who)
    n = m.shape[0]
    r = arr.rhs(b, n, m.dtype, who)
    shape = (n,) if r.vector else (n, r.columns)
    if x0 is None:
        x = np.zeros(shape, dtype=m.dtype, order="F")
    else:
        g = arr.rhs(x0, n, m.dtype, who, name="x0")
        if (g.vector, g.columns) != (r.vector, r.columns):
            raise arr.DimensionError(f"{who}: x0 must have b's shape {shape}")
        x = _finite_start(np.array(arr.to_host(g), dtype=m.dtype, order="F", copy=True), who)
    fn = _pick(m.dtype, core.solve_f32, core.solve_f64)
    bh = np.asfortranarray(arr.to_host(r))
    info = fn(n, m.indptr, m.indices, m.data, bh.ravel(order="F"), x.ravel(order="F"), r.columns, method, tol,
              maxiter, bool(direct_fallback), device, arr.stream_handle(stream)[0],
              float(time_budget) if time_budget is not None else 0.0, threads, acceptance)
    if not info["solved"]:
        raise ConvergenceError(f"{who}: {info['message']}", info)
    x = arr.like_input(x, r)
    return (x, info) if return_info else x


class BandedSolver:
    """SaP's banded solver (SaP-D / SaP-C, include/balsa/sap.hpp) for a sparse
    matrix stored as a band of half-bandwidth k (its largest |i - j|).

    variant : "sap-c" (coupled, exact spikes' coupling) or "sap-d".
    partitions : P (0: chosen). spd : A is SPD (CG instead of BiCGStab(2)).
    float_preconditioner : the factors in float inside a double iteration.
    """

    def __init__(self, A, variant="sap-c", partitions=0, spd=False, tol=1e-10, maxiter=1000,
                 float_preconditioner=False, device="auto", stream=None):
        who = "balsa.BandedSolver"
        arr.check_device(device, who)
        tol, maxiter = _stopping(tol, maxiter, 1000, who)
        partitions = num.integer(partitions, "partitions", who, minimum=0, maximum=num.INT32_MAX)
        m = arr.csr_arrays(A, who)
        self.dtype, self.shape = m.dtype, m.shape
        cls = _pick(self.dtype, core.BandedF32, core.BandedF64)
        self._solver = cls.create(m.shape[0], m.indptr, m.indices, m.data, variant, partitions, bool(spd), tol,
                           maxiter, bool(float_preconditioner), device, *arr.stream_handle(stream))
        self.device = self._solver.stats()["device"]
        self.info = None

    def solve(self, b, x0=None):
        who = "balsa.BandedSolver.solve"
        n = self.shape[0]
        r = _vector_rhs(b, n, self.dtype, who)
        x = _host_start(x0, n, self.dtype, who)
        self.info = self._solver.solve(arr.to_host(r), x)
        _warn_unless_converged(self.info, who)
        return arr.like_input(x, r)

    def update_values(self, A):
        """New values, same size and half-bandwidth: factored again."""
        m = arr.csr_arrays(A, "balsa.BandedSolver.update_values", self.dtype)
        self._solver.update_values(m.shape[0], m.indptr, m.indices, m.data)

    @property
    def stats(self):
        return self._solver.stats()
