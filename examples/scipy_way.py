"""A script written the SciPy way, run unchanged with SciPy or with balsa.

Each part takes its solver module as a parameter: `sla` is
scipy.sparse.linalg or balsa, `optimize` scipy.optimize or balsa. They use
SciPy's names and meanings only: rtol, M as a LinearOperator, callback(xk),
a matrix-free LinearOperator A, cg, bicgstab, gmres, minres, and linprog's
result fields (status, x, fun, the ineqlin and eqlin marginals, res['x']).
Run as a script, it solves everything with both and checks that the
answers agree (tests/python/test_scipy_way.py does the same under pytest).

    python examples/scipy_way.py
"""

import sys

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator


def poisson(m):
    """The 5-point 2-D Laplacian of an m x m grid (SPD)."""
    T = sp.diags_array([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], offsets=[-1, 0, 1])
    eye = sp.eye_array(m)
    return sp.csr_array(sp.kron(T, eye) + sp.kron(eye, T))


def krylov(sla, m=24):
    """cg with a Jacobi M as a LinearOperator and a callback; bicgstab on a
    matrix-free A. Returns the answers and the iterations the callback saw."""
    A = poisson(m)
    n = A.shape[0]
    b = np.sin(np.arange(n) + 1.0)
    d = A.diagonal()
    M = LinearOperator((n, n), matvec=lambda r: r / d, dtype=A.dtype)
    iterates = []
    x_cg, info_cg = sla.cg(A, b, rtol=1e-10, M=M, callback=lambda xk: iterates.append(xk.copy()))
    A_free = LinearOperator((n, n), matvec=lambda v: A @ v + 0.1 * v, dtype=A.dtype)  # A + 0.1 I, matrix-free
    x_bi, info_bi = sla.bicgstab(A_free, b, rtol=1e-10)
    return {"cg": x_cg, "cg info": info_cg, "cg iterations": len(iterates), "bicgstab": x_bi,
            "bicgstab info": info_bi}


def gmres_minres(sla, m=16):
    """gmres on a nonsymmetric matrix, minres on a symmetric indefinite one."""
    A = poisson(m)
    n = A.shape[0]
    wind = sp.diags_array([np.full(n - 1, -0.4), np.full(n - 1, 0.4)], offsets=[-1, 1])
    b = np.cos(np.arange(n) + 1.0)
    x_gm, info_gm = sla.gmres(A + wind, b, rtol=1e-10, restart=40, maxiter=200)
    x_mr, info_mr = sla.minres(A - 2.5 * sp.eye_array(n), b, rtol=1e-10)
    return {"gmres": x_gm, "gmres info": info_gm, "minres": x_mr, "minres info": info_mr}


def linear_program(optimize):
    """max x0 + 2 x1 s.t. x0 + x1 <= 4, x0 + 3 x1 <= 6, x0 - x1 = 1, x >= 0."""
    res = optimize.linprog([-1.0, -2.0], A_ub=[[1.0, 1.0], [1.0, 3.0]], b_ub=[4.0, 6.0], A_eq=[[1.0, -1.0]],
                           b_eq=[1.0], bounds=(0, None))
    return {"status": res.status, "x": np.asarray(res.x), "fun": float(res.fun), "x by key": np.asarray(res["x"]),
            "ineqlin": np.asarray(res.ineqlin.marginals), "eqlin": np.asarray(res.eqlin.marginals)}


def main(sla, optimize, parts=("krylov", "gmres_minres", "linear_program")):
    """Every part's answers (a dict per part), solved with `sla` and `optimize`."""
    run = {"krylov": lambda: krylov(sla), "gmres_minres": lambda: gmres_minres(sla),
           "linear_program": lambda: linear_program(optimize)}
    return {p: run[p]() for p in parts}


def agree(mine, theirs, rtol=1e-6):
    """The names of the answers that differ beyond rtol (empty: all agree)."""
    bad = []
    for key, want in theirs.items():
        got = mine[key]
        if key.endswith("iterations"):
            ok = abs(got - want) <= max(2, 0.1 * want)  # the methods' rounding differs, not their steps
        elif isinstance(want, np.ndarray):
            ok = np.allclose(got, want, rtol=rtol, atol=rtol * max(1.0, np.abs(want).max()))
        else:
            ok = got == want if isinstance(want, int) else np.isclose(got, want, rtol=rtol)
        if not ok:
            bad.append(key)
    return bad


def offered(balsa):
    """The parts this build of balsa offers (GMRES/MINRES and linprog's
    SciPy result came with issue 41)."""
    parts = ["krylov"]
    if {"gmres", "minres"} <= set(balsa._core.krylov_methods()):
        parts.append("gmres_minres")
    if hasattr(balsa.linprog([1.0], bounds=(0, 1)), "ineqlin"):
        parts.append("linear_program")
    return tuple(parts)


if __name__ == "__main__":
    import scipy.optimize
    import scipy.sparse.linalg

    import balsa

    parts = offered(balsa)
    theirs = main(scipy.sparse.linalg, scipy.optimize, parts)
    mine = main(balsa, balsa, parts)
    failed = False
    for part in parts:
        bad = agree(mine[part], theirs[part])
        print(f"{part}: {'answers agree with SciPy' if not bad else 'differ from SciPy: ' + ', '.join(bad)}")
        failed |= bool(bad)
    for part in sorted(set(("krylov", "gmres_minres", "linear_program")) - set(parts)):
        print(f"{part}: not offered by this build of balsa")
    sys.exit(1 if failed else 0)
