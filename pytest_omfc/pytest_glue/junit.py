"""JUnit testcase names a portal can predict: the rule ID, the scorer and query, the gate text.

pytest names a JUnit testcase by parsing the item's node ID back into a path, names and parameters.  The node
ID of a plugin item holds user text (the submission folder's name, an EXPID, a gate such as
``detection[all]:AUC>=0.7``), and the parse differs between pytest versions: pytest 9.2 takes everything after
the first ``[`` of the names as parameters, so that gate became the testcase ``detection[all]:AUC>=0.7]`` and a
rule of a submission folder named ``s[1]`` the testcase ``SUB-10]``; earlier versions cut at the first ``[`` of
the whole node ID.  So each plugin item states its testcase's name and classname itself (``junit_name``), the
report carries them (an extra attribute of the report, which xdist sends to the controller with the rest), and
the process that writes the XML sets them (:func:`~.compat.name_testcase`):

* ``name``: the rule ID (``MASK-04[1/4]`` for a slice), ``detection`` or ``detection[q1]`` for a score item,
  the gate text (blanks removed) for a gate;
* ``classname``: the node ID before that name, its path part dotted as pytest does (``/`` to ``.``) and each
  ``::`` read as ``.``: ``<SubID>.<SubID>``, ``<SubID>.<SubID>.score``, ``<SubID>.<SubID>.require``,
  ``<package>.<EXPID>`` (``--junit-prefix`` goes first, as pytest puts it).
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

import pytest

from .compat import name_testcase

__all__ = ["JunitNames", "REPORT_ATTRIBUTE", "testcase_names"]

#: The report attribute holding ``[classname, name]`` (a list: it crosses xdist's JSON).
REPORT_ATTRIBUTE = "omfc_junit"
_NAMES = "_omfc_junit_names"  # the item's testcase names, kept on the item


def testcase_names(item: pytest.Item) -> tuple[str, str] | None:
    """``(classname, name)`` of a plugin item (one with a ``junit_name``), None for any other item."""
    name = getattr(item, "junit_name", None)
    if not isinstance(name, str) or not item.name.endswith(name) or item.parent is None:
        return None
    head = item.name[: len(item.name) - len(name)].removesuffix("::").replace("%3A%3A", "::")
    path, *names = item.parent.nodeid.replace("%3A%3A", "::").split("::")  # a folder's "::" (state.node_text)
    path = re.sub(r"\.py$", "", path.replace("/", "."))
    parts = [path, *names, *(head.split("::") if head else [])]
    return ".".join(p for p in parts if p), name


class JunitNames:
    """Puts each plugin item's testcase names on its reports and into the JUnit XML being written."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        names = item.__dict__.get(_NAMES)  # made once per item, not once per phase (a package has 47,000 items)
        if names is None:
            got = testcase_names(item)
            names = item.__dict__[_NAMES] = list(got) if got is not None else []
        if names:
            setattr(report, REPORT_ATTRIBUTE, names)
        return report

    @pytest.hookimpl(tryfirst=True)  # before pytest's junitxml records the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        names = getattr(report, REPORT_ATTRIBUTE, None)
        if isinstance(names, list) and len(names) == 2:
            name_testcase(self.config, report, str(names[0]), str(names[1]))
