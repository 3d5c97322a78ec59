"""Tests of bench/plot.py: each figure kind from committed results or tiny synthetic JSON (no GPU needed)."""
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
TRSV = RESULTS / "2026-11-22-h200-tassl-s2-default-76761f4.json"
SOLVE = RESULTS / "2026-11-22e-h200-solve-lap3d.json"
QR = RESULTS / "2026-11-26-qr-gpu-large-h200.json"
QR_OLD = RESULTS / "2026-11-23-qr-h200host.json"  # balsa CPU against SPQR only, the "balsa" key
BANDED = RESULTS / "2026-11-22h-banded.json"
LP = RESULTS / "2026-11-26-lp-final-check-h200.json"
SEQUENCE = RESULTS / "2026-11-26-sequence-h200.json"


@pytest.fixture(scope="module")
def plot():
    spec = importlib.util.spec_from_file_location("balsa_bench_plot", ROOT / "bench" / "plot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    module.plt.close("all")


def read(path):
    return json.loads(Path(path).read_text())


def new_keys(doc):
    """doc with the keys balsa-bench writes since issue 38: `*_ms` (ms) and `*_s` (s) as `*_seconds` (s)."""
    if isinstance(doc, list):
        return [new_keys(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    out = {}
    for key, value in doc.items():
        if key.endswith("_ms"):
            out[key[:-3] + "_seconds"] = value / 1e3 if isinstance(value, (int, float)) else new_keys(value)
        elif key.endswith("_s"):
            out[key[:-2] + "_seconds"] = new_keys(value)
        else:
            out[key] = new_keys(value)
    return out


def same_offsets(a, b):
    assert [len(c.get_offsets()) for c in a.collections] == [len(c.get_offsets()) for c in b.collections]
    for ca, cb in zip(a.collections, b.collections):
        assert ca.get_label() == cb.get_label()
        assert [v for pt in ca.get_offsets() for v in pt] == pytest.approx([v for pt in cb.get_offsets() for v in pt])


def points(ax, label_start):
    """Offsets of the scatter whose legend label starts with label_start."""
    found = [c for c in ax.collections if c.get_label().startswith(label_start)]
    assert len(found) == 1, [c.get_label() for c in ax.collections]
    return found[0].get_offsets()


def is_ratio_axes(ax, xlog=True):
    assert ax.get_yscale() == "log" and (ax.get_xscale() == "log") == xlog
    assert any(list(line.get_ydata()) == [1.0, 1.0] for line in ax.lines), "no line at y = 1"
    return True


# ---------------------------------------------------------------- trsv

def test_trsv_one_point_per_case_and_algorithm(plot):
    doc = read(TRSV)
    cases = {r["case"] for r in doc["results"]}
    fig = plot.trsv([TRSV])
    ax = fig.axes[0]
    assert is_ratio_axes(ax)
    for algorithm in ("level-set", "tassl", "auto"):  # the file's "levelset" under its current name
        assert len(points(ax, algorithm + " ")) == len(cases)
    assert not [c for c in ax.collections if c.get_label().startswith("cusparse")]
    # y = t_cuSPARSE / t_tassl for each case; x = nnz
    base = {r["case"]: r["solve_ms"] for r in doc["results"] if r["algorithm"] == "cusparse"}  # an older file
    want = sorted((r["nnz"], base[r["case"]] / r["solve_ms"]) for r in doc["results"] if r["algorithm"] == "tassl")
    got = sorted(map(tuple, points(ax, "tassl ")))
    assert [v for pt in got for v in pt] == pytest.approx([v for pt in want for v in pt])
    title = ax.get_title()
    assert "NVIDIA H200" in title and "2026-11-22" in title
    assert ax.get_legend() is not None and "nnz" in ax.get_xlabel()


def test_trsv_parallelism_axis_and_precision(plot, tmp_path):
    def row(case, algorithm, ms, precision="float"):
        return {"case": case, "algorithm": algorithm, "device": "cpu" if algorithm == "reference" else "cuda",
                "status": "ok", "precision": precision, "n": 1000, "nnz": 5000, "levels": 10, "solve_ms": ms}
    doc = {"meta": {"gpu": "NVIDIA H100", "date": "2026-12-01T00:00:00Z"},
           "results": [row("a", "cusparse", 2.0), row("a", "syncfree", 1.0), row("a", "reference", 0.5),
                       row("b", "cusparse", 3.0), row("b", "syncfree", 6.0), row("b", "cusparse-spmv", 0.1)]}
    path = tmp_path / "trsv.json"
    path.write_text(json.dumps(doc))
    ax = plot.trsv([path], x="parallelism").axes[0]
    assert [c.get_label().split(" ")[0] for c in ax.collections] == ["sync-free"]  # old name mapped, CPU left out
    assert sorted(map(tuple, points(ax, "sync-free"))) == [(100.0, 0.5), (100.0, 2.0)]
    assert "rows per level" in ax.get_xlabel() and "float" in ax.get_title()
    with pytest.raises(ValueError, match="precision 'double'"):
        plot.trsv([path], precision="double")


def test_trsv_cpu_only_results(plot, tmp_path):
    """A results file without GPU columns (a CPU-only balsa-bench trsv run): the solve times, no error."""
    doc = read(TRSV)
    doc["meta"]["gpu"] = "none"
    doc["results"] = [r for r in doc["results"] if r["device"] == "cpu"]
    cpu_rows = [r for r in doc["results"] if r["status"] == "ok" and r["precision"] == "double"]
    assert cpu_rows  # the committed file has CPU rows to keep
    path = tmp_path / "trsv-cpu.json"
    path.write_text(json.dumps(doc))
    ax = plot.trsv([path]).axes[0]
    assert ax.get_ylabel() == "solve time (s)" and "no cuSPARSE baseline" in ax.get_title()
    drawn = sorted(y for line in ax.lines for y in line.get_ydata())
    assert drawn == pytest.approx(sorted(plot.seconds(r, "solve") for r in cpu_rows))
    assert "CPU only" in ax.get_title()
    assert subprocess.run([sys.executable, str(ROOT / "bench" / "plot.py"), "trsv", str(path), "-o",
                           str(tmp_path / "t.png")], capture_output=True).returncode == 0


def test_seconds_reads_old_and_new_keys(plot):
    assert plot.seconds({"solve_seconds": 0.0123}, "solve") == 0.0123
    assert plot.seconds({"solve_ms": 12.3}, "solve") == pytest.approx(0.0123)
    assert plot.seconds({"factorise_s": 0.5}, "factorise") == 0.5
    assert plot.seconds({"solve_ms": None}, "solve") is None and plot.seconds({}, "solve") is None


@pytest.mark.parametrize("kind, path", [("trsv", TRSV), ("solve", SOLVE), ("qr", QR)])
def test_new_keys_draw_the_same_figure(plot, kind, path):
    old = getattr(plot, kind)([path]).axes
    new = getattr(plot, kind)([new_keys(read(path))]).axes
    for a, b in zip(old, new):
        same_offsets(a, b)
        assert [p.get_height() for p in a.patches] == pytest.approx([p.get_height() for p in b.patches])


# ---------------------------------------------------------------- convergence

def test_convergence_one_line_per_history(plot, tmp_path):
    single = {"matrix": "tests/data/bcsstk13.mtx", "n": 3, "nnz": 7, "method": "pcg-ic0", "requested_method": "pcg-ic0",
              "device": "cpu", "columns": 1, "norm": "inf", "outcome": "converged", "iterations": 3,
              "history": [1.0, 1e-3, 1e-6, 1e-9]}
    multi = {"matrix": "tests/data/bcsstk13.mtx", "method": "cg", "requested_method": "cg", "device": "cuda",
             "columns": 2, "norm": "inf",
             "results": [{"method": "cg", "outcome": "converged", "history": [1.0, 0.1, 1e-9]},
                         {"method": "cg", "outcome": "max-iterations", "history": [1.0, 0.5]}]}
    files = []
    for k, doc in enumerate((single, multi)):
        files.append(tmp_path / f"solve{k}.json")
        files[-1].write_text(json.dumps(doc))
    ax = plot.convergence(files).axes[0]
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "iteration"
    assert len(ax.lines) == 3
    assert list(ax.lines[0].get_ydata()) == single["history"] and list(ax.lines[0].get_xdata()) == [0, 1, 2, 3]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("pcg-ic0") and "column 2" in labels[2] and "max-iterations" in labels[2]
    assert "bcsstk13.mtx" in ax.get_title()


def test_convergence_from_balsa_run_json(plot, tmp_path):
    """`balsa run --json` (a Krylov method named alone, or auto's answer): its history and its problem."""
    preset = {"problem": {"grid": 20, "stencil": "7", "n": 8000, "nnz": 53600}, "method": "cg", "precision": "double",
              "device": "cpu", "outcome": "converged", "iterations": 3, "norm": "2",
              "history": [1.0, 1e-2, 1e-5, 1e-9], "balsa_version": "0.1.0"}
    auto = {"problem": {"grid": 30, "stencil": "27", "n": 27000, "nnz": 658000}, "method": "pcg-ic0",
            "requested_method": "auto", "device": "cpu", "outcome": "converged", "history": [1.0, 1e-4, 1e-10]}
    files = []
    for k, doc in enumerate((preset, auto)):
        files.append(tmp_path / f"run{k}.json")
        files[-1].write_text(json.dumps(doc))
    ax = plot.convergence(files).axes[0]
    assert len(ax.lines) == 2 and list(ax.lines[0].get_ydata()) == preset["history"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("3D Poisson 7-point, 20^3: cg") and labels[1].startswith("3D Poisson 27-point")
    assert "(2-norm)" in ax.get_ylabel()
    assert plot.detect_kind(preset) == "convergence"


def test_convergence_from_bench_solve_rows_and_without_history(plot, tmp_path):
    doc = read(SOLVE)
    with pytest.raises(ValueError, match="no residual history"):
        plot.convergence([SOLVE])
    doc["rows"][0]["gpu"]["history"] = [1.0, 0.0, 1e-9]  # a zero is left out on the log scale, not an error
    path = tmp_path / "bench-solve.json"
    path.write_text(json.dumps(doc))
    ax = plot.convergence([path]).axes[0]
    assert len(ax.lines) == 1 + 1  # the history and the tolerance line
    assert math.isnan(ax.lines[0].get_ydata()[1])


# ---------------------------------------------------------------- solve

def test_solve_bars_per_row(plot, tmp_path):
    doc = read(SOLVE)
    fig = plot.solve([SOLVE])
    top, bottom = fig.axes
    assert top.get_yscale() == bottom.get_yscale() == "log"
    assert len(bottom.get_xticklabels()) == len(doc["rows"])
    for ax in (top, bottom):
        assert [len(c) for c in ax.containers] == [len(doc["rows"])] * 3  # GPU, cuSPARSE, CPU
    per_it = sorted(b.get_height() for b in bottom.containers[0])
    assert per_it == pytest.approx(sorted(1e3 * r["gpu"]["per_iteration_s"] for r in doc["rows"]))
    assert "NVIDIA H200" in top.get_title()
    # a failed run has no bar but says why
    doc["rows"][0]["cusparse_baseline"] = {"ran": False, "outcome": "csric02: zero pivot", "iterations": 0}
    path = tmp_path / "solve.json"
    path.write_text(json.dumps(doc))
    top = plot.solve([path]).axes[0]
    assert len(top.containers[1]) == len(doc["rows"]) - 1
    assert "csric02 failed" in [t.get_text() for t in top.texts]


# ---------------------------------------------------------------- qr

def test_qr_speedup_against_intensity(plot):
    doc = read(QR)
    ax = plot.qr([QR]).axes[0]
    assert is_ratio_axes(ax)
    gpu = points(ax, "balsa GPU, factorisation")
    assert len(gpu) == len(doc["cases"]) == len(points(ax, "balsa CPU"))
    assert sorted(gpu[:, 1]) == pytest.approx(sorted(c["gpu_vs_spqr"] for c in doc["cases"]))
    assert sorted(gpu[:, 0]) == pytest.approx(sorted(c["cpu"]["intensity"] for c in doc["cases"]))
    assert {t.get_text() for t in ax.texts} == {c["matrix"] for c in doc["cases"]}
    assert "intensity" in ax.get_xlabel() and "2026-11-26" in ax.get_title()


def test_qr_older_format_cpu_only(plot):
    doc = read(QR_OLD)
    ax = plot.qr([QR_OLD]).axes[0]
    cpu = points(ax, "balsa CPU")
    assert len(cpu) == len(doc["cases"])
    assert sorted(cpu[:, 1]) == pytest.approx(sorted(1 / c["factorise_ratio"] for c in doc["cases"]))
    assert not [c for c in ax.collections if "GPU" in c.get_label()]


# ---------------------------------------------------------------- banded

def test_banded_heat_map_shape(plot):
    doc = read(BANDED)
    grid = [c for c in doc["cases"] if c["suite"] == "grid"]
    ns, ks = sorted({c["N"] for c in grid}), sorted({c["K"] for c in grid})
    ax = plot.banded([BANDED]).axes[0]
    cells = ax.images[0].get_array()
    assert cells.shape == (len(ns), len(ks))
    corner = next(c for c in grid if c["N"] == ns[-1] and c["K"] == ks[0])
    assert 10 ** cells[-1, 0] == pytest.approx(corner["speedup"])
    assert len(ax.texts) == len(ns) * len(ks)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(k) for k in ks]
    assert "dgbsv" in ax.get_title() and "NVIDIA H200" in ax.get_title()


def test_banded_missing_cell(plot):
    doc = {"meta": {"gpu": "none", "date": "2026-12-01T00:00:00Z"},
           "cases": [{"suite": "grid", "N": n, "K": k, "d": 1.0, "dgbsv": {"ms": 1.0}, "sap": [], "best": "sap-c",
                      "speedup": None if (n, k) == (2000, 20) else 2.0} for n in (1000, 2000) for k in (10, 20, 50)]}
    ax = plot.banded([doc]).axes[0]
    assert ax.images[0].get_array().shape == (2, 3)
    assert [t.get_text() for t in ax.texts].count("-") == 1 and "2.00\nC" in [t.get_text() for t in ax.texts]
    assert "CPU only" in ax.get_title()


# ---------------------------------------------------------------- lp

def test_lp_sorted_ratios(plot):
    doc = read(LP)
    timed = [p for p in doc["problems"] if p.get("balsa", {}).get("seconds", 0) > 0 and p.get("clp", {}).get("seconds", 0) > 0]
    ax = plot.lp([LP]).axes[0]
    assert is_ratio_axes(ax, xlog=False)
    ratios = [y for c in ax.collections if c.get_gid() == "balsa/CLP" for _, y in c.get_offsets()]
    assert len(ratios) == len(timed)
    assert sorted(ratios) == pytest.approx(sorted(p["balsa"]["seconds"] / p["clp"]["seconds"] for p in timed))
    names = [t.get_text() for t in ax.get_xticklabels()]
    order = sorted(timed, key=lambda p: p["balsa"]["seconds"] / p["clp"]["seconds"])
    assert names == [p["name"] for p in order]
    gpu = [c for c in ax.collections if c.get_gid() == "GPU/CLP"]
    assert len(gpu[0].get_offsets()) == sum(1 for p in timed if p.get("gpu"))


# ---------------------------------------------------------------- auto, CLI, errors

@pytest.mark.parametrize("path, kind", [(TRSV, "trsv"), (SOLVE, "solve"), (QR, "qr"), (QR_OLD, "qr"),
                                        (BANDED, "banded"), (LP, "lp")])
def test_detect_kind(plot, path, kind):
    assert plot.detect_kind(read(path)) == kind


def test_cli_writes_png(plot, tmp_path):
    out = tmp_path / "qr.png"
    assert plot.main(["auto", str(QR), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_cli_as_a_script(tmp_path):
    out = tmp_path / "trsv.png"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "plot.py"), "trsv", str(TRSV), "--x", "parallelism",
                          "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 10_000


def test_wrong_kind_is_a_clear_error(plot, tmp_path):
    with pytest.raises(ValueError, match=r"needs `balsa-bench qr --json`; this file is a `trsv` file"):
        plot.qr([TRSV])
    with pytest.raises(SystemExit) as e:
        plot.main(["banded", str(LP), "-o", str(tmp_path / "x.png")])
    assert "a `banded` figure needs" in str(e.value.code) and "`lp` file" in str(e.value.code)
    with pytest.raises(SystemExit) as e:
        plot.main(["auto", str(SEQUENCE), "-o", str(tmp_path / "x.png")])
    assert "balsa-bench sequence" in str(e.value.code)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit) as e:
        plot.main(["trsv", str(bad), "-o", str(tmp_path / "x.png")])
    assert "not valid JSON" in str(e.value.code)
    with pytest.raises(SystemExit) as e:
        plot.main(["lp", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.png")])
    assert "cannot read" in str(e.value.code)
    assert not (tmp_path / "x.png").exists()


def test_wrong_kind_from_the_command_line(tmp_path):
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "plot.py"), "qr", str(BANDED), "-o",
                          str(tmp_path / "x.png")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "bench/plot.py: error:" in run.stderr and "`banded` file" in run.stderr
