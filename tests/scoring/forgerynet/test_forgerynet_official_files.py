"""The benchmark's own files (issue 21): image and video lists as references, plain prediction lines as the
system output.  Each is scored against the same data written in this project's pipe-separated formats,
and the metrics must be equal (a conversion by hand, compared)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.forgerynet import Fnet

from pytest_omfc.findings import Severity
from pytest_omfc.forgerynet.lists import read_video_list, sniff

IMAGES = [  # name, binary, triple, 16-way (the benchmark's line form)
    ("train_release/1/a1/b1/frame00001.jpg", 1, 1, 1),
    ("train_release/7/a2/b2/frame00038.jpg", 1, 2, 7),
    ("train_release/real/a3/frame00002.jpg", 0, 0, 0),
    ("train_release/real/a4/frame00003.jpg", 0, 0, 0),
    ("train_release/3/a5/b5/frame00009.jpg", 1, 1, 3),
]
SCORES = [0.9, 0.4, 0.2, 0.6, 0.7]
PROBS3 = [[0.1, 0.7, 0.2], [0.2, 0.3, 0.5], [0.8, 0.1, 0.1], [0.5, 0.4, 0.1], [0.3, 0.3, 0.4]]

VIDEOS = [  # the issue's real lines: a 91-frame video whose list stops at frame 73, segments from 79
    "3 train_video_release/1/ddce/247c/video.mp4 0 14 0 14 15 1 29 44 0 1 2 1",
    "2 train_video_release/1/9870/47d6/video.mp4 79 17 1 96 64 0 1 2 1",
    "1 val_video_release/real/v3/video.mp4 0 50 0 0 0 0",
    "3 val_video_release/4/7f89/718e/video.mp4 0 10 0 10 35 1 45 30 0 1 1 4",
]


def image_list(level_rows: list[tuple[str, int, int, int]] = IMAGES) -> str:
    return "".join(f"{n} {b} {t} {k}\n" for n, b, t, k in level_rows)


def psv_reference(level: int) -> tuple[list[str], list[list[Any]]]:
    return ["ID", "Label"], [[n, labels[level]] for n, *labels in IMAGES]


def metrics(fnet: Fnet, task: str, reference: Any, submission: Any, *extra: str) -> dict[str, Any]:
    run = fnet.case(task, reference=reference, submission=submission).run(*extra)
    assert run.outcome.outcome("FNET-02") == "passed", run.outcome.text("FNET-02")
    assert run.outcome.outcome("score::forgerynet-classification") == "passed", run.outcome.text(
        "score::forgerynet-classification"
    )
    return dict(run.entry()["metrics"])


@pytest.fixture
def fnet(pytester: pytest.Pytester) -> Fnet:
    return Fnet(pytester)


def test_an_image_list_scores_as_its_pipe_separated_conversion(fnet: Fnet) -> None:
    sub = (["ID", "Score"], [[n, s] for (n, *_), s in zip(IMAGES, SCORES, strict=True)])
    official = metrics(fnet, "image-classification", image_list(), sub)
    converted = metrics(fnet, "image-classification", psv_reference(0), sub)
    assert official == converted
    # by hand: fake iff Score >= 0.5: fakes 0.9 yes, 0.4 no, 0.7 yes (recall 2/3); reals 0.2 no, 0.6 yes (1/2)
    assert official["Acc"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    # AUC: fake scores {0.9, 0.4, 0.7} against real {0.2, 0.6}: pairs won 2 + 1 + 2 = 5 of 6
    assert official["AUC"] == pytest.approx(5 / 6)


def test_classes_picks_the_level_of_the_list(fnet: Fnet) -> None:
    probs = [[n, *p] for (n, *_), p in zip(IMAGES, PROBS3, strict=True)]
    sub = (["ID", "P0", "P1", "P2"], probs)
    official = metrics(fnet, "image-classification", image_list(), sub, "--omfc-classes", "3")
    converted = metrics(fnet, "image-classification", psv_reference(1), sub, "--omfc-classes", "3")
    assert official == converted
    # argmax: 1, 2, 0, 0, 2 against triple labels 1, 2, 0, 0, 1: class 0 2/2, class 1 1/2, class 2 1/1
    assert official["Acc"] == pytest.approx((1 + 0.5 + 1) / 3)


def test_plain_prediction_lines_score_as_the_pipe_separated_file(fnet: Fnet) -> None:
    plain = "image score\n" + "".join(f"{n} {s}\n" for (n, *_), s in zip(IMAGES, SCORES, strict=True))
    official = metrics(fnet, "image-classification", image_list(), plain)
    sub = (["ID", "Score"], [[n, s] for (n, *_), s in zip(IMAGES, SCORES, strict=True)])
    assert official == metrics(fnet, "image-classification", psv_reference(0), sub)
    headless = "".join(f"{n}\t{' '.join(map(str, p))}\n" for (n, *_), p in zip(IMAGES, PROBS3, strict=True))
    three = metrics(fnet, "image-classification", image_list(), headless, "--omfc-classes", "3")
    assert three["Acc"] == pytest.approx((1 + 0.5 + 1) / 3)


def test_a_video_list_is_a_classification_reference(fnet: Fnet) -> None:
    names = [line.split()[1] for line in VIDEOS]
    sub = "".join(f"{n} {s}\n" for n, s in zip(names, [0.8, 0.3, 0.1, 0.9], strict=True))
    m = metrics(fnet, "video-classification", "\n".join(VIDEOS) + "\n", sub)
    # binary labels 1, 1, 0, 1; fake iff >= 0.5: fakes 2 of 3, real 1 of 1
    assert m["Acc"] == pytest.approx((2 / 3 + 1) / 2)
    nine = metrics(
        fnet,
        "video-classification",
        "\n".join(VIDEOS) + "\n",
        "".join(f"{n} " + " ".join(["0.1"] + ["0.1125"] * 8) + "\n" for n in names),
        "--omfc-classes",
        "9",
    )
    assert set(nine) >= {"Acc", "AUC", "mAP"}


def test_video_list_segments_are_frames_start_to_start_plus_count(tmp_path: Path) -> None:
    path = tmp_path / "video_list.txt"
    path.write_text("\n".join(VIDEOS) + "\n")
    assert sniff(path.read_text()) == "video-list"
    parsed = read_video_list(path, "video_list.txt", 2)
    assert parsed.problems == [] and parsed.fatal is None
    assert parsed.segments["train_video_release/1/ddce/247c/video.mp4"] == [(14.0, 29.0)]  # frames 14..28
    assert parsed.segments["train_video_release/1/9870/47d6/video.mp4"] == [(79.0, 96.0)]
    assert parsed.segments["val_video_release/real/v3/video.mp4"] == []
    assert parsed.labels["val_video_release/4/7f89/718e/video.mp4"] == 1


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("2 vid/a.mp4 0 10 1 1 1 1", "must have 11 fields for 2 segments"),  # count disagrees with segments
        ("1 vid/a.mp4 0 -5 1 1 1 1", "segment 1 must have a start and a frame count of 0 or more (got 0 -5)"),
        ("1 vid/my video.mp4 0 5 1 1 1 1", "must have 8 fields for 1 segment"),  # a name with spaces
        ("1 vid/a.mp4 0 5 1 1 1 12", None),  # n-way 12 is fine at the binary level
        ("1 vid/a.mp4 0 5 1 7 1 1", "the binary label must be from 0 to 1 (got 7)"),
        ("1 vid/a.mp4 0 5", "must have at least 5 fields (got 4: a truncated line?)"),
        ("1000000 vid/a.mp4 " + "0 1 1 " * 10 + "1 1 1", "must list at most 100000 segments (got a count of 1000000)"),
    ],
)
def test_bad_video_lines_are_findings_naming_the_line(tmp_path: Path, line: str, words: str | None) -> None:
    path = tmp_path / "video_list.txt"
    path.write_text("1 vid/ok.mp4 0 5 1 1 1 1\n" + line)  # the last line without its newline (truncated)
    parsed = read_video_list(path, "video_list.txt", 2)
    if words is None:
        assert parsed.problems == []
        return
    [finding] = parsed.problems
    assert finding.line == 2 and words in finding.message, finding.message
    assert parsed.ids == ["vid/ok.mp4"]


def _worded(line: str) -> str:
    """A video-list line with its segment flags written as the benchmark's readme writes them (fake/real)."""
    tokens = line.split()
    n = int(tokens[0])
    for i in range(n):
        tokens[4 + 3 * i] = {"0": "real", "1": "fake"}[tokens[4 + 3 * i]]
    return " ".join(tokens)


def test_video_list_flags_spelled_fake_and_real_read_as_1_and_0(tmp_path: Path) -> None:
    """The readme's ``<start frame> <during frames count> <fake/real>``: every fake video failed FNET-02
    ("must be ... <0 real | 1 fake>") and AP was not computed."""
    digits, words = tmp_path / "digits.txt", tmp_path / "words.txt"
    digits.write_text("\n".join(VIDEOS) + "\n")
    words.write_text("\n".join(map(_worded, VIDEOS)) + "\n")
    assert "fake" in words.read_text() and "real" in words.read_text()
    a, b = read_video_list(digits, "d", 2), read_video_list(words, "w", 2)
    assert b.problems == [] and (b.ids, b.segments, dict(b.labels)) == (a.ids, a.segments, dict(a.labels))
    assert read_video_list(words, "w", 9).segments == a.segments
    upper = tmp_path / "upper.txt"
    upper.write_text(_worded(VIDEOS[0]).replace("fake", "Fake").replace("real", "REAL") + "\n")
    assert read_video_list(upper, "u", 2).segments == {VIDEOS[0].split()[1]: [(14.0, 29.0)]}


def test_both_flag_spellings_in_one_list_are_findings(tmp_path: Path) -> None:
    """Within a line the mix is an error (the line is left out); across lines a warning naming the first
    line of the other spelling (the line is read: each flag is unambiguous)."""
    path = tmp_path / "video_list.txt"
    path.write_text(
        f"{_worded(VIDEOS[0])}\n{VIDEOS[1]}\n3 vid/mixed.mp4 0 10 real 10 35 1 45 30 0 1 1 4\n", encoding="utf-8"
    )
    parsed = read_video_list(path, "video_list.txt", 2)
    assert parsed.ids == [VIDEOS[0].split()[1], VIDEOS[1].split()[1]]
    warn, err = parsed.problems
    assert warn.line == 2 and warn.severity is Severity.WARNING and "(got digits here, words on line 1" in warn.message
    assert err.line == 3 and err.severity is None and "must spell every segment's flag one way" in err.message


def test_a_worded_video_list_scores_as_the_digit_one(fnet: Fnet) -> None:
    results = {LONG: [{"segment": [14, 27.5], "score": 0.9}]}
    worded = "".join(_worded(line) + "\n" for line in VLIST.splitlines())
    a = temporal(fnet, VLIST, results)
    b = temporal(fnet, worded, results)
    assert b.outcome.outcome("FNET-02") == "passed", b.outcome.text("FNET-02")
    assert b.entry()["metrics"] == a.entry()["metrics"] and b.entry()["metrics"]["AP@0.90"] == pytest.approx(1.0)


def test_bad_image_list_lines_fail_fnet02_naming_the_line(fnet: Fnet) -> None:
    ref = image_list() + "train_release/1/x y/frame.jpg 1 1 1\ntrain_release/9/z/frame.jpg 1 1 16\n"
    sub = (["ID", "Score"], [[n, s] for (n, *_), s in zip(IMAGES, SCORES, strict=True)])
    run = fnet.case("image-classification", reference=ref, submission=sub).run("--omfc-classes", "16")
    assert run.outcome.outcome("FNET-02") == "failed"
    text = run.outcome.text("FNET-02")
    assert "dataset/ref.csv:6: each line must be <image> <binary> <triple> <16-way>" in text, text
    assert "4 fields (got 5: a name with spaces?)" in text, text
    assert "dataset/ref.csv:7 [train_release/9/z/frame.jpg]: the n-way label must be from 0 to 15 (got 16)" in text


# ---------------------------------------------------------------- temporal ground truth from the video list

LONG = "train_video_release/1/ddce/247c/video.mp4"  # 91 frames; the list's segments stop at frame 73
VLIST = f"3 {LONG} 0 14 0 14 15 1 29 44 0 1 2 1\n1 val_video_release/real/v3/video.mp4 0 50 0 0 0 0\n"


def temporal(fnet: Fnet, reference: str, results: dict[str, Any], *extra: str, name: str = "video_list.txt") -> Any:
    case = fnet.case("temporal", reference="{}", submission={"results": results})
    ref = fnet.write(f"dataset/{name}", reference)
    case.reference = ref
    return case.run(*extra)


def test_the_false_fnet10_case_passes_without_a_known_duration(fnet: Fnet) -> None:
    """A prediction at frames 70-90 of the 91-frame video: inside the video, past the list's last segment."""
    results = {LONG: [{"segment": [14, 29], "score": 0.9}, {"segment": [70, 90], "score": 0.4}]}
    run = temporal(fnet, VLIST, results)
    assert run.outcome.outcome("FNET-10") == "passed", run.outcome.text("FNET-10")
    assert run.outcome.outcome("score::forgerynet-temporal") == "passed"
    # converted by hand with the duration a user guesses from the list (73 frames): the false error
    gt = {
        "database": {
            LONG: {"annotations": [{"segment": [14, 29], "label": "Fake"}], "duration": 73},
            "val_video_release/real/v3/video.mp4": {"annotations": [], "duration": 50},
        }
    }
    guessed = temporal(fnet, json.dumps(gt), results, name="gt.json")
    assert guessed.outcome.outcome("FNET-10") == "failed"
    # the true frame count, given with --omfc-video-info: passes; a shorter one fails naming the segment
    fnet.write("dataset/info.txt", f"video frames\n{LONG} 91\n")
    assert temporal(fnet, VLIST, results, "--omfc-video-info", "info.txt").outcome.outcome("FNET-10") == "passed"
    fnet.write("dataset/info.txt", f"{LONG} 80\n")
    short = temporal(fnet, VLIST, results, "--omfc-video-info", "info.txt")
    assert short.outcome.outcome("FNET-10") == "failed"
    assert "must lie inside [0, 80]" in short.outcome.text("FNET-10")


def test_video_list_segments_score_as_activitynet_segments_start_to_start_plus_count(fnet: Fnet) -> None:
    """Frames 14..28 (start 14, count 15) are the ActivityNet segment [14, 29]: [14, 29] matches at every
    threshold; [14, 27.5] has tIoU 13.5 / 15 = 0.9, matched up to 0.90 and missed at 0.95."""
    exact = temporal(fnet, VLIST, {LONG: [{"segment": [14, 29], "score": 0.9}]}).entry()["metrics"]
    assert exact["AP@0.95"] == pytest.approx(1.0) and exact["AP_avg"] == pytest.approx(1.0)
    short = temporal(fnet, VLIST, {LONG: [{"segment": [14, 27.5], "score": 0.9}]}).entry()["metrics"]
    assert short["AP@0.90"] == pytest.approx(1.0) and short["AP@0.95"] == pytest.approx(0.0)
    assert short["AP_avg"] == pytest.approx(0.9)
    gt = {
        "database": {
            LONG: {"annotations": [{"segment": [14, 29], "label": "Fake"}], "duration": 91},
            "val_video_release/real/v3/video.mp4": {"annotations": [], "duration": 50},
        }
    }
    converted = temporal(fnet, json.dumps(gt), {LONG: [{"segment": [14, 27.5], "score": 0.9}]}, name="gt.json")
    assert converted.entry()["metrics"] == short


def test_predictions_in_seconds_are_scaled_by_the_frame_rate(fnet: Fnet) -> None:
    frames = temporal(fnet, VLIST, {LONG: [{"segment": [14, 27.5], "score": 0.9}]}).entry()["metrics"]
    seconds = temporal(
        fnet,
        VLIST,
        {LONG: [{"segment": [14 / 25, 27.5 / 25], "score": 0.9}]},
        "--omfc-time-unit",
        "seconds",
        "--omfc-fps",
        "25",
    ).entry()["metrics"]
    assert seconds == pytest.approx(frames)
    res = fnet.pytester.runpytest(
        *fnet.case("temporal", reference=VLIST, submission={"results": {}}).args("--omfc-time-unit", "seconds")
    )
    assert res.ret == 4
    res.stderr.fnmatch_lines(["*--omfc-time-unit: seconds needs the videos' frame rate: give --omfc-fps FPS*"])


@pytest.mark.parametrize(("task", "k"), [("image-classification", 16), ("video-classification", 9)])
def test_n_way_maps_back_to_binary_as_the_paper_does(fnet: Fnet, task: str, k: int) -> None:
    """ "After mapping back to binary classification": fake score p1 + ... + pk-1, fake iff label != 0."""
    names = [f"n{i}" for i in range(4)]
    labels = [0, 0, 3, k - 1]
    p0 = [0.7, 0.45, 0.6, 0.1]  # fake scores 0.3, 0.55, 0.4, 0.9
    rows = []
    for name, first in zip(names, p0, strict=True):
        rest = [(1 - first) / (k - 1)] * (k - 1)
        rows.append(f"{name} {first:.6f} " + " ".join(f"{v:.6f}" for v in rest))
    if task == "image-classification":
        ref = "".join(f"{n} {int(lab > 0)} {min(lab, 2)} {lab}\n" for n, lab in zip(names, labels, strict=True))
    else:
        ref = "".join(f"0 {n} {int(lab > 0)} {min(lab, 2)} {lab}\n" for n, lab in zip(names, labels, strict=True))
    m = metrics(fnet, task, ref, "\n".join(rows) + "\n", "--omfc-classes", str(k))
    # fakes {0.4, 0.9} against reals {0.3, 0.55}: pairs won 1 + 2 = 3 of 4
    assert m["AUC"] == pytest.approx(3 / 4)
    # fake iff >= 0.5: reals 0.3 no, 0.55 yes (1/2); fakes 0.4 no, 0.9 yes (1/2)
    assert m["Acc_binary"] == pytest.approx(0.5)


# ---------------------------------------------------------------- spatial: the image list and its maps folder


def _map(x0: int, x1: int, level: int) -> Any:
    import numpy as np

    out = np.zeros((6, 8), dtype=np.uint8)
    out[1:5, x0:x1] = level
    return out


def test_spatial_against_the_image_list_and_its_maps_folder_scores_as_the_pipe_separated_reference(fnet: Fnet) -> None:
    from helpers.forgerynet import png_bytes

    names = ["val_release/1/a/frame00001.jpg", "val_release/3/b/frame00002.jpg", "val_release/real/c/frame00003.jpg"]
    gt = {names[0]: _map(1, 5, 200), names[1]: _map(3, 8, 120)}
    pred = {names[0]: _map(2, 6, 180), names[1]: _map(3, 7, 40), names[2]: _map(0, 2, 30)}
    sub_rows = [[n, "0.9", f"masks/m{i}.png"] for i, n in enumerate(names)]
    files = {f"masks/m{i}.png": png_bytes(pred[n]) for i, n in enumerate(names)}
    ref_list = "".join(f"{n} {int('real' not in n)} {int('real' not in n)} {int('real' not in n)}\n" for n in names)

    def run(reference: Any, ref_files: dict[str, bytes], *extra: str) -> Any:
        case = fnet.case(
            "spatial",
            reference=reference,
            submission=(["ID", "Score", "MaskFileName"], sub_rows),
            files=files,
            ref_files=ref_files,
        )
        return case.run(*extra)

    maps = {f"spatial_localize/{n[:-4]}.png": png_bytes(m) for n, m in gt.items()}
    official = run(ref_list, maps)
    assert official.outcome.outcome("FNET-02") == "passed", official.outcome.text("FNET-02")
    psv_ref = (
        ["ID", "Label", "MaskFileName"],
        [[n, int(n in gt), f"spatial_localize/{n[:-4]}.png" if n in gt else ""] for n in names],
    )
    converted = run(psv_ref, maps)
    assert official.entry()["metrics"] == converted.entry()["metrics"]
    # a fake image without its map fails FNET-02 naming the line; a folder given elsewhere is used
    (fnet.root / "dataset" / "spatial_localize" / "val_release/3/b/frame00002.png").unlink()
    missing = run(ref_list, {k: v for k, v in maps.items() if "frame00002" not in k})
    assert missing.outcome.outcome("FNET-02") == "failed"
    assert "dataset/ref.csv:2 [val_release/3/b/frame00002.jpg]: the reference map" in missing.outcome.text("FNET-02")
    moved = run(
        ref_list,
        {k.replace("spatial_localize/", "maps_elsewhere/"): v for k, v in maps.items()},
        "--omfc-spatial-maps",
        "maps_elsewhere",
    )
    assert moved.entry()["metrics"] == converted.entry()["metrics"]


def test_the_maps_folder_alone_is_a_spatial_reference(fnet: Fnet) -> None:
    """``--omfc-reference spatial_localize/``: every map is a fake image named as the image with ``.png``; a
    prediction names the image (any extension).  The metrics equal those of the pipe-separated reference of the
    same fake images; a real image's prediction is an unknown ID and a map without a prediction a missing one
    (FNET-04); a map that leaves the folder is refused (FNET-02)."""
    import os

    from helpers.forgerynet import FnetCase, png_bytes

    names = ["val_release/1/a/frame00001.jpg", "val_release/3/b/frame00002.jpg"]
    gt = {names[0]: _map(1, 5, 200), names[1]: _map(3, 8, 120)}
    pred = {names[0]: _map(2, 6, 180), names[1]: _map(3, 7, 40)}
    files = {f"masks/m{i}.png": png_bytes(pred[n]) for i, n in enumerate(names)}
    maps = {f"spatial_localize/{n[:-4]}.png": png_bytes(m) for n, m in gt.items()}
    psv_ref = (["ID", "Label", "MaskFileName"], [[n, 1, f"spatial_localize/{n[:-4]}.png"] for n in names])

    def run(rows: list[list[str]], *, folder: bool = True) -> Any:
        case = fnet.case(
            "spatial",
            reference=psv_ref,
            submission=(["ID", "Score", "MaskFileName"], rows),
            files=files,
            ref_files=maps,
        )
        if folder:
            case = FnetCase(case.pytester, "spatial", case.submission, case.reference.parent / "spatial_localize")
        return case.run()

    rows = [[n, "0.9", f"masks/m{i}.png"] for i, n in enumerate(names)]
    alone = run(rows)
    assert alone.outcome.outcome("FNET-02") == "passed", alone.outcome.text("FNET-02")
    assert alone.outcome.outcome("score::forgerynet-spatial") == "passed", alone.outcome.text(
        "score::forgerynet-spatial"
    )
    assert alone.entry()["metrics"] == run(rows, folder=False).entry()["metrics"]
    png_named = run([[n[:-4] + ".png", *rest] for n, *rest in rows])  # the image named as its map: same image
    assert png_named.entry()["metrics"] == alone.entry()["metrics"]
    unknown = run([*rows, ["val_release/real/c/frame00003.jpg", "0.1", "masks/m0.png"]])
    assert unknown.outcome.outcome("FNET-04") == "failed"
    assert "val_release/real/c/frame00003" in unknown.outcome.text("FNET-04")
    missing = run(rows[:1])
    assert missing.outcome.outcome("FNET-04") == "failed"
    assert "val_release/3/b/frame00002" in missing.outcome.text("FNET-04")
    outside = fnet.root / "outside.png"
    outside.write_bytes(png_bytes(gt[names[0]]))
    os.symlink(outside, fnet.root / "dataset" / "spatial_localize" / "val_release" / "escape.png")
    escaped = run(rows)
    assert escaped.outcome.outcome("FNET-02") == "failed"
    assert (
        "spatial_localize/ [val_release/escape]: the reference map must stay inside the maps folder"
        in escaped.outcome.text("FNET-02")
    )


def test_a_folder_is_a_reference_for_spatial_localization_only(fnet: Fnet) -> None:
    case = fnet.case("image-classification", reference=image_list(), submission=(["ID", "Score"], [["x", "0.5"]]))
    (fnet.root / "dataset" / "maps").mkdir()
    res = fnet.pytester.runpytest(
        *[a if a != case.reference.name else "maps" for a in case.args()], "-p", "no:cacheprovider"
    )
    assert res.ret == 4
    res.stderr.fnmatch_lines(["*--omfc-reference: no such file: *maps*"])


def test_two_maps_for_one_image_are_a_finding_not_a_crash(fnet: Fnet) -> None:
    """frame00001.png beside frame00001.PNG in the maps folder: one image, two maps.  FNET-04 and the scorer ended
    in InvalidIndexError; the second map is now a finding of the reference (FNET-02 fails, naming it), and
    nothing crashes."""
    from helpers.forgerynet import FnetCase, png_bytes

    names = ["val_release/1/a/frame00001.jpg", "val_release/3/b/frame00002.jpg"]
    gt = {names[0]: _map(1, 5, 200), names[1]: _map(3, 8, 120)}
    files = {f"masks/m{i}.png": png_bytes(gt[n]) for i, n in enumerate(names)}
    maps = {f"spatial_localize/{n[:-4]}.png": png_bytes(m) for n, m in gt.items()}
    maps[f"spatial_localize/{names[0][:-4]}.PNG"] = png_bytes(gt[names[1]])
    psv_ref = (["ID", "Label", "MaskFileName"], [[n, 1, f"spatial_localize/{n[:-4]}.png"] for n in names])
    rows = [[n, "0.9", f"masks/m{i}.png"] for i, n in enumerate(names)]
    case = fnet.case("spatial", reference=psv_ref, submission=(["ID", "Score", "MaskFileName"], rows), files=files,
                     ref_files=maps)  # fmt: skip
    case = FnetCase(case.pytester, "spatial", case.submission, case.reference.parent / "spatial_localize")
    res = case.run()
    assert res.outcome.ret == 1, res.outcome
    assert res.outcome.outcome("FNET-04") in ("passed", "skipped"), res.outcome.text("FNET-04")
    text = res.outcome.text("FNET-02")
    assert res.outcome.outcome("FNET-02") == "failed" and "frame00001.PNG" in text and "one map" in text, text
    assert "could not run" not in str(res.outcome.reports) and "InvalidIndexError" not in str(res.outcome.reports)


def test_a_map_over_the_pixel_bound_is_not_decoded(tmp_path: Path) -> None:
    """Two 30000x30000 maps of 1 MB each passed the rules and took scoring to 3.5 GB: a map over the mask
    scorers' pixel bound is refused from its header, naming its size."""
    from pytest_omfc.forgerynet.maps import MAX_MAP_PIXELS
    from pytest_omfc.scoring.forgerynet.adapter import _grey_map
    from pytest_omfc.scoring.mask.io import MAX_PIXELS

    assert MAX_MAP_PIXELS == MAX_PIXELS
    side = 30_000
    path = tmp_path / "big.png"
    path.write_bytes(_big_png(side))
    assert path.stat().st_size < 2 << 20
    got = _grey_map(path, (side, side))
    assert isinstance(got, str) and got.startswith(f"must be at most {MAX_PIXELS:,} pixels") and "30000x30000" in got


def _big_png(side: int) -> bytes:
    """A grey PNG of side x side zero pixels: about 1 MB for 30000 x 30000."""
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    comp = zlib.compressobj(9)
    row = b"\0" * (side + 1)
    idat = b"".join(comp.compress(row) for _ in range(side)) + comp.flush()
    ihdr = side.to_bytes(4, "big") * 2 + bytes([8, 0, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_fnet07_names_a_map_over_the_pixel_bound(fnet: Fnet) -> None:
    """The rules read the map's size from its header as the scorer does: a 30000x30000 map fails FNET-07."""
    from helpers.forgerynet import png_bytes

    names = ["val_release/1/a/frame00001.jpg"]
    maps = {f"spatial_localize/{names[0][:-4]}.png": png_bytes(_map(1, 5, 200))}
    psv_ref = (["ID", "Label", "MaskFileName"], [[names[0], 1, f"spatial_localize/{names[0][:-4]}.png"]])
    case = fnet.case("spatial", reference=psv_ref, submission=(["ID", "Score", "MaskFileName"],
                     [[names[0], "0.9", "masks/m0.png"]]), files={"masks/m0.png": _big_png(30_000)},
                     ref_files=maps)  # fmt: skip
    res = case.run()
    text = res.outcome.text("FNET-07")
    assert res.outcome.outcome("FNET-07") == "failed" and "must be at most 160,000,000 pixels" in text, text
    assert "30000x30000" in text


def test_maps_past_the_runs_pixel_budget_are_fnet07_findings_and_not_scored(fnet: Fnet) -> None:
    """``--omfc-map-pixels``: the system maps of a run may hold at most N pixels together (the per-map bound caps
    a decode's memory, this the run's decoding time).  With a budget of two 20x10 maps, the third map in row
    order fails FNET-07 naming the total it would reach, and the scorer leaves its row out as the rule says."""
    from helpers.forgerynet import png_bytes

    names = [f"val_release/1/a/frame0000{i}.jpg" for i in range(3)]
    gt = {n: _map(1, 5, 200) for n in names}
    maps = {f"spatial_localize/{n[:-4]}.png": png_bytes(m) for n, m in gt.items()}
    psv_ref = (["ID", "Label", "MaskFileName"], [[n, 1, f"spatial_localize/{n[:-4]}.png"] for n in names])
    files = {f"masks/m{i}.png": png_bytes(gt[n]) for i, n in enumerate(names)}
    rows = [[n, "0.9", f"masks/m{i}.png"] for i, n in enumerate(names)]
    case = fnet.case("spatial", reference=psv_ref, submission=(["ID", "Score", "MaskFileName"], rows), files=files,
                     ref_files=maps)  # fmt: skip
    h, w = gt[names[0]].shape
    whole = case.run()
    assert whole.outcome.outcome("FNET-07") == "passed", whole.outcome.text("FNET-07")
    capped = case.run("--omfc-map-pixels", str(2 * w * h))
    text = capped.outcome.text("FNET-07")
    assert capped.outcome.outcome("FNET-07") == "failed", text
    assert f"at most {2 * w * h:,} pixels together" in text and f"would hold {3 * w * h:,}" in text, text
    assert "m2.png" in text and "m0.png" not in text and "m1.png" not in text, text
    assert "1 row whose mask is unusable" in str(capped.metrics), capped.metrics


def test_the_map_pixel_budget_is_bounded_and_for_the_spatial_task_only(fnet: Fnet) -> None:
    from helpers.forgerynet import png_bytes

    case = fnet.case("image-classification", reference=image_list(), submission=(["ID", "Score"], [["x", "0.5"]]))
    res = fnet.pytester.runpytest(*case.args(), "--omfc-map-pixels", "100", "-p", "no:cacheprovider")
    assert res.ret == 4
    res.stderr.fnmatch_lines(["*--omfc-map-pixels: only for the ForgeryNet spatial task (got image-classification)*"])
    name = "val_release/1/a/frame00001.jpg"
    psv_ref = (["ID", "Label", "MaskFileName"], [[name, 1, f"spatial_localize/{name[:-4]}.png"]])
    spatial = fnet.case("spatial", reference=psv_ref, submission=(["ID", "Score", "MaskFileName"],
                        [[name, "0.9", "masks/m0.png"]]), files={"masks/m0.png": png_bytes(_map(1, 5, 200))},
                        ref_files={f"spatial_localize/{name[:-4]}.png": png_bytes(_map(1, 5, 200))})  # fmt: skip
    for bad in ("0", "1e16", "x", str(10**15 + 1)):
        res = fnet.pytester.runpytest(*spatial.args(), "--omfc-map-pixels", bad, "-p", "no:cacheprovider")
        assert res.ret == 4, bad
        res.stderr.fnmatch_lines(["*--omfc-map-pixels*must be an integer from 1 to 10^15*"])


def test_segments_in_seconds_read_as_frames_warn_about_the_time_unit(fnet: Fnet) -> None:
    """Predictions in seconds against a list in frames: AP 0.0000 and no other sign.  FNET-10 warns, naming
    --omfc-time-unit; the same predictions in frames do not warn."""
    fake = [
        "3 vid/a.mp4 0 25 0 25 250 1 275 25 0 1 1 1",
        "2 vid/b.mp4 0 100 1 100 200 0 1 1 1",
        "1 vid/c.mp4 0 90 0 0 0 0",
    ]
    vlist = "\n".join(fake) + "\n"
    seconds = {"vid/a.mp4": [{"segment": [1, 11], "score": 0.9}], "vid/b.mp4": [{"segment": [0, 4], "score": 0.8}],
               "vid/c.mp4": [{"segment": [0.5, 1], "score": 0.1}]}  # fmt: skip
    run = temporal(fnet, vlist, seconds)
    warning = run.outcome.warning("FNET-10") or ""
    assert run.outcome.outcome("FNET-10") == "passed" and "a unit mismatch?" in warning, warning
    assert "give --omfc-time-unit seconds and --omfc-fps FPS" in warning, warning
    frames = {k: [{**v[0], "segment": [x * 25 for x in v[0]["segment"]]}] for k, v in seconds.items()}
    assert temporal(fnet, vlist, frames).outcome.warning("FNET-10") is None


def test_every_prediction_past_its_video_names_the_unit_mismatch(fnet: Fnet) -> None:
    """Frames against durations in seconds: every prediction leaves its video; FNET-10's headline says why."""
    gt = {
        "database": {f"v{i}": {"annotations": [{"segment": [1, 5], "label": "Fake"}], "duration": 10} for i in range(3)}
    }
    results = {f"v{i}": [{"segment": [25, 125], "score": 0.9}] for i in range(3)}
    run = temporal(fnet, json.dumps(gt), results, name="gt.json")
    first = run.outcome.first_line("FNET-10")
    assert "every prediction leaves its video" in first and "frames against seconds?" in first, first


def test_a_test_log_of_classes_and_labels_is_named_as_such(tmp_path: Path) -> None:
    """PyDeepFakeDet/M2TR print ``<path> <class> <label>`` after a model-name line: not a probability file."""
    from pytest_omfc.forgerynet.lists import read_plain_predictions

    path = tmp_path / "test.log"
    path.write_text("M2TR\nval_release/1/a/frame00001.jpg 1 1\nval_release/real/b/frame00002.jpg 0 1\n")
    res = read_plain_predictions(path, "test.log", ["Score"], None)
    messages = [f.message for f in res.issues.get("CSV-03", [])]
    assert len(messages) == 2 and all("<class> <label>, as a test log writes" in m for m in messages), messages
    path.write_text("name score\nval_release/1/a/frame 00001.jpg 0.9\n")  # a name with a space stays so
    res = read_plain_predictions(path, "test.log", ["Score"], None)
    assert "a name with spaces?" in res.issues["CSV-03"][0].message
