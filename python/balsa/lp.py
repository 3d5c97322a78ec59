"""Linear programs: :func:`linprog` (as ``scipy.optimize.linprog``) and :func:`read_mps`.

balsa's revised simplex method solves the LP relaxation; its basis solves run
on the GPU's triangular solvers where a cost model predicts they are faster.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from . import _arrays as arr
from . import _scalars as num
from . import _validate as check
from ._core import core
from ._errors import DimensionError, IntegralityWarning

__all__ = ["LinearProgram", "linprog", "read_mps"]


@dataclasses.dataclass
class LinearProgram:
    """A linear program in bounded row form.

    Minimise (or maximise) ``c @ x + objective_constant`` subject to
    ``row_lower <= A @ x <= row_upper`` and ``col_lower <= x <= col_upper``;
    infinite bounds as ``-inf`` / ``inf``. :func:`read_mps` returns one and
    :func:`linprog` accepts one in place of ``c``.

    Parameters
    ----------
    A : scipy.sparse array, shape (m, n)
        The constraint matrix (kept as CSC).
    c : numpy.ndarray, shape (n,)
        The costs.
    row_lower, row_upper : numpy.ndarray, shape (m,)
        The rows' bounds (equal for an equality).
    col_lower, col_upper : numpy.ndarray, shape (n,)
        The variables' bounds.
    objective_constant : float, optional
        Added to the objective.
    maximize : bool, optional
        Maximise instead of minimise.
    name : str, optional
        The problem's name (an MPS file's NAME).
    row_names, col_names : list of str, optional
        The rows' and columns' names (an MPS file's), or empty.
    integer : numpy.ndarray of bool, shape (n,), optional
        The variables an MPS file marked integer (MARKER INTORG, BV, LI, UI);
        balsa solves the relaxation and warns (:class:`balsa.IntegralityWarning`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, balsa
    >>> lp = balsa.LinearProgram(sp.csc_array([[1.0, 1.0]]), np.array([-1.0, -2.0]), np.array([-np.inf]),
    ...                          np.array([4.0]), np.zeros(2), np.full(2, np.inf))
    >>> round(balsa.linprog(lp, device="cpu").fun, 9)
    -8.0
    """

    A: Any
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
    integer: Optional[np.ndarray] = None


def _warn_integrality(lp: LinearProgram, who: str, stacklevel: int) -> None:
    """An IntegralityWarning when lp has integer columns."""
    count = 0 if lp.integer is None else int(np.count_nonzero(lp.integer))
    if count:
        where = f" '{lp.name}'" if lp.name else ""
        warnings.warn(f"{who}: the program{where} has {count} integer variable{'s' if count > 1 else ''}; "
                      "balsa solves its LP relaxation (integrality is not enforced)", IntegralityWarning,
                      stacklevel=stacklevel + 1)


def read_mps(path: Union[str, os.PathLike]) -> LinearProgram:
    """Read an MPS file as a :class:`LinearProgram`.

    Fixed or free format, plain or gzip-compressed (``.mps``, ``.mps.gz``).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    LinearProgram
        The program; ``integer`` marks the integer variables.

    Raises
    ------
    balsa.FileError
        An OSError: ``FileNotFoundError`` when `path` does not exist,
        ``PermissionError``, ``IsADirectoryError``.
    balsa.ParseError
        A ValueError naming the file's line.

    Warns
    -----
    balsa.IntegralityWarning
        The file marks integer variables: balsa solves the LP relaxation.

    Examples
    --------
    >>> import os, tempfile, balsa
    >>> text = "NAME T\\nROWS\\n N obj\\n L c1\\nCOLUMNS\\n x obj -1 c1 1\\nRHS\\n rhs c1 4\\nENDATA\\n"
    >>> path = os.path.join(tempfile.mkdtemp(), "t.mps")
    >>> with open(path, "w") as f:
    ...     _ = f.write(text)
    >>> lp = balsa.read_mps(path)
    >>> lp.A.shape, lp.row_upper.tolist()
    ((1, 1), [4.0])
    """
    d = core.read_mps(os.fspath(path))
    import scipy.sparse as sp

    A = sp.csc_array((d["data"], d["indices"], d["indptr"]), shape=d["shape"])
    lp = LinearProgram(A, d["cost"], d["row_lower"], d["row_upper"], d["col_lower"], d["col_upper"],
                       d["objective_constant"], d["sense"] == "maximize", d["name"], d["row_names"],
                       d["col_names"], d["integer"].astype(bool) if len(d["integer"]) else np.zeros(A.shape[1], bool))
    _warn_integrality(lp, "balsa.read_mps", stacklevel=2)
    return lp


def _real_vector(x: ArrayLike, who: str, name: str) -> np.ndarray:
    """x as float64 values squeezed as scipy.optimize.linprog squeezes them
    (one value: shape (1,)), finite."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{who}: {name} must be a 1-D array of real numbers, not {a.dtype}")
    v = a.astype(np.float64).squeeze()
    if not np.isfinite(v).all():
        raise ValueError(f"{who}: {name} must not contain NaN or Inf")
    return v.reshape(-1) if v.size == 1 else v


def _costs(c: ArrayLike, who: str) -> np.ndarray:
    """c as n costs: at most one dimension longer than 1 ((1, n) and (n, 1)
    are n costs, as for scipy.optimize.linprog)."""
    v = _real_vector(c, who, "c")
    if v.ndim != 1 or v.size == 0:
        raise DimensionError(f"{who}: c must be a non-empty 1-D array (at most one dimension longer than 1), "
                             f"not of shape {np.shape(c)}")
    return v


def _bound_values(bounds: Any, who: str) -> Tuple[np.ndarray, np.ndarray]:
    """bounds as a float array (at least 2-D) and where it held None."""
    raw = np.array(bounds, dtype=object)
    none = np.equal(raw, None)  # type: ignore[call-overload]  # elementwise "is None" of an object array
    try:
        values = np.where(none, 0.0, raw).astype(np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{who}: bounds must be (lo, hi) or n pairs of numbers or None, not {bounds!r}") from e
    if np.isnan(values).any():
        raise ValueError(f"{who}: bounds must not contain NaN (None means no bound on that side)")
    return np.atleast_2d(values), np.atleast_2d(none)


def _bounds(bounds: Any, n: int, who: str) -> Tuple[np.ndarray, np.ndarray]:
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


def _matrix(A: Any, who: str, name: str) -> Any:
    """A constraint matrix (sparse or dense), checked, as scipy.sparse CSR."""
    import scipy.sparse as sp

    if arr.sp_issparse(A):
        m = arr.csr_arrays(A, f"{who} ({name})", dtype=np.float64, square=False)
        return sp.csr_array((m.data, m.indices, m.indptr), shape=m.shape)
    return sp.csr_array(check.dense_matrix(A, who, name))


def _rows(A: Any, b: Optional[ArrayLike], n: int, names: Tuple[str, str], who: str) -> Tuple[Any, np.ndarray]:
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


def _program(c: ArrayLike, A_ub: Any, b_ub: Optional[ArrayLike], A_eq: Any, b_eq: Optional[ArrayLike], bounds: Any,
             maximize: bool, who: str) -> Tuple["LinearProgram", int]:
    """c, the constraint pairs and the bounds as a LinearProgram, and the
    number of its rows that come from A_ub."""
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


def _csc(A: Any, who: str) -> Any:
    """A LinearProgram's A, checked before it is converted, as CSC."""
    if arr.sp_issparse(A):
        check.check_sparse(A, np, who, square=False)
        return A.tocsc()
    import scipy.sparse as sp

    return sp.csc_array(check.dense_matrix(A, who, "A"))


# balsa's statuses as scipy.optimize.linprog's codes and messages.
_STATUS = {
    "optimal": (0, "Optimization terminated successfully."),
    "iteration_limit": (1, "Iteration limit reached."),
    "time_limit": (1, "Time limit reached."),
    "infeasible": (2, "The problem is infeasible."),
    "unbounded": (3, "The problem is unbounded."),
    "numerical_trouble": (4, "Numerical difficulties encountered."),
}


def _integrality(integrality: Optional[ArrayLike], n: int, who: str) -> None:
    """scipy.optimize.linprog's integrality (0 continuous, 1 integer, 2
    semi-continuous, 3 semi-integer; one value or n): a ValueError unless
    every variable is continuous."""
    if integrality is None:
        return
    v = np.asarray(integrality)
    if v.dtype.kind not in "biuf" or v.ndim > 1 or v.size not in (1, n) or not np.isin(v, (0, 1, 2, 3)).all():
        raise ValueError(f"{who}: integrality must be one value or {n} values from 0, 1, 2, 3, "
                         f"not {integrality!r}")
    if v.any():
        raise ValueError(f"{who}: integrality asks for integer or semi-continuous variables, but balsa solves "
                         "linear programs only (the LP relaxation: leave integrality out or all 0)")


def _bound_marginals(reduced_cost: np.ndarray, maximize: bool) -> Tuple[np.ndarray, np.ndarray]:
    """The reduced costs split into SciPy's lower and upper bound marginals:
    a variable whose reduced cost pushes it down (up) sits at its lower
    (upper) bound; the marginal is the objective's change per unit of the
    bound."""
    push = -reduced_cost if maximize else reduced_cost
    return np.where(push > 0, reduced_cost, 0.0), np.where(push < 0, reduced_cost, 0.0)


def _marginals(residual: Optional[np.ndarray], marginals: Optional[np.ndarray]) -> Any:
    from scipy.optimize import OptimizeResult

    part = OptimizeResult()
    part.update(residual=residual, marginals=marginals)
    return part


def _result(d: dict, lp: LinearProgram, n_ub: Optional[int]) -> Any:
    """The C++ solution d as scipy.optimize.linprog's OptimizeResult; n_ub:
    the rows from A_ub (None: lp was given as a LinearProgram, whose rows have
    no A_ub / A_eq split)."""
    from scipy.optimize import OptimizeResult

    status, text = _STATUS[d["status"]]
    nit = int(d["iterations"])
    res = OptimizeResult()
    res.update(status=status, success=status == 0, nit=nit,
               message=f"{text} (balsa simplex: {d['status']} after {nit} iterations)")
    solved = status not in (2, 3)
    x, act, dual = d["x"], d["row_activity"], d["row_dual"]
    k = 0 if n_ub is None else n_ub
    rows = slice(0, k), slice(k, len(act) if n_ub is not None else 0)
    slack, con = ((lp.row_upper[r] - act[r] for r in rows) if solved else (None, None))
    lower_m, upper_m = _bound_marginals(d["reduced_cost"], lp.maximize) if solved else (None, None)
    res.update(
        x=x if solved else None, fun=d["objective"] if solved else None, slack=slack, con=con,
        ineqlin=_marginals(slack, dual[rows[0]] if solved else None),
        eqlin=_marginals(con, dual[rows[1]] if solved else None),
        lower=_marginals(x - lp.col_lower if solved else None, lower_m),
        upper=_marginals(lp.col_upper - x if solved else None, upper_m),
        # balsa's own: every row's activity and dual, the reduced costs, the
        # status's name, the largest infeasibilities and the solver's stats
        # (iterations by phase, times).
        row_activity=act, row_dual=dual, reduced_cost=d["reduced_cost"], balsa_status=d["status"],
        max_primal_infeasibility=d["max_primal_infeasibility"],
        max_dual_infeasibility=d["max_dual_infeasibility"], stats=d["stats"])
    return res


def _solve(lp: LinearProgram, A: Any, device: str, maxiter: Optional[int], time_limit: Optional[float],
           presolve: bool, stream: Any, who: str) -> dict:
    """The C++ simplex solver on lp (A: its checked CSC matrix)."""
    m, n = A.shape
    f64 = np.float64
    return core.linprog(m, n, arr._int32(A.indptr, "column pointers", who), arr._int32(A.indices, "row indices", who),
                        np.ascontiguousarray(A.data, dtype=f64), np.ascontiguousarray(lp.c, dtype=f64),
                        float(lp.objective_constant), np.ascontiguousarray(lp.col_lower, dtype=f64),
                        np.ascontiguousarray(lp.col_upper, dtype=f64), np.ascontiguousarray(lp.row_lower, dtype=f64),
                        np.ascontiguousarray(lp.row_upper, dtype=f64), bool(lp.maximize), device,
                        -1 if maxiter is None else maxiter, np.inf if time_limit is None else time_limit,
                        bool(presolve), arr.stream_handle(stream)[0])


def linprog(c: Union[ArrayLike, LinearProgram], A_ub: Any = None, b_ub: Optional[ArrayLike] = None, A_eq: Any = None,
            b_eq: Optional[ArrayLike] = None, bounds: Any = (0, None), *, integrality: Optional[ArrayLike] = None,
            maximize: bool = False, device: str = "auto", maxiter: Optional[int] = None,
            time_limit: Optional[float] = None, presolve: bool = True, stream: Any = None) -> Any:
    """Solve a linear program as ``scipy.optimize.linprog`` does.

    Minimise ``c @ x`` subject to ``A_ub @ x <= b_ub``, ``A_eq @ x == b_eq``
    and ``bounds``, with balsa's revised simplex method. The arguments and the
    result follow SciPy's conventions; ``A_ub`` and ``A_eq`` may be dense or
    scipy.sparse.

    Parameters
    ----------
    c : array_like, shape (n,), or LinearProgram
        The costs ((1, n) and (n, 1) are n costs, as in SciPy), or a whole
        program (from :func:`read_mps`; then A_ub ... bounds are not used).
    A_ub : array_like or scipy.sparse, shape (m_ub, n), optional
        Inequality constraints (given with b_ub).
    b_ub : array_like, shape (m_ub,), optional
        Their right-hand sides.
    A_eq : array_like or scipy.sparse, shape (m_eq, n), optional
        Equality constraints (given with b_eq).
    b_eq : array_like, shape (m_eq,), optional
        Their right-hand sides.
    bounds : sequence, optional
        ``(lo, hi)`` for every variable or n pairs; None: no bound on that
        side. Default ``(0, None)``.
    integrality : array_like, optional
        SciPy's integrality codes; balsa solves linear programs only, so any
        nonzero code is a ValueError (None or all 0: continuous).
    maximize : bool, optional
        Maximise instead of minimise (balsa's; SciPy minimises ``-c``).
    device : {"auto", "cpu", "cuda"}, optional
        Where the basis solves run ("auto": a cost model decides at every
        factorisation).
    maxiter : int, optional
        The most simplex iterations (None: balsa's default, 1,000,000).
    time_limit : float, optional
        Seconds (None or inf: no limit).
    presolve : bool, optional
        Simplify the program before solving.
    stream : cupy.cuda.Stream or int, optional
        The CUDA stream of the GPU basis solves.

    Returns
    -------
    scipy.optimize.OptimizeResult
        SciPy's fields: ``x``, ``fun``, ``slack`` (``b_ub - A_ub @ x``),
        ``con`` (``b_eq - A_eq @ x``), ``success``, ``status`` (0 optimal, 1
        iteration or time limit, 2 infeasible, 3 unbounded, 4 numerical
        difficulties), ``message``, ``nit``, and ``ineqlin``, ``eqlin``,
        ``lower``, ``upper`` (each with ``residual`` and ``marginals``: the
        objective's change per unit increase of the right-hand side or bound,
        SciPy's signs). With status 2 or 3 there is no solution: ``x``,
        ``fun``, ``slack``, ``con`` and the marginals are None, as in SciPy.
        balsa's own fields: ``row_activity`` (A x of every row),
        ``row_dual``, ``reduced_cost``, ``balsa_status`` (the status's
        name), ``max_primal_infeasibility``, ``max_dual_infeasibility`` and
        ``stats`` (iterations by phase, times). For a LinearProgram ``c``,
        ``slack`` and ``con`` are empty: ``row_activity`` and ``row_dual``
        cover its rows.

    Raises
    ------
    ValueError
        Inconsistent or non-finite input, a nonzero ``integrality``, an
        unknown device (:class:`balsa.DimensionError` for shapes that do
        not fit).
    TypeError
        Arguments of the wrong type.

    Warns
    -----
    balsa.IntegralityWarning
        A LinearProgram with integer variables: its relaxation is solved.

    Examples
    --------
    >>> import balsa
    >>> res = balsa.linprog([-1, -2], A_ub=[[1, 1]], b_ub=[4], bounds=[(0, 3), (0, 3)], device="cpu")
    >>> res.status, round(res.fun, 9), res.x.round(9).tolist()
    (0, -7.0, [1.0, 3.0])
    >>> res.ineqlin.marginals.round(9).tolist(), res.upper.marginals.round(9).tolist()
    ([-1.0], [0.0, -1.0])
    >>> balsa.linprog([1, 1], A_ub=[[1, 1]], b_ub=[-1], device="cpu").status
    2
    """
    who = "balsa.linprog"
    arr.check_device(device, who)
    maxiter = num.integer(maxiter, "maxiter", who, allow_none=True)
    time_limit = num.real(time_limit, "time_limit (seconds)", who, positive=True, allow_inf=True, allow_none=True)
    n_ub: Optional[int]
    if isinstance(c, LinearProgram):
        lp, n_ub = c, None
        if maximize and not lp.maximize:
            lp = dataclasses.replace(lp, maximize=True)
        _integrality(integrality, len(lp.c), who)
        _warn_integrality(lp, who, stacklevel=2)
    else:
        lp, n_ub = _program(c, A_ub, b_ub, A_eq, b_eq, bounds, maximize, who)
        _integrality(integrality, len(lp.c), who)
    return _result(_solve(lp, _csc(lp.A, who), device, maxiter, time_limit, presolve, stream, who), lp, n_ub)


def __getattr__(name: str) -> Any:
    """``LinprogResult``: scipy.optimize.OptimizeResult, the class of
    :func:`linprog`'s results (imported when first asked for)."""
    if name == "LinprogResult":
        from scipy.optimize import OptimizeResult

        return OptimizeResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
