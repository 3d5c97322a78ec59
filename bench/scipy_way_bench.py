"""balsa's SciPy-convention Krylov functions (balsa.cg, gmres, minres) against
cupyx.scipy.sparse.linalg's on one GPU, and against scipy.sparse.linalg's
on the CPU: time to the answer (set-up included), one run on one card.

Problems: the 7-point 3-D Laplacian (SPD: cg, minres) and a 3-D
convection-diffusion operator (the Laplacian plus an upwind first
difference in each direction, nonsymmetric: gmres with restart 20), N^3
rows; every solver gets rtol (SciPy's meaning: ||b - A x||_2 <= rtol
||b||_2), x0 = 0 and the same maxiter, no preconditioner. A matrix-free row
runs balsa.cg on a cupyx LinearOperator wrapping the same CSR product, to
show the cost of a Python matvec callback per iteration.

Each time is the median of --repeat runs after one warm-up, measured around
the call and a device synchronisation. Iterations come from a callback-free
count (balsa: the solver's info; cupyx/SciPy: a counting callback run once,
outside the timed runs).

    python bench/scipy_way_bench.py [--grid 64] [--cpu-grid 32] [--repeat 3] [--rtol 1e-8]
                                    [--json F] [--markdown F]
"""

import argparse
import json
import platform
import statistics
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import balsa

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--grid", type=int, default=64, help="GPU problems: grid side N (N^3 rows)")
p.add_argument("--cpu-grid", type=int, default=32, help="CPU problems: grid side N")
p.add_argument("--repeat", type=int, default=3)
p.add_argument("--rtol", type=float, default=1e-8)
p.add_argument("--maxiter", type=int, default=5000)
p.add_argument("--json", metavar="FILE")
p.add_argument("--markdown", metavar="FILE")
args = p.parse_args()


def laplacian(n):
    """The 7-point Laplacian on an n^3 grid (Dirichlet), CSR float64."""
    t = sp.diags_array([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], offsets=[-1, 0, 1])
    i = sp.eye_array(n)
    return sp.csr_array(sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(i, i), t))


def convection_diffusion(n, beta=0.3):
    """The Laplacian plus beta times an upwind first difference per direction."""
    d = sp.diags_array([-np.ones(n - 1), np.ones(n)], offsets=[-1, 0])
    i = sp.eye_array(n)
    c = sp.kron(sp.kron(d, i), i) + sp.kron(sp.kron(i, d), i) + sp.kron(sp.kron(i, i), d)
    return sp.csr_array(laplacian(n) + beta * c)


def timed(fn, sync):
    fn()  # warm-up
    sync()
    ts = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        out = fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def count_iterations(solver, A, b, **kw):
    """Iterations of a SciPy-style solver, from a counting callback (one
    untimed run; GMRES: per inner step, callback_type "pr_norm")."""
    seen = [0]

    def tick(_):
        seen[0] += 1

    if "restart" in kw:
        kw = dict(kw, callback_type="pr_norm")
    solver(A, b, callback=tick, **kw)
    return seen[0]


def spelled_for(fn, kw):
    """kw with rtol spelled tol for a solver that has no rtol (cupyx's minres)."""
    import inspect

    if "rtol" in inspect.signature(fn).parameters:
        return kw
    kw = dict(kw)
    kw["tol"] = kw.pop("rtol")
    return kw


rows = []


def record(problem, n, library, method, seconds, x, A, b, iterations, info, xp):
    r = A @ x - b
    rel = float(xp.linalg.norm(r) / xp.linalg.norm(b))
    rows.append(dict(problem=problem, rows=int(n), library=library, method=method, seconds=seconds,
                     iterations=int(iterations), info=int(info), true_residual=rel))
    print(f"{problem:>22} {n:>8} {library:>6} {method:>16} {seconds:9.4f} s  it {iterations:>5}  "
          f"res {rel:.2e}  info {info}", flush=True)


def run_cpu():
    kw = dict(rtol=args.rtol, maxiter=args.maxiter)
    for problem, A, methods in cpu_problems():
        b = np.ones(A.shape[0])
        for name, mine, theirs, extra in methods:
            t, (x, info) = timed(lambda: mine(A, b, device="cpu", **kw, **extra), lambda: None)
            it = count_iterations(lambda *a, **k: mine(*a, device="cpu", **k), A, b, **kw, **extra)
            record(problem, A.shape[0], "balsa", name, t, x, A, b, it, info, np)
            t, (x, info) = timed(lambda: theirs(A, b, **kw, **extra), lambda: None)
            it = count_iterations(theirs, A, b, **kw, **extra)
            record(problem, A.shape[0], "scipy", name, t, x, A, b, it, info, np)


def cpu_problems():
    n = args.cpu_grid
    L, C = laplacian(n), convection_diffusion(n)
    return [("laplacian", L, [("cg", balsa.cg, spla.cg, {}), ("minres", balsa.minres, spla.minres, {})]),
            ("convection-diffusion", C, [("gmres(20)", balsa.gmres, spla.gmres, dict(restart=20))])]


def run_gpu():
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cla

    sync = cupy.cuda.Device().synchronize
    kw = dict(rtol=args.rtol, maxiter=args.maxiter)
    n = args.grid
    L, C = laplacian(n), convection_diffusion(n)
    for problem, A, methods in [
        ("laplacian", L, [("cg", balsa.cg, cla.cg, {}), ("minres", balsa.minres, cla.minres, {})]),
        ("convection-diffusion", C, [("gmres(20)", balsa.gmres, cla.gmres, dict(restart=20))]),
    ]:
        Ad = csp.csr_matrix(A)
        b = cupy.ones(A.shape[0])
        for name, mine, theirs, extra in methods:
            t, (x, info) = timed(lambda: mine(Ad, b, **kw, **extra), sync)
            it = count_iterations(mine, Ad, b, **kw, **extra)
            record(problem, A.shape[0], "balsa", name, t, x, Ad, b, it, info, cupy)
            ckw = spelled_for(theirs, kw)
            t, (x, info) = timed(lambda: theirs(Ad, b, **ckw, **extra), sync)
            it = count_iterations(theirs, Ad, b, **ckw, **extra)
            record(problem, A.shape[0], "cupyx", name, t, x, Ad, b, it, info, cupy)
        if problem == "laplacian":
            op = cla.LinearOperator(Ad.shape, matvec=lambda v: Ad @ v, dtype=Ad.dtype)
            t, (x, info) = timed(lambda: balsa.cg(op, b, **kw), sync)
            it = count_iterations(balsa.cg, op, b, **kw)
            record(problem, A.shape[0], "balsa", "cg (operator)", t, x, Ad, b, it, info, cupy)


run_cpu()
gpu = balsa.cuda_available()
if gpu:
    try:
        run_gpu()
    except ImportError:
        gpu = False
meta = dict(balsa=balsa.__version__, scipy=scipy.__version__, python=platform.python_version(),
            gpu=balsa.device_info(0)["name"] if gpu else None, rtol=args.rtol, repeat=args.repeat)
if args.json:
    with open(args.json, "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
if args.markdown:
    with open(args.markdown, "w") as f:
        f.write(f"{json.dumps(meta)}\n\n| problem | rows | library | method | seconds | iterations | info | true residual |\n"
                "|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['problem']} | {r['rows']} | {r['library']} | {r['method']} | {r['seconds']:.4f} | "
                    f"{r['iterations']} | {r['info']} | {r['true_residual']:.2e} |\n")
