#!/usr/bin/env python3
"""Figures from balsa's benchmark JSON files (matplotlib, Agg, and numpy only).

    python3 bench/plot.py KIND INPUT.json [MORE.json ...] -o OUT.png [--x nnz|parallelism] [--precision P]

kinds:
  trsv         speedup over cuSPARSE SpSV of each GPU algorithm and Auto against nnz or rows per level
  convergence  residual history per method (`balsa solve --json`, or bench solve rows with a `history`)
  solve        time to solution and per iteration, balsa GPU / cuSPARSE / CPU (`balsa-bench solve`)
  qr           speedup over SPQR against flop/byte intensity (`balsa-bench qr`)
  banded       speedup over LAPACK dgbsv on the N x K grid, a heat map (`balsa-bench banded`)
  lp           balsa / CLP time per problem, sorted (`balsa-bench lp`)
  auto         the kind read from the first file's content

As a module: one function per kind, taking a list of paths (or loaded JSON dicts) and returning the
Figure; an input of another kind raises ValueError naming the file and what it is.
"""
import argparse
import json
import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

KINDS = ("trsv", "convergence", "solve", "qr", "banded", "lp")
EXPECTED = {k: f"`balsa-bench {k} --json`" for k in KINDS} | {
    "convergence": "`balsa solve --json` or `balsa-bench solve --json` with histories"}
# Triangular-solver names older result files use, and the library's names now.
OLD_NAMES = {"levelset": "level-set", "syncfree": "sync-free", "syncfree-csc": "sync-free-csc",
             "sfblocks": "sync-free-blocks", "levelset-cpu": "level-set-cpu"}
STYLE = {"level-set": ("o", "tab:blue"), "sync-free": ("v", "tab:green"), "sync-free-csc": ("^", "tab:olive"),
         "sync-free-blocks": ("D", "tab:purple"), "tassl": ("s", "tab:red"), "auto": ("*", "black")}
MARKERS = "ohpP<>"
SAP_SHORT = {"sap-d": "D", "sap-c": "C", "sap-d-mixed": "Dm", "sap-c-mixed": "Cm"}


# ---------------------------------------------------------------- input files

def detect_kind(doc) -> str | None:
    """The figure kind a loaded JSON document is for, or None."""
    if not isinstance(doc, dict):
        return None
    first = lambda key: doc[key][0] if isinstance(doc.get(key), list) and doc[key] and isinstance(doc[key][0], dict) else {}
    if "requested_method" in doc or "history" in doc:
        return "convergence"
    for kind, key, field in (("trsv", "results", "algorithm"), ("solve", "rows", "cusparse_baseline"),
                             ("qr", "cases", "spqr"), ("banded", "cases", "dgbsv"), ("lp", "problems", "clp")):
        if field in first(key):
            return kind
    return "lp" if doc.get("benchmark") == "lp" else None


def _describe(doc) -> str:
    kind = detect_kind(doc)
    if kind:
        return f"a `{kind}` file"
    if not isinstance(doc, dict):
        return "not a JSON object"
    command = str((doc.get("meta") if isinstance(doc.get("meta"), dict) else doc).get("command_line", ""))
    bench = re.search(r"\bbench (\w+)", command)
    if bench:
        return f"`balsa-bench {bench.group(1)}` output, which has no figure here"
    if "solver" in doc and "problems" in doc:
        return "a HiGHS baseline (scripts/lp-highs.py), which has no figure here"
    return "no balsa result this script knows"


def _load(source) -> tuple[str, dict]:
    if isinstance(source, dict):
        return "<data>", source
    path = Path(source)
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise ValueError(f"{path}: cannot read it ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    return path.name, doc


def load(sources, kind: str, accept: tuple[str, ...] = ()) -> list[tuple[str, dict]]:
    """(name, document) of each source, checked to be of `kind` (or one of `accept`)."""
    if isinstance(sources, (str, Path, dict)):
        sources = [sources]
    docs = [_load(s) for s in sources]
    if not docs:
        raise ValueError("no input files")
    for name, doc in docs:
        if detect_kind(doc) not in (kind, *accept):
            raise ValueError(f"{name}: a `{kind}` figure needs {EXPECTED[kind]}; this file is {_describe(doc)}"
                             f" (try `bench/plot.py auto`)")
    return docs


def _provenance(docs) -> str:
    """'NVIDIA H200, 2026-11-22' for each distinct device and date of the files."""
    parts = []
    for _, doc in docs:
        meta = doc["meta"] if isinstance(doc.get("meta"), dict) else doc
        device = meta.get("gpu")
        if device in ("none", ""):
            device = "CPU only"
        if device is None and doc.get("device"):
            device = {"cpu": "CPU", "cuda": "GPU"}.get(doc["device"], doc["device"])
        text = ", ".join(str(x) for x in (device, str(meta.get("date", ""))[:10]) if x)
        if text and text not in parts:
            parts.append(text)
    return "; ".join(parts)


def _finish(fig, ax, what: str, docs, legend=True):
    p = _provenance(docs)
    ax.set_title(what + (f"\n{p}" if p else ""), fontsize=10)
    if legend:
        ax.legend(fontsize=8, loc="best", framealpha=0.85)
    fig.tight_layout()
    return fig


def _ratio_axes(ax, xlabel: str, ylabel: str, xlog=True):
    """Log y (and x) with the line y = 1 marked."""
    ax.set(yscale="log", xscale="log" if xlog else "linear", xlabel=xlabel, ylabel=ylabel)
    ax.axhline(1.0, color="gray", lw=1, zorder=0)
    ax.grid(True, which="major", alpha=0.3)


def geomean(values) -> float:
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def seconds(record: dict, name: str):
    """The time `name` of a result record, in seconds: `<name>_seconds` (balsa-bench since issue 38), or the
    older files' `<name>_s` (seconds) or `<name>_ms` (milliseconds); None when the record has none."""
    for suffix, scale in (("_seconds", 1.0), ("_s", 1.0), ("_ms", 1e-3)):
        value = record.get(name + suffix)
        if value is not None:
            return value * scale if isinstance(value, (int, float)) else value
    return None


def _ok(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


# ---------------------------------------------------------------- figures

def trsv(sources, x: str = "nnz", precision: str | None = None):
    """Speedup over cuSPARSE SpSV of each GPU algorithm and Auto, one marker per algorithm."""
    docs = load(sources, "trsv")
    if x not in ("nnz", "parallelism"):
        raise ValueError(f"trsv: --x is nnz or parallelism, not {x!r}")
    rows = [(i, r) for i, (_, d) in enumerate(docs) for r in d["results"] if r.get("status") == "ok"]
    have = sorted({r["precision"] for _, r in rows})
    precision = precision or ("double" if "double" in have else have[0] if have else None)
    if precision not in have:
        raise ValueError(f"trsv: no results in precision {precision!r} (the files have {', '.join(have) or 'none'})")
    rows = [(i, r) for i, r in rows if r["precision"] == precision]
    base = {(i, r["case"]): seconds(r, "solve") for i, r in rows if r["algorithm"] == "cusparse"}
    series: dict[str, list[tuple[float, float]]] = {}
    for i, r in rows:
        name = OLD_NAMES.get(r["algorithm"], r["algorithm"])
        t_base = base.get((i, r["case"]))
        t = seconds(r, "solve")
        if r.get("device") != "cuda" or name.startswith("cusparse") or not (_ok(t_base) and _ok(t)):
            continue
        xv = r["nnz"] if x == "nnz" else r["n"] / max(r["levels"], 1)
        series.setdefault(name, []).append((xv, t_base / t))
    if not series:  # CPU-only results (no GPU, or no cuSPARSE baseline): the solve times themselves
        return _trsv_times(docs, rows, x, precision)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    order = sorted(series, key=lambda s: (s == "auto", s))  # Auto drawn last, on top
    for k, name in enumerate(order):
        pts = np.array(series[name])
        marker, color = STYLE.get(name, (MARKERS[k % len(MARKERS)], f"C{k}"))
        ax.scatter(pts[:, 0], pts[:, 1], marker=marker, color=color, s=60 if name == "auto" else 28, alpha=0.85,
                   label=f"{name} (geomean {geomean(pts[:, 1]):.2f}x, {len(pts)} cases)", zorder=3)
    xlabel = "nonzeros of the triangular matrix (nnz)" if x == "nnz" else "parallelism: mean rows per level (n / levels)"
    _ratio_axes(ax, xlabel, "speedup over cuSPARSE SpSV (t_cuSPARSE / t)")
    suites = sorted({str(d.get("meta", {}).get("suite", "")) for _, d in docs} - {""})
    what = f"Triangular solve on the GPU against cuSPARSE SpSV ({precision}{', suite ' if suites else ''}{', '.join(suites)})"
    return _finish(fig, ax, what, docs)


def _trsv_times(docs, rows, x: str, precision: str):
    """Solve time of each algorithm and device against nnz (or parallelism): the figure of results without a
    cuSPARSE baseline (a CPU-only run of `balsa-bench trsv`)."""
    series: dict[str, list[tuple[float, float]]] = {}
    for _, r in rows:
        t = seconds(r, "solve")
        if not _ok(t):
            continue
        name = f"{OLD_NAMES.get(r['algorithm'], r['algorithm'])} ({r.get('device', '?')})"
        xv = r["nnz"] if x == "nnz" else r["n"] / max(r["levels"], 1)
        series.setdefault(name, []).append((xv, t))
    if not series:
        raise ValueError("trsv: no successful solve with a time in the files")
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for k, name in enumerate(sorted(series)):
        pts = np.array(sorted(series[name]))
        ax.plot(pts[:, 0], pts[:, 1], marker=MARKERS[k % len(MARKERS)], color=f"C{k % 10}", lw=0.8, ms=5, alpha=0.85,
                label=f"{name} ({len(pts)} cases)")
    xlabel = "nonzeros of the triangular matrix (nnz)" if x == "nnz" else "parallelism: mean rows per level (n / levels)"
    ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel="solve time (s)")
    ax.grid(True, which="major", alpha=0.3)
    return _finish(fig, ax, f"Triangular solve times, no cuSPARSE baseline in the files ({precision})", docs)


def _histories(doc):
    """(label, run) of each solve with a residual history in a `balsa solve` or `balsa-bench solve` document."""
    if "rows" in doc:
        runs = [(f"{row['case']} {row['method']} ({who})", row.get(key) or {}) for row in doc["rows"]
                for key, who in (("gpu", "GPU"), ("cusparse_baseline", "cuSPARSE"), ("cpu", "CPU"))]
    else:  # balsa solve --json, balsa run --json (its "problem" says which)
        runs = [(doc.get("method", "?"), doc)] + [(f"{c.get('method', '?')} (column {k})", c)
                                                  for k, c in enumerate(doc.get("results") or [], 1)]
    return [(label, run) for label, run in runs if run.get("history")]


def _problem_name(doc) -> str:
    """`balsa run`'s problem as a name ("3D Poisson 7-point, 20^3"), or ""."""
    p = doc.get("problem")
    return f"3D Poisson {p.get('stencil', '?')}-point, {p.get('grid', '?')}^3" if isinstance(p, dict) else ""


def convergence(sources):
    """Residual against iteration, one line per method (and right-hand-side column)."""
    docs = load(sources, "convergence", accept=("solve",))
    fig, ax = plt.subplots(figsize=(7.5, 5))
    matrices = {Path(str(d.get("matrix", ""))).name or _problem_name(d) for _, d in docs}
    for name, doc in docs:
        found = _histories(doc)
        if not found:
            raise ValueError(f"{name}: no residual history in it (`balsa solve --json` and `balsa run --json` write"
                             " one per single-column Krylov solve; a direct solve has none)")
        for label, run in found:
            h = np.asarray(run["history"], dtype=float)
            h[h <= 0] = np.nan  # log scale
            if len(matrices) > 1 and (doc.get("matrix") or doc.get("problem")):
                label = f"{Path(str(doc.get('matrix', ''))).name or _problem_name(doc)}: {label}"
            outcome = run.get("outcome", "converged")
            ax.plot(np.arange(len(h)), h, lw=1.1,
                    label=f"{label} ({len(h) - 1} it{'' if outcome == 'converged' else ', ' + outcome})")
        tol = (doc.get("meta") or {}).get("tolerance") or doc.get("rtol")
        if tol:
            ax.axhline(tol, color="gray", ls="--", lw=0.8)
    norm = docs[0][1].get("norm") or (docs[0][1].get("meta") or {}).get("norm") or "inf"
    ax.set(yscale="log", xlabel="iteration", ylabel=f"relative residual ||r_k|| / ||b|| ({norm}-norm)")
    ax.grid(True, which="major", alpha=0.3)
    what = "Krylov residual history" + (f": {', '.join(sorted(matrices))}" if len(matrices) == 1 and "" not in matrices else "")
    return _finish(fig, ax, what, docs)


SOLVE_RUNS = (("gpu", "balsa (GPU)", "tab:blue"), ("cusparse_baseline", "cuSPARSE + cuBLAS (GPU)", "tab:orange"),
              ("cpu", "balsa (CPU)", "tab:green"))


def solve(sources):
    """Time to solution (set-up + solve) and ms per iteration, grouped bars per case and method."""
    docs = load(sources, "solve")
    rows = [r for _, d in docs for r in d["rows"]]
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(max(7.5, 0.7 * len(rows) + 2), 7.5))
    metrics = (("time to solution: set-up + solve (s)", lambda r: seconds(r, "setup") + seconds(r, "solve")),
               ("time per iteration (ms)", lambda r: 1e3 * seconds(r, "per_iteration")))
    xs = np.arange(len(rows))
    width = 0.8 / len(SOLVE_RUNS)
    for ax, (ylabel, value) in zip(axes, metrics):
        for k, (key, label, color) in enumerate(SOLVE_RUNS):
            runs = [(j, r[key]) for j, r in enumerate(rows) if (r.get(key) or {}).get("ran") and value(r[key]) > 0]
            bars = ax.bar([xs[j] + (k - 1) * width for j, _ in runs], [value(r) for _, r in runs], width,
                          color=color, label=label)
            for bar, (_, r) in zip(bars, runs):
                if r["outcome"] != "converged":
                    bar.set_hatch("//")
                    bar.set_edgecolor("black")
            drawn = {j for j, _ in runs}
            for j, r in enumerate(rows):  # why a run has no bar: "error", "breakdown", "csric02", ...
                why = str((r.get(key) or {}).get("outcome", "-")).split(":")[0]
                why += "" if why in ("-", "", "error", "breakdown") else " failed"
                if j not in drawn and why not in ("-", ""):
                    ax.text(xs[j] + (k - 1) * width, 0.03, why, transform=ax.get_xaxis_transform(), rotation=90,
                            ha="center", va="bottom", fontsize=6, color=color)
        ax.set(yscale="log", ylabel=ylabel)
        ax.grid(True, axis="y", which="major", alpha=0.3)
    axes[1].set_xlim(-0.6, len(rows) - 0.4)
    axes[1].set_xticks(xs, [f"{r['case']}\n{r['method']}" for r in rows], rotation=30, ha="right", fontsize=7)
    handles, labels = axes[0].get_legend_handles_labels()
    if any((r.get(k) or {}).get("ran") and r[k]["outcome"] != "converged" for r in rows for k, _, _ in SOLVE_RUNS):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch="//"))
        labels.append("did not converge")
    axes[0].legend(handles, labels, fontsize=8)
    tol = docs[0][1]["meta"].get("tolerance")
    what = "Krylov solves: balsa on the GPU, the cuSPARSE baseline, balsa on the CPU" + (f" (tolerance {tol:g})" if tol else "")
    return _finish(fig, axes[0], what, docs, legend=False)


def qr(sources):
    """Speedup over SPQR against flop/byte intensity: GPU factorisation and least squares, CPU factorisation."""
    docs = load(sources, "qr")
    gpu_f, gpu_lsq, cpu_f, fell = "balsa GPU, factorisation", "balsa GPU, least squares (factorise + solve)", \
        "balsa CPU, factorisation", "balsa GPU fell back to the CPU"
    series = {gpu_f: [], gpu_lsq: [], cpu_f: [], fell: []}
    for _, doc in docs:
        for c in doc["cases"]:
            cpu, gpu, spqr = c.get("cpu") or c.get("balsa"), c.get("gpu"), c["spqr"]
            add = lambda label, ratio, name="": series[label].append((cpu["intensity"], ratio, name))
            factorise = lambda run: seconds(run, "factorise")
            least_squares = lambda run: seconds(run, "factorise") + seconds(run, "solve")
            add(cpu_f, factorise(spqr) / factorise(cpu))
            if gpu:
                add(gpu_f if gpu.get("device") == "cuda" else fell, factorise(spqr) / factorise(gpu), c["matrix"])
            if gpu and gpu.get("device") == "cuda":
                add(gpu_lsq, least_squares(spqr) / least_squares(gpu))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    styles = (("o", "tab:blue", 40), ("s", "tab:orange", 24), ("^", "tab:green", 24), ("x", "tab:gray", 40))
    for (label, pts), (marker, color, size) in zip(series.items(), styles):
        if pts:
            ys = [p[1] for p in pts]
            ax.scatter([p[0] for p in pts], ys, marker=marker, color=color, s=size, zorder=3,
                       label=label + (f" (geomean {geomean(ys):.2f}x)" if label != fell else ""))
    _ratio_axes(ax, "flop / byte intensity: flops / (8 (nnz(A) + nnz(R)))", "speedup over SPQR (t_SPQR / t_balsa)")
    ax.margins(x=0.08, y=0.1)
    _label_points(ax, [p for pts in series.values() for p in pts])
    return _finish(fig, ax, "Sparse QR against SuiteSparseQR (SPQR, all host cores)", docs)


def _label_points(ax, pts):
    """Names beside the points (x, y, name) that have one, each at the first of a few offsets where it covers
    no marker and no earlier name."""
    renderer = ax.figure.canvas.get_renderer()
    to_px = ax.transData.transform
    taken = [matplotlib.transforms.Bbox.from_extents(*(to_px((x, y)) - 4), *(to_px((x, y)) + 4)) for x, y, _ in pts]
    frame = ax.get_window_extent(renderer)
    offsets = ((5, 2, "left"), (5, -9, "left"), (-5, 2, "right"), (-5, -9, "right"), (0, 7, "center"), (5, 2, "left"))
    for x, y, name in sorted((p for p in pts if p[2]), key=lambda p: -p[1]):
        for n, (dx, dy, ha) in enumerate(offsets, 1):  # the last: where the first would be, when none is free
            t = ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=6, ha=ha)
            box = t.get_window_extent(renderer)
            free = frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1) and not any(box.overlaps(b) for b in taken)
            if free or n == len(offsets):
                break
            t.remove()
        taken.append(box)


def banded(sources):
    """One heat map per file: speedup of the best SaP run over dgbsv on the N x K grid, numbers in the cells."""
    docs = load(sources, "banded")
    fig, axes = plt.subplots(1, len(docs), figsize=(8.5 * len(docs), 6.5), squeeze=False)
    for ax, (name, doc) in zip(axes[0], docs):
        cases = [c for c in doc["cases"] if c.get("suite", "grid") == "grid"]
        if not cases:
            raise ValueError(f"{name}: no cases of the N x K grid (suite 'grid') in it")
        ns, ks = sorted({c["N"] for c in cases}), sorted({c["K"] for c in cases})
        grid = np.full((len(ns), len(ks)), np.nan)
        best = {}
        for c in cases:
            i, j = ns.index(c["N"]), ks.index(c["K"])
            grid[i, j] = c["speedup"] if _ok(c.get("speedup")) else np.nan
            best[i, j] = SAP_SHORT.get(c.get("best"), "")
        span = max(1.0, float(np.nanmax(np.abs(np.log10(grid))))) if np.isfinite(grid).any() else 1.0
        im = ax.imshow(np.log10(grid), cmap="RdBu", vmin=-span, vmax=span, origin="lower", aspect="auto")
        for (i, j), v in np.ndenumerate(grid):
            text = "-" if np.isnan(v) else (f"{v:.2f}" if v < 10 else f"{v:.1f}") + f"\n{best[i, j]}"
            dark = np.isfinite(v) and abs(math.log10(v)) > 0.6 * span
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
        ax.set_xticks(range(len(ks)), [str(k) for k in ks])
        ax.set_yticks(range(len(ns)), [f"{n:,}" for n in ns])
        ax.set(xlabel="half-bandwidth K", ylabel="N (rows)")
        ticks = [t for t in (0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100) if abs(math.log10(t)) <= span + 1e-9]
        bar = fig.colorbar(im, ax=ax, ticks=np.log10(ticks))
        bar.ax.set_yticklabels([f"{t:g}x" for t in ticks])
        bar.set_label("speedup over dgbsv (t_dgbsv / t_SaP)")
        s = grid[np.isfinite(grid)]
        threads = doc.get("meta", {}).get("openblas_threads")
        _finish(fig, ax, f"SaP on the GPU (best of D, C, m = mixed precision; upload included) against LAPACK dgbsv"
                         f"{f' ({threads} threads)' if threads else ''}\n"
                         f"median {np.median(s):.2f}x, {int((s >= 1).sum())} of {s.size} cases faster", [(name, doc)],
                legend=False)
    return fig


def lp(sources):
    """balsa / CLP time per problem, sorted; filled where CLP takes at least 10 ms (the bench's geomean set)."""
    docs = load(sources, "lp")
    pts = []
    for _, doc in docs:
        for p in doc["problems"]:
            b, c, ref = p.get("balsa") or {}, p.get("clp") or {}, p.get("reference") or {}
            if not (_ok(b.get("seconds")) and _ok(c.get("seconds")) and not c.get("error")):
                continue
            status = b.get("status", "?")
            right = ref.get("status", status) == status and (
                status != "optimal" or p.get("objective_relative_difference", 0) <= 1e-6)
            g = (p.get("gpu") or {}).get("seconds")
            pts.append({"ratio": b["seconds"] / c["seconds"], "name": p.get("name", p.get("path", "?")),
                        "status": status if right else "wrong answer", "big": c["seconds"] >= 0.010,
                        "gpu": g / c["seconds"] if _ok(g) else None})
    if not pts:
        raise ValueError("lp: no problem with both a balsa and a CLP time")
    pts.sort(key=lambda p: p["ratio"])
    fig, ax = plt.subplots(figsize=(max(8, 0.14 * len(pts) + 2), 5.5))
    colors = {"optimal": "tab:blue", "infeasible": "tab:orange", "unbounded": "tab:green", "wrong answer": "tab:red"}
    statuses = [c for c in colors if any(p["status"] == c for p in pts)] + sorted({p["status"] for p in pts} - set(colors))
    for status, big in sorted({(p["status"], p["big"]) for p in pts}):
        color = colors.get(status, "tab:gray")
        ax.scatter(*zip(*[(k, p["ratio"]) for k, p in enumerate(pts) if (p["status"], p["big"]) == (status, big)]),
                   s=22, zorder=3, edgecolors=color, facecolors=color if big else "none", gid="balsa/CLP")
    if any(p["gpu"] for p in pts):
        ax.scatter(*zip(*[(k, p["gpu"]) for k, p in enumerate(pts) if p["gpu"]]), marker="_", s=50, linewidths=1.5,
                   color="tab:red", zorder=2, gid="GPU/CLP")
    big = [p["ratio"] for p in pts if p["big"] and p["status"] != "wrong answer"]
    ax.axhline(geomean(big), color="tab:blue", ls="--", lw=0.8)
    handles = [Line2D([], [], ls="", marker="o", color=colors.get(s, "tab:gray"), label=s) for s in statuses]
    handles += [Line2D([], [], ls="", marker="o", mfc="none", color="gray", label="hollow: CLP < 10 ms"),
                Line2D([], [], ls="--", color="tab:blue", label=f"geomean where CLP >= 10 ms: {geomean(big):.2f} ({len(big)} LPs)")]
    if any(p["gpu"] for p in pts):
        handles.append(Line2D([], [], ls="", marker="_", mew=1.5, color="tab:red", label="basis solves on the GPU"))
    ax.legend(handles=handles, fontsize=8, loc="lower right", framealpha=0.9)
    _ratio_axes(ax, "problem (sorted by the ratio)", "time balsa / time CLP (dual simplex)", xlog=False)
    ax.set_xticks(range(len(pts)), [p["name"] for p in pts], rotation=90, fontsize=5.5)
    ax.set_xlim(-1, len(pts))
    return _finish(fig, ax, f"Revised simplex: balsa against CLP, {len(pts)} LPs (below 1: balsa faster)", docs,
                   legend=False)


FIGURES = {"trsv": trsv, "convergence": convergence, "solve": solve, "qr": qr, "banded": banded, "lp": lp}


def auto_kind(sources) -> str:
    name, doc = _load(sources[0])
    kind = detect_kind(doc)
    if kind is None:
        raise ValueError(f"{name}: {_describe(doc)}; the kinds are {', '.join(KINDS)}")
    return kind


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="bench/plot.py", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n")[2])
    p.add_argument("kind", choices=(*KINDS, "auto"))
    p.add_argument("inputs", nargs="+", metavar="INPUT.json")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png")
    p.add_argument("--x", choices=("nnz", "parallelism"), default="nnz", help="trsv: the x axis (default nnz)")
    p.add_argument("--precision", help="trsv: float or double (default: double when the files have it)")
    p.add_argument("--dpi", type=int, default=110)
    a = p.parse_args(argv)
    try:
        kind = auto_kind(a.inputs) if a.kind == "auto" else a.kind
        fig = FIGURES[kind](a.inputs, **({"x": a.x, "precision": a.precision} if kind == "trsv" else {}))
        fig.savefig(a.output, dpi=a.dpi)
        plt.close(fig)
    except (ValueError, OSError) as e:
        raise SystemExit(f"bench/plot.py: error: {e}") from None
    except (KeyError, TypeError, IndexError) as e:  # a file of the right kind with a field missing or malformed
        raise SystemExit(f"bench/plot.py: error: a `{kind}` input lacks or garbles a field this figure needs ({e!r})") from None
    print(f"bench/plot.py: wrote {a.output} ({kind})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
