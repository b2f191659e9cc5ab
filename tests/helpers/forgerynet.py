"""Helpers of the ForgeryNet tests (issue 12): write a reference and a submission, run the plugin in-process."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from helpers.runs import RunOutcome, psv, write_file

TASK_FILE = {"image-classification": "csv", "video-classification": "csv", "spatial": "csv", "temporal": "json"}


def png_bytes(pixels: np.ndarray, mode: str = "L") -> bytes:
    """A PNG of ``pixels`` (uint8 2-D for mode L, bool for mode 1, (h, w, 3) for RGB) written by Pillow."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels, mode=None).convert(mode).save(buf, format="PNG")
    return buf.getvalue()


@dataclass
class FnetRun:
    outcome: RunOutcome
    metrics: dict[str, Any] | None

    def entry(self) -> dict[str, Any]:
        assert self.metrics is not None, "no metrics JSON was written"
        (entry,) = self.metrics["results"]
        return entry


class Fnet:
    """``fnet.case(task, reference=..., submission=...)`` writes ``dataset/<ref>`` and ``p-test_1/p-test_1.<ext>``."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.root = pytester.path

    def write(self, rel: str, content: str | bytes) -> Path:
        return write_file(self.root, rel, content)

    def case(
        self,
        task: str,
        *,
        reference: Any,
        submission: Any,
        files: dict[str, str | bytes] | None = None,
        ref_files: dict[str, str | bytes] | None = None,
        sub_id: str = "p-test_1",
    ) -> FnetCase:
        """``reference``/``submission``: (header, rows) for CSV tasks, a dict (dumped) or text for JSON ones."""
        ext = TASK_FILE[task]

        def text(value: Any) -> str | bytes:
            if isinstance(value, (str, bytes)):
                return value
            if isinstance(value, tuple):
                return psv(*value)
            return json.dumps(value)

        ref = self.write(f"dataset/ref.{ext}", text(reference))
        sub = self.root / sub_id
        sub.mkdir(parents=True, exist_ok=True)
        if submission is not None:
            self.write(f"{sub_id}/{sub_id}.{ext}", text(submission))
        for rel, content in (files or {}).items():
            self.write(f"{sub_id}/{rel}", content)
        for rel, content in (ref_files or {}).items():
            self.write(f"dataset/{rel}", content)
        return FnetCase(self.pytester, task, sub, ref)


@dataclass
class FnetCase:
    pytester: pytest.Pytester
    task: str
    submission: Path
    reference: Path

    def args(self, *extra: str) -> list[str]:
        return [
            "--omfc-submission",
            str(self.submission),
            "--omfc-edition",
            "ForgeryNet",
            "--omfc-task",
            self.task,
            "--omfc-dataset",
            str(self.reference.parent),
            "--omfc-reference",
            self.reference.name,
            *extra,
        ]

    def run(self, *extra: str) -> FnetRun:
        out = self.pytester.path / "metrics.json"
        if out.exists():
            out.unlink()
        rec = self.pytester.inline_run(*self.args(*extra), "--omfc-metrics-json", str(out), "-p", "no:cacheprovider")
        reports: dict[str, tuple[str, str]] = {}
        props: dict[str, list[tuple[str, Any]]] = {}
        for rep in rec.getreports("pytest_runtest_logreport"):
            rid = rep.nodeid.rsplit("::", 1)[-1]
            if rid.startswith("score::") or "::score::" in rep.nodeid:
                rid = "score::" + rep.nodeid.rsplit("::score::", 1)[-1]
            if rep.when == "call" or (rep.when == "setup" and rep.outcome != "passed"):
                text = ""
                if rep.failed:
                    text = str(rep.longrepr)
                elif rep.skipped:
                    text = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
                    text = text.removeprefix("Skipped: ")
                reports[rid] = (rep.outcome, text)
                props[rid] = list(rep.user_properties)
        metrics = json.loads(out.read_text()) if out.exists() else None
        return FnetRun(RunOutcome(ret=int(rec.ret), reports=reports, props=props), metrics)
