"""The GPU path from Python with CuPy: zero-copy device arrays, results as
CuPy arrays, streams, two solvers on two threads. Skipped without CuPy or a
GPU (ctest label gpu)."""

import threading

import numpy as np
import pytest

import balsa
from conftest import laplacian_3d, random_lower, tolerance

cupy = pytest.importorskip("cupy")  # every test skipped: exit code 77 (conftest.py), ctest's SKIP_RETURN_CODE
if not balsa.cuda_available():
    pytest.skip("no GPU (or a build without CUDA)", allow_module_level=True)
import cupyx.scipy.sparse as csp  # noqa: E402

rng = np.random.default_rng(3)


def rel(x, y):
    x, y = cupy.asnumpy(x), cupy.asnumpy(y)
    return np.linalg.norm(x - y) / np.linalg.norm(y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("algorithm", ["auto", "tassl", "level-set", "sync-free", "cusparse", "sync-free-blocks"])
def test_trsv_device_arrays_zero_copy(dtype, algorithm):
    L = random_lower(3000, 0.002, rng, dtype)
    b = rng.random(3000).astype(dtype)
    ref = balsa.TriangularSolver(L, device="cpu").solve(b)
    s = balsa.TriangularSolver(L, algorithm=algorithm, device="cuda")
    assert s.device == "cuda"
    bd = cupy.asarray(b)
    out = cupy.full(3000, cupy.nan, dtype=dtype)  # poisoned
    x = s.solve(bd, out=out)
    assert isinstance(x, cupy.ndarray) and x is out
    assert s.last_device_pointers == (bd.data.ptr, out.data.ptr)  # the kernels read b's and write x's memory
    cupy.cuda.get_current_stream().synchronize()
    s.check()
    assert rel(x, ref) < tolerance(dtype)
    xh = s.solve(b)  # NumPy in, NumPy out on a GPU solver
    assert isinstance(xh, np.ndarray) and rel(xh, ref) < tolerance(dtype)


def test_trsv_many_rhs_on_device_and_cupyx_matrix():
    L = random_lower(2000, 0.003, rng)
    B = rng.random((2000, 7))
    ref = balsa.TriangularSolver(L, device="cpu").solve(B)
    s = balsa.TriangularSolver(csp.csr_matrix(L), device="cuda")
    Bd = cupy.asfortranarray(cupy.asarray(B))
    X = s.solve(Bd)
    assert X.shape == (2000, 7) and s.last_device_pointers[0] == Bd.data.ptr
    assert rel(X, ref) < 1e-11
    Xc = s.solve(cupy.ascontiguousarray(cupy.asarray(B)))  # C order: copied to column-major first
    assert rel(Xc, ref) < 1e-11


def test_trsv_device_bad_input():
    L = random_lower(100, 0.05, rng)
    s = balsa.TriangularSolver(L, device="cuda")
    with pytest.raises(TypeError, match="float32"):
        s.solve(cupy.ones(100, dtype=cupy.float32))
    with pytest.raises(balsa.DimensionError):
        s.solve(cupy.ones(99))
    with pytest.raises(TypeError):
        s.solve(cupy.ones(100), out=np.empty(100))


@pytest.mark.parametrize("method", ["pcg-ic0", "cg", "pcg-jacobi", "pcg-chebyshev"])
def test_krylov_device_arrays(method):
    A = laplacian_3d(16)
    b = rng.random(A.shape[0])
    s = balsa.KrylovSolver(A, method=method, rtol=1e-10, device="cuda")
    bd = cupy.asarray(b)
    x = s.solve(bd)
    assert isinstance(x, cupy.ndarray) and s.last_device_pointers[0] == bd.data.ptr
    assert s.info["converged"] and s.info["device"] == "cuda"
    r = np.linalg.norm(b - A @ cupy.asnumpy(x)) / np.linalg.norm(b)
    assert r < 1e-8


def test_solve_with_cupy_b():
    A = laplacian_3d(10)
    b = cupy.asarray(rng.random(A.shape[0]))
    x = balsa.solve(A, b)
    assert isinstance(x, cupy.ndarray)
    assert np.linalg.norm(cupy.asnumpy(b) - A @ cupy.asnumpy(x)) / float(cupy.linalg.norm(b)) < 1e-8


def test_streams_order_the_work():
    L = random_lower(5000, 0.002, rng)
    b = rng.random(5000)
    ref = balsa.TriangularSolver(L, device="cpu").solve(b)
    stream = cupy.cuda.Stream(non_blocking=True)
    s = balsa.TriangularSolver(L, device="cuda", stream=stream)
    with stream:
        bd = cupy.asarray(b)
        x = cupy.full(5000, cupy.nan)
        for _ in range(5):
            s.solve(bd, out=x)
            x2 = x * 2.0  # ordered after the solve on the same stream
        stream.synchronize()
    assert rel(x2 / 2.0, ref) < 1e-11


def test_two_threads_two_streams_concurrently():
    mats = [random_lower(20000, 0.0005, np.random.default_rng(i)) for i in range(2)]
    refs = [balsa.TriangularSolver(L, device="cpu").solve(np.ones(20000)) for L in mats]
    errors, results = [], [[], []]

    def work(i):
        try:
            stream = cupy.cuda.Stream(non_blocking=True)
            with stream:
                for _ in range(4):
                    s = balsa.TriangularSolver(mats[i], algorithm="tassl", device="cuda", stream=stream)
                    k = balsa.KrylovSolver(laplacian_3d(12), rtol=1e-10, device="cuda", stream=stream)
                    x = s.solve(cupy.ones(20000))
                    k.solve(cupy.ones(12**3))
                    stream.synchronize()
                    results[i].append((rel(x, refs[i]), k.info["converged"] and k.info["true_residual"] < 1e-6))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(2):
        assert len(results[i]) == 4
        assert all(r < 1e-11 and ok for r, ok in results[i])



def _device_csr(n=50):
    """A valid cupyx CSR matrix (a dominant lower triangle) and its arrays."""
    L = random_lower(n, 0.1, rng)
    return csp.csr_matrix(L), L


def test_device_matrix_checked_on_the_device_before_conversion(monkeypatch):
    """A cupyx matrix's raw arrays are checked with CuPy reductions before
    CuPy converts or sorts it: a decreasing indptr, an index out of range,
    NaN, a COO row out of range are clear errors, and tocsr is never called."""
    A, L = _device_csr()
    indptr = A.indptr.copy()
    start, end = int(indptr[10]), int(indptr[11])  # ints: a CuPy 0-d element is a view
    indptr[10], indptr[11] = end + 1, start
    A.indptr = indptr

    def trap(*args, **kwargs):
        raise AssertionError("CuPy was asked to convert the matrix before balsa checked it")

    with monkeypatch.context() as m:
        for cls in (csp.csr_matrix, csp.csc_matrix, csp.coo_matrix):
            for name in ("tocsr", "sum_duplicates", "sort_indices", "get"):
                m.setattr(cls, name, trap, raising=False)  # some CuPy versions lack sort_indices on COO
        with pytest.raises(balsa.MatrixError, match="indptr must not decrease, but row 10 runs from"):
            balsa.TriangularSolver(A, device="cuda")
        B, _ = _device_csr()
        B.indices[3] = 50
        with pytest.raises(balsa.MatrixError, match="column indices must be < 50 \\(found 50\\)"):
            balsa.TriangularSolver(B, device="cuda")
        C, _ = _device_csr()
        C.data[4] = cupy.nan
        with pytest.raises(balsa.MatrixError, match="stored value 4 is nan"):
            balsa.TriangularSolver(C, device="cuda")
        D = csp.coo_matrix(L)
        D.row[0] = -1
        with pytest.raises(balsa.MatrixError, match="row indices must be >= 0 \\(found -1\\)"):
            balsa.TriangularSolver(D, device="cuda")


def test_device_matrix_valid_after_the_checks():
    A, L = _device_csr()
    x = balsa.TriangularSolver(A, device="cuda").solve(np.ones(50))
    assert np.allclose(L @ x, np.ones(50))


# ---- matrix-free A and M with CuPy, callbacks on the GPU (issue 41) ----------------------------


def _cupy_operator(A, fail_at=None):
    """A (scipy sparse) as a cupyx LinearOperator; its matvec raises
    KeyError at call fail_at["at"]."""
    import cupyx.scipy.sparse.linalg as cla

    Ad = csp.csr_matrix(A)
    calls = {"n": 0}

    def matvec(x):
        calls["n"] += 1
        if fail_at is not None and calls["n"] == fail_at["at"]:
            raise KeyError("from the device matvec")
        return Ad @ x

    return cla.LinearOperator(A.shape, matvec=matvec, dtype=A.dtype), calls


@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_cupy_linear_operator_and_M(method):
    import cupyx.scipy.sparse.linalg as cla

    A = laplacian_3d(12)
    b = rng.random(A.shape[0])
    want, _ = getattr(balsa, method)(A, b, rtol=1e-10, device="cpu")
    op, calls = _cupy_operator(A)
    d = cupy.asarray(A.diagonal())
    M = cla.LinearOperator(A.shape, matvec=lambda r: r / d, dtype=A.dtype)
    seen = []
    x, info = getattr(balsa, method)(op, cupy.asarray(b), rtol=1e-10, M=M, callback=seen.append)
    assert info == 0 and isinstance(x, cupy.ndarray) and calls["n"] > 0
    assert rel(x, want) < 1e-8
    assert seen and all(isinstance(v, np.ndarray) for v in seen)
    np.testing.assert_allclose(seen[-1], cupy.asnumpy(x), rtol=0, atol=0)
    s = balsa.KrylovSolver(op, method=method, rtol=1e-10, M=M)
    assert s.device == "cuda"  # auto: every product has a device form
    assert rel(s.solve(cupy.asarray(b)), want) < 1e-8


def test_cupy_operator_errors_propagate_and_wrong_results_are_named():
    import cupyx.scipy.sparse.linalg as cla

    A = laplacian_3d(8)
    b = cupy.asarray(rng.random(A.shape[0]))
    fail = {"at": 4}
    op, _ = _cupy_operator(A, fail)
    s = balsa.KrylovSolver(op, method="cg", rtol=1e-10)
    with pytest.raises(KeyError, match="from the device matvec"):
        s.solve(b)
    fail["at"] = -1
    x = s.solve(b)  # usable afterwards
    assert s.info["converged"] and rel(cupy.asarray(A @ cupy.asnumpy(x)), b) < 1e-8
    bad = cla.LinearOperator(A.shape, matvec=lambda v: v[:10], dtype=A.dtype)
    with pytest.raises(ValueError, match="A.matvec returned an array of shape"):
        balsa.cg(bad, b)
    bad = cla.LinearOperator(A.shape, matvec=lambda v: v.astype(cupy.float32), dtype=A.dtype)
    with pytest.raises(ValueError, match="A.matvec returned dtype float32"):
        balsa.cg(bad, b)

    def boom(xk):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError):
        balsa.cg(A, b, callback=boom, device="cuda")
    assert balsa.cg(A, b, rtol=1e-10, device="cuda")[1] == 0
