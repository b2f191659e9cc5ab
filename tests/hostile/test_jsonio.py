"""pytest_omfc.jsonio: the bounded reader reads what the file holds, and sees a file that grows past the limit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pytest_omfc import jsonio
from pytest_omfc.jsonio import JsonProblem, load_json

DOC = b'{"nodes": [' + b", ".join(b'{"id": "%d"}' % i for i in range(20)) + b"]}"


def _stat_says(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """``os.stat`` in the reader reports ``size`` bytes: the file grew by the time it is read."""
    real = os.stat

    def stat(path: Any, *args: Any, **kw: Any) -> os.stat_result:
        st = real(path, *args, **kw)
        fields = list(st)
        fields[6] = size  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(jsonio.os, "stat", stat)


def test_a_file_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_bytes(DOC)
    assert len(load_json(tmp_path / "g.json")["nodes"]) == 20


def test_a_file_that_grew_since_its_size_was_taken_is_read_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "g.json").write_bytes(DOC)
    _stat_says(monkeypatch, 10)
    assert len(load_json(tmp_path / "g.json", max_bytes=len(DOC))["nodes"]) == 20  # all of it, not 11 bytes
    with pytest.raises(JsonProblem, match="got a file that grew past it"):
        load_json(tmp_path / "g.json", max_bytes=len(DOC) - 1)


def test_a_read_allocates_the_file_not_the_limit(tmp_path: Path) -> None:
    """A 64 MiB limit does not make every read of a small file allocate 64 MiB (it did, then shrank)."""
    import tracemalloc

    (tmp_path / "g.json").write_bytes(DOC)
    tracemalloc.start()
    try:
        load_json(tmp_path / "g.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak
