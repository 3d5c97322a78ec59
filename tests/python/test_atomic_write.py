"""balsa.write_matrix writes a file whole or not at all (include/balsa/atomic_file.hpp):
a failure mid-write (a file-size limit, as a full disk would), a missing or
read-only folder leave the old file byte for byte and no temporary file."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import balsa

OLD = b"%%MatrixMarket matrix coordinate real general\n% the old file\n1 1 1\n1 1 7\n"


def big_matrix():
    """A tridiagonal matrix: about 3 MB of Matrix Market text."""
    n = 50000
    return sp.csr_array(sp.diags_array([np.full(n - 1, -1.5), np.full(n, 4.25), np.full(n - 1, -1.5)], offsets=[-1, 0, 1]))


@pytest.fixture
def old_file(tmp_path):
    path = tmp_path / "A.mtx"
    path.write_bytes(OLD)
    return path


def test_replaces_a_file_whole(old_file):
    A = big_matrix()
    balsa.write_matrix(old_file, A)
    assert (balsa.read_matrix(old_file) != A).nnz == 0
    assert os.listdir(old_file.parent) == ["A.mtx"]


def test_failure_mid_write_leaves_the_old_file(old_file):
    # A real failure of write(2) part-way (EFBIG): a 64 kB file-size limit
    # with SIGXFSZ ignored, in a child process (root is held to it too).
    script = textwrap.dedent(f"""
        import resource, signal, sys
        import balsa
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_atomic_write import big_matrix
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        A = big_matrix()
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
        try:
            balsa.write_matrix({str(old_file)!r}, A)
        except balsa.Error as e:
            print(e)
            sys.exit(0)
        sys.exit(1)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"cannot write '{old_file}': File too large" in r.stdout
    assert old_file.read_bytes() == OLD
    assert os.listdir(old_file.parent) == ["A.mtx"]


def test_missing_folder_names_the_path(tmp_path):
    path = tmp_path / "no-such-folder" / "A.mtx"
    with pytest.raises(balsa.Error, match="cannot write '.*no-such-folder/A.mtx': No such file or directory"):
        balsa.write_matrix(path, big_matrix())


@pytest.mark.skipif(os.geteuid() == 0, reason="running as root: a folder's permissions do not stop root")
def test_read_only_folder_leaves_the_old_file(old_file):
    folder = old_file.parent
    os.chmod(folder, 0o555)
    try:
        with pytest.raises(balsa.Error, match="Permission denied"):
            balsa.write_matrix(old_file, big_matrix())
    finally:
        os.chmod(folder, 0o755)
    assert old_file.read_bytes() == OLD
    assert os.listdir(folder) == ["A.mtx"]
