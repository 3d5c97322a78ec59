"""balsa.KrylovSolver, balsa.solve and balsa.BandedSolver on the CPU."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

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


@pytest.mark.parametrize("method", ["pcg-ic0", "cg", "pcg-jacobi", "pcg-ilu0"])
def test_krylov_spd(method):
    A = laplacian_3d(12)
    b = rng.random(A.shape[0])
    s = balsa.KrylovSolver(A, method=method, tol=1e-10, device="cpu")
    x = s.solve(b)
    assert s.info["converged"] and s.info["iterations"] > 0
    assert residual(A, x, b) < 1e-8
    assert len(s.info["history"]) >= 1


def test_krylov_float32_and_x0():
    A = laplacian_3d(10).astype(np.float32)
    b = rng.random(A.shape[0]).astype(np.float32)
    s = balsa.KrylovSolver(A, tol=1e-5, device="cpu")
    x = s.solve(b)
    assert x.dtype == np.float32 and residual(A, x, b) < 1e-4
    x2 = s.solve(b, x0=x)  # a converged start takes (almost) no iterations
    assert s.info["iterations"] <= 2 and residual(A, x2, b) < 1e-4


def test_krylov_method_with_preconditioner_and_nonsymmetric():
    A = convection_diffusion(30)
    b = rng.random(A.shape[0])
    for method, prec in (("bicgstab", "ilu0"), ("bicgstab(l)", "jacobi"), ("bicgstab2-ilu0", None)):
        s = balsa.KrylovSolver(A, method=method, preconditioner=prec, tol=1e-10, device="cpu")
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
    s2 = balsa.KrylovSolver(A, tol=1e-10, device="cpu")
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
        assert residual(A, x, b) <= 1e-8 * 1.01, name
        assert info["chain"][-1]["method"] == info["method"]


def test_solve_singular_and_bad_input():
    A = sp.csr_array(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(balsa.ConvergenceError, match="singular") as e:
        balsa.solve(A, np.array([1.0, 0.0]), device="cpu")
    assert not e.value.info["solved"] and e.value.info["chain"][-1]["method"] == "umfpack"
    S = sp.csr_array(np.array([[1.0, 0.0], [1.0, 0.0]]))  # a zero column
    with pytest.raises(balsa.MatrixError):
        balsa.solve(S, np.ones(2), device="cpu")
    with pytest.raises(TypeError, match="sparse"):
        balsa.solve(np.eye(3), np.ones(3))
    with pytest.raises(balsa.DimensionError):
        balsa.solve(sp.eye_array(3, format="csr"), np.ones((3, 2)))
    with pytest.raises(balsa.Error, match="method"):
        balsa.solve(sp.eye_array(3, format="csr"), np.ones(3), method="magic")
    with pytest.raises(balsa.Error, match="NaN in right-hand side b at index 1"):
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
    s = balsa.BandedSolver(A, variant=variant, partitions=4, tol=1e-5 if dtype == np.float32 else 1e-10,
                           device="cpu")
    x = s.solve(b)
    assert residual(A, x, b) < (1e-4 if dtype == np.float32 else 1e-9)
    st = s.stats
    assert st["k"] == 6 and st["partitions"] == 4 and st["variant"] == variant
    A2 = A.copy()
    A2.data *= 3
    s.update_values(A2)
    assert residual(A2, s.solve(b), b) < (1e-4 if dtype == np.float32 else 1e-9)
