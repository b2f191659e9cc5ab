"""The rule registry: every rule the plugin knows, as data (docs/rules/ is generated from it).

A rule is an ID, a title, the edition groups and tasks it covers, a severity
and a pure check function ``check(ctx) -> Iterable[Finding] | Report``.  Rule
modules register with the :func:`rule` decorator; the plugin collects one
item per applicable rule; the rule reference (docs/rules/) is generated from :data:`REGISTRY`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .editions import NIST_GROUPS, NIST_TASKS, Group, Task
from .findings import Finding, Report, Severity, sum_slices

__all__ = [
    "Rule",
    "Part",
    "REGISTRY",
    "rule",
    "not_checked",
    "package_rules",
    "rules_for",
    "summed_warnings",
    "ALL_GROUPS",
    "ALL_TASKS",
]

#: A rule's default scope: every NIST edition group and task (ForgeryNet rules name their own).
ALL_GROUPS: frozenset[Group] = NIST_GROUPS
ALL_TASKS: frozenset[Task] = NIST_TASKS

ID_RE = re.compile(r"^[A-Z]+-\d\d$")


@dataclass(frozen=True)
class Part:
    """Which slice of the rows a sliced rule's item covers (``index`` of ``count``)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index + 1}/{self.count}"


CheckFn = Callable[..., "Iterable[Finding] | Report | None"]


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    groups: frozenset[Group]
    tasks: frozenset[Task]
    severity: Severity
    check: CheckFn | None
    requires: tuple[str, ...] = ()
    severity_by_group: dict[Group, Severity] = field(default_factory=dict)
    sliced: bool = False  # one item per slice of rows (Part passed to check)
    not_checked: str | None = None  # why there is no check (tool options, protocol)
    archive_only: bool = False  # checks the uploaded archive: collected only when the submission is one
    package_only: bool = False  # checks an NC2017 package folder: collected only for a package
    #: a sliced rule's headline for ``n`` findings: the slices' reports summed read as one
    summary: Callable[[int], str] | None = None

    @property
    def family(self) -> str:
        return self.id.split("-")[0]

    def severity_for(self, group: Group) -> Severity:
        return self.severity_by_group.get(group, self.severity)

    def applies(self, group: Group, task: Task) -> bool:
        return self.check is not None and group in self.groups and task in self.tasks


#: rule ID -> Rule, in registration order.
REGISTRY: dict[str, Rule] = {}


def _register(r: Rule) -> None:
    if not ID_RE.match(r.id):
        raise ValueError(f"bad rule ID {r.id!r}")
    if r.id in REGISTRY:
        raise ValueError(f"rule {r.id} registered twice")
    REGISTRY[r.id] = r


def rule(
    rule_id: str,
    title: str,
    *,
    groups: Iterable[Group] = ALL_GROUPS,
    tasks: Iterable[Task] = ALL_TASKS,
    severity: Severity = Severity.ERROR,
    requires: Iterable[str] = (),
    severity_by_group: dict[Group, Severity] | None = None,
    sliced: bool = False,
    archive_only: bool = False,
    package_only: bool = False,
    summary: Callable[[int], str] | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Register ``fn`` as the check of ``rule_id``.

    ``requires`` names rules that must pass first; when one of them fails (with
    an error) this rule's item is skipped, naming it.
    """

    def deco(fn: CheckFn) -> CheckFn:
        _register(
            Rule(
                id=rule_id,
                title=title,
                groups=frozenset(groups),
                tasks=frozenset(tasks),
                severity=severity,
                check=fn,
                requires=tuple(requires),
                severity_by_group=dict(severity_by_group or {}),
                sliced=sliced,
                archive_only=archive_only,
                package_only=package_only,
                summary=summary,
            )
        )
        return fn

    return deco


def not_checked(
    rule_id: str,
    title: str,
    reason: str,
    *,
    groups: Iterable[Group] = ALL_GROUPS,
    tasks: Iterable[Task] = ALL_TASKS,
) -> None:
    """Record a rule that no check can decide, with the reason (listed in the rule reference)."""
    _register(
        Rule(
            id=rule_id,
            title=title,
            groups=frozenset(groups),
            tasks=frozenset(tasks),
            severity=Severity.WARNING,
            check=None,
            not_checked=reason,
        )
    )


def rules_for(group: Group, task: Task, archive: bool = False) -> list[Rule]:
    """Applicable rules, in a stable order (xdist needs the same collection on every worker); the archive
    rules only for a submission that came as an archive; never a package's own rules."""
    return [
        r
        for r in REGISTRY.values()
        if r.applies(group, task) and (archive or not r.archive_only) and not r.package_only
    ]


def package_rules(group: Group, archive: bool = False) -> list[Rule]:
    """The rules of an NC2017 package folder itself (its EXPIDs get :func:`rules_for`): the package
    rules, and the archive rules when the package was uploaded as one."""
    return [
        r
        for r in REGISTRY.values()
        if r.check is not None and group in r.groups and (r.package_only or (archive and r.archive_only))
    ]


def summed_warnings(rule_id: str, parts: list[tuple[str, int]], limit: int) -> str:
    """A rule's warning reports of its slices (rendered text, number of warnings) as one, under the rule's
    :attr:`Rule.summary` for the total: what the terminal summary and the HTML report show."""
    rule = REGISTRY.get(rule_id)
    total = sum(n for _, n in parts)
    return sum_slices(rule_id, parts, limit, rule.summary(total) if rule and rule.summary else None)
