"""balsa.linprog as scipy.optimize.linprog: an OptimizeResult with SciPy's
integer statuses, messages and marginals (checked against SciPy's HiGHS),
no solution for infeasible and unbounded programs, integrality refused and
integer MPS columns warned about."""

import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

import balsa

rng = np.random.default_rng(41)


def highs(*args, **kw):
    return scipy.optimize.linprog(*args, method="highs", **kw)


def close(a, b, tol=1e-7):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), atol=tol, rtol=tol)


def same_answer(ours, ref):
    """Every SciPy field of an optimal result, marginals included."""
    assert isinstance(ours, scipy.optimize.OptimizeResult)
    assert ours.status == ref.status == 0 and ours.success and isinstance(ours.status, int)
    assert ours.message.startswith("Optimization terminated successfully.")
    assert abs(ours.fun - ref.fun) <= 1e-8 * max(1.0, abs(ref.fun))
    assert close(ours.x, ref.x)
    assert close(ours.slack, ref.slack) and close(ours.con, ref.con)
    for part in ("ineqlin", "eqlin", "lower", "upper"):
        assert close(getattr(ours, part).residual, getattr(ref, part).residual), part
        assert close(getattr(ours, part).marginals, getattr(ref, part).marginals), part


def test_marginals_with_active_lower_and_upper_bounds_match_highs():
    # x1 basic, x2 at its upper bound, x3 at its lower bound, x4 free and
    # tied to x1 by the equality: every marginal is nonzero somewhere.
    c = [2.0, 1.0, 3.0, 0.5]
    A_ub = [[-1.0, -1.0, -1.0, 0.0]]
    b_ub = [-3.0]
    A_eq = [[1.0, 0.0, 0.0, -1.0]]
    b_eq = [0.0]
    bounds = [(0, 5), (0, 1.5), (0.5, 4), (None, None)]
    ours = balsa.linprog(c, A_ub, b_ub, A_eq, b_eq, bounds, device="cpu")
    ref = highs(c, A_ub, b_ub, A_eq, b_eq, bounds)
    same_answer(ours, ref)
    assert ours.upper.marginals[1] < 0 and ours.lower.marginals[2] > 0 and ours.ineqlin.marginals[0] < 0


def test_random_lp_marginals_match_highs():
    m, n = 30, 50
    A = rng.random((m, n))
    b = A @ rng.random(n) + 1.0
    c = -rng.random(n)
    ours = balsa.linprog(c, A_ub=sp.csr_array(A), b_ub=b, bounds=(0, 2), device="cpu")
    same_answer(ours, highs(c, A_ub=A, b_ub=b, bounds=(0, 2)))
    assert np.count_nonzero(ours.upper.marginals) > 0  # some bound at 2 is active


def test_maximize_negates_the_marginals():
    c = np.array([1.0, 2.0])
    kw = dict(A_ub=[[1.0, 1.0]], b_ub=[4.0], bounds=[(0, 3), (0, 3)])
    mx = balsa.linprog(c, maximize=True, device="cpu", **kw)
    ref = highs(-c, **kw)
    assert abs(mx.fun + ref.fun) < 1e-9 and close(mx.x, ref.x)
    assert close(mx.ineqlin.marginals, -ref.ineqlin.marginals)
    assert close(mx.upper.marginals, -ref.upper.marginals) and close(mx.lower.marginals, -ref.lower.marginals)


def test_result_is_an_optimize_result_with_balsas_extras():
    res = balsa.linprog([-1.0, -2.0], A_ub=[[1.0, 1.0]], b_ub=[4.0], bounds=[(0, 3), (0, 3)], device="cpu")
    assert type(res) is scipy.optimize.OptimizeResult and balsa.LinprogResult is scipy.optimize.OptimizeResult
    assert res["x"] is res.x and res["status"] == 0
    assert res.balsa_status == "optimal" and "iterations" in res.stats and "total_seconds" in res.stats
    assert close(res.row_activity, [4.0]) and res.nit == res.stats["iterations"]


@pytest.mark.parametrize("args,status,text", [
    (dict(c=[1, 1], A_ub=[[1, 1]], b_ub=[-1]), 2, "The problem is infeasible."),
    (dict(c=[1, 2], A_ub=[[-1, -1]], b_ub=[-1], A_eq=[[1, -1]], b_eq=[0.5], bounds=[(0, 3), (-1, 0.2)]), 2,
     "The problem is infeasible."),
    (dict(c=[-1, -1], A_ub=[[1, -1]], b_ub=[1]), 3, "The problem is unbounded."),
])
def test_no_solution_as_scipy(args, status, text):
    """Infeasible and unbounded: status 2 / 3, SciPy's message, and no x,
    fun, slack, con or marginals (None, as SciPy's HiGHS methods give)."""
    ours = balsa.linprog(**args, device="cpu")
    ref = highs(**args)
    assert ours.status == ref.status == status and not ours.success
    assert ours.message.startswith(text) and ref.message.startswith(text)
    for key in ("x", "fun", "slack", "con"):
        assert ours[key] is None and ref[key] is None, key
    for part in ("ineqlin", "eqlin", "lower", "upper"):
        assert getattr(ours, part).marginals is None and getattr(ours, part).residual is None


def test_iteration_limit_is_status_1():
    m, n = 30, 50
    A = rng.random((m, n))
    res = balsa.linprog(-rng.random(n), A_ub=A, b_ub=A @ rng.random(n) + 1.0, bounds=(0, 2), maxiter=1,
                        presolve=False, device="cpu")
    assert res.status == 1 and not res.success and res.message.startswith("Iteration limit reached.")
    assert res.x is not None and res.x.shape == (n,)


def test_integrality():
    kw = dict(A_ub=[[1.0, 1.0]], b_ub=[1.5], bounds=(0, 1), device="cpu")
    for zeros in (0, [0, 0], np.zeros(2, int)):
        assert balsa.linprog([-1.0, -1.0], integrality=zeros, **kw).status == 0
    for integer in (1, [1, 0], [0, 3]):
        with pytest.raises(ValueError, match="balsa solves linear programs only"):
            balsa.linprog([-1.0, -1.0], integrality=integer, **kw)
    for bad in ([0, 0, 0], [0, 4], "x", [[0, 0]], [0.5, 0]):
        with pytest.raises(ValueError, match="integrality must be one value or 2 values"):
            balsa.linprog([-1.0, -1.0], integrality=bad, **kw)


INTEGER_MPS = """NAME          INTLP
ROWS
 N  obj
 L  c1
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    x         obj       -1.0   c1        1.0
    MARKER                 'MARKER'                 'INTEND'
    y         obj       -1.0   c1        1.0
RHS
    rhs       c1        1.5
BOUNDS
 UP bnd       x         1.0
 UP bnd       y         1.0
ENDATA
"""


def test_integer_mps_columns_are_warned_about(tmp_path):
    path = tmp_path / "int.mps"
    path.write_text(INTEGER_MPS)
    with pytest.warns(balsa.IntegralityWarning, match="'INTLP' has 1 integer variable; balsa solves its LP relax"):
        lp = balsa.read_mps(path)
    assert lp.integer.tolist() == [True, False]
    with pytest.warns(balsa.IntegralityWarning, match="balsa.linprog: the program 'INTLP' has 1 integer variable"):
        res = balsa.linprog(lp, device="cpu")
    assert res.status == 0 and abs(res.fun + 1.5) < 1e-9  # the relaxation's optimum, not the integer one
    assert issubclass(balsa.IntegralityWarning, UserWarning)
    with pytest.raises(ValueError, match="balsa solves linear programs only"), warnings.catch_warnings():
        warnings.simplefilter("ignore", balsa.IntegralityWarning)
        balsa.linprog(lp, integrality=[1, 0], device="cpu")


def test_continuous_mps_gives_no_warning(tmp_path):
    path = tmp_path / "lp.mps"
    path.write_text(INTEGER_MPS.replace("    MARKER                 'MARKER'                 'INTORG'\n", "")
                    .replace("    MARKER                 'MARKER'                 'INTEND'\n", ""))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lp = balsa.read_mps(path)
        assert not lp.integer.any() and balsa.linprog(lp, device="cpu").status == 0
