"""MASK-04's inflating started during the header pass (rules/mask.py ``_Early``): the same verdicts, less wall time.

When the run plans MASK-04 in this process, the header pass reads the mask headers in chunks and sends each
chunk's files of the index size to a pool while it reads the next chunk; MASK-04 and MASK-08 then take the
verdicts in.  The tests force it on small cases (one inflated byte makes the work worth a pool, one file a
chunk) and compare every rule's outcome with the run that inflates later, as before:

* good, all-black, damaged-stream and wrong-size masks and an excused row: identical outcomes, and the
  excused and wrong-size files are never sent;
* two names of one file (a hard link) are sent once;
* a run that deselects MASK-04 never starts the pool (MASK-08 scans on its own and still warns);
* on a dask cluster, chunks found while it starts wait for it, and a worker's "unusable" is read here.

The inner runs are single processes (the outer suite's xdist worker variables are removed: an xdist worker
inflates only its own slice and never starts early).
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from helpers.masks import IDS, IMG_IDX, IMG_OUT, H, W, pil_png, raw_png

from pytest_omfc import png
from pytest_omfc.rules import mask as mask_rules
from pytest_omfc.work import executors


@pytest.fixture
def early(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Force the early inflating on small cases; the names of the files each chunk sent, in order."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(mask_rules, "SCANS_PER_JOB", 1)
    monkeypatch.setattr(mask_rules, "EARLY_CHUNK", 1)
    sent: list[list[str]] = []
    add = mask_rules._Early.add

    def spy(self: Any, paths: list[str], heads: list[Any]) -> None:
        before = len(self.sent)
        add(self, paths, heads)
        if len(self.sent) > before:  # a task went to the pool: the names of its files
            sent.append([os.path.basename(item[0]) for item in self.sent[-1][0]])

    monkeypatch.setattr(mask_rules._Early, "add", spy)
    return sent


def _case(omfc: Any, files: dict[str, bytes], masks: dict[str, str], statuses: dict[str, str]) -> Any:
    ids = sorted(masks)
    rows = [[i, 0.5, masks[i], statuses.get(i, "Processed"), ""] for i in ids]
    return omfc.case(
        "OpenMFC2020",
        "IMDL",
        header=IMG_OUT,
        rows=rows,
        index_header=IMG_IDX,
        index_rows=[["IMDL", i, f"probe/{i}.jpg", W, H] for i in ids],
        files=files,
    )


def _outcomes(res: Any) -> dict[str, tuple[str, str]]:
    return dict(res.reports)


def _warned(res: Any, rule_id: str) -> str:
    """Every warning text of a rule, its slices' together."""
    return "\n".join(str(v) for n, v in res.props.get(rule_id, []) if n == "omfc.warning")


def test_the_early_inflating_gives_every_rule_the_same_outcome(
    omfc: Any, early: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "mask/good.png": pil_png(),
        "mask/black.png": raw_png(fill=0),
        "mask/damaged.png": raw_png(idat=b"\x78\x9cthis is not deflate"),
        "mask/wide.png": raw_png(W + 1, H),  # MASK-06: never inflated
        "mask/excused.png": raw_png(fill=0),  # a FailedValidation row: never looked at (STATUS-08)
    }
    masks = {"0001": "mask/good.png", "0002": "mask/black.png", "0003": "mask/damaged.png"}
    masks |= {"0004": "mask/wide.png", "0005": "mask/excused.png"}
    case = _case(omfc, files, masks, {"0005": "FailedValidation"})
    inflated_later: list[int] = []
    spread = mask_rules._spread

    def counting(ctx: Any, fn: Any, items: list[Any], **kw: Any) -> Any:
        inflated_later.append(len(items))
        return spread(ctx, fn, items, **kw)

    monkeypatch.setattr(mask_rules, "_spread", counting)
    started = case.run("--omfc-jobs", "2")
    assert inflated_later == []  # MASK-04 and MASK-08 took every verdict from the early pool
    assert sorted(name for chunk in early for name in chunk) == ["black.png", "damaged.png", "good.png"]
    assert started.outcome("MASK-04") == "failed" and "damaged.png" in started.text("MASK-04")
    assert "black.png" in _warned(started, "MASK-08") and "excused" not in _warned(started, "MASK-08")
    assert started.outcome("MASK-06") == "failed" and "wide.png" in started.text("MASK-06")
    early.clear()
    monkeypatch.setattr(mask_rules, "_early", lambda *args: None)  # inflate later, as before
    later = case.run("--omfc-jobs", "2")
    assert early == [] and inflated_later == [3]
    assert _outcomes(later) == _outcomes(started)
    assert {r: _warned(later, r) for r in later.reports} == {r: _warned(started, r) for r in started.reports}


def test_two_names_of_one_file_are_sent_once(omfc: Any, early: list[list[str]]) -> None:
    case = _case(omfc, {"mask/a.png": raw_png(fill=0)}, {i: "mask/a.png" for i in IDS}, {})
    linked = case.submission / "mask" / "b.png"
    os.link(case.submission / "mask" / "a.png", linked)
    case = _case(omfc, {}, {IDS[0]: "mask/a.png", IDS[1]: "mask/b.png", IDS[2]: "mask/a.png"}, {})
    res = case.run("--omfc-jobs", "2")
    assert len([name for chunk in early for name in chunk]) == 1  # the first chunk; the link's chunk sends none
    assert _warned(res, "MASK-08").count("should be white (255)") == 3  # every name, the link's too


def test_a_run_without_mask04_never_starts_the_early_pool(
    omfc: Any, early: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    init = mask_rules._Early.__init__

    def counting(self: Any, *args: Any) -> None:
        started.append(1)
        init(self, *args)

    monkeypatch.setattr(mask_rules._Early, "__init__", counting)
    files = {"mask/black.png": raw_png(fill=0), "mask/black2.png": raw_png(fill=0)}  # two files: worth a pool
    case = _case(omfc, files, {IDS[0]: "mask/black.png", IDS[1]: "mask/black.png", IDS[2]: "mask/black2.png"}, {})
    res = case.run("--omfc-jobs", "2", "-k", "not MASK-04")
    assert started == [] and early == []
    assert "MASK-04" not in res.reports and _warned(res, "MASK-08").count("should be white (255)") == 3
    res = case.run("--omfc-jobs", "2")
    assert started == [1]  # the same case with MASK-04 planned does start it


def test_a_run_that_stops_before_mask04_stops_the_early_pool(
    omfc: Any, early: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-x``: MASK-01 fails (a field that reads as blank) after the header pass started the pool and the run
    stops before MASK-04 takes the verdicts in; the run's end closes the pool (no orphaned processes)."""
    closed: list[bool] = []
    close = mask_rules._Early.close

    def spy(self: Any) -> None:
        closed.append(self.executor is not None and self.executor._pool is not None)
        close(self)

    monkeypatch.setattr(mask_rules._Early, "close", spy)
    masks = {IDS[0]: "mask/black.png", IDS[1]: "mask/black2.png", IDS[2]: "nan"}
    case = _case(omfc, {"mask/black.png": raw_png(fill=0), "mask/black2.png": raw_png(fill=0)}, masks, {})
    res = case.run("--omfc-jobs", "2", "-x")
    assert res.outcome("MASK-01") == "failed" and "MASK-04" not in res.reports
    assert early and closed[0] is True  # the pool was running when the run's end closed it


def test_no_processes_for_the_early_pool_leaves_the_inflating_to_mask04(
    omfc: Any, early: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine that cannot start the early pool (a sandbox, limits): it is tried once, nothing is sent, and
    MASK-04 inflates every file itself with the same verdicts."""
    tries: list[int] = []

    def no_pool(*args: Any, **kw: Any) -> Any:
        tries.append(1)
        raise OSError("no processes here")

    files = {"mask/good.png": pil_png(), "mask/black.png": raw_png(fill=0), "mask/black2.png": raw_png(fill=0)}
    case = _case(omfc, files, {IDS[0]: "mask/good.png", IDS[1]: "mask/black.png", IDS[2]: "mask/black2.png"}, {})
    monkeypatch.setattr(executors, "scoring_pool", no_pool)  # the early pool's only (MASK-04's is map_slices')
    refused = case.run("--omfc-jobs", "2")
    assert tries == [1] and early == []  # three chunks of one file each, one attempt
    monkeypatch.setattr(mask_rules, "_early", lambda *args: None)
    later = case.run("--omfc-jobs", "2")
    assert _outcomes(later) == _outcomes(refused)
    assert _warned(refused, "MASK-08").count("should be white (255)") == 2


def test_chunks_found_while_the_cluster_starts_wait_for_it_and_a_workers_unusable_mask_is_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--omfc-dask`` the chunks go to the check's cluster; those the header pass finds before the cluster
    is ready are kept and sent, in order, once it is (or when MASK-04 takes the verdicts in).  A verdict of
    "unusable" from a worker (which may not see the submission) is left out, so MASK-04 reads that file here."""
    files = {}
    for name, data in (("a", raw_png()), ("b", raw_png(fill=0)), ("c", raw_png(idat=b"\x78\x9cnot deflate"))):
        files[name] = tmp_path / f"{name}.png"
        files[name].write_bytes(data)
    heads = {name: png.read_header(str(path)) for name, path in files.items()}
    state = {"ready": False}
    sent: list[list[str]] = []

    class Cluster:  # the check's cluster as the early inflating sees it: ready or not, one task per chunk
        def __init__(self, **kw: Any) -> None:
            assert kw["dask"] == "tcp://scheduler:8786"

        def ready(self) -> bool:
            return state["ready"]

        def submit(self, fn: Any, items: list[Any]) -> Future[Any]:
            sent.append([os.path.basename(item[0]) for item in items])
            fut: Future[Any] = Future()
            fut.set_result(fn(items))
            return fut

        def close(self) -> None:
            pass

    monkeypatch.setattr(executors, "Executor", Cluster)
    want = {str(path): {(W, H)} for path in files.values()}
    early = mask_rules._Early(want, 1, 1, "tcp://scheduler:8786")
    for name in ("a", "b"):
        early.add([str(files[name])], [heads[name]])
    assert sent == []  # the cluster is starting: nothing waits on it, nothing is lost
    state["ready"] = True
    early.add([str(files["c"])], [heads["c"]])
    assert sent == [["a.png"], ["b.png"], ["c.png"]]  # in the order found, one task per chunk
    got = early.verdicts()
    states = {os.path.basename(item[0]): v.state for item, v in got.items()}
    assert states == {"a.png": png.NOT_BLACK, "b.png": png.BLACK}

    state["ready"] = False  # a cluster never ready before MASK-04: the chunks are sent when it takes them in
    sent.clear()
    early = mask_rules._Early(want, 1, 1, "tcp://scheduler:8786")
    early.add([str(files["a"])], [heads["a"]])
    assert sent == []
    assert [v.state for v in early.verdicts().values()] == [png.NOT_BLACK] and sent == [["a.png"]]
