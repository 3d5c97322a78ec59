"""balsa.write_matrix to a path ending in .gz writes gzip data (the library's
Matrix Market writer picks it by the suffix), read back by balsa.read_matrix
and by scipy.io.mmread through Python's gzip module; written whole or not at all."""
import gzip

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
sio = pytest.importorskip("scipy.io")

import balsa


def random_matrix(rows, cols, seed):
    rng = np.random.default_rng(seed)
    return sp.random_array((rows, cols), density=0.05, random_state=rng, format="csr") + sp.eye_array(
        rows, cols, format="csr")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gz_round_trip(tmp_path, dtype):
    A = random_matrix(300, 200, 1).astype(dtype)
    path = tmp_path / "a.mtx.gz"
    balsa.write_matrix(path, A)
    with open(path, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"  # gzip's magic bytes
    back = balsa.read_matrix(path, dtype=dtype)
    assert back.shape == A.shape
    assert (abs(back - A)).max() == 0  # shortest round-trip text: the same values
    with gzip.open(path, "rb") as f:
        theirs = sp.csr_array(sio.mmread(f))
    assert (abs(theirs.astype(dtype) - A)).max() == 0  # float32: its shortest text reads back to the same float


def test_plain_name_stays_text(tmp_path):
    path = tmp_path / "a.mtx"
    balsa.write_matrix(path, random_matrix(20, 20, 2))
    assert path.read_bytes().startswith(b"%%MatrixMarket")


def test_gz_smaller_than_text(tmp_path):
    A = random_matrix(2000, 2000, 3)
    balsa.write_matrix(tmp_path / "a.mtx", A)
    balsa.write_matrix(tmp_path / "a.mtx.gz", A)
    assert (tmp_path / "a.mtx.gz").stat().st_size < (tmp_path / "a.mtx").stat().st_size / 2


def test_gz_failure_keeps_old_file(tmp_path):
    path = tmp_path / "a.mtx.gz"
    balsa.write_matrix(path, random_matrix(10, 10, 4))
    before = path.read_bytes()
    with pytest.raises(Exception):
        balsa.write_matrix(path, "not a matrix")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.mtx.gz"]  # no temporary file left


def test_empty_matrix_gz(tmp_path):
    path = tmp_path / "e.mtx.gz"
    balsa.write_matrix(path, sp.csr_array((5, 7)))
    back = balsa.read_matrix(path)
    assert back.shape == (5, 7) and back.nnz == 0
