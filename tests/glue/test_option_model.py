"""One option model (pytest_omfc/options.py): every option declared once, and everything made from it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pytest_omfc import cli
from pytest_omfc.api import COMMON_KEYS, valid_keywords
from pytest_omfc.forgerynet.submission import ForgeryNetSettings
from pytest_omfc.options import CHECK_OPTIONS, CONVENTION_NAMES, SCORING_OPTIONS, Option, exclusive_queries
from pytest_omfc.scoring.conventions import CONVENTIONS
from pytest_omfc.scoring.families import every_option, option
from pytest_omfc.scoring.registry import SCORERS
from pytest_omfc.submission import Settings

pytest_plugins = ["pytester"]


def test_every_option_is_declared_once_and_named_alike() -> None:
    opts = every_option()
    assert len({o.flag for o in opts}) == len({o.ini for o in opts}) == len(opts)
    for o in opts:
        assert o.flag.startswith("--omfc-") and o.ini == "omfc_" + o.flag[len("--omfc-") :].replace("-", "_"), o.flag
        assert o.help, o.flag
    assert opts[: len(CHECK_OPTIONS)] == list(CHECK_OPTIONS)
    assert {o.flag for o in opts} == {
        *(o.flag for o in CHECK_OPTIONS),
        *(o.flag for o in SCORING_OPTIONS),
        *(o.flag for s in SCORERS.values() for o in s.options),
    }


def test_pytest_knows_exactly_the_declared_options(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    for o in every_option():
        assert config.getoption(o.ini) is None, o.flag  # declared with no default: unset reads None
        config.getini(o.ini)  # an ini setting of the same name (raises ValueError when unknown)
    res = pytester.runpytest("--help")
    shown = set(re.findall(r"^  (--omfc-[a-z0-9-]+)", res.stdout.str(), re.M))
    assert shown == {o.flag for o in every_option()}
    ini = set(re.findall(r"^  (omfc_[a-z0-9_]+) ", res.stdout.str(), re.M))
    assert ini == {o.ini for o in every_option()}


def test_the_entry_point_takes_exactly_the_declared_options() -> None:
    parser = cli.build_parser()
    flags = {f for f in parser._option_string_actions if f.startswith("--omfc-")}  # noqa: SLF001
    assert flags == {o.flag for o in every_option()}


def test_omfc_score_takes_the_shared_and_every_scorer_option() -> None:
    words = set(valid_keywords())
    assert set(COMMON_KEYS) <= words
    assert {o.ini.removeprefix("omfc_") for s in SCORERS.values() for o in s.options} <= words
    assert set(COMMON_KEYS) == {"score", "optout", "query", "query_partition", "query_manipulation", "convention"}


def test_a_flag_in_an_ini_file_or_keyword_reads_its_words() -> None:
    """``omfc_ci = false`` means false (a plain ``bool("false")`` would say true), for every flag alike."""
    flags = [o for o in every_option() if o.is_flag]
    assert len(flags) >= 10
    for o in flags:
        assert [o.value(v) for v in ("false", "no", "0", "true", "on", True)] == [False, False, False, True, True, True]
        with pytest.raises(ValueError, match=r"must be true or false \(got 'maybe'\)"):
            o.value("maybe")
        assert o.value(None) is False


def test_defaults_and_bounds_come_from_the_declaration() -> None:
    assert option("omfc_slices").value(None) == 4 and option("omfc_html_masks").value(None) == 8
    with pytest.raises(ValueError, match=r"must be an integer from 1 to 64 \(got 0\)"):
        option("omfc_slices").value("0")
    score = option("omfc_score")
    assert score.kwargs["choices"] == [*SCORERS, "all"] and score.value("MASK") == "mask"
    assert CONVENTION_NAMES == tuple(CONVENTIONS)


def test_settings_are_typed_per_edition() -> None:
    nist = {f.name for f in dataclasses.fields(Settings)}
    fnet = {f.name for f in dataclasses.fields(ForgeryNetSettings)}
    assert {"index", "slices", "jobs", "allow_touching_segments", "ignore_overlap"} <= nist
    assert {"reference", "classes", "jobs"} <= fnet and "index" not in fnet and "options" not in nist


def test_an_option_is_plain_data() -> None:
    o = Option("--omfc-x", "omfc_x", {"metavar": "PATH", "help": "x"})
    assert o.key == "x" and o.reads_file and not o.repeatable and o.ini_type is None
    assert not option("omfc_html").reads_file and option("omfc_reference").reads_file


def test_one_rule_and_one_message_for_two_kinds_of_query(tmp_path: Path) -> None:
    """MediScore's -q, -qm and -qp exclude each other: the command line, omfc_score() and the engines say so
    with one sentence (it was written four times, three ways)."""
    from pytest_omfc.errors import QueryError
    from pytest_omfc.scoring.detection import score_detection
    from pytest_omfc.scoring.mask import score_masks

    assert exclusive_queries(["query"]) is None and exclusive_queries([]) is None
    expected = "query and query_manipulation are mutually exclusive (as MediScore's -q, -qm and -qp)"
    assert exclusive_queries(["query", "query_manipulation"]) == expected
    with pytest.raises(QueryError) as detection:
        score_detection(None, None, None, query=["a"], query_manipulation=["b"])
    with pytest.raises(QueryError) as mask:
        score_masks(None, tmp_path / "ref.csv", None, sys_dir=tmp_path, query=["a"], query_manipulation=["b"])
    assert str(detection.value) == str(mask.value) == expected
