"""The system description file ``<ID>/<ID>.txt`` (DESC-01...04)."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import BaseModel

__all__ = ["SystemDescription", "SECTIONS_NC17_MFC19", "SECTIONS_OPENMFC"]

#: (section name, patterns any of which marks the section as present).
SECTIONS_NC17_MFC19: tuple[tuple[str, str], ...] = (
    ("Experiment or Submission Identifier(s)", r"identifier|\bexpid\b|\bsubid\b"),
    ("System Description", r"system\s+description"),
    ("OptOut Criteria", r"opt[\s-]*out"),
    ("System Hardware Description and Runtime Computation", r"hardware|runtime"),
    ("Training Data and Knowledge Sources", r"training\s+data|knowledge\s+sources"),
    ("References", r"references?"),
)
SECTIONS_OPENMFC: tuple[tuple[str, str], ...] = tuple(s for s in SECTIONS_NC17_MFC19 if s[0] != "OptOut Criteria")


class SystemDescription(BaseModel):
    """The text, and which of the plan's sections it appears to contain."""

    heading_patterns: ClassVar[tuple[tuple[str, str], ...]] = SECTIONS_NC17_MFC19
    text: str
    sections_found: list[str] = []

    @classmethod
    def parse(cls, text: str, sections: tuple[tuple[str, str], ...] = SECTIONS_NC17_MFC19) -> "SystemDescription":
        found = [name for name, pat in sections if re.search(pat, text, re.I)]
        return cls(text=text, sections_found=found)

    def missing(self, sections: tuple[tuple[str, str], ...]) -> list[str]:
        return [name for name, _ in sections if name not in self.sections_found]
