#!/usr/bin/env python3
"""Seed corpora of the fuzz harnesses, made from the test data at run time
(scripts/fuzz.sh calls this; nothing is committed but fuzz/cli_seeds.txt):

  fuzz_mtx_stream  tests/data/*.mtx(.gz) cut to their first entries (the size
                   line's count rewritten to match), a few hand-made files
                   (array, skew-symmetric, pattern), each after an options byte;
  fuzz_mtx_file    the same texts after a mode byte that varies the file
                   (plain, gzip, gzip cut short) and the reader;
  fuzz_mps         tests/data/lp/*.mps.gz decompressed, cut at a line near 8 KB;
  fuzz_cli         fuzz/cli_seeds.txt, one input a line, words NUL-separated.

Bad-input files under tests/data/bad/ (*.mtx, *.mps) join their harness's seeds.

usage: make_seeds.py REPO_ROOT OUT_FOLDER
"""
import gzip
import pathlib
import sys

ENTRIES = 100   # entries kept of each test matrix
MPS_BYTES = 8192

HAND_MADE = [
    "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n",
    "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
    "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -2\n",
    "%%MatrixMarket matrix coordinate pattern general\n% a comment\n3 4 3\n1 1\n2 4\n3 2\n",
    "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 4\n2 1 -1\n",
]


def read_text(path):
    """The file's text, gunzipped when its name ends in .gz."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("latin-1")


def cut_mtx(text):
    """A coordinate file's banner, comments, size line and first ENTRIES
    entries, the size line's count rewritten; other files as they are."""
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines) and lines[i].startswith("%"):
        out.append(lines[i])
        i += 1
    if i == len(lines) or "coordinate" not in text[:200]:
        return text
    rows, cols, _ = lines[i].split()[:3]
    entries = lines[i + 1:i + 1 + ENTRIES]
    return "".join(out) + f"{rows} {cols} {len(entries)}\n" + "".join(entries)


def cut_mps(text):
    """The first MPS_BYTES bytes, ended at a line, then ENDATA (the reader
    refuses a file without it as truncated)."""
    if len(text) <= MPS_BYTES:
        return text
    return text[:text.rfind("\n", 0, MPS_BYTES) + 1] + "ENDATA\n"


def write(folder, name, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def main(root, out):
    data = root / "tests" / "data"
    bad = data / "bad"
    mtx = [cut_mtx(read_text(p)) for p in sorted(data.glob("*.mtx*"))] + HAND_MADE
    mtx += [read_text(p) for p in sorted(bad.glob("*.mtx"))]
    for i, text in enumerate(mtx):
        body = text.encode("latin-1")
        write(out / "fuzz_mtx_stream", f"seed{i:03}", bytes([i % 8]) + body)
        write(out / "fuzz_mtx_file", f"seed{i:03}", bytes([(i * 7) % 64]) + body)
    mps = [cut_mps(read_text(p)) for p in sorted((data / "lp").glob("*.mps*"))]
    mps += [read_text(p) for p in sorted(bad.glob("*.mps"))]
    for i, text in enumerate(mps):
        write(out / "fuzz_mps", f"seed{i:03}", text.encode("latin-1"))
    seeds = (root / "fuzz" / "cli_seeds.txt").read_text().splitlines()
    lines = [s for s in seeds if s.strip() and not s.startswith("#")]
    for i, line in enumerate(lines):
        write(out / "fuzz_cli", f"seed{i:03}", "\0".join(line.split()).encode())
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])))
