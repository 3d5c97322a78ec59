"""The Python layer's cost per solve: TriangularSolver.solve(b, out=x) timed
from Python against the C++ solve() it calls, on small lower triangles.

For each size (default n = 100 and 1000) and each place (the CPU with NumPy
arrays; where balsa has CUDA and a GPU, the GPU with NumPy arrays and, where
CuPy imports, with CuPy arrays):

  python    median over batches of (batch time / calls), a batch being
            --calls back-to-back solver.solve(b, out=x) calls (perf_counter_ns)
  c++       median of stats["last_solve_seconds"] (the wall time measured
            inside C++ solve(), after its argument checks), one call at a time
  overhead  python - c++: what the Python wrapper, nanobind and the C++
            argument checks (length, finiteness of b) add to each call
  paired    median over single calls of (that call's Python time - its C++
            time): the same figure without mixing two distributions
  ext       median per call of the extension method itself
            (solver._solver.solve / solve_device), i.e. without balsa's
            Python wrapper: python - ext is the wrapper's share
  noop      median per call of a trivial nanobind function of the same
            extension (built_with_cuda()): the floor of any call into C++

On the GPU with CuPy arrays the solve is asynchronous: C++ times the launch
only, so both sides are launch costs (the stream is synchronised between
batches, outside the timers). The target is overhead <= 10 us.

    python bench/python_overhead.py [--sizes 100 1000] [--calls 200] [--batches 51] [--json F] [--quick]
"""

import argparse
import json
import platform
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

import balsa
from balsa._core import core  # the extension: its methods are timed without the Python wrapper

TARGET_US = 10.0


def lower_triangle(n):
    """A well-conditioned lower triangle with ~4 entries a row (a band with gaps)."""
    offsets = [o for o in (-1, -2, -7) if o > -n]
    off = sp.diags([np.full(n + o, -0.25) for o in offsets], offsets, shape=(n, n))
    return (off + sp.eye(n)).tocsr()


def places(args):
    yield "cpu", "numpy"
    if not balsa.cuda_available():
        return
    yield "cuda", "numpy"
    try:
        import cupy  # noqa: F401
    except ImportError:
        return
    yield "cuda", "cupy"


def measure(n, device, kind, args):
    L = lower_triangle(n)
    solver = balsa.TriangularSolver(L, device=device)
    rng = np.random.default_rng(0)
    b_host = rng.standard_normal(n)
    if kind == "cupy":
        import cupy

        b, x = cupy.asarray(b_host), cupy.empty(n)
        sync = cupy.cuda.get_current_stream().synchronize
        ext = solver._solver.solve_device
        ext_args = (b.data.ptr, x.data.ptr, 1)
    else:
        b, x = b_host, np.empty(n)
        sync = lambda: None  # noqa: E731 - host solves return when done
        ext = solver._solver.solve
        ext_args = (b, x)
    solve, calls, clock = solver.solve, args.calls, time.perf_counter_ns

    for _ in range(min(calls, 500)):  # warm-up
        solve(b, out=x)
    sync()

    # Batches of the wrapper, of the extension method and of a trivial nanobind function, interleaved so
    # that all three see the same conditions (a busy machine shifts them together).
    noop = core.built_with_cuda
    batches, ext_batches, noop_batches = [], [], []
    for _ in range(args.batches):
        t0 = clock()
        for _ in range(calls):
            solve(b, out=x)
        t1 = clock()
        sync()
        t2 = clock()
        for _ in range(calls):
            ext(*ext_args)
        t3 = clock()
        sync()
        t4 = clock()
        for _ in range(calls):
            noop()
        t5 = clock()
        batches.append((t1 - t0) / calls)
        ext_batches.append((t3 - t2) / calls)
        noop_batches.append((t5 - t4) / calls)

    py_single, cpp_single = [], []  # one call at a time, with the C++ time read after it
    for i in range(args.singles):
        t0 = clock()
        solve(b, out=x)
        t1 = clock()
        cpp_single.append(solver.stats["last_solve_seconds"] * 1e9)
        py_single.append(t1 - t0)
        if kind == "cupy" and i % 256 == 255:
            sync()
    sync()

    xh = x.get() if kind == "cupy" else x
    residual = float(np.linalg.norm(L @ xh - b_host) / np.linalg.norm(b_host))
    py, cpp = statistics.median(batches), statistics.median(cpp_single)
    return {
        "n": n, "nnz": int(L.nnz), "device": device, "arrays": kind, "algorithm": solver.stats["algorithm"],
        "python_us": py / 1e3, "cpp_us": cpp / 1e3, "overhead_us": (py - cpp) / 1e3,
        "paired_overhead_us": statistics.median(p - c for p, c in zip(py_single, cpp_single)) / 1e3,
        "extension_call_us": statistics.median(ext_batches) / 1e3,
        "nanobind_noop_us": statistics.median(noop_batches) / 1e3,
        "python_batch_spread_us": [min(batches) / 1e3, max(batches) / 1e3],
        "calls_per_batch": calls, "batches": args.batches, "single_calls": args.singles, "residual": residual,
        "meets_target": (py - cpp) / 1e3 <= TARGET_US,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    p.add_argument("--calls", type=int, default=200, help="calls per batch")
    p.add_argument("--batches", type=int, default=51)
    p.add_argument("--singles", type=int, default=5000, help="single calls timed one by one (paired figure)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--quick", action="store_true", help="a smoke test: 100 calls x 5 batches, 500 single calls")
    args = p.parse_args()
    if args.quick:
        args.calls, args.batches, args.singles = 100, 5, 500

    rows = [measure(n, device, kind, args) for n in args.sizes for device, kind in places(args)]

    print(f"balsa {balsa.__version__} (CUDA build: {balsa.built_with_cuda()}, GPU usable: {balsa.cuda_available()}), "
          f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.processor() or platform.machine()}")
    print(f"{'n':>6} {'device':>6} {'arrays':>6} {'algorithm':>10} {'python us':>10} {'c++ us':>8} "
          f"{'overhead':>9} {'paired':>7} {'ext us':>7} {'noop us':>8}  target <= {TARGET_US:g} us")
    for r in rows:
        print(f"{r['n']:>6} {r['device']:>6} {r['arrays']:>6} {r['algorithm']:>10} {r['python_us']:>10.2f} "
              f"{r['cpp_us']:>8.2f} {r['overhead_us']:>9.2f} {r['paired_overhead_us']:>7.2f} "
              f"{r['extension_call_us']:>7.2f} {r['nanobind_noop_us']:>8.3f}  "
              f"{'met' if r['meets_target'] else 'MISSED'}")
    if args.json:
        meta = {"balsa": balsa.__version__, "built_with_cuda": balsa.built_with_cuda(),
                "cuda_available": balsa.cuda_available(), "python": platform.python_version(),
                "numpy": np.__version__, "machine": platform.machine(), "processor": platform.processor(),
                "target_overhead_us": TARGET_US}
        if balsa.cuda_available():
            meta["gpu"] = balsa.device_info()
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": rows}, f, indent=2, default=str)
    return 0 if all(r["residual"] < 1e-12 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
