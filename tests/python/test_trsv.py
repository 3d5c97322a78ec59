"""balsa.TriangularSolver on the CPU against SciPy's spsolve_triangular."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import balsa
from conftest import random_lower, tolerance

rng = np.random.default_rng(7)


def rel(x, y):
    return np.linalg.norm(x - y) / np.linalg.norm(y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("algorithm", ["auto", "level-set", "reference"])
@pytest.mark.parametrize("lower,transpose", [(True, False), (False, False), (True, True), (False, True)])
def test_matches_scipy(dtype, algorithm, lower, transpose):
    L = random_lower(500, 0.02, rng, dtype)
    T = L if lower else sp.csr_array(L.T)
    b = rng.random(500).astype(dtype)
    s = balsa.TriangularSolver(T, lower=lower, transpose=transpose, algorithm=algorithm, device="cpu")
    M = sp.csr_array(T.T) if transpose else T
    ref = spla.spsolve_triangular(M.astype(np.float64), b.astype(np.float64), lower=(lower != transpose))
    out = np.full(500, np.nan, dtype=dtype)  # poisoned: every entry must be written
    x = s.solve(b, out=out)
    assert x is out and x.dtype == dtype
    assert rel(x, ref) < tolerance(dtype)
    assert s.stats["device"] == "cpu" and s.stats["solves"] == 1


def test_stats_keys_are_the_visitors():
    """Every field of TrsvStats, nested stats as dicts, times named *_seconds (include/balsa/fields.hpp)."""
    T = sp.csr_array(sp.tril(sp.random(200, 200, density=0.02, random_state=3) + sp.eye(200)))
    st = balsa.TriangularSolver(T, algorithm="level-set", device="cpu").stats
    assert st["algorithm"] == "level-set" and st["analysis_seconds"] >= 0 and st["last_solve_seconds"] == 0
    assert {"tassl", "blocks", "spike", "updates"} <= set(st) and "partition_seconds" in st["tassl"]
    assert not any(k.startswith("t_") or k.endswith("_ms") for k in st)


def test_unit_diagonal_ignores_the_stored_diagonal():
    L = random_lower(300, 0.03, rng)
    b = rng.random(300)
    x = balsa.TriangularSolver(L, unit_diagonal=True, device="cpu").solve(b)
    S = sp.tril(L, k=-1) + sp.eye_array(300)
    assert rel(x, spla.spsolve_triangular(sp.csr_array(S), b)) < 1e-11


def test_csc_and_coo_and_int64_indices():
    L = random_lower(400, 0.02, rng)
    b = rng.random(400)
    ref = spla.spsolve_triangular(L, b)
    for M in (sp.csc_array(L), sp.coo_array(L), sp.csr_matrix(L)):
        assert rel(balsa.TriangularSolver(M, device="cpu").solve(b), ref) < 1e-11
    L64 = sp.csr_array(L)
    L64.indices = L64.indices.astype(np.int64)
    L64.indptr = L64.indptr.astype(np.int64)
    assert rel(balsa.TriangularSolver(L64, device="cpu").solve(b), ref) < 1e-11


def test_many_right_hand_sides_and_non_contiguous_b():
    L = random_lower(400, 0.02, rng)
    B = rng.random((400, 5))
    s = balsa.TriangularSolver(L, device="cpu")
    out = np.full((400, 5), np.nan, order="F")  # poisoned
    X = s.solve(B, out=out)
    assert X is out and X.shape == (400, 5)
    for j in range(5):
        assert rel(X[:, j], spla.spsolve_triangular(L, B[:, j])) < 1e-11
    C = np.ascontiguousarray(B.T)  # rows of C: a C-ordered matrix, copied to column-major
    assert rel(s.solve(C.T), X) < 1e-13
    wide = rng.random(800)
    assert rel(s.solve(wide[::2]), spla.spsolve_triangular(L, wide[::2])) < 1e-11


def test_update_values():
    L = random_lower(300, 0.03, rng)
    b = rng.random(300)
    s = balsa.TriangularSolver(L, device="cpu")
    L2 = L.copy()
    L2.data = L2.data * 1.5
    s.update_values(L2)
    assert rel(s.solve(b), spla.spsolve_triangular(L2, b)) < 1e-11
    s.update_values(L.data)
    assert rel(s.solve(b), spla.spsolve_triangular(L, b)) < 1e-11
    bad = L.data.copy()
    bad[L.indptr[1] - 1] = 0.0  # row 0's diagonal
    with pytest.raises(balsa.MatrixError):
        s.update_values(bad)
    assert rel(s.solve(b), spla.spsolve_triangular(L, b)) < 1e-11  # kept its values
    with pytest.raises(balsa.DimensionError):
        s.update_values(L.data[:-1])


def test_update_values_checks_the_pattern_and_the_order():
    L = random_lower(200, 0.03, rng)
    b = rng.random(200)
    s = balsa.TriangularSolver(L, device="cpu")
    diagonal = L.indices == np.arange(200).repeat(np.diff(L.indptr))
    moved = sp.csr_array((L.data.copy(), np.where(diagonal, L.indices, 0), L.indptr.copy()),
                         shape=L.shape)  # off-diagonal entries moved to column 0
    moved.sum_duplicates()
    other = sp.csr_array(sp.tril(sp.random_array((200, 200), density=0.03, random_state=rng), k=-1)
                         + sp.eye_array(200))
    for M in (moved, other):
        with pytest.raises(balsa.DimensionError, match="pattern"):
            s.update_values(M)
    assert rel(s.solve(b), spla.spsolve_triangular(L, b)) < 1e-11
    U = sp.csr_array(L)
    U.indices, U.data = U.indices.copy(), U.data.copy()
    for r in range(200):  # each row's entries reversed: not canonical
        a, z = U.indptr[r], U.indptr[r + 1]
        U.indices[a:z], U.data[a:z] = U.indices[a:z][::-1].copy(), U.data[a:z][::-1].copy()
    U.has_sorted_indices = False
    t = balsa.TriangularSolver(U, device="cpu")
    assert rel(t.solve(b), spla.spsolve_triangular(L, b)) < 1e-11
    with pytest.raises(ValueError, match="reordered"):
        t.update_values(U.data * 2)  # the caller's order is not the solver's
    t.update_values(L * 2)
    assert rel(t.solve(b), spla.spsolve_triangular(L * 2, b)) < 1e-11


def test_update_values_of_a_csc_solver():
    L = random_lower(300, 0.03, rng)
    b = rng.random(300)
    s = balsa.TriangularSolver(sp.csc_array(L), device="cpu")
    L2 = L.copy()
    L2.data = L2.data * rng.random(L2.nnz) + 0.5
    s.update_values(sp.csc_array(L2))  # a matrix: any format
    assert rel(s.solve(b), spla.spsolve_triangular(L2, b)) < 1e-11
    s.update_values(L2)
    assert rel(s.solve(b), spla.spsolve_triangular(L2, b)) < 1e-11
    s.update_values(sp.csc_array(L).data)  # an array: the CSC order given to the constructor
    assert rel(s.solve(b), spla.spsolve_triangular(L, b)) < 1e-11


def test_bad_input():
    L = random_lower(50, 0.1, rng)
    with pytest.raises(TypeError, match="sparse matrix"):
        balsa.TriangularSolver(L.toarray())
    with pytest.raises(balsa.DimensionError, match="square"):
        balsa.TriangularSolver(sp.csr_array(np.ones((3, 4))))
    zero_diag = L.tolil()
    zero_diag[7, 7] = 0
    with pytest.raises(balsa.MatrixError, match="diagonal") as e:
        balsa.TriangularSolver(sp.csr_array(zero_diag), device="cpu")
    assert isinstance(e.value, ValueError)  # a Python user's natural catch
    upper_entry = L.tolil()
    upper_entry[0, 5] = 1.0
    with pytest.raises(balsa.MatrixError):
        balsa.TriangularSolver(sp.csr_array(upper_entry), device="cpu")
    nan = L.copy()
    nan.data[3] = np.nan
    with pytest.raises(balsa.MatrixError):
        balsa.TriangularSolver(nan, device="cpu")
    huge = sp.coo_array((np.ones(1), (np.zeros(1, int), np.zeros(1, int))), shape=(2**31 + 5, 2**31 + 5))
    with pytest.raises(balsa.IndexOverflow):
        balsa.TriangularSolver(huge)
    s = balsa.TriangularSolver(L, device="cpu")
    with pytest.raises(balsa.DimensionError):
        s.solve(np.ones(49))
    with pytest.raises(TypeError, match="float32"):
        s.solve(np.ones(50, dtype=np.float32))
    with pytest.raises(TypeError):
        s.solve(np.ones(50, dtype=np.complex128))
    with pytest.raises(ValueError, match="device"):
        balsa.TriangularSolver(L, device="gpu")
    with pytest.raises(balsa.Error, match="algorithm"):
        balsa.TriangularSolver(L, algorithm="nope")
    with pytest.raises(TypeError, match="stream"):
        balsa.TriangularSolver(L, stream="fast")
    x = s.solve(np.arange(50))  # integers are promoted
    assert x.dtype == np.float64


def test_cuda_without_gpu_is_a_clear_error():
    if balsa.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises(balsa.CudaError):
        balsa.TriangularSolver(random_lower(20, 0.1, rng), device="cuda")


def test_algorithms_listed():
    assert {"auto", "tassl", "level-set", "cusparse"} <= set(balsa.algorithms())


# --- pattern changes: replace_columns and update_pattern ---------------------------------------------------------

def new_lower_columns(n, cols, rng):
    """Random new columns of a lower triangle (diagonal included, dominant) as CSC n x len(cols)."""
    C = np.zeros((n, len(cols)))
    for k, j in enumerate(cols):
        below = rng.choice(np.arange(j + 1, n), size=min(6, n - j - 1), replace=False)
        C[below, k] = rng.random(below.size)
        C[j, k] = 3.0 + rng.random()
    return sp.csc_array(C)


def with_columns(L, cols, C):
    D = L.toarray()
    D[:, cols] = C.toarray()
    return sp.csr_array(D)


@pytest.mark.parametrize("algorithm", ["tassl", "level-set", "auto"])
def test_replace_columns_matches_a_fresh_solver(algorithm):
    n = 400
    L = random_lower(n, 0.02, rng)
    cols = np.array([3, 50, 199, 398])
    C = new_lower_columns(n, cols, rng)
    L2 = with_columns(L, cols, C)
    s = balsa.TriangularSolver(L, algorithm=algorithm, device="cpu")
    s.replace_columns(cols, C)
    b = rng.random(n)
    fresh = balsa.TriangularSolver(L2, algorithm=algorithm, device="cpu").solve(b)
    assert rel(s.solve(b), fresh) < 1e-12
    assert rel(s.solve(b), spla.spsolve_triangular(L2, b)) < 1e-11
    assert s.stats["updates"]["updates"] == 1
    s.update_values(2 * L2)  # the new pattern is the one update_values now takes
    assert rel(s.solve(b), fresh / 2) < 1e-12
    s.update_values((3 * L2).data)  # and its CSR order
    assert rel(s.solve(b), fresh / 3) < 1e-12
    with pytest.raises(balsa.DimensionError, match="pattern differs"):
        s.update_values(L)


@pytest.mark.parametrize("algorithm", ["tassl", "level-set"])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_update_pattern_matches_a_fresh_solver(algorithm, fmt):
    n = 300
    L = random_lower(n, 0.02, rng)
    cols = np.array([0, 7, 150])
    L2 = with_columns(L, cols, new_lower_columns(n, cols, rng))
    s = balsa.TriangularSolver(L.asformat(fmt), algorithm=algorithm, device="cpu")
    s.update_pattern(L2.asformat(fmt))
    b = rng.random(n)
    assert rel(s.solve(b), spla.spsolve_triangular(L2, b)) < 1e-11
    s.update_values(2 * L2.asformat(fmt))
    assert rel(s.solve(b), spla.spsolve_triangular(L2, b) / 2) < 1e-11


def test_replace_columns_float32():
    n = 200
    L = random_lower(n, 0.03, rng, np.float32)
    cols = np.array([10, 20])
    C = new_lower_columns(n, cols, rng)
    s = balsa.TriangularSolver(L, device="cpu")
    s.replace_columns(cols, C)
    b = rng.random(n).astype(np.float32)
    ref = spla.spsolve_triangular(with_columns(L.astype(np.float64), cols, C), b.astype(np.float64))
    x = s.solve(b)
    assert x.dtype == np.float32 and rel(x, ref) < 1e-4


def test_pattern_changes_bad_input_leaves_the_solver_as_it_was():
    n = 100
    L = random_lower(n, 0.05, rng)
    b = rng.random(n)
    s = balsa.TriangularSolver(L, algorithm="tassl", device="cpu")
    before = s.solve(b)
    C = new_lower_columns(n, [5], rng)
    with pytest.raises(ValueError, match=r"columns must be in \[0, 100\), not -1 .. -1"):
        s.replace_columns([-1], C)
    with pytest.raises(ValueError, match=r"columns must be in \[0, 100\)"):
        s.replace_columns([100], C)
    with pytest.raises(TypeError, match="columns must be integers"):
        s.replace_columns([1.5], C)
    with pytest.raises(balsa.DimensionError, match="new_columns must be 100 x 2"):
        s.replace_columns([5, 6], C)
    with pytest.raises(balsa.DimensionError, match="columns must be 1-D"):
        s.replace_columns([[5]], C)
    with pytest.raises(TypeError, match="must be a sparse matrix"):
        s.replace_columns([5], C.toarray())
    upper = C.toarray()
    upper[0, 0] = 1.0  # row 0 above the diagonal of column 5
    with pytest.raises(balsa.MatrixError):
        s.replace_columns([5], sp.csc_array(upper))
    no_diagonal = C.toarray()
    no_diagonal[5, 0] = 0.0
    with pytest.raises(balsa.MatrixError):
        s.replace_columns([5], sp.csc_array(no_diagonal))
    nan = C.copy()
    nan.data[0] = np.nan
    with pytest.raises(ValueError):
        s.replace_columns([5], nan)
    with pytest.raises(balsa.Error):
        s.replace_columns([5, 5], sp.hstack([C, C], format="csc"))
    with pytest.raises(balsa.DimensionError, match="the new matrix is 99 x 99"):
        s.update_pattern(random_lower(99, 0.05, rng))
    with pytest.raises(balsa.MatrixError):
        s.update_pattern(sp.csr_array(L.T))
    assert rel(s.solve(b), before) == 0  # every failed call left the solver as it was
    csc = balsa.TriangularSolver(sp.csc_array(L), device="cpu")
    with pytest.raises(ValueError, match="built from a CSC matrix"):
        csc.replace_columns([5], C)
