"""The compiled extension: inside an installed package ``balsa._balsa``; in
the build tree (tests) a top-level ``_balsa`` found on ``sys.path``."""

try:
    from . import _balsa as core  # noqa: F401
except ImportError:  # pragma: no cover - the build tree's layout
    import _balsa as core  # noqa: F401
