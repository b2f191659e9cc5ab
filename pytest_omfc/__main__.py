"""``python -m pytest_omfc``: the isolated entry point (see :mod:`pytest_omfc.cli`).

``python -m`` puts the current directory first on ``sys.path``; it is taken
off before anything else is imported, so a module lying in the directory the
command is started from (say, an uploaded ``numpy.py``) is never imported
instead of the real one.  The package's own ``__init__`` is imported before
this file runs: start from a directory you trust, or use ``python -P -m
pytest_omfc`` or the ``pytest-omfc`` script.
"""

from __future__ import annotations

import os
import sys

if not getattr(sys.flags, "safe_path", False) and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from pytest_omfc.cli import run  # noqa: E402  (after the sys.path fix)

if __name__ == "__main__":
    run()
