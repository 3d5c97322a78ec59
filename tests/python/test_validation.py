"""Python checks what it is given before anything converts it: a sparse
matrix's raw arrays (indptr, indices, dtypes, shapes, NaN, 32-bit sizes)
before SciPy sorts or sums them, and the numeric arguments (maxiter, tol, ...).
One test per check; the crash reproducers run in a subprocess."""

import os
import subprocess
import sys
import types

import numpy as np
import pytest
import scipy.sparse as sp

import balsa
from balsa import _validate

rng = np.random.default_rng(11)

# What SciPy could call to sort, sum or convert a matrix: none may run before the checks.
_CANONICALISING = ("sum_duplicates", "sort_indices", "tocsr", "tocsc", "tocoo", "asformat", "eliminate_zeros",
                   "has_canonical_format", "has_sorted_indices", "copy")


@pytest.fixture
def untouched(monkeypatch):
    """A context in which every sparse class's canonicalising methods fail the
    test when called: `with untouched: balsa...(A)`."""

    def trap(*args, **kwargs):
        raise AssertionError("SciPy was asked to convert the matrix before balsa checked it")

    class Armed:
        def __enter__(self):
            self.patch = monkeypatch.context().__enter__()
            for cls in (sp.csr_array, sp.csr_matrix, sp.csc_array, sp.csc_matrix, sp.coo_array, sp.coo_matrix,
                        sp.bsr_array, sp.dia_array, sp.lil_array, sp.dok_array):
                for name in _CANONICALISING:
                    if hasattr(cls, name):
                        self.patch.setattr(cls, name, property(trap) if name.startswith("has_") else trap)

        def __exit__(self, *exc):
            self.patch.undo()

    return Armed()


def good(n=6):
    """A small valid CSR matrix (diagonal plus the first superdiagonal)."""
    return sp.csr_array(sp.eye_array(n) * 4 + sp.eye_array(n, k=1))


def with_arrays(A, **arrays):
    """A with some raw arrays replaced after construction (SciPy's constructor
    checks little, and a caller can mutate the arrays at any time)."""
    for name, value in arrays.items():
        setattr(A, name, np.asarray(value))
    return A


def solve_isolated(make_matrix, trap):
    """balsa.solve(A, ones) in a fresh interpreter (an abort there cannot
    take the tests with it), A = make_matrix; trap: SciPy's conversions of A
    print "touched" instead of running. Returns (exit status, output)."""
    traps = f"""
for name in {_CANONICALISING[:3]!r}:
    setattr(type(A), name, lambda *args, _name=name: print("touched:", _name))
""" if trap else ""
    code = f"""
import numpy as np, scipy.sparse as sp, balsa
{make_matrix}
{traps}
try:
    balsa.solve(A, np.ones(4))
except ValueError as e:
    print("ValueError:", e)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout + p.stderr


# --- the crash reproducers --------------------------------------------------------------------------------------

# The audit's reproducer: a CSR with a decreasing indptr (and a stale sorted
# flag) made SciPy's sum_duplicates write outside its arrays and the
# interpreter abort ("double free or corruption"). A CSC matrix with a row
# index beyond its rows made SciPy's tocsr write outside its counts array (a
# segmentation fault).
CRASHES = {
    "decreasing-indptr": (
        "A = sp.csr_array((np.ones(4), np.array([0, 1, 2, 3]), np.array([0, 3, 1, 3, 4])), shape=(4, 4))\n"
        "A.has_sorted_indices = True",
        "ValueError: balsa.solve: indptr must not decrease, but row 1 runs from 3 to 1"),
    "csc-row-out-of-range": (
        "A = sp.csc_array((np.ones(4), np.array([0, 1, 2, 100000000]), np.array([0, 1, 2, 3, 4])), shape=(4, 4))",
        "ValueError: balsa.solve: row indices must be < 4 (found 100000000)"),
}


@pytest.mark.parametrize("trap", [False, True], ids=["as-is", "conversions-trapped"])
@pytest.mark.parametrize("case", sorted(CRASHES))
def test_scipy_crash_reproducers_are_clear_errors(case, trap):
    make_matrix, expected = CRASHES[case]
    status, out = solve_isolated(make_matrix, trap)
    assert status == 0, out
    assert expected in out and "touched" not in out


# --- compressed structure, checked before SciPy touches it ----------------------------------------------------

def test_decreasing_indptr_is_refused_before_scipy_canonicalises(untouched):
    A = with_arrays(good(), indptr=[0, 2, 4, 3, 7, 9, 10])
    with untouched, pytest.raises(balsa.MatrixError, match="indptr must not decrease, but row 2 runs from 4 to 3"):
        balsa.DirectSolver(A)


def test_indptr_of_the_wrong_length(untouched):
    A = with_arrays(good(), indptr=[0, 2, 4, 6, 8, 10])
    with untouched, pytest.raises(balsa.DimensionError, match="indptr has 6 entries, expected rows \\+ 1 = 7"):
        balsa.DirectSolver(A)


def test_indptr_not_starting_at_zero(untouched):
    A = with_arrays(good(), indptr=[1, 2, 4, 6, 8, 10, 11])
    with untouched, pytest.raises(balsa.MatrixError, match="indptr must start at 0, not 1"):
        balsa.solve(A, np.ones(6))


def test_indptr_not_ending_at_nnz(untouched):
    A = with_arrays(good(), indptr=[0, 2, 4, 6, 8, 9, 9])
    ends = r"indptr must end at nnz = len\(indices\) = len\(data\) = 11, not 9"
    with untouched, pytest.raises(balsa.MatrixError, match=ends):
        balsa.solve(A, np.ones(6))


def test_indices_and_data_of_different_lengths(untouched):
    A = good()
    with untouched, pytest.raises(balsa.MatrixError, match="indices has 11 entries but data has 10"):
        balsa.KrylovSolver(with_arrays(A, data=A.data[:10]))


def test_column_index_beyond_the_columns(untouched):
    A = good()
    indices = A.indices.copy()
    indices[5] = 6
    with untouched, pytest.raises(balsa.MatrixError, match="column indices must be < 6 \\(found 6\\)"):
        balsa.TriangularSolver(with_arrays(A, indices=indices), lower=False)


def test_negative_column_index(untouched):
    A = good()
    indices = A.indices.copy()
    indices[0] = -1
    with untouched, pytest.raises(balsa.MatrixError, match="column indices must be >= 0 \\(found -1\\)"):
        balsa.SparseQR(with_arrays(A, indices=indices))


def test_csc_indptr_names_columns(untouched):
    A = with_arrays(sp.csc_array(good()), indptr=[0, 1, 0, 5, 7, 9, 11])
    with untouched, pytest.raises(balsa.MatrixError, match="column 1 runs from 1 to 0"):
        balsa.solve(A, np.ones(6))


def test_bsr_blocks_that_do_not_tile(untouched):
    A = sp.bsr_array(good(), blocksize=(2, 2))
    A = with_arrays(A, data=np.ones((A.data.shape[0], 4, 4)))  # SciPy reads the block size from data
    with untouched, pytest.raises(balsa.DimensionError, match="do not tile"):
        balsa.solve(A, np.ones(6))


def test_bsr_block_column_out_of_range(untouched):
    A = sp.bsr_array(good(), blocksize=(2, 2))
    indices = A.indices.copy()
    indices[-1] = 3
    with untouched, pytest.raises(balsa.MatrixError, match="block column indices must be < 3"):
        balsa.solve(with_arrays(A, indices=indices), np.ones(6))


# --- COO, DIA, LIL, DOK ---------------------------------------------------------------------------------------

def test_coo_row_out_of_range(untouched):
    A = sp.coo_array(good())
    row = A.row.copy()
    row[3] = 9
    A.coords = (row, A.col)
    with untouched, pytest.raises(balsa.MatrixError, match="row indices must be < 6 \\(found 9\\)"):
        balsa.solve(A, np.ones(6))


def test_coo_col_negative(untouched):
    A = sp.coo_array(good())
    col = A.col.copy()
    col[0] = -3
    A.coords = (A.row, col)
    with untouched, pytest.raises(balsa.MatrixError, match="column indices must be >= 0 \\(found -3\\)"):
        balsa.solve(A, np.ones(6))


def test_coo_arrays_of_different_lengths(untouched):
    A = sp.coo_array(good())
    A.coords = (A.row[:-1], A.col)
    with untouched, pytest.raises(balsa.MatrixError, match="row, col and data have 10, 11 and 11 entries"):
        balsa.solve(A, np.ones(6))


def test_dia_duplicate_offsets(untouched):
    A = sp.dia_array(good())
    with untouched, pytest.raises(balsa.MatrixError, match="offsets must be distinct"):
        balsa.solve(with_arrays(A, offsets=[0, 0]), np.ones(6))


def test_lil_rows_and_values_of_different_lengths(untouched):
    A = sp.lil_array(good())
    A.data[2] = A.data[2] + [1.0]  # SciPy's conversion would write past its value array
    with untouched, pytest.raises(balsa.MatrixError, match="LIL row 2 has a different number of columns and values"):
        balsa.solve(A, np.ones(6))


def test_lil_column_out_of_range(untouched):
    A = sp.lil_array(good())
    A.rows[4] = [4, 7]
    with untouched, pytest.raises(balsa.MatrixError, match="column indices must be < 6 \\(found 7\\)"):
        balsa.solve(A, np.ones(6))


def test_dok_key_out_of_range():
    A = sp.dok_array(good())
    store = getattr(A, "_dict", A)  # SciPy >= 1.13 keeps the entries in _dict; before, A is the dict
    dict.__setitem__(store, (8, 1), 1.0)  # past SciPy's own index checks
    with pytest.raises(balsa.MatrixError, match="row indices must be < 6 \\(found 8\\)"):
        balsa.solve(A, np.ones(6))


def test_other_formats_still_work():
    A = good()
    b = A @ np.arange(1.0, 7.0)
    for fmt in ("csc", "coo", "bsr", "dia", "lil", "dok"):
        assert np.allclose(balsa.solve(A.asformat(fmt), b, device="cpu"), np.arange(1.0, 7.0)), fmt


def test_unsorted_and_duplicate_entries_are_summed_after_the_checks():
    A = sp.csr_array((np.array([1.0, 3.0, 1.0, 4.0]), np.array([1, 0, 0, 1]), np.array([0, 3, 4])), shape=(2, 2))
    assert np.allclose(balsa.solve(A, np.array([5.0, 4.0]), device="cpu"), [1.0, 1.0])  # [[4, 1], [0, 4]]


# --- dtypes, shapes, values, sizes ----------------------------------------------------------------------------

def test_float_indices_are_a_type_error(untouched):
    A = with_arrays(good(), indices=good().indices.astype(float))
    with untouched, pytest.raises(TypeError, match="indices must hold integers, not float64"):
        balsa.solve(A, np.ones(6))


def test_complex_values_are_a_type_error(untouched):
    A = good().astype(np.complex128)
    with untouched, pytest.raises(TypeError, match=r"complex values \(complex128\); balsa works in real float"):
        balsa.solve(A, np.ones(6))


def test_one_dimensional_sparse_array_is_a_dimension_error():
    try:
        v = sp.coo_array(np.ones(4))
    except (ValueError, TypeError):
        pytest.skip("this SciPy has no 1-D sparse arrays")
    with pytest.raises(balsa.DimensionError, match="two-dimensional"):
        balsa.solve(v, np.ones(4))


def test_non_square_for_a_square_solver():
    with pytest.raises(balsa.DimensionError, match="square, not 3 x 4"):
        balsa.KrylovSolver(sp.csr_array(np.ones((3, 4))))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_inf_values(untouched, bad):
    A = good()
    data = A.data.copy()
    data[4] = bad
    with untouched, pytest.raises(balsa.MatrixError, match="stored value 4 is .*NaN and Inf are not allowed"):
        balsa.DirectSolver(with_arrays(A, data=data))


def test_nan_in_a_dia_matrix_is_found_after_conversion():
    A = sp.dia_array(good())
    A.data[0, 2] = np.nan
    with pytest.raises(balsa.MatrixError, match="NaN and Inf are not allowed"):
        balsa.solve(A, np.ones(6))


def test_nan_in_new_values():
    s = balsa.DirectSolver(good())
    values = good().data.copy()
    values[1] = np.nan
    with pytest.raises(balsa.MatrixError, match="NaN and Inf"):
        s.update_values(values)
    with pytest.raises(TypeError, match="complex"):
        s.update_values(values.astype(np.complex128))


def test_nan_is_allowed_where_it_is_written():
    A = good()
    A.data[0] = np.nan
    m = balsa._arrays.csr_arrays(A, "test", square=False, finite=False)
    assert np.isnan(m.data[0])


def test_too_many_entries_for_32_bit_indices(untouched):
    """2^31 entries, as zero-stride views (no memory): refused from the sizes
    alone, before any reduction over them."""
    big = 2**31
    A = with_arrays(sp.csr_array((1, 4)), indptr=np.array([0, big], dtype=np.int64),
                    indices=np.broadcast_to(np.int64(0), (big,)), data=np.broadcast_to(1.0, (big,)))
    with untouched, pytest.raises(balsa.IndexOverflow, match="2147483648 stored entries"):
        balsa.SparseQR(A)


def test_too_many_rows_for_32_bit_indices():
    huge = sp.coo_array((np.ones(1), (np.zeros(1, int), np.zeros(1, int))), shape=(2**31, 2**31))
    with pytest.raises(balsa.IndexOverflow, match="32-bit"):
        balsa.solve(huge, np.ones(1))


# --- right-hand sides and starting guesses --------------------------------------------------------------------

def test_b_of_the_wrong_length():
    with pytest.raises(balsa.DimensionError, match="b must have 6 rows"):
        balsa.solve(good(), np.ones(5))


def test_x0_of_the_wrong_length():
    s = balsa.KrylovSolver(good(), method="bicgstab", device="cpu")
    with pytest.raises(balsa.DimensionError, match="x0 must have 6 rows"):
        s.solve(np.ones(6), x0=np.ones(7))


def test_x0_with_nan():
    with pytest.raises(ValueError, match="x0 must not contain NaN or Inf"):
        balsa.solve(good(), np.ones(6), x0=np.array([0, 0, np.nan, 0, 0, 0]))


# --- numeric arguments ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("maxiter", [-5, 0, 2.5])
def test_maxiter_out_of_range_is_a_value_error(maxiter):
    A = good()
    with pytest.raises(ValueError, match=f"maxiter must be a positive integer or None, not {maxiter}"):
        balsa.KrylovSolver(A, maxiter=maxiter)
    with pytest.raises(ValueError, match="maxiter must be a positive integer"):
        balsa.solve(A, np.ones(6), maxiter=maxiter)
    with pytest.raises(ValueError, match="maxiter must be a positive integer"):
        balsa.BandedSolver(A, maxiter=maxiter)
    with pytest.raises(ValueError, match="maxiter must be a positive integer"):
        balsa.linprog([1.0, 1.0], maxiter=maxiter)


def test_maxiter_beyond_the_libraries_int():
    with pytest.raises(ValueError, match="maxiter must be at most 2147483647, not 2147483648"):
        balsa.KrylovSolver(good(), maxiter=2**31)


def test_maxiter_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="maxiter must be a positive integer or None, not str"):
        balsa.KrylovSolver(good(), maxiter="10")


def test_maxiter_none_is_the_default():
    s = balsa.KrylovSolver(good(), method="bicgstab", maxiter=None, device="cpu")
    assert np.allclose(good() @ s.solve(np.ones(6)), np.ones(6))
    assert balsa.linprog([1.0, 1.0], maxiter=None, device="cpu").success


@pytest.mark.parametrize("tol", [np.nan, np.inf, -1e-8, 0.0])
def test_tol_must_be_positive_and_finite(tol):
    with pytest.raises(ValueError, match="tol must be positive and finite"):
        balsa.KrylovSolver(good(), tol=tol)
    with pytest.raises(ValueError, match="tol must be positive and finite"):
        balsa.solve(good(), np.ones(6), tol=tol)


def test_rank_tolerance_must_be_finite_and_non_negative():
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="rank_tolerance must be >= 0 and finite or None"):
            balsa.SparseQR(good(), rank_tolerance=bad)


def test_partitions_must_be_a_non_negative_integer():
    with pytest.raises(ValueError, match="partitions must be an integer >= 0, not -2"):
        balsa.BandedSolver(good(), partitions=-2)


def test_time_limit_must_be_positive():
    for bad in (0, -1.0, np.nan):
        with pytest.raises(ValueError, match="time_limit \\(seconds\\) must be positive"):
            balsa.linprog([1.0], time_limit=bad)
    assert balsa.linprog([1.0], time_limit=np.inf, device="cpu").success


# --- linprog's arguments ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("given,missing", [("A_ub", "b_ub"), ("b_ub", "A_ub"), ("A_eq", "b_eq"), ("b_eq", "A_eq")])
def test_linprog_constraints_come_in_pairs(given, missing):
    args = {given: [[1.0, 1.0]] if given.startswith("A") else [1.0]}
    with pytest.raises(ValueError, match=f"balsa.linprog: {given} is given without {missing}"):
        balsa.linprog([1.0, 1.0], **args)


def test_linprog_two_dimensional_c_is_an_error():
    with pytest.raises(ValueError, match="c must be a non-empty 1-D array .* not of shape \\(2, 2\\)"):
        balsa.linprog([[1.0, 2.0], [3.0, 4.0]], A_ub=[[1.0, 1.0]], b_ub=[1.0])


def test_linprog_c_of_one_row_is_its_costs():
    """As scipy.optimize.linprog: (1, n) and (n, 1) are n costs."""
    a = balsa.linprog([[1.0, 2.0]], A_ub=[[-1.0, -1.0]], b_ub=[-1.0], device="cpu")
    b = balsa.linprog([[1.0], [2.0]], A_ub=[[-1.0, -1.0]], b_ub=[-1.0], device="cpu")
    assert a.success and b.success and abs(a.fun - 1.0) < 1e-12 and abs(b.fun - 1.0) < 1e-12


def test_linprog_c_with_nan_or_complex():
    with pytest.raises(ValueError, match="c must not contain NaN or Inf"):
        balsa.linprog([1.0, np.nan])
    with pytest.raises(TypeError, match="c must be a 1-D array of real numbers"):
        balsa.linprog(np.array([1.0, 2.0j]))


def test_linprog_bounds_with_nan_are_an_error():
    with pytest.raises(ValueError, match="bounds must not contain NaN"):
        balsa.linprog([1.0, 1.0], bounds=(0, np.nan))
    with pytest.raises(ValueError, match="bounds must not contain NaN"):
        balsa.linprog([1.0, 1.0], bounds=[(0, 1), (np.nan, None)])


def test_linprog_bounds_none_means_unbounded():
    """min x0 s.t. x1 - x0 <= 2, x0 <= 3, x1 >= 1: x0 = -1 (0 if None were read as 0)."""
    res = balsa.linprog([1.0, 0.0], A_ub=[[-1.0, 1.0]], b_ub=[2.0], bounds=[(None, 3), (1, None)], device="cpu")
    assert res.success and abs(res.fun + 1.0) < 1e-12 and abs(res.x[0] + 1.0) < 1e-12


def test_linprog_bounds_of_the_wrong_shape():
    with pytest.raises(balsa.DimensionError, match="bounds of shape \\(2, 3\\) for 3 variables.*not 2 x n"):
        balsa.linprog([1.0, 1.0, 1.0], bounds=[(0, 0, 0), (1, 1, 1)])
    with pytest.raises(balsa.DimensionError, match="bounds of shape \\(3, 2\\) for 2 variables"):
        balsa.linprog([1.0, 1.0], bounds=[(0, 1)] * 3)


def test_linprog_shape_mismatches_are_named():
    with pytest.raises(balsa.DimensionError, match="A_ub has 3 columns but c has 2 entries"):
        balsa.linprog([1.0, 1.0], A_ub=[[1.0, 2.0, 3.0]], b_ub=[1.0])
    with pytest.raises(balsa.DimensionError, match="b_eq has shape \\(2,\\) but A_eq has 1 rows"):
        balsa.linprog([1.0, 1.0], A_eq=[[1.0, 2.0]], b_eq=[1.0, 2.0])
    with pytest.raises(balsa.DimensionError, match="A_ub must be two-dimensional"):
        balsa.linprog([1.0, 1.0], A_ub=[1.0, 2.0], b_ub=[1.0])


def test_linprog_nan_in_a_constraint():
    with pytest.raises(balsa.MatrixError, match="A_ub must not contain NaN or Inf"):
        balsa.linprog([1.0, 1.0], A_ub=[[1.0, np.nan]], b_ub=[1.0])
    with pytest.raises(ValueError, match="b_ub must not contain NaN or Inf"):
        balsa.linprog([1.0, 1.0], A_ub=[[1.0, 1.0]], b_ub=[np.nan])


def test_linprog_sparse_constraint_checked_before_conversion(untouched):
    A = with_arrays(sp.csr_array(np.ones((2, 3))), indptr=[0, 3, 2])
    with untouched, pytest.raises(balsa.MatrixError, match=r"balsa.linprog \(A_ub\): indptr must not decrease"):
        balsa.linprog([1.0, 1.0, 1.0], A_ub=A, b_ub=[1.0, 1.0])


def test_linear_program_matrix_checked_before_conversion(untouched):
    lp = balsa.LinearProgram(with_arrays(sp.csc_array(np.ones((2, 2))), indices=[0, 1, 0, 5]), np.ones(2),
                             np.zeros(2), np.ones(2), np.zeros(2), np.ones(2))
    with untouched, pytest.raises(balsa.MatrixError, match="row indices must be < 2 \\(found 5\\)"):
        balsa.linprog(lp)


# --- the GPU path's shape: one host sync for every flag ------------------------------------------------------

class _FakeDevice:
    """numpy seen as a device array module: stack() gives an array whose
    get() is counted (a host sync)."""

    def __init__(self):
        self.syncs = 0

    def module(self):
        fake = self

        class Stacked:
            def __init__(self, a):
                self.a = a

            def get(self):
                fake.syncs += 1
                return self.a

        return types.SimpleNamespace(stack=lambda xs: Stacked(np.stack(xs)), asarray=np.asarray,
                                     isfinite=np.isfinite, argmax=np.argmax, sort=np.sort, sum=np.sum)


def test_device_checks_come_back_in_one_sync():
    device = _FakeDevice()
    A = good()
    _validate.check_sparse(A, device.module(), "test")
    assert device.syncs == 1
    data = A.data.copy()
    data[2] = np.inf
    with pytest.raises(balsa.MatrixError, match="stored value 2 is inf"):
        _validate.check_sparse(with_arrays(A, data=data), device.module(), "test")
    assert device.syncs == 2


def test_a_flag_set_by_the_caller_is_not_trusted():
    """A CSR matrix whose caller marked it canonical though its indices are
    unsorted: balsa sorts it anyway (SciPy's flags are not read)."""
    A = sp.csr_array((np.array([1.0, 4.0, 4.0]), np.array([1, 0, 1]), np.array([0, 2, 3])), shape=(2, 2))
    A.has_canonical_format = True
    assert np.allclose(balsa.solve(A, np.array([5.0, 4.0]), device="cpu"), [1.0, 1.0])  # [[4, 1], [0, 4]]


def test_a_csc_triangle_is_checked_as_given(untouched):
    """TriangularSolver reads a CSC L as the CSR of L^T: the message still
    names L's own rows."""
    A = sp.csc_array(sp.tril(good()))
    indices = A.indices.copy()
    indices[2] = 9
    A = with_arrays(A, indices=indices)
    with untouched, pytest.raises(balsa.MatrixError, match="row indices must be < 6 \\(found 9\\)"):
        balsa.TriangularSolver(A)


@pytest.mark.parametrize("bad", [2.5, "2"])
def test_threads_must_be_an_integer(bad):
    """A fractional thread count was truncated silently; the range stays the
    library's check (balsa.Error beyond the machine's threads)."""
    error = TypeError if isinstance(bad, str) else ValueError
    with pytest.raises(error, match="threads must be an integer"):
        balsa.TriangularSolver(sp.tril(good(), format="csr"), threads=bad)
    with pytest.raises(error, match="threads must be an integer"):
        balsa.DirectSolver(good(), threads=bad)
    with pytest.raises(error, match="threads must be an integer >= 0"):
        balsa.solve(good(), np.ones(6), threads=bad)
    with pytest.raises(error, match="threads must be an integer"):
        balsa.set_threads(bad)


def test_large_finite_values_whose_sum_overflows_are_accepted():
    """The NaN/Inf test looks at the values' sum first; a sum that only
    overflowed is no error."""
    A = good()
    A.data[:] = 1e308
    m = balsa._arrays.csr_arrays(A, "test")
    assert np.all(m.data == 1e308)
