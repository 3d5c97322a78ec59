"""balsa.DirectSolver / factorized (CHOLMOD, UMFPACK, KLU on the CPU) against
scipy.sparse.linalg.spsolve, and their errors."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import balsa

rng = np.random.default_rng(11)


def laplacian(n=12):
    T = sp.diags_array([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], offsets=[-1, 0, 1])
    I = sp.eye_array(n)
    return sp.csr_array(sp.kron(T, I) + sp.kron(I, T))


def unsymmetric(n=200):
    A = sp.random_array((n, n), density=0.03, random_state=rng, format="csr") + 4 * sp.eye_array(n)
    return sp.csr_array(A)


@pytest.mark.parametrize("method", ["auto", "cholmod", "umfpack", "klu"])
def test_methods_match_spsolve(method):
    A = laplacian() if method == "cholmod" else unsymmetric()
    b = rng.random(A.shape[0])
    s = balsa.DirectSolver(A, method=method)
    x = s.solve(b)
    ref = spla.spsolve(sp.csc_array(A), b)
    assert np.linalg.norm(x - ref) / np.linalg.norm(ref) < 1e-10
    assert s.stats["method"] != "auto" and s.stats["factorized"] and s.stats["device"] == "cpu"
    assert s.stats["factor_entries"] >= A.shape[0] and s.stats["flops"] > 0 and 0 < s.stats["rcond"] <= 1


def test_many_columns_float_and_update_values():
    A = unsymmetric()
    B = rng.random((A.shape[0], 4))
    s = balsa.DirectSolver(A, method="klu")
    X = s.solve(B)
    assert X.shape == B.shape
    assert np.linalg.norm(A @ X - B) / np.linalg.norm(B) < 1e-12
    A2 = A.copy()
    A2.data *= 3
    s.update_values(A2)
    assert np.linalg.norm(s.solve(B) - X / 3) / np.linalg.norm(X) < 1e-12
    s.update_values(A.data)
    assert s.stats["factorizations"] == 3
    f = balsa.DirectSolver(sp.csr_array(A, dtype=np.float32))
    xf = f.solve(B[:, 0].astype(np.float32))
    assert xf.dtype == np.float32 and np.linalg.norm(xf - X[:, 0]) / np.linalg.norm(X[:, 0]) < 1e-5


def test_factorized_is_like_scipy():
    A = unsymmetric()
    b = rng.random(A.shape[0])
    solve = balsa.factorized(A)
    ref = spla.factorized(sp.csc_array(A))(b)
    assert np.linalg.norm(solve(b) - ref) / np.linalg.norm(ref) < 1e-10
    assert solve.__self__.stats["columns_solved"] == 1


def test_auto_leaves_cholmod_for_an_indefinite_matrix():
    A = sp.csr_array(laplacian() - 1.5 * sp.eye_array(laplacian().shape[0]))
    s = balsa.DirectSolver(A)
    assert s.method == "umfpack" and "not positive definite" in s.stats["note"]


def test_errors():
    singular = sp.csr_array(np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 1.0], [1.0, 2.0, 0.0]]))
    with pytest.raises(balsa.SingularMatrix, match="numerically singular"):
        balsa.DirectSolver(singular, method="umfpack")
    assert issubclass(balsa.SingularMatrix, balsa.MatrixError)
    structural = sp.csr_array(np.array([[1.0, 2.0, 0.0], [3.0, 1.0, 0.0], [1.0, 5.0, 0.0]]))
    with pytest.raises(balsa.StructurallySingular) as e:
        balsa.DirectSolver(structural, method="klu")
    assert e.value.structural_rank == 2
    with pytest.raises(balsa.MatrixError, match="not positive definite"):
        balsa.DirectSolver(sp.csr_array(np.array([[1.0, 2.0], [2.0, 1.0]])), method="cholmod")
    with pytest.raises(balsa.Error, match="run on the CPU"):
        balsa.DirectSolver(laplacian(), device="cuda")
    with pytest.raises(ValueError, match="method"):
        balsa.DirectSolver(laplacian(), method="lu")
    s = balsa.DirectSolver(laplacian())
    with pytest.raises(balsa.DimensionError):
        s.solve(np.ones(3))
    bad = laplacian()
    bad.data[0] = np.nan
    with pytest.raises(balsa.MatrixError):
        balsa.DirectSolver(bad)
