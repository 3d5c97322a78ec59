"""The iterative solvers: balsa.KrylovSolver, SciPy's functions cg,
bicgstab, gmres and minres (same signatures and meanings, plus device=,
stream= and threads=), balsa.solve and balsa.BandedSolver."""

import warnings

import numpy as np

from . import _arrays as arr
from . import _operators as ops
from . import _scalars as num
from ._core import core
from ._errors import ConvergenceError, ConvergenceWarning, Error
from ._keywords import keywords


def _pick(dtype, f32, f64):
    return f64 if dtype == arr.FLOATS[1] else f32


def _vector_rhs(b, n, dtype, who, device_id=None):
    """b as one right-hand side: (n,), or (n, 1) as SciPy takes it."""
    r = arr.rhs(b, n, dtype, who, device_id=device_id)
    if not r.vector and r.columns == 1:
        r = arr.rhs(r.array.reshape(n), n, dtype, who, device_id=device_id)
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


def _maxiter(maxiter, default, who):
    """maxiter checked: a positive integer within 32 bits (None: `default`)."""
    maxiter = num.integer(maxiter, "maxiter", who, allow_none=True, maximum=num.INT32_MAX)
    return default if maxiter is None else maxiter


def _device_ids(devices, who):
    """The GPU ids of ``devices=`` as a list of ints (None: [], the current device);
    the library checks that they exist and differ."""
    if devices is None:
        return []
    if isinstance(devices, (str, bytes)) or not hasattr(devices, "__iter__"):
        raise TypeError(f"{who}: devices must be a sequence of CUDA device ids, got {type(devices).__name__}")
    return [num.integer(d, "devices", who, minimum=0, maximum=num.INT32_MAX) for d in devices]


def _warn_unless_converged(info, who):
    if not info["converged"]:
        warnings.warn(f"{who}: {info['outcome']}: {info['message']}", ConvergenceWarning, stacklevel=3)


_INFO_BREAKDOWN = -1  # info of a solve stopped by a breakdown, stagnation, divergence or NaN (SciPy: < 0)


def _method_names():
    return list(core.krylov_presets()) + [m for m in core.krylov_methods() if m not in core.krylov_presets()]


def _check_method(method, who):
    names = _method_names()
    if not isinstance(method, str) or method not in names:
        raise ValueError(f"{who}: unknown method {method!r}; the methods are: {', '.join(names)}")
    return method


def _tolerances(rtol, atol, tol, who):
    """(rtol, atol) checked; tol, the old name of rtol, with a DeprecationWarning."""
    if tol is not None:
        warnings.warn(f"{who}: tol= is deprecated, use rtol= (same meaning)", DeprecationWarning, stacklevel=4)
        rtol = tol
    return num.real(rtol, "rtol", who, positive=True), num.real(atol, "atol", who)


def _info_code(stats):
    """SciPy's info: 0 converged, the iterations done when the limit was
    reached, < 0 when the method broke down (or stagnated, diverged, met NaN)."""
    if stats["converged"]:
        return 0
    return stats["iterations"] if stats["outcome"] == "max-iterations" else _INFO_BREAKDOWN


class KrylovSolver:
    """A preconditioned Krylov solver for one matrix or operator, set up once.

    Parameters
    ----------
    A : sparse matrix or array (scipy.sparse, cupyx.scipy.sparse), dense
        ndarray, or LinearOperator
        The square matrix. A ``scipy.sparse.linalg.LinearOperator`` is used
        matrix-free on the CPU (its ``matvec``); a
        ``cupyx.scipy.sparse.linalg.LinearOperator`` matrix-free on the GPU
        (its ``matvec`` takes and returns CuPy arrays).
    method : str, optional
        A method ("cg", "bicgstab", "bicgstab(l)", "gmres", "minres") or a
        preset naming a method and its preconditioner ("pcg-ic0",
        "pcg-ilu0", "pcg-jacobi", "pcg-chebyshev", "bicgstab-ilu0",
        "bicgstab2-ilu0", "bicgstab-jacobi", "bicgstab2-jacobi",
        "bicgstab2", and "-mc" variants in the multicolour ordering).
        Default: "pcg-ic0" for a sparse A, "cg" for an operator or with `M`.
    preconditioner : str, optional
        A built-in preconditioner replacing the preset's: "none", "jacobi",
        "ilu0", "ic0", "chebyshev". Needs A's entries (not an operator).
    rtol, atol : float, optional
        Stop when ``norm(b - A @ x) <= max(rtol * norm(b), atol)``
        (SciPy's test; `rtol` > 0, `atol` >= 0, both finite).
    maxiter : int, optional
        Most iterations (default: 10 times A's rows).
    M : LinearOperator, sparse matrix, solver object or callable, optional
        A preconditioner applied as ``z = M @ r`` (M approximates the
        inverse of A, SciPy's meaning): a LinearOperator, a sparse matrix,
        an object with ``.solve`` (e.g. a balsa ``DirectSolver``), or a
        function of r. Its shape must be A's.
    callback : callable, optional
        ``callback(xk)`` after every iteration with the current iterate (a
        NumPy copy). An exception it raises stops the solve and propagates.
    norm : {"2", "inf"}, optional
        The norm of the stopping test.
    trsv : str, optional
        The preconditioner's triangular-solve algorithm.
    check_symmetry : bool, optional
        CG and MINRES refuse a nonsymmetric sparse A (MatrixError).
    device : {"auto", "cpu", "cuda"}, optional
        With an operator A or a user M, "auto" is the GPU only when every
        product runs there.
    stream, threads : optional
        The CUDA stream (a CuPy stream or its handle) and the host threads.
    restart : int, optional
        GMRES: inner iterations per restart cycle (default: the library's).
    tol : float, optional
        Deprecated name of `rtol`.

    Attributes
    ----------
    info : dict
        The last solve's statistics (iterations, outcome, residuals, history, times).

    Raises
    ------
    TypeError
        An unknown keyword argument (naming the closest one), or an A or M
        of an unsupported kind.
    ValueError
        `rtol` <= 0 or NaN, `atol` < 0, an unknown method; a DimensionError
        (a ValueError) for an A that is not square or an M of another shape.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(50, 50), format="csr")
    >>> solver = balsa.KrylovSolver(A, method="pcg-jacobi", rtol=1e-10, device="cpu")
    >>> x = solver.solve(np.ones(50))
    >>> bool(np.linalg.norm(A @ x - 1) < 1e-8)
    True
    """

    @keywords
    def __init__(self, A, method: str | None = None, preconditioner: str | None = None, rtol: float = 1e-5,
                 atol: float = 0.0, maxiter: int | None = None, M=None, callback=None, norm: str = "2",
                 trsv: str = "auto", check_symmetry: bool = True, device: str = "auto", stream=None, threads: int = 0,
                 restart: int | None = None, tol: float | None = None, _progress=None):
        who = "balsa.KrylovSolver"
        arr.check_device(device, who)
        rtol, atol = _tolerances(rtol, atol, tol, who)
        if callback is not None and not callable(callback):
            raise TypeError(f"{who}: callback must be callable, not {type(callback).__name__}")
        free = ops.is_scipy_operator(A) or ops.is_cupy_operator(A)
        method = _check_method(("cg" if free or M is not None else "pcg-ic0") if method is None else method, who)
        if not free and isinstance(A, np.ndarray):
            import scipy.sparse as sp

            A = sp.csr_array(A)
        handle, owner = arr.stream_handle(stream)
        threads = num.threads(threads, who)
        if free:
            n, self.dtype, a_host, a_device = ops.matrix_free(A, who)
        else:
            m = arr.csr_arrays(A, who)
            n, self.dtype = m.shape[0], m.dtype
            self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)
        self.shape = (n, n)
        maxiter = _maxiter(maxiter, min(max(10 * n, 1), num.INT32_MAX), who)  # SciPy's default: 10 n
        on_device = ops.is_cupy_operator(A) or device == "cuda"
        m_host, m_device = ops.preconditioner(M, n, self.dtype, on_device, who)
        restart = 0 if restart is None else num.integer(restart, "restart", who, maximum=num.INT32_MAX)
        if preconditioner is None:  # a preset's own; a bare method's none when A or M is the user's
            own = method in core.krylov_presets() or not (free or M is not None)
            preconditioner = "" if own else "none"
        call = core.KrylovCall(method, preconditioner, rtol, atol, maxiter, norm, trsv, bool(check_symmetry), device,
                               handle, threads, restart)
        if _progress is not None:  # gmres's callback of the relative residual, after every iteration
            call.progress = lambda k, residual: k and _progress(residual)
        cls = _pick(self.dtype, core.KrylovF32, core.KrylovF64)
        if free:
            self._solver = cls.create_operator(n, a_host, a_device, m_host, m_device, call, owner)
        else:
            self._solver = cls.create(n, m.indptr, m.indices, m.data, m_host, m_device, call, owner)
        if callback is not None:
            self._solver.set_callback(lambda k, xk: callback(xk))
        self.device = self._solver.stats()["device"]
        self._device_id = arr.current_cuda_device() if self.device == "cuda" else None
        self.info = None
        self.last_device_pointers = None

    @keywords
    def solve(self, b, x0=None):
        """x with A x = b, from x0 (default 0).

        Parameters
        ----------
        b : ndarray or cupy.ndarray
            Shape (n,) or (n, 1) (SciPy's; x is then (n,)).
        x0 : array, optional
            The initial guess.

        Returns
        -------
        x : ndarray or cupy.ndarray
            As b's kind: a CuPy b on a GPU solver is read where it is. A solve
            that does not converge warns (ConvergenceWarning) and returns the
            last iterate; `info` says why.

        Raises
        ------
        DimensionError
            b (or x0) of another length.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, balsa
        >>> solver = balsa.KrylovSolver(sp.identity(3, format="csr"), device="cpu")
        >>> solver.solve(np.array([1.0, 2.0, 3.0]))
        array([1., 2., 3.])
        """
        who = "balsa.KrylovSolver.solve"
        x, self.info = self._solve(b, x0, who)
        _warn_unless_converged(self.info, who)
        return x

    def _solve(self, b, x0, who):
        """(x, stats) of one solve, without the convergence warning."""
        n = self.shape[0]
        r = _vector_rhs(b, n, self.dtype, who, self._device_id)
        x = _start(x0, r, n, self.dtype, who)
        if r.device == "cuda" and self.device == "cuda":
            xp = x.data.ptr
            self.last_device_pointers = (r.pointer, xp)
            return x, self._solver.solve_device(r.pointer, xp)
        if r.device == "cuda":
            xh = arr._cupy().asnumpy(x)
            info = self._solver.solve(arr.to_host(r), xh)
            x.set(xh)
            return x, info
        return x, self._solver.solve(r.array, x)

    def update_values(self, values):
        """New values for A's pattern, the preconditioner factored again.

        Parameters
        ----------
        values : ndarray or sparse matrix
            A's values in CSR order, or a matrix of A's pattern.

        Raises
        ------
        Error
            For an operator A or a user M (nothing to refactor).
        """
        if not hasattr(self, "_pattern"):
            raise Error("balsa.KrylovSolver.update_values: this solver's A is an operator (build a new solver)")
        self._solver.update_values(arr.host_values(values, self._pattern, self.dtype, "balsa.KrylovSolver"))

    @property
    def stats(self):
        """The last solve's statistics (a dict; set-up fields before any solve)."""
        return self._solver.stats()


def _scipy_solve(method, A, b, x0, rtol, atol, maxiter, M, callback, device, stream, threads, who, **extra):
    """SciPy's (x, info) from a KrylovSolver of `method` (callback errors
    propagate); extra: KrylovSolver's other arguments (restart, _progress)."""
    if callback is not None and not callable(callback):
        raise TypeError(f"{who}: callback must be callable, not {type(callback).__name__}")
    b_shape = getattr(b, "shape", None)
    if b_shape is not None and len(b_shape) == 2 and b_shape[1] != 1:
        raise ValueError(f"{who}: b must have shape (n,) or (n, 1), not {b_shape}")
    s = KrylovSolver(A, method=method, rtol=rtol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                     check_symmetry=False, device=device, stream=stream, threads=threads, **extra)
    x, info = s._solve(b, x0, who)
    s.info = info
    return x, _info_code(info)


_SCIPY_RETURNS = """
    Returns
    -------
    x : ndarray or cupy.ndarray
        The last iterate, shape (n,) (also for b of shape (n, 1), as SciPy).
    info : int
        0: converged; > 0: the iteration limit was reached (the iterations
        done); < 0: the method broke down (or stagnated, diverged or met NaN).
"""

_SCIPY_PARAMETERS = """
    Parameters
    ----------
    A : sparse matrix, ndarray or LinearOperator
        The n x n system (a SciPy LinearOperator runs matrix-free on the CPU,
        a CuPy one on the GPU).
    b : ndarray or cupy.ndarray
        Shape (n,) or (n, 1).
    x0 : ndarray, optional
        The initial guess (default 0).
    rtol, atol : float, optional
        Converged when ``norm(b - A @ x) <= max(rtol * norm(b), atol)`` (2-norm).
    maxiter : int, optional
        Most iterations (default 10 n).
    M : LinearOperator, sparse matrix, solver object or callable, optional
        Preconditioner, ``z = M @ r`` with M approximating the inverse of A.
    callback : callable, optional
        ``callback(xk)`` after every iteration; an exception it raises propagates.
    device, stream, threads : optional
        balsa's: where the solve runs ("auto", "cpu", "cuda"), its CUDA
        stream and host threads.
"""

_SCIPY_RAISES = """
    Raises
    ------
    TypeError
        An unknown keyword argument (naming the closest one).
    ValueError
        rtol <= 0 or NaN, atol < 0, b of more than one column; DimensionError
        (a ValueError) for M or b of the wrong shape; a ValueError naming the
        LinearOperator whose matvec returns the wrong shape or dtype.
"""


def _scipy_function(method, doc):
    """balsa.<method>, SciPy's function of that name (signature and meaning)."""

    def f(A, b, x0=None, *, rtol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None, M=None,
          callback=None, device: str = "auto", stream=None, threads: int = 0):
        return _scipy_solve(method, A, b, x0, rtol, atol, maxiter, M, callback, device, stream, threads,
                            f"balsa.{method}")

    f.__name__ = f.__qualname__ = method
    f.__doc__ = doc
    return keywords(f)


cg = _scipy_function("cg", """Conjugate gradients for a symmetric positive definite A, as
    scipy.sparse.linalg.cg.
    {parameters}{returns}{raises}
    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(30, 30), format="csr")
    >>> x, info = balsa.cg(A, np.ones(30), rtol=1e-10, device="cpu")
    >>> info, bool(np.linalg.norm(A @ x - 1) < 1e-8)
    (0, True)
    """)

bicgstab = _scipy_function("bicgstab", """BiCGStab for a general square A, as
    scipy.sparse.linalg.bicgstab (right-preconditioned: the residual tested
    is that of A x = b).
    {parameters}{returns}{raises}
    Examples
    --------
    A matrix-free A, given by its product:

    >>> import numpy as np, balsa
    >>> from scipy.sparse.linalg import LinearOperator
    >>> def product(v):  # 3 v_i - v_(i-1) - 0.5 v_(i+1)
    ...     w = 3.0 * v
    ...     w[1:] -= v[:-1]
    ...     w[:-1] -= 0.5 * v[1:]
    ...     return w
    >>> A = LinearOperator((30, 30), matvec=product, dtype=np.float64)
    >>> x, info = balsa.bicgstab(A, np.ones(30), rtol=1e-10)
    >>> info, bool(np.linalg.norm(A @ x - 1) < 1e-8)
    (0, True)
    """)


@keywords
def gmres(A, b, x0=None, *, rtol: float = 1e-5, atol: float = 0.0, restart: int | None = None,
          maxiter: int | None = None, M=None, callback=None, callback_type: str | None = None, device: str = "auto",
          stream=None, threads: int = 0):
    """Restarted GMRES(restart) for a general square A, as
    scipy.sparse.linalg.gmres (right-preconditioned).
    {parameters}
    restart : int, optional
        Inner iterations per cycle (default 20, at most n).
    callback_type : {{"x", "pr_norm", "legacy"}}, optional
        "x": ``callback(xk)`` after every restart cycle; "pr_norm":
        ``callback(r)`` with the relative residual after every inner
        iteration; "legacy" (the default with a callback): as "pr_norm", and
        `maxiter` counts inner iterations instead of cycles. `maxiter`
        otherwise counts restart cycles (default 10 n), as SciPy.
    {returns}{raises}
    Examples
    --------
    The relative residual of every inner iteration, through the callback:

    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.random(40, 40, density=0.1, random_state=1) + 4 * sp.identity(40)
    >>> residuals = []
    >>> x, info = balsa.gmres(A.tocsr(), np.ones(40), restart=10, callback=residuals.append,
    ...                       callback_type="pr_norm", device="cpu")
    >>> info, len(residuals) > 0, residuals[-1] <= 1e-5
    (0, True, True)
    """
    who = "balsa.gmres"
    n = _rows_of(A, who)
    restart = min(num.integer(20 if restart is None else restart, "restart", who, maximum=num.INT32_MAX), max(n, 1))
    maxiter = num.integer(maxiter, "maxiter", who, allow_none=True, maximum=num.INT32_MAX)
    if callback_type is None:
        callback_type = "legacy" if callback is not None else "x"
    if callback_type not in ("x", "pr_norm", "legacy"):
        raise ValueError(f"{who}: callback_type must be 'x', 'pr_norm' or 'legacy', not {callback_type!r}")
    cycles = 10 * n if maxiter is None else maxiter
    inner = cycles if callback_type == "legacy" and maxiter is not None else cycles * restart
    iterate = callback if callback_type == "x" else None
    progress = callback if callback_type != "x" else None
    x, info = _scipy_solve("gmres", A, b, x0, rtol, atol, min(max(inner, 1), num.INT32_MAX), M, iterate, device,
                           stream, threads, who, restart=restart, _progress=progress)
    if info > 0 and callback_type != "legacy":  # SciPy counts restart cycles
        info = -(-info // restart)
    return x, info


@keywords
def minres(A, b, x0=None, *, rtol: float = 1e-5, shift: float = 0.0, maxiter: int | None = None, M=None,
           callback=None, show: bool = False, check: bool = False, device: str = "auto", stream=None,
           threads: int = 0):
    """MINRES for a symmetric (possibly indefinite) A, as
    scipy.sparse.linalg.minres: solves (A - shift I) x = b; M, if given,
    must be symmetric positive definite. `show` and `check` are accepted
    for SciPy's signature and do nothing.
    {parameters}
    shift : float, optional
        Solves (A - shift I) x = b.
    {returns}{raises}
    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.diags([1.0, -2.0, 3.0], [-1, 0, 1], shape=(30, 30), format="csr")
    >>> A = A + A.T
    >>> x, info = balsa.minres(A, np.ones(30), rtol=1e-10, device="cpu")
    >>> info, bool(np.linalg.norm(A @ x - 1) < 1e-8)
    (0, True)
    """
    who = "balsa.minres"
    if num.real(abs(shift), "shift", who) != 0:
        A = _shifted(A, float(shift), who)
    n = _rows_of(A, who)
    maxiter = num.integer(maxiter, "maxiter", who, allow_none=True, maximum=num.INT32_MAX)
    return _scipy_solve("minres", A, b, x0, rtol, 0.0, 5 * n if maxiter is None else maxiter, M, callback, device,
                        stream, threads, who)


for _f in (cg, bicgstab, gmres, minres):
    _f.__doc__ = _f.__doc__.format(parameters=_SCIPY_PARAMETERS, returns=_SCIPY_RETURNS, raises=_SCIPY_RAISES)


def _rows_of(A, who):
    shape = getattr(A, "shape", None)
    if shape is None or len(shape) != 2:
        raise TypeError(f"{who}: A must be a sparse matrix, an ndarray or a LinearOperator, not {type(A).__name__}")
    return int(shape[0])


def _shifted(A, shift, who):
    """A - shift I, as A's kind (a LinearOperator stays matrix-free)."""
    if ops.is_cupy_operator(A):
        import cupyx.scipy.sparse.linalg as la
    elif ops.is_scipy_operator(A):
        import scipy.sparse.linalg as la
    else:
        la = None
    if la is not None:
        ops.check_square(A.shape, who)
        return la.LinearOperator(A.shape, matvec=lambda x: A.matvec(x) - shift * x.reshape(-1), dtype=A.dtype)
    import scipy.sparse as sp

    if arr._is_cupyx_sparse(A):
        import cupyx.scipy.sparse as csp

        return (A - shift * csp.identity(A.shape[0], dtype=A.dtype, format="csr")).tocsr()
    return sp.csr_array(A) - shift * sp.identity(A.shape[0], dtype=A.dtype, format="csr")


@keywords
def solve(A, b, method: str = "auto", rtol: float = 1e-8, maxiter: int = 2000, direct_fallback: bool = True, x0=None,
          device: str = "auto", stream=None, return_info: bool = False, time_budget: float | None = None,
          threads: int = 0, acceptance: str = "either", atol: float = 0.0, tol: float | None = None):
    """x = A \\ b for a square sparse A, as fast to the answer as balsa can.

    method="auto" predicts each method's time to
    the answer (the direct solvers' own analysis: "cholmod", "umfpack",
    "klu"; the iterative ones' cost model: "cg", "pcg-jacobi", "pcg-chebyshev",
    "pcg-ic0", "db-bicgstab2-ilu0"; SaP's "sap-d", "sap-c", "sap-lu") and the device
    (small systems stay on the CPU), and attempts them fastest first within
    a time budget; another name runs that method, then a direct fallback
    unless direct_fallback is False.

    Tolerance: `rtol` is not a residual tolerance as in SciPy's Krylov
    functions but the backward error an answer must reach to be accepted
    (acceptance: "either", "componentwise" or "normwise"), whichever method
    found it; the iterative methods also stop when their 2-norm residual
    meets ``max(rtol * norm(b), atol)``. `tol` is the deprecated name of
    `rtol` (a DeprecationWarning).

    Parameters
    ----------
    A : scipy.sparse or cupyx.scipy.sparse matrix
        Square.
    b : numpy.ndarray or cupy.ndarray
        A vector or an n x k matrix: one plan and one set-up (one
        factorisation, one preconditioner) serve every column, as with
        SciPy's spsolve.
    method : str, optional
        "auto" (the chain) or one method's name.
    rtol : float, optional
        The backward error an answer must reach (see above).
    maxiter : int, optional
        Most iterations of each iterative method.
    direct_fallback : bool, optional
        A method named alone falls back to a direct one when it fails.
    x0 : array_like, optional
        The initial guess of the iterative methods (b's shape).
    device : {"auto", "cpu", "cuda"}, optional
        Where to run.
    stream : cupy.cuda.Stream or int, optional
        The CUDA stream of the GPU work.
    return_info : bool, optional
        Return (x, info): the plan, the chain, each column's backward errors
        and times.
    time_budget : float, optional
        Seconds for the whole chain (None: 1.75x the predicted direct time
        when a direct method fits).
    threads : int, optional
        Host threads (0: the process's setting).
    acceptance : {"either", "componentwise", "normwise"}, optional
        The backward error that accepts an answer.
    atol : float, optional
        Absolute residual floor of the iterative methods.
    tol : float, optional
        Deprecated name of ``rtol``.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        x, as b's kind and shape (or (x, info) with ``return_info``).

    Raises
    ------
    TypeError
        An unknown keyword argument (naming the closest one).
    ValueError
        rtol <= 0 or NaN, atol < 0; DimensionError for b of another length.
    ConvergenceError
        A column no method solved.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(20, 20), format="csr")
    >>> x = balsa.solve(A, np.ones(20), rtol=1e-10)
    >>> bool(np.linalg.norm(A @ x - 1) < 1e-8)
    True
    """
    who = "balsa.solve"
    arr.check_device(device, who)
    rtol, atol = _tolerances(rtol, atol, tol, who)
    maxiter = _maxiter(maxiter, 2000, who)
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
    info = fn(n, m.indptr, m.indices, m.data, bh.ravel(order="F"), x.ravel(order="F"), r.columns, method, rtol, atol,
              maxiter, bool(direct_fallback), device, arr.stream_handle(stream)[0],
              float(time_budget) if time_budget is not None else 0.0, threads, acceptance)
    if not info["solved"]:
        raise ConvergenceError(f"{who}: {info['message']}", info)
    x = arr.like_input(x, r)
    return (x, info) if return_info else x


class BandedSolver:
    """SaP's banded solver (SaP-D or SaP-C) for a matrix stored as a band.

    The matrix is cut into P diagonal blocks of its band of half-bandwidth k
    (its largest ``|i - j|``); the blocks are factored in parallel and the
    coupling between them (SaP-C: exact, through the spikes; SaP-D: dropped)
    preconditions a Krylov iteration (BiCGStab(2), or CG when ``spd``).

    Parameters
    ----------
    A : scipy.sparse matrix
        Square, in any sparse format; its band is stored dense.
    variant : {"sap-c", "sap-d"}, optional
        The coupled ("sap-c") or decoupled ("sap-d") preconditioner.
    partitions : int, optional
        The number of blocks P (0: chosen from the size).
    spd : bool, optional
        A is symmetric positive definite: CG instead of BiCGStab(2).
    rtol : float, optional
        Relative residual asked (2-norm): ``||b - A x|| <= rtol ||b||``.
    maxiter : int, optional
        Most iterations.
    float_preconditioner : bool, optional
        Factor the blocks in float inside a double iteration.
    device : {"auto", "cpu", "cuda"}, optional
        Where to run.
    devices : sequence of int, optional
        Several GPUs of this host: the CUDA device ids the blocks are spread
        over, the first the primary one (the Krylov iteration and ``stream``
        live there). ``None``: the current device only. Fewer are used when
        the factorisation's work is too small to pay (``stats["devices"]``
        says which, ``stats["devices_reason"]`` why).
    stream : cupy.cuda.Stream or int, optional
        The CUDA stream of the GPU work.
    tol : float, optional
        Deprecated name of ``rtol``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> A = sp.diags_array([-1.0, 4.0, -1.0], offsets=[-1, 0, 1], shape=(50, 50)).tocsr()
    >>> solver = balsa.BandedSolver(A, partitions=2, device="cpu")
    >>> x = solver.solve(np.ones(50))
    >>> bool(np.linalg.norm(A @ x - 1) < 1e-8)
    True
    """

    @keywords
    def __init__(self, A, variant="sap-c", partitions=0, spd=False, rtol=1e-10, maxiter=1000,
                 float_preconditioner=False, device="auto", devices=None, stream=None, tol=None):
        who = "balsa.BandedSolver"
        arr.check_device(device, who)
        devices = _device_ids(devices, who)
        rtol, _ = _tolerances(rtol, 0.0, tol, who)
        maxiter = _maxiter(maxiter, 1000, who)
        partitions = num.integer(partitions, "partitions", who, minimum=0, maximum=num.INT32_MAX)
        m = arr.csr_arrays(A, who)
        self.dtype, self.shape = m.dtype, m.shape
        cls = _pick(self.dtype, core.BandedF32, core.BandedF64)
        self._solver = cls.create(m.shape[0], m.indptr, m.indices, m.data, variant, partitions, bool(spd), rtol,
                           maxiter, bool(float_preconditioner), device, devices, *arr.stream_handle(stream))
        self.device = self._solver.stats()["device"]
        self.info = None

    def solve(self, b, x0=None):
        """Solve A x = b.

        Parameters
        ----------
        b : numpy.ndarray or cupy.ndarray
            One right-hand side of n values.
        x0 : array_like, optional
            The initial guess (zeros by default).

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            x, as b's kind; ``info`` holds the solve's stats. A solve that
            does not converge warns (ConvergenceWarning) and returns the last
            iterate.
        """
        who = "balsa.BandedSolver.solve"
        n = self.shape[0]
        r = _vector_rhs(b, n, self.dtype, who)
        x = _host_start(x0, n, self.dtype, who)
        self.info = self._solver.solve(arr.to_host(r), x)
        _warn_unless_converged(self.info, who)
        return arr.like_input(x, r)

    def update_values(self, A):
        """Factor the blocks again for new values.

        Parameters
        ----------
        A : scipy.sparse matrix
            The same size and half-bandwidth as the matrix of the constructor.
        """
        m = arr.csr_arrays(A, "balsa.BandedSolver.update_values", self.dtype)
        self._solver.update_values(m.shape[0], m.indptr, m.indices, m.data)

    @property
    def stats(self):
        """The set-up's and the last solve's statistics, as a dict."""
        return self._solver.stats()
