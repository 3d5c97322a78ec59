"""balsa.SparseQR / lstsq, balsa.linprog / read_mps and the Matrix Market
readers, on the CPU."""

import gzip

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

import balsa

rng = np.random.default_rng(5)


def test_lstsq_matches_dense(data_dir):
    A = balsa.read_matrix(data_dir / "lp_e226.mtx")  # 223 x 472: wide, minimum norm
    At = sp.csr_array(A.T)  # 472 x 223: tall
    for M in (At, A):
        b = rng.random(M.shape[0])
        x = balsa.lstsq(M, b, device="cpu")
        ref = np.linalg.lstsq(M.toarray(), b, rcond=None)[0]
        assert np.linalg.norm(x - ref) / np.linalg.norm(ref) < 1e-8


def test_sparse_qr_many_rhs_refactor_and_rank():
    A = sp.random_array((300, 80), density=0.05, random_state=rng, format="csr") + sp.eye_array(300, 80)
    A = sp.csr_array(A)
    qr = balsa.SparseQR(A, device="cpu")
    B = rng.random((300, 3))
    X = qr.solve(B)
    ref = np.linalg.lstsq(A.toarray(), B, rcond=None)[0]
    assert X.shape == (80, 3) and np.linalg.norm(X - ref) / np.linalg.norm(ref) < 1e-9
    assert qr.rank == 80
    A2 = A.copy()
    A2.data *= 2
    qr.factorize(A2)
    assert np.linalg.norm(qr.solve(B) - ref / 2) / np.linalg.norm(ref) < 1e-9
    D = sp.hstack([A, A[:, :1]], format="csr")  # a repeated column
    assert balsa.SparseQR(D, device="cpu").rank == 80
    with pytest.raises(balsa.DimensionError):
        qr.solve(np.ones(299))


def test_linprog_matches_scipy():
    m, n = 30, 50
    A = rng.random((m, n))
    b = A @ rng.random(n) + 1.0
    c = -rng.random(n)
    ours = balsa.linprog(c, A_ub=A, b_ub=b, bounds=(0, 2), device="cpu")
    ref = scipy.optimize.linprog(c, A_ub=A, b_ub=b, bounds=(0, 2), method="highs")
    assert ours.success and ours.status == 0
    assert abs(ours.fun - ref.fun) <= 1e-7 * max(1.0, abs(ref.fun))
    assert np.all(A @ ours.x <= b + 1e-7) and np.all(ours.x >= -1e-9) and np.all(ours.x <= 2 + 1e-9)
    assert np.allclose(ours.slack, b - A @ ours.x, atol=1e-7)
    Aeq = np.ones((1, n))
    mx = balsa.linprog(-c, A_eq=Aeq, b_eq=[3.0], bounds=(0, 1), maximize=True, device="cpu")
    ref2 = scipy.optimize.linprog(c, A_eq=Aeq, b_eq=[3.0], bounds=(0, 1), method="highs")
    assert abs(mx.fun + ref2.fun) <= 1e-7 * max(1.0, abs(ref2.fun))
    assert abs(mx.con[0]) < 1e-7


def test_linprog_of_a_linear_program_and_maximize(data_dir):
    lp = balsa.LinearProgram(sp.csc_array(np.array([[1.0, 1.0]])), np.array([1.0, 1.0]), np.array([-np.inf]),
                             np.array([4.0]), np.zeros(2), np.full(2, np.inf))
    assert abs(balsa.linprog(lp, device="cpu").fun) < 1e-12
    assert abs(balsa.linprog(lp, maximize=True, device="cpu").fun - 4.0) < 1e-9


def test_linprog_statuses():
    infeasible = balsa.linprog([1, 1], A_ub=[[1, 1]], b_ub=[-1], device="cpu")
    assert infeasible.status == 2 and not infeasible.success and infeasible.x is None and infeasible.fun is None
    unbounded = balsa.linprog([-1, 0], A_ub=[[0, 1]], b_ub=[1], bounds=(0, None), device="cpu")
    assert unbounded.status == 3 and unbounded.x is None
    free = balsa.linprog([1], bounds=[(None, None)], A_eq=[[1]], b_eq=[-4], device="cpu")
    assert free.status == 0 and abs(free.x[0] + 4) < 1e-9
    with pytest.raises(balsa.DimensionError):
        balsa.linprog([1, 2], A_ub=[[1, 2, 3]], b_ub=[1])


def test_read_mps_and_solve(data_dir):
    import csv

    ref = {r["problem"]: r for r in csv.DictReader(open(data_dir / "lp" / "reference.csv"))}
    for name in ("afiro", "sc50a", "adlittle"):
        lp = balsa.read_mps(data_dir / "lp" / f"{name}.mps.gz")
        assert lp.A.shape == (len(lp.row_lower), len(lp.c))
        res = balsa.linprog(lp, device="cpu")
        want = float(ref[name]["clp_objective"])
        assert res.status == 0 and abs(res.fun - want) <= 1e-6 * max(1.0, abs(want)), name


def test_matrix_market_round_trip_and_errors(tmp_path, data_dir):
    A = balsa.read_matrix(data_dir / "west0479.mtx.gz")
    assert isinstance(A, sp.csr_array) and A.shape == (479, 479) and A.nnz == 1910
    balsa.write_matrix(tmp_path / "w.mtx", A)
    B = balsa.read_matrix(tmp_path / "w.mtx")
    assert (A != B).nnz == 0
    A32 = balsa.read_matrix(data_dir / "west0479.mtx", dtype=np.float32)
    assert A32.dtype == np.float32
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n")
    with pytest.raises(balsa.ParseError) as e:
        balsa.read_matrix(bad)
    assert e.value.line == 4 and "bad.mtx:4" in str(e.value)
    short = tmp_path / "short.mtx.gz"
    with gzip.open(short, "wt") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1.0\n")
    with pytest.raises(balsa.ParseError):
        balsa.read_matrix(short)
    latin1 = tmp_path / "latin1.mtx"
    latin1.write_bytes(b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.\xe9\n")
    with pytest.raises(balsa.ParseError) as e:  # a message with bytes that are not UTF-8
        balsa.read_matrix(latin1)
    assert e.value.line == 3
    with pytest.raises(balsa.Error):
        balsa.read_matrix(tmp_path / "missing.mtx")
    with pytest.raises(balsa.ParseError):
        balsa.read_mps(bad)
