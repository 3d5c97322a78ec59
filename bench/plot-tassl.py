#!/usr/bin/env python3
"""TASSL vs cuSPARSE against concurrency, from a `balsa-bench trsv --json` file.

    bench/plot-tassl.py RESULTS.json OUT.png [--precision double]

x: the mean level width n / levels (the concurrency a level-by-level solver
sees), log scale; y: t(cuSPARSE SpSV) / t(TASSL), log scale, the line y = 1
marked. Generator cases are red squares, real matrices blue dots. Also writes
OUT.csv with the plotted numbers. Uses matplotlib when it is installed, else
a small built-in PNG rasterizer (points and axes, no text: read the CSV).
"""
import argparse, csv, json, math, struct, zlib


def solve_time(r):
    """`solve_seconds`, or an older file's `solve_ms` (only ratios of the two are used)."""
    return r["solve_seconds"] if "solve_seconds" in r else r["solve_ms"]


def points(path, precision):
    rows = {}
    for r in json.load(open(path))["results"]:
        if r["precision"] == precision and r["status"] == "ok":
            rows.setdefault(r["case"], {})[r["algorithm"]] = r
    out = []
    for case, algs in rows.items():
        if "tassl" in algs and "cusparse" in algs:
            t = algs["tassl"]
            out.append((case, t["source"] == "generator", t["n"] / max(t["levels"], 1),
                        solve_time(algs["cusparse"]) / solve_time(t)))
    return out


def png(path, width, height, pixels):
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)
    chunk = lambda tag, data: struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def plot_builtin(pts, path, w=640, h=480, m=40):
    img = [[(255, 255, 255)] * w for _ in range(h)]
    xs = [math.log10(p[2]) for p in pts]; ys = [math.log10(p[3]) for p in pts]
    x0, x1 = math.floor(min(xs)), math.ceil(max(xs)); y0, y1 = min(-1, math.floor(min(ys))), max(1, math.ceil(max(ys)))
    X = lambda v: int(m + (v - x0) / (x1 - x0) * (w - 2 * m)); Y = lambda v: int(h - m - (v - y0) / (y1 - y0) * (h - 2 * m))
    for x in range(m, w - m):  # axes, y = 1 line, decade ticks
        img[h - m][x] = (0, 0, 0); img[Y(0)][x] = (150, 150, 150)
    for y in range(m, h - m + 1):
        img[y][m] = (0, 0, 0)
    for d in range(x0, x1 + 1):
        for k in range(6): img[h - m + k][X(d)] = (0, 0, 0)
    for d in range(y0, y1 + 1):
        for k in range(6): img[Y(d)][m - k] = (0, 0, 0)
    for (_, gen, _, _), x, y in zip(pts, xs, ys):
        c = (200, 30, 30) if gen else (30, 60, 200)
        for dx in range(-3, 4):
            for dy in range(-3, 4):
                if gen or dx * dx + dy * dy <= 10: img[Y(y) + dy][X(x) + dx] = c
    png(path, w, h, img)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("json"); a.add_argument("png"); a.add_argument("--precision", default="double")
    o = a.parse_args()
    pts = points(o.json, o.precision)
    with open(o.png.rsplit(".", 1)[0] + ".csv", "w", newline="") as f:
        wr = csv.writer(f); wr.writerow(["case", "generator", "mean_level_width", "cusparse_over_tassl"])
        for p in pts: wr.writerow([p[0], int(p[1]), f"{p[2]:.4g}", f"{p[3]:.4g}"])
    try:
        import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 5))
        for gen, mk, col, lab in ((True, "s", "tab:red", "generated"), (False, "o", "tab:blue", "real (lower triangle)")):
            sel = [p for p in pts if p[1] == gen]
            ax.scatter([p[2] for p in sel], [p[3] for p in sel], marker=mk, color=col, label=lab)
        ax.axhline(1, color="gray", lw=1); ax.set_xscale("log"); ax.set_yscale("log")
        ax.set_xlabel("mean level width n / levels"); ax.set_ylabel("t(cuSPARSE) / t(TASSL)"); ax.legend()
        fig.savefig(o.png, dpi=120, bbox_inches="tight")
    except ImportError:
        plot_builtin(pts, o.png)
    print(f"wrote {o.png} ({len(pts)} points)")


if __name__ == "__main__":
    main()
