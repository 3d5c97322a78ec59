"""The API reference's helpers (docs/api/): the Doxygen filter that reads the
headers' `//` comments as documentation, and the sorting of Doxygen's and
Sphinx's warnings (which ones fail scripts/docs.sh)."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[2] / "docs" / "api"


def load(name):
    spec = importlib.util.spec_from_file_location(name, API / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


doxygen_filter = load("doxygen_filter")
doxygen_warnings = load("doxygen_warnings")
sphinx_warnings = load("sphinx_warnings")

HEADER = """// balsa: a header's description.
//
//   balsa::Thing t(A);   // an example <T>
#pragma once

namespace balsa {

// Thing's description, with a <tag>, a \\ backslash and `code <x>`.
// Its second line (Saad, Alg. 9.1, and sec.
// 9.3; rows 1 .. n).
struct Thing {
  int a = 0;  // what a is
              // and more about a
  // what b is
  int b = 1;

  int f() {
    // inside a body: not documentation
    return a;  // nor this
  }
};

// a section comment, then a blank line

enum class Kind {
  One,  // the first
  Two   // the last
};

}  // namespace balsa
"""


def filtered():
    return doxygen_filter.filter_lines(HEADER.split("\n"))


def test_the_filter_keeps_every_line_where_it_was():
    out = filtered()
    assert len(out) == len(HEADER.split("\n"))
    for line_in, line_out in zip(HEADER.split("\n"), out):
        code_in = doxygen_filter.split_comment(line_in)[0].strip()
        if code_in:
            assert line_out.startswith(doxygen_filter.split_comment(line_in)[0].rstrip())


def test_the_file_top_comment_is_the_file_description():
    out = filtered()
    assert out[0].startswith("/** balsa: a header's description.")
    assert out[1].strip() == "\\verbatim"  # an indented example, kept as it stands
    assert "<T>" in out[2] and out[2].endswith("\\endverbatim \\file */")


def test_a_block_above_a_declaration_is_its_documentation():
    out = filtered()
    line = HEADER.split("\n").index("struct Thing {")
    assert out[line - 3].startswith("/** Thing's description, with a \\<tag\\>, a \\\\ backslash and `code <x>`.")
    # an abbreviation's dot does not end the brief description
    assert out[line - 2] == "   Its second line (Saad, Alg.\\ 9.1, and sec.\\ "
    assert out[line - 1].endswith("9.3; rows 1 ..\\ n). */")


# Lines the filter gives as they are expected: trailing comments documenting
# members and enumerators; comments in bodies and before blank lines left alone.
EXPECTED_LINES = [
    "  int a = 0;  ///< what a is",
    "              ///< and more about a",
    "  /** what b is */",
    "  One,  ///< the first",
    "  Two   ///< the last",
    "    // inside a body: not documentation",
    "    return a;  // nor this",
    "// a section comment, then a blank line",
    "}  // namespace balsa",
]


@pytest.mark.parametrize("line", EXPECTED_LINES)
def test_trailing_comments_are_documentation_and_body_comments_are_not(line):
    assert line in filtered()


def test_doxygen_warnings_count_all_but_undocumented_names(tmp_path, capsys):
    reference = tmp_path / "reference.log"
    undocumented = tmp_path / "undocumented.log"
    reference.write_text("")
    undocumented.write_text("/x/include/balsa/a.hpp:3: warning: Member f() (function) of namespace balsa is "
                            "not documented.\n/x/include/balsa/a.hpp:9: warning: Compound balsa::S is not "
                            "documented.\n")
    assert doxygen_warnings.main(str(reference), str(undocumented)) == 0
    assert "2 public name(s) without a comment" in capsys.readouterr().out
    reference.write_text("/x/include/balsa/a.hpp:5: warning: unexpected command endverbatim\n"
                         "  (a continuation line)\n")
    assert doxygen_warnings.main(str(reference), str(undocumented)) == 1
    assert "unexpected command endverbatim (a continuation line)" in capsys.readouterr().err


def test_sphinx_warnings_fail_but_the_known_ones(tmp_path):
    log = tmp_path / "warnings.log"
    known = tmp_path / "known.txt"
    known.write_text("# a comment\ndocstring of balsa\\.old\\.Thing:\n")
    log.write_text("/x/old.py:docstring of balsa.old.Thing:3: ERROR: Unexpected indentation. [docutils]\n")
    assert sphinx_warnings.main(str(log), str(known)) == 0
    log.write_text(log.read_text() + "/x/index.rst:4: WARNING: py:obj reference target not found: balsa.x\n")
    assert sphinx_warnings.main(str(log), str(known)) == 1


def test_the_filter_runs_as_doxygen_runs_it(tmp_path):
    header = tmp_path / "header"
    header.write_text(HEADER)
    out = subprocess.run([sys.executable, str(API / "doxygen_filter.py"), str(header)], check=True,
                         capture_output=True, text=True).stdout
    assert out.split("\n") == filtered()


def run_doxygen(tmp_path, mainpage):
    """Doxygen with docs/api/Doxyfile over a tree holding HEADER and the given
    main page; the sorter's status and the header's HTML page."""
    (tmp_path / "include" / "balsa").mkdir(parents=True)
    (tmp_path / "include" / "balsa" / ("thing" + ".hpp")).write_text(HEADER)  # a file of tmp_path
    (tmp_path / "docs" / "api").mkdir(parents=True)
    for name in ("Doxyfile", "doxygen_filter.py"):
        shutil.copy(API / name, tmp_path / "docs" / "api" / name)
    (tmp_path / "docs" / "api" / "mainpage.md").write_text(mainpage)
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, BALSA_SOURCE_DIR=str(tmp_path), BALSA_CPP_DOCS=str(out), BALSA_EXTRACT_ALL="YES",
               BALSA_DOCS_HTML="YES")
    subprocess.run(["doxygen", str(tmp_path / "docs" / "api" / "Doxyfile")], check=True, env=env,
                   capture_output=True)
    status = doxygen_warnings.main(str(out / "warnings.log"), os.devnull)
    return status, (out / "html" / "structbalsa_1_1Thing.html").read_text()


@pytest.mark.skipif(shutil.which("doxygen") is None, reason="doxygen is not installed (scripts/install-deps.sh)")
def test_doxygen_reads_the_comments_and_a_markup_error_fails(tmp_path):
    status, page = run_doxygen(tmp_path / "good", "# Front page {#mainpage}\n\nText.\n")
    assert status == 0
    assert "what a is" in page and "and more about a" in page and "what b is" in page
    assert "with a &lt;tag&gt;, a \\ backslash" in page  # the prose as written
    assert "not documentation" not in page
    status, _ = run_doxygen(tmp_path / "bad", "# Front page {#mainpage}\n\nA \\nosuchcommand here.\n")
    assert status == 1
