"""Near-miss hints for unknown IDs (FNET-04): when every unknown ID of a submission is a reference ID with one
fixed prefix cut off or added, or is the last path component of reference IDs, the finding says so, naming the
writer's habit, instead of listing IDs a participant cannot place.

Seen in the field: BMN, BSN and mmaction2 cut ActivityNet's ``v_`` from every video key, so a result keyed
``abc`` stands for the reference's ``v_abc``; UMMAFormer keys by file name, and every ForgeryNet video is
``.../video.mp4``, so all its keys collapse to ``video.mp4``.  The check reads at most :data:`SAMPLE` unknown IDs
and scans the reference IDs once, so a million-ID reference costs a fraction of a second, and only when there
are unknown IDs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

__all__ = ["SAMPLE", "near_miss"]

#: unknown IDs checked against the reference (all of them must fit one explanation)
SAMPLE = 200


def _who_cuts(prefix: str) -> str:
    """Who is known to cut ``prefix`` from IDs."""
    if prefix == "v_":
        return "BMN, BSN and mmaction2 cut ActivityNet's 'v_' from every video key"
    if set(prefix) == {"0"}:
        return "leading zeros were dropped (a spreadsheet or a number parse reads such IDs as numbers)"
    return "the results were written with that prefix cut"


def _quoted(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def near_miss(unknown: Sequence[str], reference: Sequence[str]) -> str | None:
    """Why the unknown IDs are unknown, when one explanation fits every one of the first :data:`SAMPLE` of them:
    a fixed prefix cut from reference IDs, a fixed prefix added to them, or reference IDs cut to their last
    path component; else None."""
    sample = list(dict.fromkeys(unknown[:SAMPLE]))
    if not sample or not reference:
        return None
    known = set(reference)
    first = sample[0]
    # the last path component only (checked first: a path's folders are no fixed prefix to cut)
    if all("/" not in u and "\\" not in u for u in sample):
        names = Counter(r.replace("\\", "/").rsplit("/", 1)[-1] for r in reference if "/" in r or "\\" in r)
        if names and all(u in names for u in sample):
            shared = max(names[u] for u in sample)
            return (
                f"every unknown ID is the file name of reference IDs, without their folders (e.g. {_quoted(first)}, "
                f"the last part of {names[first]} reference ID{'s' if names[first] != 1 else ''}"
                + (
                    f"; up to {shared} reference IDs share one such name, so they cannot be told apart"
                    if shared > 1
                    else ""
                )
                + "): key the results by the full path, as the reference does"
            )
    # leading zeros dropped: 0042 read as the number 42
    if all(u.isdigit() for u in sample):
        unpadded = {r.lstrip("0"): r for r in reference if r[:1] == "0" and r.isdigit()}
        if all(u in unpadded for u in sample):
            return (
                f"every unknown ID is a reference ID without its leading zeros (e.g. {_quoted(first)} for "
                f"{_quoted(unpadded[first])}): {_who_cuts('0')}; key the results as the reference does"
            )
    # a prefix cut off: some reference ID is <prefix><first>
    for r in reference:
        if len(r) > len(first) and r.endswith(first):
            prefix = r[: len(r) - len(first)]
            if all(prefix + u in known for u in sample):
                return (
                    f"every unknown ID is a reference ID without its first {len(prefix)} characters "
                    f"{_quoted(prefix)} (e.g. {_quoted(first)} for {_quoted(r)}): {_who_cuts(prefix)}; key the "
                    "results as the reference does"
                )
            break
    # a prefix added: <prefix><reference ID>
    for r in reference:
        if len(first) > len(r) and first.endswith(r):
            prefix = first[: len(first) - len(r)]
            if all(u.startswith(prefix) and u[len(prefix) :] in known for u in sample):
                return (
                    f"every unknown ID is a reference ID with {_quoted(prefix)} put before it (e.g. {_quoted(first)} "
                    f"for {_quoted(r)}): key the results as the reference does"
                )
            break
    return None
