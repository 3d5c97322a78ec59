"""balsa's Python package against CuPy/cupyx (and SciPy), one run on one GPU.

  a. triangular solves with the lower triangle of the 7-point 3-D Laplacian
     (N^3 rows): balsa.TriangularSolver (analysis once; auto and tassl) against
     cupyx.scipy.sparse.linalg.spsolve_triangular, 1 and --solves solves;
  b. Ax = b with set-up included: balsa.solve and balsa.KrylovSolver against
     cupyx cg / gmres and scipy.sparse.linalg.spsolve, on the same Laplacian
     and on 3 SPD and 3 nonsymmetric matrices of --matrices.

Times are medians of --repeat runs after one warm-up, each stopped after
cupy.cuda.Device().synchronize(). Without CuPy (or a GPU) the balsa parts run
on the CPU against SciPy only, and the cupyx rows say "skipped".

    python bench/python_vs_cupy.py [--grid 100] [--repeat 3] [--matrices DIR] [--quick]
                                   [--json F] [--markdown F]
"""

import argparse
import csv
import inspect
import json
import pathlib
import platform
import re
import statistics
import time
import warnings

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import balsa

HERE = pathlib.Path(__file__).resolve().parent
p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--grid", type=int, default=100, help="the Laplacian's grid side N (N^3 rows)")
p.add_argument("--repeat", type=int, default=3, help="timed runs after one warm-up (the median is reported)")
p.add_argument("--solves", type=int, default=100, help="solves with one triangular factor")
p.add_argument("--matrices", default=str(HERE.parent.parent / "shared" / "data" / "matrices"))
p.add_argument("--tol", type=float, default=1e-8, help="relative residual asked of every iterative solver")
p.add_argument("--maxiter", type=int, default=20000)
p.add_argument("--spsolve-max-rows", type=int, default=40_000,
               help="skip SciPy's spsolve above this size (its fill on 3-D grids: 56 s at 40^3 on 2 cores)")
p.add_argument("--quick", action="store_true", help="smoke test: grid 20, 1 repeat, 10 solves, small matrices")
p.add_argument("--json", metavar="FILE")
p.add_argument("--markdown", metavar="FILE")
args = p.parse_args()
if args.quick:
    args.grid, args.repeat, args.solves = min(args.grid, 20), 1, 10

try:
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cla

    GPU = cupy.cuda.runtime.getDeviceCount() > 0 and balsa.cuda_available()
    why = "" if GPU else ("balsa was built without CUDA" if not balsa.built_with_cuda() else "no usable GPU")
except ImportError:
    GPU, why = False, "CuPy is missing"
except Exception as e:  # noqa: BLE001 - CuPy without a driver
    GPU, why = False, f"CuPy sees no GPU ({e})"
if GPU:
    xp, device, sync = cupy, "cuda", lambda: cupy.cuda.Device().synchronize()
    gpu_name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
    to_gpu_sparse, host = csp.csr_matrix, cupy.asnumpy
else:
    xp, device, sync, gpu_name = np, "cpu", lambda: None, f"none ({why}: CPU-only run, baselines SciPy)"
    to_gpu_sparse, host = (lambda A: A), np.asarray
print(f"GPU: {gpu_name}; balsa {balsa.__version__} on {device}; NumPy {np.__version__}, SciPy {scipy.__version__}"
      + (f", CuPy {cupy.__version__}" if GPU else ""))


def timed(fn):
    """(median seconds over args.repeat runs after a warm-up, the last result)."""
    out = fn()
    sync()
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        out = fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def norm(v):
    return float(xp.linalg.norm(v))


def laplacian_3d(m):
    K, I = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m)), sp.eye(m)
    return (sp.kron(sp.kron(K, I), I) + sp.kron(sp.kron(I, K), I) + sp.kron(sp.kron(I, I), K)).tocsr()


# ---- a. triangular solves -------------------------------------------------------------------------------------
L = sp.tril(laplacian_3d(args.grid), format="csr")
n, nnz, S = L.shape[0], L.nnz, args.solves
floor_bytes = nnz * (8 + 4) + n * (8 + 8)
print(f"\na. lower triangle of the 3-D Laplacian, {args.grid}^3: n = {n}, nnz = {nnz}; one solve reads >= "
      f"{floor_bytes / 1e6:.1f} MB (nnz*(8+4) + n*(8+8))")
Ld, b = to_gpu_sparse(L), xp.asarray(np.random.default_rng(0).standard_normal(n))
if GPU:
    base_name, base_solve = "cupyx", lambda: cla.spsolve_triangular(Ld, b, lower=True)
else:
    base_name, base_solve = "scipy", lambda: spla.spsolve_triangular(L, b, lower=True)
t1_base, x_base = timed(base_solve)
tS_base, _ = timed(lambda: [base_solve() for _ in range(S)])
trsv = {"n": n, "nnz": nnz, "floor_bytes": floor_bytes, "solves": S, "baseline": base_name,
        "baseline_1_s": t1_base, "baseline_total_s": tS_base, "balsa": []}
for alg in ("auto", "tassl"):
    t_an, solver = timed(lambda: balsa.TriangularSolver(L, algorithm=alg, device=device))
    x = xp.empty(n)
    t1, _ = timed(lambda: solver.solve(b, out=x))
    tS, _ = timed(lambda: [solver.solve(b, out=x) for _ in range(S)])
    r = {"algorithm": solver.stats["algorithm"], "asked": alg, "analysis_s": t_an,
         "analysis_cpp_s": solver.stats["analysis_seconds"], "one_solve_s": t1, "per_solve_s": tS / S,
         "total_s": tS, "total_with_analysis_s": t_an + tS, "ratio_vs_baseline": tS_base / tS,
         "ratio_with_analysis": tS_base / (t_an + tS),
         "effective_GBps": floor_bytes / (tS / S) / 1e9,
         "residual": norm(Ld @ x - b) / norm(b), "baseline_residual": norm(Ld @ x_base - b) / norm(b),
         "difference_vs_baseline": norm(x - x_base) / norm(x_base)}
    trsv["balsa"].append(r)
    print(f"  balsa {alg} ({r['algorithm']}): analysis {t_an:.4f} s, 1 solve {t1 * 1e3:.3f} ms, {S} solves "
          f"{tS:.4f} s ({r['per_solve_s'] * 1e3:.3f} ms each, {r['effective_GBps']:.0f} GB/s of the floor), "
          f"with analysis {t_an + tS:.4f} s; residual {r['residual']:.1e}, "
          f"vs {base_name} {r['difference_vs_baseline']:.1e}")
print(f"  {base_name} spsolve_triangular: 1 solve {t1_base * 1e3:.3f} ms, {S} solves {tS_base:.4f} s")


# ---- b. Ax = b, set-up included ---------------------------------------------------------------------------------
def pick(directory, quick):
    """3 SPD and 3 nonsymmetric real square matrices from the manifest: rows in 1e4..1e6 first, else the largest;
    one per family (names that differ only in a trailing _NN); no generated or test matrices."""
    d = pathlib.Path(directory)
    rows = [r for r in csv.DictReader(open(d / "manifest-suite.csv"))
            if r["rows"] == r["cols"] and not re.search("generated|test", r["kind"]) and (d / r["file"]).exists()
            and r["missing_diag"] in ("0", "") and r["zero_diag"] in ("0", "")]
    key = (lambda r: int(r["rows"])) if quick else (lambda r: (1e4 <= int(r["rows"]) <= 1e6, int(r["rows"])))
    out = {}
    for kind, ok in (("spd", lambda r: r["spd"] == "True"),
                     ("nonsymmetric", lambda r: r["mm_symmetry"] == "general" and r["spd"] != "True")):
        seen, chosen = set(), []
        for r in sorted(filter(ok, rows), key=key, reverse=not quick):
            family = re.sub(r"_\d+$", "", r["file"].split(".")[0])
            if family not in seen:
                seen.add(family)
                chosen.append(r["file"])
        out[kind] = chosen[:3]
    return out


def tol_kw(fn):
    return "rtol" if "rtol" in inspect.signature(fn).parameters else "tol"


def run_cupyx(name):
    fn = getattr(cla, name)

    def run(A, Ad, b):
        count = [0]
        kw = {tol_kw(fn): args.tol, "atol": 0.0, "maxiter": args.maxiter,
              "callback": lambda _: count.__setitem__(0, count[0] + 1)}
        if name == "gmres":
            kw.update(restart=20, callback_type="x")  # the callback: once per restart cycle of 20
        x, info = fn(Ad, b, **kw)
        return x, count[0] * (20 if name == "gmres" else 1), "converged" if info == 0 else f"info {info}"
    return run


def run_krylov(method):
    def run(A, Ad, b):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", balsa.ConvergenceWarning)
            s = balsa.KrylovSolver(A, method=method, rtol=args.tol, norm="2", maxiter=args.maxiter, device=device)
            x = s.solve(b)
        return x, s.info["iterations"], s.info["outcome"]
    return run


def run_solve(A, Ad, b):
    x, info = balsa.solve(A, b, rtol=args.tol, return_info=True, device=device)
    used = next((a for a in info["chain"] if a["solved"]), {"iterations": 0})
    return x, used["iterations"], f"{info['method']} on {info['device']}"


class Skipped(Exception):
    pass


def run_spsolve(A, Ad, b):
    if A.shape[0] > args.spsolve_max_rows:
        raise Skipped(f"skipped: {A.shape[0]} rows > --spsolve-max-rows {args.spsolve_max_rows}")
    return spla.spsolve(A.tocsc(), host(b)), 0, "direct (SuperLU)"


def methods(spd):
    m = [("balsa.solve", run_solve)]
    m += [(f"balsa {k}", run_krylov(k)) for k in (("cg", "pcg-jacobi", "pcg-ic0") if spd else ("bicgstab2-ilu0",))]
    m += [(f"cupyx {k}", run_cupyx(k) if GPU else None) for k in (("cg", "gmres") if spd else ("gmres",))]
    return m + [("scipy spsolve", run_spsolve)]


systems = [(f"laplace3d {args.grid}^3", laplacian_3d(args.grid), True)]
try:
    chosen = pick(args.matrices, args.quick)
    for kind in ("spd", "nonsymmetric"):
        for f in chosen[kind]:
            systems.append((f.split(".")[0], balsa.read_matrix(pathlib.Path(args.matrices) / f), kind == "spd"))
except OSError as e:
    print(f"\nb. no matrices from {args.matrices} ({e}); the Laplacian only")

results = []
print(f"\nb. Ax = b, set-up included, tol {args.tol:g} (relative, 2-norm), median of {args.repeat} after a warm-up")
for name, A, spd in systems:
    A = A.tocsr()
    Ad = to_gpu_sparse(A)
    b = xp.asarray(A @ np.random.default_rng(1).standard_normal(A.shape[0]))
    print(f"  {name}: n = {A.shape[0]}, nnz = {A.nnz}, {'SPD' if spd else 'nonsymmetric'}")
    for label, run in methods(spd):
        row = {"system": name, "n": A.shape[0], "nnz": A.nnz, "spd": spd, "method": label}
        if run is None:
            row.update(status=f"skipped ({why})")
        else:
            try:
                t, (x, its, status) = timed(lambda: run(A, Ad, b))
                xd = xp.asarray(x)
                row.update(seconds=t, iterations=its, status=status, residual=norm(b - Ad @ xd) / norm(b))
            except Skipped as e:
                row.update(status=str(e))
            except Exception as e:  # noqa: BLE001 - a method that fails is a result too
                row.update(status=f"{type(e).__name__}: {str(e).splitlines()[0][:100]}")
        results.append(row)
        shown = (f"{row['seconds']:.4f} s, {row['iterations']} it, residual {row['residual']:.1e}"
                 if "seconds" in row else "")
        print(f"    {label:>18}: {shown} [{row['status']}]")

# ---- c. summary -------------------------------------------------------------------------------------------------
summary = []
for r in trsv["balsa"]:
    summary.append(f"{S} solves ({r['asked']}): balsa {r['total_s']:.4f} s ({r['total_with_analysis_s']:.4f} s with "
                   f"analysis) vs {base_name} {tS_base:.4f} s ({r['ratio_vs_baseline']:.2f}x; "
                   f"{r['ratio_with_analysis']:.2f}x with analysis)")
for name, _, spd in systems:
    get = {r["method"]: r for r in results if r["system"] == name}
    for other in (["cupyx cg", "cupyx gmres"] if spd else ["cupyx gmres"]) + ["scipy spsolve"]:
        a, o = get["balsa.solve"], get[other]
        if "seconds" in a and "seconds" in o:
            summary.append(f"{name}: solve vs {other}: balsa {a['seconds']:.4f} s vs {o['seconds']:.4f} s "
                           f"({o['seconds'] / a['seconds']:.2f}x)")
        else:
            summary.append(f"{name}: solve vs {other}: n/a ({a['status'] if 'seconds' not in a else o['status']})")
print("\nsummary (ratio = baseline time / balsa time):")
for line in summary:
    print("  " + line)

meta = {"gpu": gpu_name, "device": device, "balsa": balsa.__version__, "numpy": np.__version__,
        "scipy": scipy.__version__, "cupy": cupy.__version__ if GPU else None, "python": platform.python_version(),
        "args": vars(args)}
if args.json:
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "trsv": trsv, "solve": results, "summary": summary}, f, indent=2, default=str)
if args.markdown:
    md = [f"# balsa (Python) vs {'CuPy/cupyx' if GPU else 'SciPy (CPU-only run)'}", "", f"GPU: {gpu_name}", "",
          f"## a. {S} triangular solves, 3-D Laplacian {args.grid}^3 (n = {n}, nnz = {nnz}, floor "
          f"{floor_bytes / 1e6:.1f} MB a solve)", "",
          f"| solver | analysis s | 1 solve ms | per solve ms | {S} solves s | with analysis s | vs {base_name} "
          "| residual |",
          "|---|---|---|---|---|---|---|---|"]
    for r in trsv["balsa"]:
        md.append(f"| balsa {r['asked']} ({r['algorithm']}) | {r['analysis_s']:.4f} | {r['one_solve_s'] * 1e3:.3f} | "
                  f"{r['per_solve_s'] * 1e3:.3f} | {r['total_s']:.4f} | {r['total_with_analysis_s']:.4f} | "
                  f"{r['ratio_vs_baseline']:.2f}x | {r['residual']:.1e} |")
    md.append(f"| {base_name} spsolve_triangular | - | {t1_base * 1e3:.3f} | {tS_base / S * 1e3:.3f} | {tS_base:.4f} | "
              f"- | 1 | {trsv['balsa'][0]['baseline_residual']:.1e} |")
    md += ["", f"## b. Ax = b, set-up included (tol {args.tol:g}, median of {args.repeat})", "",
           "| system | n | nnz | method | s | iterations | true residual | status |",
           "|---|---|---|---|---|---|---|---|"]
    for r in results:
        t, res = (f"{r['seconds']:.4f}", f"{r['residual']:.1e}") if "seconds" in r else ("-", "-")
        md.append(f"| {r['system']} | {r['n']} | {r['nnz']} | {r['method']} | {t} | {r.get('iterations', '-')} | "
                  f"{res} | {r['status']} |")
    md += ["", "## Summary", ""] + [f"- {line}" for line in summary]
    pathlib.Path(args.markdown).write_text("\n".join(md) + "\n")
