"""prov rules (to be filled)."""

from __future__ import annotations
