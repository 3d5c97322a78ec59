"""balsa.linprog and balsa.read_mps: the revised simplex solver
(include/balsa/lp.hpp), in scipy.optimize.linprog's terms."""

import dataclasses
import os

import numpy as np

from . import _arrays as arr
from . import _scalars as num
from . import _validate as check
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


def _real_vector(x, who, name):
    """x as float64 values squeezed as scipy.optimize.linprog squeezes them
    (one value: shape (1,)), finite."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{who}: {name} must be a 1-D array of real numbers, not {a.dtype}")
    v = a.astype(np.float64).squeeze()
    if not np.isfinite(v).all():
        raise ValueError(f"{who}: {name} must not contain NaN or Inf")
    return v.reshape(-1) if v.size == 1 else v


def _costs(c, who):
    """c as n costs: at most one dimension longer than 1 ((1, n) and (n, 1)
    are n costs, as for scipy.optimize.linprog)."""
    v = _real_vector(c, who, "c")
    if v.ndim != 1 or v.size == 0:
        raise DimensionError(f"{who}: c must be a non-empty 1-D array (at most one dimension longer than 1), "
                             f"not of shape {np.shape(c)}")
    return v


def _bound_values(bounds, who):
    """bounds as a float array (at least 2-D) and where it held None."""
    raw = np.array(bounds, dtype=object)
    none = np.equal(raw, None)
    try:
        values = np.where(none, 0.0, raw).astype(np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{who}: bounds must be (lo, hi) or n pairs of numbers or None, not {bounds!r}") from e
    if np.isnan(values).any():
        raise ValueError(f"{who}: bounds must not contain NaN (None means no bound on that side)")
    return np.atleast_2d(values), np.atleast_2d(none)


def _bounds(bounds, n, who):
    """scipy.optimize.linprog's bounds: None or (lo, hi) for every column, or
    n pairs (an n x 2 array); None inside a pair: no bound on that side."""
    if bounds is None or np.size(np.array(bounds, dtype=object)) == 0:
        return np.zeros(n), np.full(n, np.inf)
    values, none = _bound_values(bounds, who)
    if values.shape not in ((n, 2), (1, 2), (2, 1)):
        raise DimensionError(f"{who}: bounds of shape {values.shape} for {n} variables: give (lo, hi) or an "
                             f"{n} x 2 array" + (", not 2 x n" if values.shape == (2, n) else ""))
    if values.shape != (n, 2):
        values, none = np.tile(values.reshape(1, 2), (n, 1)), np.tile(none.reshape(1, 2), (n, 1))
    lo = np.where(none[:, 0], -np.inf, values[:, 0])
    hi = np.where(none[:, 1], np.inf, values[:, 1])
    return lo, hi


def _matrix(A, who, name):
    """A constraint matrix (sparse or dense), checked, as scipy.sparse CSR."""
    import scipy.sparse as sp

    if arr.sp_issparse(A):
        m = arr.csr_arrays(A, f"{who} ({name})", dtype=np.float64, square=False)
        return sp.csr_array((m.data, m.indices, m.indptr), shape=m.shape)
    return sp.csr_array(check.dense_matrix(A, who, name))


def _rows(A, b, n, names, who):
    """(A, b) of the constraints named `names` (A_ub, b_ub), both or none."""
    import scipy.sparse as sp

    if A is None and b is None:
        return sp.csr_array((0, n)), np.zeros(0)
    if A is None or b is None:
        given, missing = (names[1], names[0]) if A is None else names
        raise ValueError(f"{who}: {given} is given without {missing}")
    A, b = _matrix(A, who, names[0]), _real_vector(b, who, names[1])
    if A.shape[1] != n:
        raise DimensionError(f"{who}: {names[0]} has {A.shape[1]} columns but c has {n} entries")
    if b.shape != (A.shape[0],):
        raise DimensionError(f"{who}: {names[1]} has shape {b.shape} but {names[0]} has {A.shape[0]} rows")
    return A, b


def _program(c, A_ub, b_ub, A_eq, b_eq, bounds, maximize, who):
    import scipy.sparse as sp

    c = _costs(c, who)
    n = c.shape[0]
    Au, bu = _rows(A_ub, b_ub, n, ("A_ub", "b_ub"), who)
    Ae, be = _rows(A_eq, b_eq, n, ("A_eq", "b_eq"), who)
    A = sp.vstack([Au, Ae], format="csc")
    lo, hi = _bounds(bounds, n, who)
    row_lower = np.concatenate([np.full(bu.shape[0], -np.inf), be])
    row_upper = np.concatenate([bu, be])
    return LinearProgram(A, c, row_lower, row_upper, lo, hi, 0.0, bool(maximize)), Au.shape[0]


def _csc(A, who):
    """A LinearProgram's A, checked before it is converted, as CSC."""
    if arr.sp_issparse(A):
        check.check_sparse(A, np, who, square=False)
        return A.tocsc()
    import scipy.sparse as sp

    return sp.csc_array(check.dense_matrix(A, who, "A"))


def linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), *, maximize=False, device="auto",
            maxiter=None, time_limit=None, presolve=True, stream=None):
    """Solve min c^T x s.t. A_ub x <= b_ub, A_eq x = b_eq, bounds (SciPy's
    conventions; dense or sparse A_ub/A_eq), or pass a LinearProgram (from
    read_mps) as c. maximize: max instead of min. The basis solves run where
    `device` says ("auto": the model of thesis 7.2.4-7.2.5 decides).
    Checked first, as SciPy checks them: A_ub comes with b_ub and A_eq with
    b_eq; c is 1-D (or (1, n), (n, 1)); no NaN in c, A, b or bounds; maxiter
    a positive integer or None, time_limit positive (inf or None: none)."""
    who = "balsa.linprog"
    arr.check_device(device, who)
    maxiter = num.integer(maxiter, "maxiter", who, allow_none=True)
    time_limit = num.real(time_limit, "time_limit (seconds)", who, positive=True, allow_inf=True, allow_none=True)
    if isinstance(c, LinearProgram):
        lp, n_ub = c, 0
        if maximize and not lp.maximize:
            lp = dataclasses.replace(lp, maximize=True)
    else:
        lp, n_ub = _program(c, A_ub, b_ub, A_eq, b_eq, bounds, maximize, who)
    A = _csc(lp.A, who)
    m, n = A.shape
    f64 = np.float64
    d = core.linprog(m, n, arr._int32(A.indptr, "column pointers", who),
                     arr._int32(A.indices, "row indices", who),
                     np.ascontiguousarray(A.data, dtype=f64), np.ascontiguousarray(lp.c, dtype=f64),
                     float(lp.objective_constant), np.ascontiguousarray(lp.col_lower, dtype=f64),
                     np.ascontiguousarray(lp.col_upper, dtype=f64), np.ascontiguousarray(lp.row_lower, dtype=f64),
                     np.ascontiguousarray(lp.row_upper, dtype=f64), bool(lp.maximize), device,
                     -1 if maxiter is None else maxiter, np.inf if time_limit is None else time_limit,
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
