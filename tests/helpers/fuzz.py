"""Helpers for tests/hostile/test_fuzz.py: valid base submissions, a capped pytest runner, the properties.

Starting a Python interpreter with pandas, h5py and the plugin costs about a second, far more
than validating a tiny submission.  So the fuzz tests run the plugin in one long-lived
*runner* subprocess: it reads a JSON request per line (pytest arguments), runs
``pytest.main`` on them in-process with its file descriptors 1 and 2 sent to a file, and
answers with the exit code, the output and the peak RSS of that run (VmHWM, reset before
each run through ``/proc/self/clear_refs``).  The runner lives under an address-space cap
(RLIMIT_AS), so a memory bomb in a generated submission fails one example instead of the
machine; a run that exceeds the time limit, or kills the runner, is reported as such and a
fresh runner is started for the next request.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

import pytest_omfc

# Hypothesis profiles of every test module (loaded here, with the fixtures, so that a fuzz module run alone
# gets them too; before, tests/hostile/test_fuzz.py loaded them at import and a lone module had a 200 ms deadline).
_COMMON: dict[str, Any] = {
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
#: CI: deterministic and bounded; no shrinking (it may take minutes), the failing example is printed as found.
settings.register_profile(
    "default",
    max_examples=12,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    **_COMMON,
)
#: Hunting: random, shrinking, with an example database outside the repository so a failure is replayed first
#: next time; it leaves the explicit examples (the issue's known cases) to the default profile, so that on a
#: build that still fails them the generated examples are explored all the same.
settings.register_profile(
    "deep",
    max_examples=400,
    phases=[Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    database=DirectoryBasedExampleDatabase(
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pytest-omfc-hypothesis"
    ),
    **_COMMON,
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
settings.load_profile(PROFILE)
#: examples of the (costly: one -n 2 subprocess each) xdist comparison
XDIST_EXAMPLES = {"default": 2, "deep": 30}.get(PROFILE, 2)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
#: the checkout whose plugin is under test (PYTHONPATH may point at a worktree)
CODE_ROOT = Path(pytest_omfc.__file__).resolve().parents[1]

MB = 1 << 20
#: Address-space cap of every run (pytest + pandas + h5py take ~250 MB of it).
CAP_BYTES = 1536 * MB
#: Peak resident memory a run of a tiny generated submission may reach.
PEAK_LIMIT_MB = 600
#: Seconds a run of a tiny generated submission may take.
RUN_TIMEOUT = 30.0

#: Output that means the plugin broke rather than judged.
CRASH_MARKS = ("Traceback", "INTERNALERROR", "please report this as a pytest-omfc bug", "MemoryError")


# ------------------------------------------------------------------ base submissions


@dataclass
class Built:
    """A generated case: its root (a temp dir of its own), submission directory and index."""

    root: Path
    submission: Path
    index: Path

    @property
    def csv(self) -> Path:
        return self.submission / f"{self.submission.name}.csv"

    def args(self) -> list[str]:
        return [f"--omfc-submission={self.submission}", f"--omfc-index={self.index}"]


def _copy_example(root: Path, family: str, sub_id: str, index_rel: str) -> Built:
    shutil.copytree(EXAMPLES / "submissions" / family / sub_id, root / sub_id)
    index = root / "dataset" / "indexes" / Path(index_rel).name
    index.parent.mkdir(parents=True)
    shutil.copyfile(EXAMPLES / index_rel, index)
    return Built(root, root / sub_id, index)


IMDL_MASK = "mask/OpenMFC2020_0101-mask.png"
VIDEO_MASK = "mask/MFC2019_1094-mask.hdf5"


def imdl(root: Path) -> Built:
    """The valid OpenMFC2020 IMDL example: 4 probes of 64x48, two PNG masks."""
    return _copy_example(
        root, "imdl", "p-baseline_3_imdl", "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"
    )


def video(root: Path) -> Built:
    """The valid MFC2019 manipulation-video example: 4 probes, one HDF5 mask (VMASK, D-15)."""
    return _copy_example(
        root, "mfc19-video", "p-baseline_3_video", "datasets/MFC2019/indexes/MFC2019-manipulation-video-index.csv"
    )


PROV_DESCRIPTION = """\
Section 1 Submission Identifier(s)
p-fuzz_1

Section 2 System Description
A fuzzing base system that returns a fixed provenance result.

Section 3 OptOut Criteria
None; NonProcessed marks probes the system could not decode.

Section 4 System Hardware Description and Runtime Computation
1 CPU core, 1 second; no world index; 50 MB resident memory.

Section 5 Training Data and Knowledge Sources
None.

Section 6 References
None.
"""

PROV_PROBES = ("P1", "P2")
PROV_TASKS = {"filtering": "provenancefiltering", "graph": "provenance"}


def prov_node(fid: str, i: int) -> dict[str, Any]:
    return {"id": f"n{i}", "file": f"world/{fid}.jpg", "fileid": fid, "nodeConfidenceScore": 0.5}


def prov_doc(kind: str, probe: str) -> dict[str, Any]:
    """A valid MFC2019 provenance JSON: a filtering result, or the graph W1 -> W2 -> probe."""
    if kind == "filtering":
        return {"directed": True, "nodes": [prov_node(probe, 0)] + [prov_node(f"W{i}", i) for i in range(1, 6)]}
    return {
        "directed": True,
        "nodes": [prov_node("W1", 0), prov_node("W2", 1), prov_node(probe, 2)],
        "links": [
            {"source": 0, "target": 1, "relationshipConfidenceScore": 0.9, "operation": "Crop"},
            {"source": 1, "target": 2, "relationshipConfidenceScore": 0.8},
        ],
    }


def provenance(root: Path, kind: str, first_json: bytes | None = None) -> Built:
    """An MFC2019 provenance (``kind`` 'filtering' or 'graph') submission of two probes; the first
    probe's JSON is ``first_json`` when given."""
    task = PROV_TASKS[kind]
    index = root / "dataset" / "indexes" / f"MFC2019-{task}-index.csv"
    index.parent.mkdir(parents=True)
    rows: list[list[Any]] = [
        ["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName", "ProvenanceProbeWidth", "ProvenanceProbeHeight"]
    ]
    index.write_text(_psv(rows + [[task, p, f"world/{p}.jpg", 640, 480] for p in PROV_PROBES]))
    world: list[list[Any]] = [["TaskID", "WorldFileID", "WorldFileName", "WorldWidth", "WorldHeight"]]
    world += [[task, f"W{i}", f"world/W{i}.jpg", 10, 10] for i in range(1, 20)]
    (index.parent / f"MFC2019-{task}-world.csv").write_text(_psv(world))
    sub = root / "p-fuzz_1"
    (sub / "jsons").mkdir(parents=True)
    out: list[list[Any]] = [["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]]
    out += [[p, f"jsons/{p}.json", "Processed"] for p in PROV_PROBES]
    (sub / "p-fuzz_1.csv").write_text(_psv(out))
    (sub / "p-fuzz_1.txt").write_text(PROV_DESCRIPTION)
    for p in PROV_PROBES:
        (sub / "jsons" / f"{p}.json").write_text(json.dumps(prov_doc(kind, p), indent=1))
    if first_json is not None:
        (sub / "jsons" / f"{PROV_PROBES[0]}.json").write_bytes(first_json)
    return Built(root, sub, index)


def _psv(rows: list[list[Any]]) -> str:
    return "".join("|".join(str(v) for v in r) + "\n" for r in rows)


# ------------------------------------------------------------------ "nothing written"


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Mode, size and mtime of ``root`` and everything under it, symlinks not followed."""
    out = {}
    for p in [root, *sorted(root.rglob("*"))]:
        st = p.lstat()
        out[str(p)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


# ------------------------------------------------------------------ the runner

_RUNNER = textwrap.dedent("""
    import json, os, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
    import pytest
    import pytest_omfc.plugin
    pytest_omfc.plugin.preload()  # imported once, before the first request

    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    for line in sys.stdin:
        req = json.loads(line)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM: the peak RSS of this run only
        with open(req["out"], "wb") as out:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(out.fileno(), 1); os.dup2(out.fileno(), 2)
            os.chdir(req["cwd"])
            try:
                exec(req.get("exec", ""), {})  # the harness's own test puts a bomb or a hang here
                rc = int(pytest.main(req["args"]))
            except BaseException as exc:  # a crash of pytest itself: report, keep serving
                print(f"Traceback: runner caught {type(exc).__name__}: {exc}")
                rc = -1
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(devnull, 1); os.dup2(devnull, 2)
        hwm = next((int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")), 0)
        proto.write(json.dumps({"rc": rc, "peak_kb": hwm}) + "\\n")
""")


@dataclass
class RunResult:
    """One plugin run: ``status`` is 'exited', 'timed out' or 'runner died (...)'."""

    status: str
    rc: int | None
    output: str
    peak_mb: float
    seconds: float


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(CODE_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # only the plugins named on the command line
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


#: Sets the cap, then becomes the command: unlike ``preexec_fn``, safe in a threaded parent (xdist workers).
_CAPPED = (
    "import os, resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_AS, (n, n)); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
)


def capped(args: list[str]) -> list[str]:
    """``python args...`` under the address-space cap."""
    return [sys.executable, "-c", _CAPPED, str(CAP_BYTES), *args]


def base_args(built: Built) -> list[str]:
    """Plugin arguments, isolated from any ini file: our own empty ini and rootdir beside the case."""
    ini = built.root / "isolated.ini"
    if not ini.exists():
        ini.write_text("[pytest]\n")
    return [
        "-p",
        "pytest_omfc.plugin",
        "-p",
        "no:cacheprovider",
        "-c",
        str(ini),
        f"--rootdir={built.root}",
        "-q",
        "-rA",
        *built.args(),
    ]


class Runner:
    """The long-lived capped pytest runner (see the module docstring)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.runs = 0

    def _start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _RUNNER, str(CAP_BYTES)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=_env(),
            )
            self.runs = 0
        return self.proc

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def run(self, built: Built, *extra: str, timeout: float = RUN_TIMEOUT, exec_first: str = "") -> RunResult:
        if self.runs >= 200:  # bound whatever a long session accumulates
            self.close()
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        out = built.root / "run-output.txt"
        t0 = time.perf_counter()
        proc.stdin.write(
            json.dumps(
                {"args": [*base_args(built), *extra], "cwd": str(built.root), "out": str(out), "exec": exec_first}
            )
            + "\n"
        )
        proc.stdin.flush()
        self.runs += 1
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        line = proc.stdout.readline() if ready else ""
        seconds = time.perf_counter() - t0
        text = out.read_text(errors="replace") if out.exists() else ""
        if not ready:
            self.close()
            return RunResult("timed out", None, text, float("nan"), seconds)
        if not line:
            code = proc.wait()
            self.close()
            return RunResult(f"runner died (exit {code})", None, text, float("nan"), seconds)
        reply = json.loads(line)
        return RunResult("exited", reply["rc"], text, reply["peak_kb"] / 1024, seconds)


def run_xdist(built: Built, *extra: str, timeout: float = 120.0) -> RunResult:
    """The same run as a capped ``-n 2`` subprocess (workers inherit the cap); its peak RSS is the
    largest of the controller and its workers (``os.wait4``'s rusage)."""
    cmd = capped(["-m", "pytest", "-p", "xdist.plugin", "-n", "2", *base_args(built), *extra])
    out = built.root / "xdist-output.txt"
    with out.open("wb") as sink:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=built.root,
            env=_env(),
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        timer = threading.Timer(timeout, os.killpg, (proc.pid, signal.SIGKILL))  # our own session only
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        seconds = time.perf_counter() - t0
    proc.returncode = rc = os.waitstatus_to_exitcode(status)
    text = out.read_text(errors="replace")
    if rc == -signal.SIGKILL and seconds >= timeout:
        return RunResult("timed out", None, text, float("nan"), seconds)
    return RunResult("exited", rc, text, usage.ru_maxrss / 1024, seconds)


# ------------------------------------------------------------------ properties


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(line[:300] for line in text.splitlines()[-lines:])


def assert_properties(
    res: RunResult, before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]
) -> None:
    """The run judged the submission: it ended in time, exited 0 or 1, printed no crash, stayed
    within the memory limit and wrote nothing into the submission."""
    assert res.status == "exited", f"the run {res.status} after {res.seconds:.1f} s:\n{_tail(res.output)}"
    assert res.rc in (0, 1), f"exit code must be 0 or 1 (got {res.rc}):\n{_tail(res.output)}"
    marks = [m for m in CRASH_MARKS if m in res.output]
    hits = "\n".join(line[:300] for line in res.output.splitlines() if any(m in line for m in marks))
    assert not marks, f"the output has {marks}:\n{hits}\n...\n{_tail(res.output, 3)}"
    assert res.peak_mb < PEAK_LIMIT_MB, f"peak RSS must stay under {PEAK_LIMIT_MB} MB (got {res.peak_mb:.0f} MB)"
    assert after == before, f"the run wrote into the submission: {sorted(set(after.items()) ^ set(before.items()))[:5]}"


def verdicts(junit: Path) -> dict[str, tuple[str, str, bool]]:
    """Item name -> (outcome, first line of the message, has a warning) from a JUnit XML file."""
    out: dict[str, tuple[str, str, bool]] = {}
    for tc in ET.parse(junit).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = tc.find(tag)
            if node is not None:
                outcome, message = tag, (node.get("message") or "").split("\n", 1)[0]
        warned = any(p.get("name") == "omfc.warning" for p in tc.iter("property"))
        out[tc.get("name", "")] = (outcome, message, warned)
    slices: dict[str, list[tuple[str, str, bool]]] = {}  # a sliced rule's items also under its ID
    for name, verdict in out.items():
        if name.endswith("]") and "[" in name:
            slices.setdefault(name.split("[", 1)[0], []).append(verdict)
    for base, parts in slices.items():
        worst = next((v for tag in ("failure", "error", "passed") for v in parts if v[0] == tag), parts[0])
        out[base] = (worst[0], worst[1], any(v[2] for v in parts))
    return out


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    r = Runner()
    yield r
    r.close()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Path]:
    """A new empty directory per example (module-scoped: hypothesis reuses function fixtures)."""
    return lambda: tmp_path_factory.mktemp("fuzz")
