#!/usr/bin/env python3
"""balsa's reverse Cuthill-McKee (graph/cuthill_mckee.cpp, the SaP report's CM
with several start nodes, sec. 3.3) against SciPy's
scipy.sparse.csgraph.reverse_cuthill_mckee on every square matrix of a folder.

Both orderings are judged the same way: the half-bandwidth max |i - j| over
the off-diagonal entries of the pattern of P (A + A^T) P^T, computed here in
Python from balsa's reordered matrix (balsa reorder -o) and from SciPy's
permutation. Also a generated 1e6-row 3D Laplacian in natural and random
order (--grid). Writes a Markdown table with the command line at the top.

  python3 bench/cm-vs-scipy.py --balsa build-cm/balsa \\
      --matrices /work/shared/data/matrices --out bench/results/2026-11-25-cm-vs-scipy.md
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee


def read(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        return scipy.io.mmread(f)


def shape_of(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        rows, cols, *_ = scipy.io.mminfo(f)
    return rows, cols


def symmetric_pattern(A):
    """The pattern of A + A^T (values 1), diagonal included (it adds 0 to k)."""
    P = sp.csr_matrix(A, copy=True)
    P.data = np.ones_like(P.data, dtype=np.int8)
    S = (P + P.T).tocsr()
    S.data[:] = 1
    return S


def half_bandwidth(S):
    C = S.tocoo()
    return int(np.abs(C.row.astype(np.int64) - C.col).max()) if C.nnz else 0


def run_balsa(exe, path, outdir):
    out = Path(outdir) / (Path(path).name.replace(".gz", "").replace(".mtx", "") + "-rcm.mtx")
    t0 = time.perf_counter()
    r = subprocess.run([exe, "reorder", "--rcm", "--json", str(path), "-o", str(out)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"balsa reorder failed on {path}: {r.stderr.strip()}")
    return json.loads(r.stdout), out, wall


def compare(exe, path, repeat, tmp):
    """One square matrix: both orderings, both half-bandwidths recomputed here."""
    A = read(path)
    S = symmetric_pattern(A)
    k0 = half_bandwidth(S)
    # SciPy: RCM of the symmetric pattern (best time of `repeat` calls).
    t_scipy = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = reverse_cuthill_mckee(S, symmetric_mode=True)
        t_scipy = min(t_scipy, time.perf_counter() - t0)
    k_scipy = half_bandwidth(S[p][:, p])
    # balsa: the reordered matrix it wrote, judged the same way.
    j, out, _ = run_balsa(exe, path, tmp)
    k_balsa = half_bandwidth(symmetric_pattern(read(out)))
    os.remove(out)
    if k_balsa != j["cm"]["bandwidth_after"] or k0 != j["bandwidth_before"]:
        sys.exit(f"{path.name}: balsa reports k {j['bandwidth_before']} -> {j['cm']['bandwidth_after']}, "
                 f"recomputed {k0} -> {k_balsa}")
    ratio = k_balsa / k_scipy if k_scipy > 0 else (1.0 if k_balsa == 0 else math.inf)
    name = path.name.replace(".mtx.gz", "").replace(".mtx", "")
    print(f"{name:40s} n {A.shape[0]:7d} k {k0:7d} balsa {k_balsa:7d} scipy {k_scipy:7d} ratio {ratio:.3f}", flush=True)
    return dict(name=name, n=A.shape[0], nnz=int(A.nnz), k0=k0, kb=k_balsa, ks=k_scipy, ratio=ratio,
                starts=j["cm"]["starts"], comps=j["cm"]["components"], tb=j["cm"]["ordering_seconds"], ts=t_scipy)


HEADER = ["| matrix | n | nnz | k before | balsa k | SciPy k | ratio | starts | components | balsa s | SciPy s |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def table_row(r):
    return (f"| {r['name']} | {r['n']} | {r['nnz']} | {r['k0']} | {r['kb']} | {r['ks']} | {r['ratio']:.3f} | "
            f"{r['starts']} | {r['comps']} | {r['tb']:.5f} | {r['ts']:.5f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--balsa", default="build-cm/balsa", help="the balsa program")
    ap.add_argument("--matrices", default="/work/shared/data/matrices", help="folder of *.mtx.gz")
    ap.add_argument("--out", default="bench/results/2026-11-25-cm-vs-scipy.md", help="Markdown report")
    ap.add_argument("--repeat", type=int, default=3, help="SciPy timing: best of this many calls")
    ap.add_argument("--grid", type=int, default=100,
                    help="also a generated 7-point 3D Laplacian of grid^3 rows, natural and random order (0: none)")
    args = ap.parse_args()

    rows, large, skipped = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(Path(args.matrices).glob("*.mtx.gz")):
            nr, nc = shape_of(path)
            if nr != nc:
                skipped.append(f"{path.name} ({nr} x {nc})")
                continue
            rows.append(compare(args.balsa, path, args.repeat, tmp))
        for ordering in ["natural", "random"] if args.grid > 0 else []:
            path = Path(tmp) / f"lap3d_7pt_{args.grid}^3_{ordering}.mtx"
            subprocess.run([args.balsa, "gen", "laplace3d", "--nx", str(args.grid), "--ordering", ordering,
                            "-o", str(path)], check=True, capture_output=True)
            large.append(compare(args.balsa, path, 1, tmp))
            os.remove(path)

    ratios = [r["ratio"] for r in rows]
    within = sum(1 for x in ratios if x <= 1.10)
    better = sum(1 for x in ratios if x < 1.0)
    equal = sum(1 for x in ratios if x == 1.0)
    worst = max(rows, key=lambda r: r["ratio"])
    best = min(rows, key=lambda r: r["ratio"])
    gmean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    wider_than_file = [r["name"] for r in rows if min(r["kb"], r["ks"]) > r["k0"]]
    cmd = " ".join(["python3", "bench/cm-vs-scipy.py"] + sys.argv[1:])
    lines = [
        "# Cuthill-McKee: balsa's RCM vs SciPy's reverse_cuthill_mckee",
        "",
        "```",
        cmd,
        "```",
        "",
        f"SciPy {scipy.__version__}, NumPy {np.__version__}; balsa `{args.balsa}` (`balsa reorder --rcm --json -o`, "
        f"default max_starts = 8). Machine: {os.cpu_count()} cores (shared with other builds while this ran).",
        "",
        "k = half-bandwidth of the pattern of A + A^T (max |i - j| over its entries), recomputed here the same way "
        "for both orderings (balsa's from the matrix it wrote). ratio = balsa k / SciPy k (< 1: balsa narrower). "
        "Times: balsa's `cm.seconds` (the library call: A + A^T, sorting, all searches) and SciPy's call on the "
        f"prepared A + A^T pattern (best of {args.repeat}); neither includes reading the file.",
        "",
        "## Summary",
        "",
        f"- {len(rows)} square matrices; skipped {len(skipped)} rectangular: {', '.join(skipped) or 'none'}.",
        f"- Within 10% of SciPy (ratio <= 1.10): **{within} of {len(rows)}**; narrower than SciPy: {better}; "
        f"equal: {equal}; wider: {len(rows) - better - equal}.",
        f"- Worst ratio: **{worst['ratio']:.3f}** ({worst['name']}: {worst['kb']} vs {worst['ks']}); "
        f"best: {best['ratio']:.3f} ({best['name']}: {best['kb']} vs {best['ks']}).",
        f"- Geometric mean ratio: **{gmean:.3f}**.",
        f"- Time, sum over the matrices: balsa {sum(r['tb'] for r in rows):.3f} s, "
        f"SciPy {sum(r['ts'] for r in rows):.3f} s.",
        f"- Both orderings wider than the file's own order on {len(wider_than_file)}: "
        f"{', '.join(wider_than_file) or 'none'}.",
        "",
        "## Matrices",
        "",
    ] + HEADER + [table_row(r) for r in rows]
    if large:
        lines += ["", f"## Generated: 7-point 3D Laplacian, {args.grid}^3 rows (`balsa gen laplace3d`)", ""]
        lines += HEADER + [table_row(r) for r in large]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"\nwithin 10%: {within}/{len(rows)}, worst {worst['ratio']:.3f} ({worst['name']}), "
          f"geometric mean {gmean:.3f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
