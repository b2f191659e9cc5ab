"""Builders shared by the tests, from test_scoring_xdist.py."""

from __future__ import annotations

WATCH_CONFTEST = """
import os
import sys

def pytest_configure(config):
    wid = getattr(config, "workerinput", {}).get("workerid")
    if wid is None:
        return
    watched, log = os.environ["OMFC_WATCH"], os.path.join(os.environ["OMFC_LOG"], wid + ".txt")
    open(log, "w").close()

    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, os.PathLike)) and os.fspath(args[0]).startswith(watched):
            mode, flags = args[1], args[2]
            if not ((mode and any(c in mode for c in "wax+")) or (mode is None and flags & (os.O_WRONLY | os.O_RDWR))):
                return
        elif not (event == "os.mkdir" and os.fspath(args[0]).startswith(watched)):
            return
        with open(log, "a") as fh:  # outside the watched directory: no recursion
            fh.write(event + " " + os.fspath(args[0]) + "\\n")

    sys.addaudithook(hook)
"""
