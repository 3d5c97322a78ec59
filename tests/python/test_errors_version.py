"""balsa's exceptions subclass the built-ins users catch (FileNotFoundError,
IsADirectoryError, ValueError, numpy.linalg.LinAlgError, MemoryError), and
one version (the VERSION file) is the library's, the package's and the
installed distribution's."""

import errno
import importlib.metadata
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import balsa

VERSION = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()


@pytest.mark.parametrize("read,kind", [(balsa.read_matrix, "Matrix Market"), (balsa.read_mps, "MPS")])
def test_a_missing_file_is_file_not_found(tmp_path, read, kind):
    path = tmp_path / "missing.file"
    with pytest.raises(FileNotFoundError) as e:
        read(path)
    err = e.value
    assert isinstance(err, balsa.FileError) and isinstance(err, balsa.Error) and isinstance(err, OSError)
    assert err.errno == errno.ENOENT and err.filename == str(path)
    assert str(err) == f"cannot open {kind} file '{path}': No such file or directory"


@pytest.mark.parametrize("read", [balsa.read_matrix, balsa.read_mps])
def test_a_folder_is_a_directory_error(tmp_path, read):
    with pytest.raises(IsADirectoryError) as e:
        read(tmp_path)
    assert isinstance(e.value, balsa.FileError) and e.value.errno == errno.EISDIR
    assert e.value.filename == str(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
@pytest.mark.parametrize("read", [balsa.read_matrix, balsa.read_mps])
def test_an_unreadable_file_is_a_permission_error(tmp_path, read):
    path = tmp_path / "secret.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.0\n")
    path.chmod(0)
    with pytest.raises(PermissionError) as e:
        read(path)
    assert isinstance(e.value, balsa.FileError) and e.value.errno == errno.EACCES


def test_file_error_factory_picks_the_builtin():
    assert isinstance(balsa._errors.file_error(errno.ENOENT, "m", "f"), FileNotFoundError)
    assert isinstance(balsa._errors.file_error(errno.EACCES, "m", "f"), PermissionError)
    assert isinstance(balsa._errors.file_error(errno.EISDIR, "m", "f"), IsADirectoryError)
    other = balsa._errors.file_error(errno.EIO, "m", "f")
    assert type(other) is balsa.FileError and isinstance(other, OSError) and str(other) == "m"


def test_an_unknown_name_is_a_value_error_listing_the_names():
    L = sp.csr_array(sp.eye_array(3))
    with pytest.raises(ValueError, match=r"unknown triangular-solver algorithm 'fast' \(one of: .*level-set") as e:
        balsa.TriangularSolver(L, algorithm="fast", device="cpu")
    assert isinstance(e.value, balsa.UnknownName) and isinstance(e.value, balsa.Error)
    assert "level-set" in e.value.names and "tassl" in e.value.names
    with pytest.raises(balsa.UnknownName) as e:
        balsa.SparseQR(L, ordering="amd", device="cpu")
    assert "colamd" in e.value.names
    with pytest.raises(ValueError, match="method must be one of auto, cholmod, umfpack, klu, not 'lu'"):
        balsa.DirectSolver(L, method="lu")


def test_singular_systems_are_linalg_errors():
    assert issubclass(balsa.SingularMatrix, np.linalg.LinAlgError)
    assert issubclass(balsa.StructurallySingular, np.linalg.LinAlgError)
    assert issubclass(balsa.SingularMatrix, ValueError) and issubclass(balsa.SingularMatrix, balsa.MatrixError)
    singular = sp.csr_array(np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 1.0], [1.0, 2.0, 0.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="numerically singular"):
        balsa.DirectSolver(singular, method="umfpack")
    structural = sp.csr_array(np.array([[1.0, 2.0, 0.0], [3.0, 1.0, 0.0], [1.0, 5.0, 0.0]]))
    with pytest.raises(np.linalg.LinAlgError):
        balsa.DirectSolver(structural, method="klu")


def test_memory_errors_are_memory_errors():
    assert issubclass(balsa.HostOutOfMemory, MemoryError) and issubclass(balsa.DeviceOutOfMemory, MemoryError)


def test_one_version_everywhere():
    assert balsa.__version__ == VERSION
    assert balsa._core.version() == VERSION
    try:
        installed = importlib.metadata.version("balsa-sparse")
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed is not None and Path(balsa.__file__).resolve().parents[1] != Path(__file__).resolve().parents[2] / "python":
        assert installed == VERSION  # the installed distribution (scripts/wheel-check.sh)


def test_pyproject_and_cmake_read_the_version_file():
    root = Path(__file__).resolve().parents[2]
    pyproject = (root / "pyproject.toml").read_text()
    assert 'name = "balsa-sparse"' in pyproject and 'dynamic = ["version"]' in pyproject
    assert 'input = "VERSION"' in pyproject
    cmake = (root / "CMakeLists.txt").read_text()
    assert 'file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/VERSION"' in cmake
    assert "project(balsa VERSION ${BALSA_VERSION_TEXT}" in cmake


def test_type_information_ships_with_the_package():
    """py.typed beside the package's modules; the extension's stub (built by
    the _balsa_stub target, installed into the wheel) beside the extension."""
    assert (Path(balsa.__file__).parent / "py.typed").exists()
    stub = Path(balsa._core.__file__).parent / "_balsa.pyi"
    if not stub.exists():
        pytest.skip(f"no stub at {stub}: the _balsa_stub target was not built")
    text = stub.read_text()
    assert "def version() -> str" in text and "def replace_columns(" in text and "def linprog(" in text
