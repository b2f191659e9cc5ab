"""Journal-driven selection for mask scoring (docs/scoring/masks.md#trial-selection step 4 and 2.3).

``journalData = merge(probejournaljoin, journalmask, how='left', on=[JournalName, StartNodeID, EndNodeID])``.
Without ``-qm`` every row is ``Evaluated='Y'``.  With ``-qm q`` every row starts at ``'N'``; ``q`` is
evaluated on ``merge(trials, journal, on=[ProbeFileID, JournalName])``; only probes with at least one
matching row are scored, and every journal row whose (JournalName, StartNodeID, EndNodeID) matches a
matching row becomes ``'Y'``.  Splice uses ``ProbeEvaluated`` and ``DonorEvaluated``.

The selected colours (manipulation, colour mode) and bit planes (``--jpeg2000``) of one probe are read
from its rows here; the GT itself is built by :mod:`.engine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...errors import SetupError
from ..merge import find_journal_tables, require, select_query

__all__ = ["JOURNAL_KEYS", "Journal", "load_journal"]

JOURNAL_KEYS: tuple[str, ...] = ("JournalName", "StartNodeID", "EndNodeID")


@dataclass(frozen=True)
class Journal:
    """The merged journal (strings, '' for empty) and the names of its Evaluated column(s)."""

    frame: pd.DataFrame
    evaluated: tuple[str, ...]  # ("Evaluated",) or ("ProbeEvaluated", "DonorEvaluated")

    def restrict(self, trials: pd.DataFrame, key: Sequence[str]) -> Journal:
        """The rows of the given trials (by ProbeFileID, and DonorFileID when the journal has it)."""
        on = [k for k in key if k in self.frame.columns]
        wanted = trials[on].drop_duplicates()
        kept = self.frame.merge(wanted, how="inner", on=on, sort=False)
        return Journal(kept.reset_index(drop=True), self.evaluated)

    def select(self, trials: pd.DataFrame, query: str, key: Sequence[str]) -> tuple[Journal, set[tuple[str, ...]]]:
        """Apply ``-qm query``: the journal with its Evaluated columns set, and the keys of the selected trials.

        A query naming a column that neither the trials nor the journal have raises a QueryError.
        """
        frame = self.frame.copy()
        for col in self.evaluated:
            frame[col] = "N"
        on = [c for c in ("ProbeFileID", "JournalName") if c in trials.columns and c in frame.columns]
        if "ProbeFileID" not in on:
            raise SetupError("the probe-journal join table lacks column ProbeFileID, so -qm cannot be applied")
        journal_cols = [c for c in frame.columns if c not in self.evaluated]
        both = trials.merge(frame[journal_cols], how="inner", on=on, sort=False, suffixes=("", "_journal"))
        if both.empty:
            return Journal(frame, self.evaluated), set()
        dedupe = [*key, *(k for k in JOURNAL_KEYS if k in both.columns)]
        matched = select_query(both, query, "qm", dedupe) if not both.empty else both
        matched = matched[matched["IsTarget"] == "Y"] if "IsTarget" in matched.columns else matched
        selected = {tuple(str(v) for v in row) for row in matched[list(key)].itertuples(index=False)}
        triples = {
            tuple(row) for row in matched[[k for k in JOURNAL_KEYS if k in matched.columns]].itertuples(index=False)
        }
        jk = [k for k in JOURNAL_KEYS if k in frame.columns]
        hit = pd.Series([tuple(r) in triples for r in frame[jk].itertuples(index=False)], index=frame.index, dtype=bool)
        for col in self.evaluated:
            frame.loc[hit, col] = "Y"
        return Journal(frame, self.evaluated), selected

    def colours(self) -> dict[str, tuple[str, ...]]:
        """Per probe, the colours of its rows with Evaluated=='Y' and a non-empty Color (2.3, colour mode 0).

        One pass over the journal (grouped), not one filter per probe.
        """
        if "Color" not in self.frame.columns:
            raise SetupError("the journal mask table lacks column Color, needed to select reference colours")
        f = self.frame
        colour = f["Color"].str.strip()
        chosen = f.loc[(f[self.evaluated[0]] == "Y") & (colour != ""), ["ProbeFileID"]].assign(Color=colour)
        return {str(p): tuple(dict.fromkeys(g["Color"])) for p, g in chosen.groupby("ProbeFileID", sort=False)}

    def bitplanes(self) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
        """Per probe, (all its BitPlane values, those of rows with Evaluated=='Y') (2.3, JP2 mode)."""
        for col in ("BitPlane", "Sequence"):
            if col not in self.frame.columns:
                raise SetupError(f"the journal lacks column {col}, needed for --jpeg2000 bit-plane references")
        f = self.frame.assign(_bp=self.frame["BitPlane"].astype(str).str.strip())
        out: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for probe, g in f.groupby("ProbeFileID", sort=False):
            out[str(probe)] = (tuple(g["_bp"]), tuple(g.loc[g[self.evaluated[0]] == "Y", "_bp"]))
        return out

    def mark_unscored(self, trials: pd.DataFrame, column: str) -> Journal:
        """Set ``column`` to 'N' on the rows of ``trials`` (ProbeFileID [, DonorFileID]): MediScore does this
        when a trial's selected region is absent (docs/scoring/masks.md#ground-truth).  One merge, whatever the number
        of trials."""
        if trials.empty:
            return self
        on = [c for c in ("ProbeFileID", "DonorFileID") if c in trials.columns and c in self.frame.columns]
        hit = self.frame[on].merge(trials[on].drop_duplicates().assign(_hit=True), how="left", on=on, sort=False)
        f = self.frame.copy()
        f.loc[hit["_hit"].fillna(False).astype(bool).to_numpy(), column] = "N"
        return Journal(f, self.evaluated)


def load_journal(reference_path: str | Path, splice: bool = False) -> Journal | None:
    """The journal beside the reference (``<stem>-probejournaljoin.csv`` + ``<stem>-journalmask.csv``), or None."""
    tables = find_journal_tables(reference_path)
    if tables is None:
        return None
    for what, df in (("probe-journal join table", tables.join), ("journal mask table", tables.mask)):
        require(df, JOURNAL_KEYS, what)
    if "ProbeFileID" not in tables.join.columns:
        raise SetupError(f"probe-journal join table lacks column ProbeFileID; it has {list(tables.join.columns)}")
    frame = tables.join.merge(tables.mask, how="left", on=list(JOURNAL_KEYS), sort=False)
    frame = frame.astype(object).where(frame.notna(), "").astype(str)
    evaluated = ("ProbeEvaluated", "DonorEvaluated") if splice else ("Evaluated",)
    for col in evaluated:
        frame[col] = "Y"
    return Journal(frame.reset_index(drop=True), evaluated)
