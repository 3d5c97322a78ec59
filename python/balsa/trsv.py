"""balsa.TriangularSolver: analyse a sparse triangular matrix once, solve
many times (include/balsa/trsv.hpp)."""

from . import _arrays as arr
from . import _scalars as num
from ._core import core


class TriangularSolver:
    """Solves L x = b (or U x = b, or the transposed systems) for one sparse
    triangular matrix, many times.

    Parameters
    ----------
    L : scipy.sparse or cupyx.scipy.sparse matrix, square, float32 or float64.
        Entries outside the chosen triangle are refused (MatrixError), as are
        zero or missing diagonal entries (unless unit_diagonal).
    lower : the triangle L holds (True: lower).
    unit_diagonal : the diagonal is taken as ones (any stored diagonal ignored).
    transpose : solve with L^T instead of L.
    algorithm : "auto", "level-set", "sync-free", "sync-free-csc",
        "sync-free-blocks", "tassl", "cusparse" or "reference".
    device : "auto" (the GPU when there is one), "cpu" or "cuda".
    stream : a CuPy stream or a raw cudaStream_t (int) that orders all the
        solver's GPU work; None: CuPy's current stream when CuPy is loaded,
        else the per-thread default stream.
    threads : host threads of its set-up and solves (0: balsa.set_threads' or
        the process's setting; more than balsa.hardware_threads(): Error).

    A CSC matrix is not converted: it is read as the CSR of its transpose
    and solved transposed.
    """

    def __init__(self, L, lower=True, unit_diagonal=False, transpose=False, algorithm="auto", device="auto",
                 stream=None, threads=0):
        who = "balsa.TriangularSolver"
        arr.check_device(device, who)
        self._transposed = getattr(L, "format", None) == "csc"
        if self._transposed:  # L^T as CSR: the other triangle, transposed (L checked as given first)
            arr.check_matrix(L, who)
            L = L.T
            lower, transpose = not lower, not transpose
        m = arr.csr_arrays(L, who)
        self.dtype = m.dtype
        self.shape = m.shape
        self._pattern = arr.CsrArrays(m.shape, m.indptr, m.indices, None, m.reordered)
        cls = core.TrsvF64 if self.dtype == arr.FLOATS[1] else core.TrsvF32
        handle, owner = arr.stream_handle(stream)
        self._solver = cls.create(m.shape[0], m.indptr, m.indices, m.data, "lower" if lower else "upper",
                           bool(unit_diagonal), bool(transpose), algorithm, device, handle, num.threads(threads, who), owner)
        self.device = self._solver.stats()["device"]
        self._device_id = arr.current_cuda_device() if self.device == "cuda" else None
        self.last_device_pointers = None  # (b, x) of the last GPU-array solve: what the kernels read and wrote

    def solve(self, b, out=None):
        """x with L x = b. b: a vector or a matrix of right-hand sides (n x k),
        NumPy or CuPy; x comes back as b's kind (a new array, or `out`). On a
        GPU solver a contiguous CuPy b of the solver's dtype is read where it
        is (no copy) and x written on the device, asynchronously on the
        solver's stream; NumPy arrays are copied to the device and back.
        Call it where the solver's stream is CuPy's current stream (inside
        `with stream:`), or order b's producer and x's users yourself."""
        who = "balsa.TriangularSolver.solve"
        n = self.shape[0]
        r = arr.rhs(b, n, self.dtype, who, device_id=self._device_id)
        x = arr.empty_like_rhs(r, n) if out is None else arr.check_out(out, r, n, who)
        if r.device == "cuda" and self.device == "cuda":
            xp = x.data.ptr
            self.last_device_pointers = (r.pointer, xp)
            self._solver.solve_device(r.pointer, xp, r.columns)
            return x
        host = arr.to_host(r)
        xh = x if r.device == "cpu" else arr.np.empty(x.shape, dtype=self.dtype, order="F")
        if r.vector:
            self._solver.solve(host, xh)
        else:
            self._solver.solve_columns(arr.flat(host), arr.flat(xh), r.columns)
        if r.device == "cuda":
            x.set(xh)
        return x

    def check(self):
        """Waits for the last GPU-array solve and raises if it failed (a
        sync-free solver's dependency wait that timed out)."""
        self._solver.check()

    def update_values(self, values):
        """New values for the same pattern: a sparse matrix with L's pattern,
        or an array in the order of the matrix given to the constructor
        (L.data of a CSR or CSC matrix; CSR order for other formats).
        Diagonal and finiteness are checked again; on an error the solver
        keeps its values."""
        if self._transposed and arr.sp_issparse(values):
            values = values.T  # the stored matrix is L^T in CSR: its data is L's CSC order
        self._solver.update_values(arr.host_values(values, self._pattern, self.dtype, "balsa.TriangularSolver"))

    @property
    def stats(self):
        """The C++ TrsvStats as a dict: algorithm, device, levels, times."""
        return self._solver.stats()

    def __repr__(self):
        s = self.stats
        return f"<balsa.TriangularSolver {self.shape[0]}x{self.shape[1]} {self.dtype} {s['algorithm']} on {s['device']}>"


def algorithms():
    """The triangular-solver algorithms' names."""
    return list(core.trsv_algorithms())
