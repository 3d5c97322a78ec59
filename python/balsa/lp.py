"""balsa.linprog and balsa.read_mps: the revised simplex solver
(include/balsa/lp.hpp), in scipy.optimize.linprog's terms."""

import dataclasses
import os

import numpy as np

from . import _arrays as arr
from ._core import core
from ._errors import DimensionError


@dataclasses.dataclass
class LinearProgram:
    """min (or max) c^T x + objective_constant subject to
    row_lower <= A x <= row_upper and col_lower <= x <= col_upper
    (infinite bounds as +-inf). A: scipy.sparse (kept as CSC)."""

    A: object
    c: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    objective_constant: float = 0.0
    maximize: bool = False
    name: str = ""
    row_names: list = dataclasses.field(default_factory=list)
    col_names: list = dataclasses.field(default_factory=list)
    integer: np.ndarray = None  # integer columns (the relaxation is solved)


@dataclasses.dataclass
class LinprogResult:
    """As scipy.optimize.OptimizeResult: x, fun, status ("optimal",
    "infeasible", "unbounded", "iteration_limit", "time_limit",
    "numerical_trouble"), success, message, nit; row_activity (A x), slack
    (b_ub - A_ub x), con (b_eq - A_eq x), row_dual and reduced_cost (duals in
    the LP's sense), ineqlin / eqlin marginals, stats (times, phases)."""

    x: np.ndarray
    fun: float
    status: str
    success: bool
    message: str
    nit: int
    row_activity: np.ndarray
    row_dual: np.ndarray
    reduced_cost: np.ndarray
    slack: np.ndarray
    con: np.ndarray
    ineqlin_marginals: np.ndarray
    eqlin_marginals: np.ndarray
    stats: dict


def read_mps(path):
    """An MPS file (fixed or free, .mps or .mps.gz) as a LinearProgram."""
    d = core.read_mps(os.fspath(path))
    import scipy.sparse as sp

    A = sp.csc_array((d["data"], d["indices"], d["indptr"]), shape=d["shape"])
    return LinearProgram(A, d["cost"], d["row_lower"], d["row_upper"], d["col_lower"], d["col_upper"],
                         d["objective_constant"], d["sense"] == "maximize", d["name"], d["row_names"],
                         d["col_names"], d["integer"].astype(bool))


def _bounds(bounds, n):
    """scipy.optimize.linprog's bounds: (lo, hi) for every column, or a
    sequence of n pairs; None means unbounded on that side."""
    lo, hi = np.zeros(n), np.full(n, np.inf)
    if bounds is None:
        return lo, hi
    pairs = [bounds] * n if len(bounds) == 2 and not hasattr(bounds[0], "__len__") else list(bounds)
    if len(pairs) != n:
        raise DimensionError(f"balsa.linprog: {len(pairs)} bounds for {n} variables")
    for j, (l, h) in enumerate(pairs):
        lo[j] = -np.inf if l is None else l
        hi[j] = np.inf if h is None else h
    return lo, hi


def _rows(A, b, n, name):
    import scipy.sparse as sp

    if A is None:
        return sp.csr_array((0, n)), np.zeros(0)
    if not sp.issparse(A):
        A = sp.csr_array(np.atleast_2d(np.asarray(A, dtype=np.float64)))
    b = np.asarray(b, dtype=np.float64).ravel()
    if A.shape[1] != n or A.shape[0] != b.shape[0]:
        raise DimensionError(f"balsa.linprog: {name} is {A.shape[0]} x {A.shape[1]} with {b.shape[0]} right-hand "
                             f"sides for {n} variables")
    return A, b


def _program(c, A_ub, b_ub, A_eq, b_eq, bounds, maximize):
    import scipy.sparse as sp

    c = np.asarray(c, dtype=np.float64).ravel()
    n = c.shape[0]
    Au, bu = _rows(A_ub, b_ub, n, "A_ub")
    Ae, be = _rows(A_eq, b_eq, n, "A_eq")
    A = sp.vstack([Au, Ae], format="csc")
    lo, hi = _bounds(bounds, n)
    row_lower = np.concatenate([np.full(bu.shape[0], -np.inf), be])
    row_upper = np.concatenate([bu, be])
    return LinearProgram(A, c, row_lower, row_upper, lo, hi, 0.0, bool(maximize)), Au.shape[0]


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), *, maximize=False, device="auto",
            maxiter=None, time_limit=None, presolve=True, stream=None):
    """Solve min c^T x s.t. A_ub x <= b_ub, A_eq x = b_eq, bounds (SciPy's
    conventions; dense or sparse A_ub/A_eq), or pass a LinearProgram (from
    read_mps) as c. maximize: max instead of min. The basis solves run where
    `device` says ("auto": the model of thesis 7.2.4-7.2.5 decides)."""
    arr.check_device(device, "balsa.linprog")
    if isinstance(c, LinearProgram):
        lp, n_ub = c, 0
        if maximize and not lp.maximize:
            lp = dataclasses.replace(lp, maximize=True)
    else:
        lp, n_ub = _program(c, A_ub, b_ub, A_eq, b_eq, bounds, maximize)
    A = lp.A.tocsc()
    m, n = A.shape
    f64 = np.float64
    d = core.linprog(m, n, arr._int32(A.indptr, "column pointers", "balsa.linprog"),
                     arr._int32(A.indices, "row indices", "balsa.linprog"),
                     np.ascontiguousarray(A.data, dtype=f64), np.ascontiguousarray(lp.c, dtype=f64),
                     float(lp.objective_constant), np.ascontiguousarray(lp.col_lower, dtype=f64),
                     np.ascontiguousarray(lp.col_upper, dtype=f64), np.ascontiguousarray(lp.row_lower, dtype=f64),
                     np.ascontiguousarray(lp.row_upper, dtype=f64), bool(lp.maximize), device,
                     -1 if maxiter is None else int(maxiter), np.inf if time_limit is None else float(time_limit),
                     bool(presolve), arr.stream_handle(stream)[0])
    act, dual = d["row_activity"], d["row_dual"]
    scipy_form = not isinstance(c, LinearProgram)
    k = n_ub if scipy_form else 0
    empty = np.zeros(0)
    return LinprogResult(
        x=d["x"], fun=d["objective"], status=d["status"], success=d["status"] == "optimal",
        message=f"{d['status']} after {d['iterations']} iterations", nit=d["iterations"],
        row_activity=act, row_dual=dual, reduced_cost=d["reduced_cost"],
        slack=lp.row_upper[:k] - act[:k] if scipy_form else empty,
        con=lp.row_upper[k:] - act[k:] if scipy_form else empty,
        ineqlin_marginals=dual[:k] if scipy_form else empty,
        eqlin_marginals=dual[k:] if scipy_form else empty,
        stats=d["stats"])
