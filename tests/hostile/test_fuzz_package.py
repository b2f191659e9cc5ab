"""Hypothesis names the folders of an NC2017 package (PKG-10): whatever the names, telling a package, an
EXPID's task and a package name's problem never raises, and a folder is an EXPID exactly when it holds
``<name>/<name>.csv`` as a regular file (never through a link)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_omfc.models.identifiers import expid_task, package_problem
from pytest_omfc.package import find_package

pytestmark = pytest.mark.fuzz

#: Folder names a file system takes: no '/', no NUL, not '.' or '..', at most 100 bytes of UTF-8.
NAMES = st.text(
    st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)), min_size=1, max_size=40
).filter(lambda n: n not in (".", "..") and len(n.encode()) <= 100) | st.sampled_from(
    ["NIST_NC17_DRYRUN17_Splice_VidMeta_p-x_1", "A_B_C_manipulation_vidonly_p-y_2", "a_b_c_1"]
)


@given(name=NAMES)
def test_names_never_raise(name: str) -> None:
    task = expid_task(name)
    assert task is None or len(name.split("_")) == 7
    problem = package_problem(name)
    assert problem is None or isinstance(problem, str)


@settings(max_examples=40, deadline=None)
@given(entries=st.lists(st.tuples(NAMES, st.sampled_from(["expid", "folder", "file", "link"])), max_size=6))
def test_a_folder_is_an_expid_exactly_when_it_holds_its_own_csv(entries: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = Path(tmp) / "pkg", Path(tmp) / "outside"
        root.mkdir()
        outside.mkdir()
        made: dict[str, str] = {}
        for name, kind in entries:
            if name in made:
                continue
            path = root / name
            if kind == "expid":
                path.mkdir()
                (path / f"{name}.csv").write_text("ProbeFileID|ConfidenceScore\n")
            elif kind == "folder":
                path.mkdir()
            elif kind == "file":
                path.write_text("x")
            else:  # a link to a folder holding <name>/<name>.csv: never followed
                (outside / name).mkdir(exist_ok=True)
                (outside / name / f"{name}.csv").write_text("x")
                os.symlink(outside / name, path)
            made[name] = kind
        found = find_package(root)
        expids = sorted(n for n, k in made.items() if k == "expid")
        if not expids:
            assert found is None
        else:
            assert found is not None and list(found.expids) == expids
            assert sorted(found.others) == sorted(n for n, k in made.items() if k != "expid")
