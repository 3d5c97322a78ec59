"""Sphinx's configuration of balsa's Python API reference.

scripts/docs.sh builds it (nitpicky, warnings as errors) with the package
and the built extension on the path (PYTHONPATH=python:build/python, as the
tests run). The reference covers balsa.__all__: the overview tables in
index.rst are filled from it when the page is read, so a name added to
__all__ appears without an edit here.
"""

import inspect

import balsa

project = "balsa"
author = "the balsa authors"
copyright = "the balsa authors"  # noqa: A001 (Sphinx's name)
release = version = balsa.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = False  # numpydoc sections (Parameters, Returns, Examples)
napoleon_numpy_docstring = True
# Parameter types as text beside the name, not :type: fields: Sphinx would
# cross-reference every word of "matrix, shape (m, n)" (and find three
# balsa attributes named shape).
napoleon_use_param = False
autodoc_member_order = "groupwise"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
html_theme = "alabaster"
html_static_path = []
templates_path = []
exclude_patterns = []

# Nitpicky (-n): every reference to a balsa name must resolve. The types of
# NumPy, SciPy, CuPy and the builtins are not linked (the build is offline:
# no intersphinx inventories), so references to them are not checked.
nitpick_ignore_regex = [(r"py:.*", r"(?!balsa\b).*")]


def _public_names():
    """balsa.__all__ sorted into (heading, names) groups for the tables."""
    groups = {"Solvers and results": [], "Functions": [], "Exceptions and warnings": []}
    for name in sorted(balsa.__all__, key=str.lower):
        if name.startswith("__"):  # __version__: a string, named in the page's text
            continue
        obj = getattr(balsa, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            groups["Exceptions and warnings"].append(name)
        elif inspect.isclass(obj):
            groups["Solvers and results"].append(name)
        else:
            groups["Functions"].append(name)
    return [(heading, names) for heading, names in groups.items() if names]


def _summary(obj):
    """The first paragraph of obj's docstring on one line (an extension
    function's signature line skipped)."""
    lines = (inspect.getdoc(obj) or "").splitlines()
    if _is_extension_function(obj) and lines and lines[0].startswith(obj.__name__ + "("):
        lines = lines[1:]
    paragraph = []
    for line in lines:
        if not line.strip() and paragraph:
            break
        if line.strip():
            paragraph.append(line.strip())
    return " ".join(paragraph) or "(no docstring)"


def _overview():
    """One table per group: each name, linked to its entry, and its summary."""
    lines = []
    for heading, names in _public_names():
        lines += [heading, "-" * len(heading), "", ".. list-table::", "   :widths: 25 75", ""]
        for name in names:
            lines += [f"   * - :py:obj:`~balsa.{name}`", f"     - {_summary(getattr(balsa, name))}"]
        lines.append("")
    return "\n".join(lines)


def _is_extension_function(obj):
    return type(obj).__name__ == "nb_func"


def _extension_functions():
    """The extension's functions in balsa.__all__ (nanobind's nb_func):
    automodule passes over them (inspect does not count them as routines), so
    index.rst names them one by one; their signature is their docstring's
    first line."""
    names = [name for name in balsa.__all__ if _is_extension_function(getattr(balsa, name))]
    return "\n".join(f".. autofunction:: balsa.{name}" for name in names) + "\n"


def _fill_overview(app, docname, source):
    if docname == "index":
        source[0] = source[0].replace(".. balsa-overview::", _overview())
        source[0] = source[0].replace(".. balsa-extension-functions::", _extension_functions())


def _drop_signature_line(app, what, name, obj, options, lines):
    """An extension function's docstring starts with its signature (which
    autodoc has read by then): the summary is the line after it."""
    if _is_extension_function(obj) and lines and lines[0].startswith(obj.__name__ + "("):
        del lines[: 2 if len(lines) > 1 and not lines[1].strip() else 1]


def setup(app):
    app.connect("source-read", _fill_overview)
    app.connect("autodoc-process-docstring", _drop_signature_line)
