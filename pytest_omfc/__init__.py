"""pytest-omfc: NIST media-forensics submission rules as pytest items.

The public surface is small: the rule registry and its data types, for
tools that want to list or reuse the rules.  The pytest plugin itself lives
in :mod:`pytest_omfc.plugin` (entry point ``pytest11``).
"""

from __future__ import annotations

from .editions import Edition
from .editions import Group
from .editions import Task
from .findings import Finding
from .findings import Report
from .findings import Severity
from .registry import REGISTRY
from .registry import Rule
from .registry import rules_for

__version__ = "0.1.0"

__all__ = ["Edition", "Finding", "Group", "REGISTRY", "Report", "Rule", "Severity", "Task", "__version__", "rules_for"]
