"""balsa.KrylovSolver, balsa.solve and balsa.BandedSolver on the CPU."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import balsa
from conftest import laplacian_3d

rng = np.random.default_rng(11)


def residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def convection_diffusion(n, c=0.3):
    """A nonsymmetric 2-D convection-diffusion matrix (5-point, upwinded)."""
    one = sp.diags_array([-(1 + c) * np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], offsets=[-1, 0, 1])
    eye = sp.eye_array(n)
    return sp.csr_array(sp.kron(one, eye) + sp.kron(eye, one))


@pytest.mark.parametrize("method", ["pcg-ic0", "cg", "pcg-jacobi", "pcg-ilu0", "pcg-chebyshev"])
def test_krylov_spd(method):
    A = laplacian_3d(12)
    b = rng.random(A.shape[0])
    s = balsa.KrylovSolver(A, method=method, rtol=1e-10, device="cpu")
    x = s.solve(b)
    assert s.info["converged"] and s.info["iterations"] > 0
    assert residual(A, x, b) < 1e-8
    assert len(s.info["history"]) >= 1


def test_krylov_float32_and_x0():
    A = laplacian_3d(10).astype(np.float32)
    b = rng.random(A.shape[0]).astype(np.float32)
    s = balsa.KrylovSolver(A, rtol=1e-5, device="cpu")
    x = s.solve(b)
    assert x.dtype == np.float32 and residual(A, x, b) < 1e-4
    x2 = s.solve(b, x0=x)  # a converged start takes (almost) no iterations
    assert s.info["iterations"] <= 2 and residual(A, x2, b) < 1e-4


def test_krylov_method_with_preconditioner_and_nonsymmetric():
    A = convection_diffusion(30)
    b = rng.random(A.shape[0])
    for method, prec in (("bicgstab", "ilu0"), ("bicgstab(l)", "jacobi"), ("bicgstab2-ilu0", None)):
        s = balsa.KrylovSolver(A, method=method, preconditioner=prec, rtol=1e-10, device="cpu")
        assert residual(A, s.solve(b), b) < 1e-8, (method, prec)
    with pytest.raises(balsa.MatrixError, match="symmetric"):
        balsa.KrylovSolver(A, method="pcg-ic0", device="cpu")


def test_krylov_warns_when_not_converged_and_update_values():
    A = laplacian_3d(10)
    b = rng.random(A.shape[0])
    s = balsa.KrylovSolver(A, method="cg", maxiter=2, device="cpu")
    with pytest.warns(balsa.ConvergenceWarning, match="max-iterations"):
        s.solve(b)
    assert not s.info["converged"]
    s2 = balsa.KrylovSolver(A, rtol=1e-10, device="cpu")
    A2 = A.copy()
    A2.data *= 2.0
    s2.update_values(A2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert residual(A2, s2.solve(b), b) < 1e-8


def test_solve_real_matrices(data_dir):
    for name in ("west0479.mtx", "bcsstk13.mtx", "cryg2500.mtx"):
        A = balsa.read_matrix(data_dir / name)
        b = A @ np.ones(A.shape[0])
        x, info = balsa.solve(A, b, device="cpu", return_info=True)
        assert info["solved"], (name, info["message"])
        assert residual(A, x, b) <= 1e-10, name
        assert info["chain"][-1]["method"] == info["method"]
        assert info["direct"] and info["plan"], name  # small systems: a direct method, predicted fastest
        assert 0 <= info["backward_error"] <= 1e-13
        assert info["columns"][0]["solved"]


def test_solve_many_right_hand_sides_like_spsolve(data_dir):
    A = balsa.read_matrix(data_dir / "bcsstk13.mtx")
    B = np.asfortranarray(A @ np.random.default_rng(3).standard_normal((A.shape[0], 4)))
    X, info = balsa.solve(A, B, device="cpu", return_info=True)
    assert X.shape == B.shape
    Y = spla.spsolve(A.tocsc(), B)  # bcsstk13's condition number is about 1e10: compare residuals
    for c in range(4):
        assert residual(A, X[:, c], B[:, c]) <= max(1e-13, 2 * residual(A, Y[:, c], B[:, c]))
    np.testing.assert_allclose(X, Y, rtol=1e-4, atol=1e-6 * np.abs(Y).max())
    assert len(info["columns"]) == 4 and all(c["solved"] for c in info["columns"])
    assert len(info["chain"]) == 1  # one set-up (one factorisation) for every column
    assert all(c["setup_seconds"] == 0 for c in info["columns"][1:])
    # A C-ordered B and an iterative method named: one preconditioner for both columns.
    L = balsa.read_matrix(data_dir / "bcsstk13.mtx")
    B2 = np.ascontiguousarray(B[:, :2])
    X2, info2 = balsa.solve(L, B2, method="pcg-ic0", device="cpu", maxiter=5000, return_info=True)
    assert [c["method"] for c in info2["columns"]] == ["pcg-ic0", "pcg-ic0"]
    assert residual(L, X2[:, 1], B2[:, 1]) <= 1e-8 * 1.01


def test_solve_options(data_dir):
    A = balsa.read_matrix(data_dir / "west0479.mtx")
    b = A @ np.ones(A.shape[0])
    x, info = balsa.solve(A, b, device="cpu", threads=1, acceptance="componentwise", return_info=True)
    assert info["componentwise_backward_error"] <= 1e-8
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="time_budget"):
            balsa.solve(A, b, time_budget=bad)
    with pytest.raises(ValueError, match="threads"):
        balsa.solve(A, b, threads=-2)
    with pytest.raises(balsa.Error, match="threads"):
        balsa.solve(A, b, threads=balsa.hardware_threads() + 1)
    with pytest.raises(balsa.Error, match="threads"):
        balsa.set_threads(0)
    import os
    assert os.environ.get("OMP_WAIT_POLICY", "").lower() == "passive" or "GOMP_SPINCOUNT" in os.environ
    # threads= on the solver classes: one thread works, too many is the library's Error.
    L = balsa.read_matrix(data_dir / "bcsstk13.mtx")
    k = balsa.KrylovSolver(L, method="pcg-ic0", maxiter=5000, device="cpu", threads=1)
    assert k.solve(L @ np.ones(L.shape[0])).shape == (L.shape[0],)
    with pytest.raises(balsa.Error, match="threads"):
        balsa.KrylovSolver(L, device="cpu", threads=balsa.hardware_threads() + 1)
    T = sp.tril(L, format="csr")
    t = balsa.TriangularSolver(T, device="cpu", threads=1)
    assert np.all(np.isfinite(t.solve(np.ones(T.shape[0]))))
    with pytest.raises(balsa.Error, match="threads"):
        balsa.TriangularSolver(T, device="cpu", threads=-1)
    with pytest.raises(balsa.Error, match="acceptance"):
        balsa.solve(A, b, acceptance="sometimes")
    with pytest.raises(balsa.DimensionError):
        balsa.solve(A, np.ones((3, 2)))
    with pytest.raises(balsa.DimensionError):
        balsa.solve(A, np.ones((A.shape[0], 2)), x0=np.zeros(A.shape[0]))


def test_solve_singular_and_bad_input():
    A = sp.csr_array(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(balsa.ConvergenceError, match="singular") as e:
        balsa.solve(A, np.array([1.0, 0.0]), device="cpu")
    assert not e.value.info["solved"] and e.value.info["chain"][-1]["method"] in ("umfpack", "cholmod", "klu")
    S = sp.csr_array(np.array([[1.0, 0.0], [1.0, 0.0]]))  # a zero column
    with pytest.raises(balsa.MatrixError):
        balsa.solve(S, np.ones(2), device="cpu")
    with pytest.raises(TypeError, match="sparse"):
        balsa.solve(np.eye(3), np.ones(3))
    with pytest.raises(balsa.Error, match="method"):
        balsa.solve(sp.eye_array(3, format="csr"), np.ones(3), method="magic")
    with pytest.raises(balsa.Error, match="NaN in right-hand side"):
        balsa.solve(sp.eye_array(3, format="csr"), np.array([1.0, np.nan, 0.0]), device="cpu")


def banded(n, k, rng, dtype=np.float64):
    offsets = list(range(-k, k + 1))
    diags = [rng.random(n - abs(o)) - 0.5 for o in offsets]
    A = sp.diags_array(diags, offsets=offsets) + sp.diags_array(np.full(n, 2.0 * k + 1.5))
    return sp.csr_array(A.astype(dtype))


@pytest.mark.parametrize("variant", ["sap-c", "sap-d"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_banded(variant, dtype):
    A = banded(2000, 6, rng, dtype)
    b = rng.random(2000).astype(dtype)
    s = balsa.BandedSolver(A, variant=variant, partitions=4, rtol=1e-5 if dtype == np.float32 else 1e-10,
                           device="cpu")
    x = s.solve(b)
    assert residual(A, x, b) < (1e-4 if dtype == np.float32 else 1e-9)
    st = s.stats
    assert st["k"] == 6 and st["partitions"] == 4 and st["variant"] == variant
    A2 = A.copy()
    A2.data *= 3
    s.update_values(A2)
    assert residual(A2, s.solve(b), b) < (1e-4 if dtype == np.float32 else 1e-9)


def test_banded_devices_are_checked():
    A = banded(400, 3, rng)
    with pytest.raises(TypeError, match="devices must be a sequence"):
        balsa.BandedSolver(A, devices="0,1")
    with pytest.raises(ValueError, match="devices must be an integer >= 0"):
        balsa.BandedSolver(A, devices=[-1])
    # A device list on the CPU path is the library's error, named.
    with pytest.raises(balsa.Error, match="devices"):
        balsa.BandedSolver(A, devices=[0], device="cpu")
    if balsa.cuda_available():
        with pytest.raises(balsa.Error, match="twice"):
            balsa.BandedSolver(A, devices=[0, 0], device="cuda")
        s = balsa.BandedSolver(A, devices=[0], device="cuda", partitions=2)
        b = rng.random(400)
        assert residual(A, s.solve(b), b) < 1e-9
        assert s.stats["devices"] == [0]


# ---- SciPy's conventions: cg, bicgstab, gmres, minres, LinearOperator, M, callback ----------------


def spd(n=12):
    return sp.csr_array(laplacian_3d(n))


def scipy_operator(A, dtype=None, out=None):
    """A as a scipy LinearOperator (matrix-free); out(y) may spoil the product."""
    f = (lambda x: A @ x) if out is None else (lambda x: out(A @ x))
    return spla.LinearOperator(A.shape, matvec=f, dtype=dtype or A.dtype)


@pytest.mark.parametrize("name", ["cg", "bicgstab"])
def test_scipy_functions_match_scipy(name):
    A = spd(10) if name == "cg" else convection_diffusion(20)
    b = rng.random(A.shape[0])
    x, info = getattr(balsa, name)(A, b, rtol=1e-8, device="cpu")
    y, yinfo = getattr(spla, name)(A, b, rtol=1e-8)
    assert info == 0 == yinfo and isinstance(info, int)
    np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-7 * np.abs(y).max())
    assert residual(A, x, b) <= 1e-8
    # (n, 1) gives (n,), as SciPy; more columns are refused, as SciPy.
    x1, _ = getattr(balsa, name)(A, b.reshape(-1, 1), rtol=1e-8, device="cpu")
    assert x1.shape == (A.shape[0],)
    with pytest.raises(ValueError, match="shape"):
        getattr(balsa, name)(A, np.ones((A.shape[0], 2)), device="cpu")


def test_info_counts_the_iterations_when_not_converged():
    A, b = spd(10), np.ones(1000)
    x, info = balsa.cg(A, b, maxiter=3, device="cpu")
    assert info == 3 and np.isfinite(x).all()


def test_linear_operator_equals_the_matrix_and_x0():
    A = spd(8)
    b = rng.random(A.shape[0])
    x, info = balsa.cg(scipy_operator(A), b, rtol=1e-10, device="cpu")
    y, _ = balsa.cg(A, b, rtol=1e-10, device="cpu")
    assert info == 0
    np.testing.assert_array_equal(x, y)
    s = balsa.KrylovSolver(scipy_operator(A), method="bicgstab", rtol=1e-10, device="cpu")
    assert residual(A, s.solve(b), b) < 1e-9 and s.stats["spmv"] == "operator"
    s.solve(b, x0=x)
    assert s.info["iterations"] <= 1
    dense = A.toarray()
    z, _ = balsa.cg(dense, b, rtol=1e-10, device="cpu")  # a dense ndarray is taken as a matrix
    np.testing.assert_allclose(z, y, rtol=1e-12)


def test_every_kind_of_M():
    A = spd(10)
    b = rng.random(A.shape[0])
    d = A.diagonal()
    jacobi = balsa.KrylovSolver(A, method="pcg-jacobi", rtol=1e-10, device="cpu")
    want = jacobi.solve(b)
    for M in (spla.LinearOperator(A.shape, matvec=lambda r: r / d, dtype=A.dtype),
              sp.diags_array(1.0 / d, format="csr"),
              lambda r: r / d):
        x, info = balsa.cg(A, b, rtol=1e-10, M=M, device="cpu")
        assert info == 0
        np.testing.assert_allclose(x, want, rtol=1e-10, atol=1e-12)
        s = balsa.KrylovSolver(A, method="cg", rtol=1e-10, M=M, device="cpu")
        s.solve(b)
        assert s.info["iterations"] == jacobi.info["iterations"]
    # A balsa solver as M: the exact inverse, one iteration.
    x, info = balsa.cg(A, b, rtol=1e-10, M=balsa.DirectSolver(A), device="cpu")
    assert info == 0 and residual(A, x, b) < 1e-10
    s = balsa.KrylovSolver(scipy_operator(A), rtol=1e-10, M=balsa.DirectSolver(A), device="cpu")
    s.solve(b)
    assert s.info["iterations"] <= 2


def test_callback_sees_every_iterate():
    A = spd(10)
    b = rng.random(A.shape[0])
    seen = []
    x, info = balsa.cg(A, b, rtol=1e-10, callback=lambda xk: seen.append(xk), device="cpu")
    s = balsa.KrylovSolver(A, method="cg", rtol=1e-10, device="cpu")
    s.solve(b)
    assert info == 0 and len(seen) == s.info["iterations"]
    assert all(isinstance(v, np.ndarray) and v.shape == b.shape for v in seen)
    np.testing.assert_array_equal(seen[-1], x)
    history = s.info["history"]
    for k in (0, len(seen) // 2, len(seen) - 1):
        assert residual(A, seen[k], b) == pytest.approx(history[k + 1], rel=1e-3, abs=1e-12)


class Boom(Exception):
    pass


def test_callback_and_operator_exceptions_propagate_and_the_solver_recovers():
    A = spd(8)
    b = rng.random(A.shape[0])
    calls = {"n": 0, "at": 3}

    def callback(xk):
        calls["n"] += 1
        if calls["n"] == calls["at"]:
            raise Boom("from the callback")

    s = balsa.KrylovSolver(A, method="cg", rtol=1e-10, callback=callback, device="cpu")
    with pytest.raises(Boom, match="from the callback"):
        s.solve(b)
    calls["at"] = -1
    assert residual(A, s.solve(b), b) < 1e-9  # usable afterwards

    def matvec(x):
        calls["n"] += 1
        if calls["n"] == calls["at"]:
            raise KeyError("from matvec")
        return A @ x

    calls.update(n=0, at=5)
    op = spla.LinearOperator(A.shape, matvec=matvec, dtype=A.dtype)
    with pytest.raises(KeyError, match="from matvec"):
        balsa.cg(op, b, device="cpu")
    calls.update(n=0, at=2)
    with pytest.raises(KeyError):
        balsa.bicgstab(A, b, M=spla.LinearOperator(A.shape, matvec=matvec, dtype=A.dtype), device="cpu")
    calls["at"] = -1
    assert balsa.cg(op, b, device="cpu")[1] == 0


def test_bad_input_is_refused_clearly():
    A, b = spd(4), np.ones(64)
    with pytest.raises(TypeError, match="did you mean 'rtol'"):
        balsa.cg(A, b, rtl=1e-6)
    with pytest.raises(TypeError, match="did you mean 'maxiter'"):
        balsa.KrylovSolver(A, maxiters=3)
    for bad in (0.0, -1e-3, np.nan):
        with pytest.raises(ValueError, match="rtol"):
            balsa.cg(A, b, rtol=bad)
        with pytest.raises(ValueError, match="rtol"):
            balsa.KrylovSolver(A, rtol=bad)
        with pytest.raises(ValueError, match="rtol"):
            balsa.solve(A, b, rtol=bad)
    with pytest.raises(ValueError, match="atol"):
        balsa.bicgstab(A, b, atol=-1.0)
    with pytest.raises(ValueError, match="M must be 64 x 64"):
        balsa.cg(A, b, M=sp.identity(63, format="csr"))
    with pytest.raises(balsa.DimensionError):
        balsa.cg(A, b, M=spla.LinearOperator((65, 65), matvec=lambda r: r))
    with pytest.raises(ValueError, match=r"A.matvec returned an array of shape \(63,\)"):
        balsa.cg(spla.LinearOperator(A.shape, matvec=lambda x: (A @ x)[:63], dtype=A.dtype), b, device="cpu")
    with pytest.raises(ValueError, match="A.matvec returned dtype float32"):
        balsa.cg(scipy_operator(A, out=lambda y: y.astype(np.float32)), b, device="cpu")
    with pytest.raises(ValueError, match="M.matvec returned"):
        balsa.cg(A, b, M=spla.LinearOperator(A.shape, matvec=lambda r: r[:3], dtype=A.dtype), device="cpu")
    with pytest.raises(ValueError, match="unknown method 'gmress'.*cg"):
        balsa.KrylovSolver(A, method="gmress")
    with pytest.raises(balsa.DimensionError, match="square"):
        balsa.cg(spla.LinearOperator((4, 5), matvec=lambda x: x[:4]), np.ones(4))
    with pytest.raises(balsa.Error, match="none"):
        balsa.KrylovSolver(scipy_operator(A), method="pcg-ic0", device="cpu")


def test_tol_is_a_deprecated_alias_and_solve_takes_rtol():
    A = spd(6)
    b = rng.random(A.shape[0])
    with pytest.warns(DeprecationWarning, match="rtol"):
        s = balsa.KrylovSolver(A, tol=1e-10, device="cpu")
    assert residual(A, s.solve(b), b) < 1e-9
    assert residual(A, balsa.solve(A, b, rtol=1e-10, atol=0.0), b) < 1e-8
    with pytest.warns(DeprecationWarning):
        balsa.solve(A, b, tol=1e-8)


def test_gmres_and_minres_match_scipy():
    B = sp.csr_array(convection_diffusion(15) + 2.0 * sp.eye_array(225))
    b = rng.random(B.shape[0])
    x, info = balsa.gmres(B, b, rtol=1e-8, restart=30, device="cpu")
    y, _ = spla.gmres(B, b, rtol=1e-8, restart=30)
    assert info == 0 and residual(B, x, b) <= 1e-8
    np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-6 * np.abs(y).max())
    xs = []
    balsa.gmres(B, b, rtol=1e-8, restart=10, callback=xs.append, callback_type="x", device="cpu")
    assert xs and all(v.shape == b.shape for v in xs)
    norms = []
    balsa.gmres(B, b, rtol=1e-8, callback=norms.append, callback_type="pr_norm", device="cpu")
    assert norms and all(isinstance(v, float) for v in norms)
    # Not converged: info counts restart cycles, as SciPy's.
    x, info = balsa.gmres(convection_diffusion(15), b, rtol=1e-12, restart=5, maxiter=7, device="cpu")
    assert info == spla.gmres(convection_diffusion(15), b, rtol=1e-12, restart=5, maxiter=7)[1] == 7
    A = sp.csr_array(sp.diags_array([np.ones(99), np.linspace(-2, 3, 100), np.ones(99)], offsets=[-1, 0, 1]))
    x, info = balsa.minres(A, b[:100], rtol=1e-10, device="cpu")
    y, _ = spla.minres(A, b[:100], rtol=1e-10)
    assert info == 0
    np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-7 * np.abs(y).max())
    x, info = balsa.minres(scipy_operator(A), b[:100], rtol=1e-10, shift=0.5, device="cpu")
    assert info == 0 and residual(A - 0.5 * sp.identity(100), x, b[:100]) < 1e-8
