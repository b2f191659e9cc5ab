# ruff: noqa: E501  (data: the plans' sentences and MediScore's messages are kept whole)
"""Where each rule comes from: the plan sections, the plan's own sentence where one states it, and what
MediScore does with it.

Written by this project from the evaluation plans and from MediScore's behaviour on its own test suite; `docgen`
renders it into the rule reference (``docs/rules/``), where the abbreviations are explained: NC17, MFC19 and OMFC
are the NC2017, MFC2019 and OpenMFC 2020-2021 evaluation plans, § a section, App. an appendix (A-a, A-b, A-c
its parts). ``tests/test_docs.py`` checks that every registered rule has an entry and, where the plans
are beside the checkout, that every quotation is the plan's own text.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Source", "SOURCES"]


@dataclass(frozen=True)
class Source:
    """Where one rule comes from."""

    #: the plan sections (or other documents) that state the rule
    plans: str
    #: what MediScore's validator does with it, in this project's words (its own messages quoted)
    mediscore: str
    #: the plan's sentence that states the rule, verbatim, and where it is (empty when no one sentence does)
    quote: str = ""
    quoted_from: str = ""


SOURCES: dict[str, Source] = {
    "ARC-01": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
        quote="To prepare your submission, create the previously described directory structure and make a .tar file via the UNIX command 'tar cvf <SubID>.tar <SubID>'.",
        quoted_from="OMFC App. A (A-c)",
    ),
    "ARC-02": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
        quote="To prepare your submission, create the previously described directory structure and make a .tar file via the UNIX command 'tar cvf <SubID>.tar <SubID>'.",
        quoted_from="OMFC App. A (A-c)",
    ),
    "ARC-03": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
    ),
    "ARC-04": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
    ),
    "ARC-05": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
    ),
    "ARC-06": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
    ),
    "ARC-07": Source(
        plans="OMFC App. A (A-c); MFC19 App. A (A-c); NC17 App. A (A-c)",
        mediscore="MediScore validates an unpacked folder; it never sees the archive that is uploaded.",
    ),
    "SUB-01": Source(
        plans='NC17 App. A; MFC2018 from MediScore\'s validator README "-nc" text',
        mediscore="MediScore fails the submission (exit status 1): `ERROR: There are not enough arguments to verify in the name.`",
        quote="<EXPID> ::= <TEAM>_<YEAR>_<DATA>_<TASK>_<CONDITION>_<SYS>_<VERSION>",
        quoted_from="NC17 App. A",
    ),
    "SUB-02": Source(
        plans="NC17 App. A",
        mediscore="MediScore fails the submission (exit status 1).",
        quote="No underscores are allowed in the short participate team name.",
        quoted_from="NC17 App. A",
    ),
    "SUB-03": Source(
        plans="NC17 App. A; MediScore's validator README",
        mediscore="MediScore prints a message but can still pass the submission: `ERROR: The NCID must be {}.`",
        quote="<YEAR> is the year of the competition, e.g., NC17",
        quoted_from="NC17 App. A",
    ),
    "SUB-04": Source(plans="NC17 App. A", mediscore="MediScore does not check it."),
    "SUB-05": Source(
        plans="NC17 App. A",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Task {} is unrecognized. The task must be 'manipulation'.`",
        quote="TaskID should be consistent with the TaskID defined in the index file described in Section 4.1.",
        quoted_from="NC17 App. A",
    ),
    "SUB-06": Source(
        plans="NC17 App. A (§2.2 defines only ImgOnly and ImgMeta)",
        mediscore="MediScore does not check it.",
        quote="<CONDITION> is the ConditionID, which is described in Section 2.2.",
        quoted_from="NC17 App. A",
    ),
    "SUB-07": Source(
        plans="NC17 App. A; MFC19 App. A",
        mediscore="MediScore does not check it.",
        quote="It must begin with 'p-' for the one and only primary system (i.e., your single best system) or with 'c-' for any contrastive systems.",
        quoted_from="MFC19 App. A",
    ),
    "SUB-08": Source(
        plans="NC17 App. A; MFC19 App. A",
        mediscore="MediScore does not check it.",
        quote="<VERSION> must be an integer starting at 1, with values greater than 1 indicating multiple runs of the same experiment/system.",
        quoted_from="MFC19 App. A",
    ),
    "SUB-09": Source(
        plans="MFC19 App. A",
        mediscore="MediScore has no checker for the MFC2019 SubID; its NC2017 name check (`-nc`) rejects every valid MFC2019 SubID (D-01).",
        quote="If left blank, the underscore after <VERSION> must be omitted.",
        quoted_from="MFC19 App. A",
    ),
    "SUB-10": Source(
        plans="OMFC App. A, A-b",
        mediscore="MediScore has no checker for the OpenMFC SubID (D-01, D-02).",
        quote="<SubID> is a user-defined string that identifies the submission and contains no spaces or special characters.",
        quoted_from="OMFC App. A",
    ),
    "PKG-01": Source(
        plans="NC17 §5.1.1, A-b; MFC19 §5.1.1, A-b; OMFC §5.1, A-b",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Please follow the naming convention. The system output should follow the naming <EXPID>/<EXPID>.csv.`",
        quote="The filename for the output file should follow the naming convention: <EXPID>/<EXPID>.csv, where <EXPID> is the experimenter identifier as described in Appendix A.",
        quoted_from="NC17 §5.1.1",
    ),
    "PKG-02": Source(
        plans="NC17 §5.1.1, A-b; MFC19 §5.1.1, A-b; OMFC §5.1, A-b",
        mediscore="Checked only with `-nc`, exactly and case-sensitively (`.CSV` fails): `ERROR: System output is not a csv.`",
        quote="The system output file should be a CSV file that includes the confidence score and the filename of the output mask (this can be omitted if no mask is required by the task, e.g. provenance task).",
        quoted_from="NC17 §5.1.1",
    ),
    "PKG-03": Source(
        plans="NC17 A-b; MFC19 A-b; OMFC A-b",
        mediscore="MediScore does not check it.",
        quote="Using the SubID, all system output submissions must be formatted according to the following directory structure: <SubID>/ <SubID>.txt <SubID>.csv /mask",
        quoted_from="MFC19 App. A (A-b)",
    ),
    "PKG-07": Source(
        plans="NC17 A-b, A-c",
        mediscore="MediScore does not check it (D-13).",
        quote="Important: only the latest submission will be used for scoring, but a submission file can contain multiple EXPIDs.",
        quoted_from="NC17 App. A (A-c)",
    ),
    "PKG-08": Source(
        plans="MFC19 A-b, A-c",
        mediscore="MediScore does not check it.",
        quote="Using the SubID, all system output submissions must be formatted according to the following directory structure: <SubID>/ <SubID>.txt <SubID>.csv /mask",
        quoted_from="MFC19 App. A (A-b)",
    ),
    "PKG-09": Source(
        plans="OMFC A-b, A-c",
        mediscore="MediScore does not check it.",
        quote="To prepare your submission, create the previously described directory structure and make a .tar file via the UNIX command 'tar cvf <SubID>.tar <SubID>'.",
        quoted_from="OMFC App. A (A-c)",
    ),
    "PKG-10": Source(
        plans="NC17 App. A (A-b, A-c)",
        mediscore="MediScore validates one EXPID at a time; it has no notion of the NC2017 package.",
        quote="Important: only the latest submission will be used for scoring, but a submission file can contain multiple EXPIDs.",
        quoted_from="NC17 App. A (A-c)",
    ),
    "DESC-01": Source(plans="NC17 A-a; MFC19 A-a", mediscore="MediScore does not check it."),
    "DESC-02": Source(plans="OMFC A-a", mediscore="MediScore does not check it."),
    "DESC-03": Source(
        plans="NC17 §2.1.1.2, A-a §3; MFC19 §2.2, §5.1.1.3, A-a §3; OMFC §5.3",
        mediscore="MediScore does not check it.",
        quote="The process for determining which trials and pixels to opt out must be documented in the system description (Appendix A-a).",
        quoted_from="MFC19 §2.2",
    ),
    "DESC-04": Source(plans="NC17, MFC19 and OMFC App. A (A-a)", mediscore="MediScore does not check it."),
    "CSV-08": Source(
        plans="MediScore's validator (the files it is given)",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Expected system output {}. Please check file path to make sure the system output file exists.`",
    ),
    "CSV-01": Source(
        plans="NC17 App. B; MFC19 App. B; OMFC App. B",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The number of columns of the system output file must be at least {}. Please check to see if '|' is used to separate your columns.`",
        quote="Each field value is a column and is separated from the next value with a vertical bar.",
        quoted_from="MFC19 App. B",
    ),
    "CSV-02": Source(
        plans="NC17, MFC19 and OMFC App. B",
        mediscore="Checked only as the presence of required columns: a header name with a trailing blank counts as absent.",
        quote="The first data record in the files is a header line.",
        quoted_from="MFC19 App. B",
    ),
    "CSV-03": Source(
        plans="NC17, MFC19 and OMFC App. B", mediscore="MediScore stops with a Python traceback instead of a message."
    ),
    "CSV-04": Source(
        plans="MediScore's validator README, MediScore's provenance validator README (\"although this won't be checked\")",
        mediscore="MediScore does not check it.",
    ),
    "CSV-05": Source(
        plans="NC17, MFC19 and OMFC App. B; OMFC §5.1",
        mediscore="MediScore reads the files with empty fields kept as empty strings (not as missing values).",
    ),
    "CSV-06": Source(
        plans='MediScore\'s validator README ("must have their columns in the specified order … and no other column"); plans list Col1…ColN',
        mediscore="MediScore does not check it.",
    ),
    "CSV-07": Source(
        plans="NC17, MFC19 and OMFC App. B",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Index file should have csv as an extension.`",
    ),
    "COL-01": Source(
        plans="NC17 §5.1.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The required column {} is absent.`",
    ),
    "COL-02": Source(
        plans="MFC19 §5.1.1; OMFC §5.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The required column ProbeOptOutPixelValue is absent.`",
    ),
    "COL-05": Source(
        plans="NC17 §2.1.1, §5.1.1 (implied); MediScore's sample `validvidtest_nc17`",
        mediscore="With `IsOptOut`, MediScore requires only these three columns.",
    ),
    "COL-06": Source(plans="MFC19 §5.1.1", mediscore="MediScore fails the submission (exit status 1)."),
    "COL-07": Source(
        plans="OMFC §5.1, §2.1.2, §2.1.4",
        mediscore="MediScore (2019) demands the three segment columns that the OpenMFC plan does not have, and its later versions crash on their absence (D-05).",
    ),
    "COL-08": Source(
        plans="NC17 §5.1.1; MFC19 §5.1.1",
        mediscore="MediScore prints a message but can still pass the submission: `ERROR: The required column {} is absent.` (D-08)",
    ),
    "COL-10": Source(
        plans="MFC19 §5.3",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The required column ProbeStatus is absent.`",
    ),
    "COL-11": Source(plans="MFC19 §5.4", mediscore="MediScore fails the submission (exit status 1)."),
    "COL-12": Source(
        plans='NC17 §5.2; README v1.1.8 ("ConfidenceScore and IsOptOut columns are mandated")',
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The required column {} is absent.`",
    ),
    "COL-13": Source(
        plans="MFC19 §5.2",
        mediscore="MediScore rejects the MFC2019 plan's own three-column file with its at-least-four-columns check (D-06).",
    ),
    "COL-03": Source(
        plans="MFC19 §5.2",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Either 'IsOptOut' or 'ProbeStatus' must be in the column headers.`",
    ),
    "COL-04": Source(
        plans="MediScore",
        mediscore="MediScore prints a message but can still pass the submission: `The system output has both 'IsOptOut' and 'ProbeStatus' in the column headers. It is advised for the performer not to confuse him or herself.`",
    ),
    "COL-09": Source(
        plans="MFC19 §5.1.1 (both listed)",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Both ProbeOptOutPixelValue and DonorOptOutPixelValue are required for the splice task.`",
    ),
    "IDX-01": Source(
        plans="NC17 §5.1.1.2; MFC19 §5.1.1.2, §4.1.2, §4.1.5, §4.1.6; OMFC §5.4",
        mediscore="MediScore builds the same composite keys, but reads system IDs as numbers, so `0012` becomes `12` and no longer matches (B-12).",
        quote="The row order may change, but the two ProbeFileID columns should have a one-to-one correspondence.",
        quoted_from="NC17 §5.1.1.2",
    ),
    "IDX-02": Source(
        plans="implied by one-to-one (NC17 §5.1.1.2; MFC19 §5.1.1.2; OMFC §5.4); MediScore's validator README, MediScore's provenance validator README",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The number of rows in your system output ({}) does not match the number of rows in the index file ({}).`",
        quote="The ProbeFileID column in the system output <SubID>/<SubID>.csv must be consistent with the ProbeFileID column in the <BaseDir>/indexes/<DataSet_Name>-<TaskID>-index.csv file.",
        quoted_from="OMFC §5.4",
    ),
    "IDX-03": Source(
        plans="implied by one-to-one (NC17 §5.1.1.2; MFC19 §5.1.1.2; OMFC §5.4); MediScore's validator README, MediScore's provenance validator README",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: {} does not exist in the index file.`",
        quote="The ProbeFileID column in the system output <SubID>/<SubID>.csv must be consistent with the ProbeFileID column in the <BaseDir>/indexes/<DataSet_Name>-<TaskID>-index.csv file.",
        quoted_from="OMFC §5.4",
    ),
    "IDX-04": Source(
        plans="implied by one-to-one (NC17 §5.1.1.2; MFC19 §5.1.1.2; OMFC §5.4); MediScore's validator README, MediScore's provenance validator README",
        mediscore="MediScore prints a message but can still pass the submission: `ERROR: Expected probe {} in system file. Only found in index file.` (B-01)",
        quote="The ProbeFileID column in the system output <SubID>/<SubID>.csv must be consistent with the ProbeFileID column in the <BaseDir>/indexes/<DataSet_Name>-<TaskID>-index.csv file.",
        quoted_from="OMFC §5.4",
    ),
    "IDX-05": Source(
        plans="MediScore's validator README, MediScore's provenance validator README (\"must not have duplicate rows\")",
        mediscore="MediScore does not check it (B-02).",
    ),
    "IDX-06": Source(
        plans="NC17 §5.1.1.2; MFC19 §5.1.1.2; OMFC §5.4",
        mediscore="MediScore checks part of it (D-07).",
        quote="The row order may change, but the two ProbeFileID columns should have a one-to-one correspondence.",
        quoted_from="NC17 §5.1.1.2",
    ),
    "IDX-07": Source(
        plans="MediScore's validator help text",
        mediscore="MediScore's subset-index option has no effect: the row count check still fails on a strict subset (B-10).",
    ),
    "IDX-08": Source(
        plans="MediScore's validator (`contentCheck`)",
        mediscore="MediScore stops with a Python traceback instead of a message (B-11).",
    ),
    "SCORE-01": Source(
        plans="NC17 §5.1.1.1; MFC19 §5.1.1.1; OMFC §5.2",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The Confidence Scores for {probes|pairs} {dataframe} are not numeric.` (B-06)",
        quote="The confidence score is any real number that indicates the strength of the possibility that the probe has been manipulated.",
        quoted_from="NC17 §5.1.1.1",
    ),
    "SCORE-02": Source(
        plans='NC17 §5.1.1.1, fn 1 ("any real domain/range"), §5.1.1.2',
        mediscore="MediScore checks no range, which agrees with NC2017's any-real score.",
        quote="The scale of the confidence score is arbitrary but should be consistent across all testing trials, with larger values indicating greater chance that the image or video has been manipulated.",
        quoted_from="NC17 §5.1.1.1",
    ),
    "SCORE-03": Source(
        plans="MFC19 fn 1, §5.1.1.1, §5.1.1.2; OMFC fn 1, §5.2, §5.4",
        mediscore="MediScore does not check it (D-03).",
        quote="The scale of the confidence score, within the range [0, 1], is arbitrary but must be consistent across all testing trials, with larger values indicating greater chance that the image or video has been manipulated.",
        quoted_from="MFC19 §5.1.1.1",
    ),
    "SCORE-04": Source(
        plans="MFC19 §2.2, §5.1.1.1, §5.1.1.3",
        mediscore="MediScore does not check it (D-04).",
        quote="The confidence scores for non-processed trials and for trials in which detection was opted out must be 0.",
        quoted_from="MFC19 §5.1.1.3",
    ),
    "SCORE-05": Source(
        plans="OMFC §5.3",
        mediscore="MediScore does not check it.",
        quote="The confidence scores for non-processed trials must be 0.",
        quoted_from="OMFC §5.3",
    ),
    "SCORE-06": Source(
        plans="NC17 §2.1.1.2",
        mediscore="MediScore does not check it.",
        quote="The confidence score for opted out trials must be a constant value less than the values of all the processed trials.",
        quoted_from="NC17 §2.1.1.2",
    ),
    "SCORE-07": Source(
        plans="MFC19 §5.1.1.1, §5.1.1.3; OMFC §5.3",
        mediscore="A scorer matter; MediScore's validator only excuses such rows (STATUS-08).",
        quote="Probes or donors that fail validation will be given a confidence score of 0.",
        quoted_from="MFC19 §5.1.1.1",
    ),
    "STATUS-01": Source(
        plans="NC17 §5.1.1, §5.2",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Probe status {} for probe {} is not recognized.`",
    ),
    "STATUS-02": Source(
        plans="MFC19 §5.1.1, §5.1.1.3, §5.4",
        mediscore="MediScore fails the submission (exit status 1).",
        quote='A status of "OptOutAll" (or "OptOut" for tasks without localization) indicates that the system has decided not to process the probe at all, performing neither detection nor localization; unlike the previous status, this does not indicate a system failure.',
        quoted_from="MFC19 §5.1.1.3",
    ),
    "STATUS-03": Source(
        plans="MFC19 §5.1.1, §5.1.1.3",
        mediscore="MediScore fails the submission (exit status 1).",
        quote='A status of "OptOutTemporal" indicates that the system has decided to perform detection and spatial localization on the video probe but did not perform temporal localization.',
        quoted_from="MFC19 §5.1.1.3",
    ),
    "STATUS-04": Source(
        plans="OMFC §5.1, §5.3",
        mediscore="MediScore accepts the whole MFC2019 list, `OptOut*` values included (D-09).",
        quote='A status of "NonProcessed" indicates that probe was not processed due to a system failure of some kind.',
        quoted_from="OMFC §5.3",
    ),
    "STATUS-05": Source(
        plans="MFC19 §5.1.1 (its Col7 list omits FailedValidation), §5.1.1.3 (gives four values)",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Probe status {} for probe {} is not recognized.`",
        quote='However, there are only four possible statuses: "Processed", "NonProcessed", "OptOutLocalization", "FailedValidation".',
        quoted_from="MFC19 §5.1.1.3",
    ),
    "STATUS-06": Source(
        plans='MFC19 §5.3, §5.1.1.3 ("OptOut for tasks without localization")',
        mediscore="MediScore fails the submission (exit status 1).",
    ),
    "STATUS-07": Source(plans="MFC19 §5.2", mediscore="MediScore does not check it (B-06)."),
    "STATUS-08": Source(
        plans="MFC19 §5.1.1.3; OMFC §5.3; MediScore's validator README",
        mediscore="MediScore skips every mask and interval check of such a row and prints a warning whose `{}` placeholder is never filled in (B-15).",
        quote='A status of "FailedValidation" indicates that probe failed the MediScore Validator tool and will be given a score of 0—see details in the MediScore Validator ReadMe file.',
        quoted_from="MFC19 §5.1.1.3",
    ),
    "STATUS-09": Source(
        plans="MFC19 §5.1.1.3, §2.2",
        mediscore="What the statuses mean to MediScore's scorers: which rows detection, mask and provenance scoring keep with and without opt-out.",
    ),
    "STATUS-10": Source(plans="implied by MFC19 §5.1.1.3", mediscore="MediScore does not check it."),
    "PKG-04": Source(
        plans="NC17 §5.1.2, §5.1.2.2; MFC19 §5.1.2, §5.1.2.3; OMFC §5.5, §5.5.2",
        mediscore="MediScore does not check it.",
        quote="The directory path and mask filename use the following convention: <SubID>/mask/{MaskFileName}.png for image masks or <SubID>/mask/{MaskFileName}.hdf5 for video spatial masks, where it is optional to name the mask filenames as {ProbeFileID}-mask.png or {ProbeFileID}-mask.hdf5, respectively.",
        quoted_from="MFC19 §5.1.2",
    ),
    "MASK-01": Source(
        plans="NC17 §2.1.1, §6.3; MFC19 §2.1.1.1, §2.1.2, §6.3; OMFC §2.1.1, §6.3",
        mediscore="MediScore skips a blank mask (`The mask for file {} appears to be absent. Skipping it.`); a splice row with one blank side still has its other side checked.",
        quote="If the mask image for a trial is detected by a system to find no localizable content change, it can be omitted and is assumed to be empty.",
        quoted_from="NC17 §2.1.1",
    ),
    "MASK-02": Source(
        plans="NC17 §5.1.2; MFC19 §5.1.2; OMFC §5.5",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Mask image {} for FileID {} is not a png. It is {}.`",
        quote="The directory path and mask filename use the following convention: <EXPID>/mask/{MaskFileName}.png, where it is optional to name the mask filenames as {ImgFileName}-mask.png.",
        quoted_from="NC17 §5.1.2",
    ),
    "MASK-03": Source(
        plans="NC17 §5.1.2.2; MFC19 §5.1.2.3; OMFC §5.5.2",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Expected mask image {}. Please check the name of the mask image.`",
        quote="Each MaskFileName in the system output file, <SubID>/<SubID>.csv, must exist in the '<SubID>/mask' directory and be readable as a PNG file for image masks or an HDF5 file for video spatial masks.",
        quoted_from="MFC19 §5.1.2.3",
    ),
    "MASK-04": Source(
        plans="NC17 §5.1.2.2; MFC19 §5.1.2.3; OMFC §5.5.2",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: system probe mask {} cannot be read as a png.`",
        quote="Each MaskFileName in the system output file, <EXPID>/<EXPID>.csv, should exist in the ‘<EXPID>/mask’ directory and be readable as a PNG file.",
        quoted_from="NC17 §5.1.2.2",
    ),
    "MASK-05": Source(
        plans="NC17 §5.1.2.1; MFC19 §5.1.2.1; OMFC §5.5.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: {} is not single-channel. It has {} channels. Make it single-channel.`",
        quote="The mask image must be a single channel (grey) image in PNG format. Color images and images with an alpha channel will not be evaluated.",
        quoted_from="MFC19 §5.1.2.1",
    ),
    "MASK-06": Source(
        plans="NC17 §5.1.2.1, §5.1.2.2, §4.1.1; MFC19 §5.1.2.1, §5.1.2.3, §4.1.1; OMFC §5.5.1, §5.5.2, §4.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Expected dimensions {H},{W} for output mask {} for {ProbeFileID|ProbeCamID} {}. Got {h},{w}.`",
        quote="The size of the mask image must be exactly the same size as the probe image (or world image in the case of the donor mask).",
        quoted_from="MFC19 §5.1.2.1",
    ),
    "MASK-07": Source(
        plans="NC17 §5.1.2.1; MFC19 §5.1.2.1; OMFC §5.5.1",
        mediscore="MediScore does not check it (D-14).",
        quote="For each pixel location in the input image, the system must use a one-byte integer number between 0 and 255 to indicate whether or not that pixel has been manipulated: smaller numbers indicate a greater chance that the pixel in this location has been manipulated and vice versa.",
        quoted_from="MFC19 §5.1.2.1",
    ),
    "MASK-08": Source(
        plans="NC17 §5.1.2.1; MFC19 §5.1.2.1; OMFC §5.5.1",
        mediscore="MediScore does not check it.",
        quote="For binary masks, the system output image's pixels only have two values: 255 (not manipulated) and 0 (manipulated).",
        quoted_from="MFC19 §5.1.2.1",
    ),
    "MASK-09": Source(
        plans="NC17 §2.1.2, §5.1.2.1; MFC19 §2.1.2, §5.1.2.1",
        mediscore="MediScore checks the probe and donor sides independently.",
        quote="The size of the mask image should be exactly the same size as the probe image (or world image in the case of the donor mask).",
        quoted_from="NC17 §5.1.2.1",
    ),
    "MASK-10": Source(
        plans="MFC19 §2.1.6, §5.4",
        mediscore="MediScore checks the mask against the index row of the (probe, camera) key.",
        quote="For localization, the system-rendered mask image for each trial must be relative to the probe-camera pair and must indicate the region(s) and confidence of the probe image captured by the camera.",
        quoted_from="MFC19 §2.1.6",
    ),
    "MASK-11": Source(
        plans="NC17 §2.1.1; OMFC §2.1.2, §2.1.4", mediscore="MediScore's video validator never checks masks."
    ),
    "MASK-12": Source(
        plans="MediScore's validator README; MediScore's validator (`maskCheck`)",
        mediscore="MediScore's `--output_revised_system` rewrites the status of rows whose only defect is a wrong mask size to `FailedValidation`; the run still exits 1.",
    ),
    "MASK-13": Source(
        plans="MediScore's validator README",
        mediscore="MediScore's `-nm` skips every mask check, and a `VidOnly`/`VidMeta` EXPID condition silently does the same.",
    ),
    "OOPIX-01": Source(
        plans="MFC19 §2.2, §5.1.1, §5.1.1.3, §5.1.2.1, §5.1.2.2",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: ProbeOptOutPixelValue for probe {} is {}. Please check if it is blank ('') or an integer.`",
        quote="Pixels with this probe-specific value will not be scored.",
        quoted_from="MFC19 §2.2",
    ),
    "OOPIX-02": Source(
        plans="MFC19 §5.1.2.1",
        mediscore="MediScore does not check it.",
        quote="For each pixel location in the input image, the system must use a one-byte integer number between 0 and 255 to indicate whether or not that pixel has been manipulated: smaller numbers indicate a greater chance that the pixel in this location has been manipulated and vice versa.",
        quoted_from="MFC19 §5.1.2.1",
    ),
    "OOPIX-03": Source(
        plans="OMFC §5.1",
        mediscore="MediScore does not check it.",
        quote="Col5: ProbeOptOutPixelValue blank for OpenMFC evaluation",
        quoted_from="OMFC §5.1",
    ),
    "OOPIX-04": Source(plans="NC17 §5.1.1", mediscore="Not applicable: NC2017 has no opt-out pixel column."),
    "PKG-05": Source(
        plans="MFC19 §5.1.2, §5.1.2.3",
        mediscore="MediScore does not check it.",
        quote="Each MaskFileName in the system output file, <SubID>/<SubID>.csv, must exist in the '<SubID>/mask' directory and be readable as a PNG file for image masks or an HDF5 file for video spatial masks.",
        quoted_from="MFC19 §5.1.2.3",
    ),
    "VMASK-01": Source(
        plans="MFC19 §2.1.1.2, §5.1.2, §5.1.2.2",
        mediscore="MediScore does not check it.",
        quote="The mask must be in an HDF5 file.",
        quoted_from="MFC19 §5.1.2.2",
    ),
    "VMASK-02": Source(
        plans="MFC19 §5.1.2.2",
        mediscore="MediScore does not check it (D-15). Its video reader takes the numbered groups and a whole-video "
        "'masks/masks' (frames from 0) and ignores every other member (NIST's own files carry a 'probe_ids' group): "
        "so does this rule, and such members are no finding.",
        quote='The HDF5-path to the mask is "[starting_frame_number]/masks", where [starting_frame_number] is the 0-indexed frame number indicating where the manipulated block starts and doubles as the title of the "group" to be generated in the file, and where "masks" is the name of the "dataset" within the group, which holds the frame\'s pixel mask data.',
        quoted_from="MFC19 §5.1.2.2",
    ),
    "VMASK-03": Source(
        plans="MFC19 §5.1.2.2, §5.1.2.3",
        mediscore="MediScore does not check it.",
        quote="Each frame of the mask must have exactly the same dimensions as the probe video's frame dimensions.",
        quoted_from="MFC19 §5.1.2.2",
    ),
    "VMASK-04": Source(
        plans="MFC19 §5.1.2.2",
        mediscore="MediScore does not check it.",
        quote="Each frame of the mask must be single channel (grey).",
        quoted_from="MFC19 §5.1.2.2",
    ),
    "VMASK-05": Source(
        plans="MFC19 §5.1.2.2",
        mediscore="MediScore does not check it.",
        quote='The manipulated blocks are treated as "white frames," or frames consisting solely of the value 255.',
        quoted_from="MFC19 §5.1.2.2",
    ),
    "VMASK-06": Source(
        plans="MFC19 §5.1.2.2",
        mediscore="MediScore does not check it.",
        quote="For each mask, the system may designate an opt-out pixel-value, indicating non-processed regions.",
        quoted_from="MFC19 §5.1.2.2",
    ),
    "VMASK-07": Source(
        plans="MFC19 §5.1.2.3; OMFC §5.5.2 (a vestigial mention: OpenMFC has no video localization)",
        mediscore="MediScore does not check it (D-16).",
        quote="Each MaskFileName in the system output file, <SubID>/<SubID>.csv, must exist in the '<SubID>/mask' directory and be readable as a PNG file for image masks or an HDF5 file for video spatial masks.",
        quoted_from="MFC19 §5.1.2.3",
    ),
    "VSEG-01": Source(
        plans="MFC19 §5.1.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Interval list '{}' cannot be read as intervals for column {} for probe {}.`",
        quote="Col4: VideoFrameSegments e.g. [[3, 33], [40, 46]]; empty JSON interval otherwise",
        quoted_from="MFC19 §5.1.1",
    ),
    "VSEG-02": Source(
        plans="MFC19 §5.1.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: The list {} is not a valid interval.`",
    ),
    "VSEG-03": Source(
        plans="MFC19 §5.1.1",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Interval {} must be formatted as a valid interval [a,b], where a <= b` (B-07)",
    ),
    "VSEG-04": Source(
        plans="MFC19 §3.5.1 (VideoFrame, AudioSample)",
        mediscore="MediScore does not check it.",
        quote="The frame segments, given as integer intervals, where video manipulation occurs (each video starts at Frame 1)",
        quoted_from="MFC19 §3.5.1",
    ),
    "VSEG-05": Source(
        plans="MFC19 §3.5.1 (frames start at 1; FrameCount)",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Interval {} is out of bounds. The max interval for this video is [1, {FrameCount}].`",
    ),
    "VSEG-06": Source(
        plans="MFC19 §3.5.1 (AudioSample)",
        mediscore="MediScore bounds audio sample segments by the video's FrameCount (B-08; D-17).",
    ),
    "VSEG-07": Source(
        plans="MediScore only (the plans do not require disjoint system segments; D-18)",
        mediscore="MediScore fails the submission (exit status 1): `ERROR: Interval {new} intersects with interval {old}.` (B-09)",
    ),
    "VSEG-08": Source(plans="the plans say nothing", mediscore="MediScore accepts intervals in any order."),
    "VSEG-09": Source(plans="the plans say nothing", mediscore="MediScore does not check it."),
    "VSEG-10": Source(
        plans="MediScore",
        mediscore="MediScore validates the segment cells of every row except `FailedValidation` ones.",
    ),
    "VSEG-11": Source(
        plans="MFC19 §5.1.1", mediscore="Meaning only: MediScore's temporal scorer leaves those frames out."
    ),
    "VSEG-12": Source(
        plans='ForgeryNet paper §6.2 and its supplementary material, "Temporal Forgery Localization"',
        mediscore="Not a MediScore matter.",
    ),
    "PKG-06": Source(
        plans='NC17 §5.2; MFC19 §5.2; MediScore\'s provenance validator README ("a jsons directory")',
        mediscore="MediScore does not check it.",
    ),
    "PROV-01": Source(
        plans="NC17 App. C; MFC19 App. C",
        mediscore="MediScore skips a blank `ProvenanceOutputFileName` silently and passes the file (D-19).",
        quote="Each probe for each task must have its own JSON file.",
        quoted_from="MFC19 App. C",
    ),
    "PROV-02": Source(
        plans="NC17 and MFC19 App. C", mediscore="MediScore stops with a Python traceback instead of a message."
    ),
    "PROV-03": Source(
        plans="NC17 App. C; MFC19 App. C; MediScore's filtering JSON schema",
        mediscore="MediScore fails the submission (exit status 1): `{path} did not pass the provenancefiltering schema check!`",
        quote="For the provenance graph building task, the JSON file for each probe must contain only the nodes and links of the provenance graph.",
        quoted_from="MFC19 App. C",
    ),
    "PROV-04": Source(
        plans="NC17 and MFC19 App. C; MediScore's graph JSON schema",
        mediscore="MediScore fails the submission (exit status 1): `{path} did not pass the provenance schema check! Make sure to include links!`",
    ),
    "PROV-05": Source(
        plans="MediScore's provenance validator (`jsonCheck`)",
        mediscore="MediScore ignores `-t` and always applies the filtering schema unless `-nc` names the task (B-05).",
    ),
    "PROV-06": Source(
        plans="NC17 App. C; MFC19 App. C",
        mediscore="MediScore does not check it (D-20).",
        quote="For each node, there must be an ID, a file name, a file ID, and a confidence score for the node.",
        quoted_from="MFC19 App. C",
    ),
    "PROV-07": Source(
        plans="NC17 and MFC19 App. C",
        mediscore="MediScore does not check it.",
        quote='The file name ("file") is the file name and path defined by NIST in the task or world index file, such as in the column ProbeFileName.',
        quoted_from="MFC19 App. C",
    ),
    "PROV-08": Source(
        plans="NC17 and MFC19 App. C",
        mediscore="MediScore does not check it.",
        quote='The file ID ("fileid") is the ID defined by NIST in the task or world index file, such as the column WorldFileID.',
        quoted_from="MFC19 App. C",
    ),
    "PROV-09": Source(
        plans="NC17 and MFC19 App. C",
        mediscore="MediScore's schema asks only for a number: out-of-range, negative and fractional indexes pass, and its scorer then crashes on them.",
        quote='The source node ("source") is the index of the source node from the node array; this node indicates which image was the start of the current manipulation action.',
        quoted_from="MFC19 App. C",
    ),
    "PROV-10": Source(
        plans="NC17 and MFC19 App. C",
        mediscore="Required by MediScore's graph schema only; its filtering schema does not ask for it.",
        quote='The confidence scores for the relationship ("relationshipConfidenceScore") is a numerical value determined by the system, indicating the level of confidence that the two nodes have this relationship in the provenance graph; higher values indicate more confidence.',
        quoted_from="MFC19 App. C",
    ),
    "PROV-11": Source(
        plans="NC17 App. C, §2.1.3",
        mediscore="MediScore does not check it.",
        quote="For provenance filtering task, the JSON file for each probe should contain 200 filtered results including the probe itself.",
        quoted_from="NC17 App. C",
    ),
    "PROV-12": Source(
        plans="MFC19 App. C, §2.1.3",
        mediscore="MediScore does not check it (D-21).",
        quote="For provenance filtering task, the JSON file for each probe must contain 500 filtered results including the probe itself.",
        quoted_from="MFC19 App. C",
    ),
    "PROV-13": Source(plans="NC17 and MFC19 App. C", mediscore="MediScore does not check it."),
    "PROV-14": Source(
        plans="NC17 §2.1.4, App. C; MFC19 §2.1.4, §2.1.4.4, App. C",
        mediscore="MediScore does not check it.",
        quote="For the provenance graph building task, the JSON file for each probe must contain only the nodes and links of the provenance graph.",
        quoted_from="MFC19 App. C",
    ),
    "PROV-15": Source(plans="MediScore's provenance graph scorer", mediscore="MediScore does not check it."),
    "PROV-16": Source(
        plans="NC17 §2.1.4.2; MFC19 §2.1.4.2–3",
        mediscore="MediScore does not check it.",
        quote="For the oracle filter (with distractors) provenance graph building task, the objective is to produce a provenance graph for a probe image using a NIST-provided small collection of 300 images, which includes distractors, as input.",
        quoted_from="MFC19 §2.1.4.2",
    ),
    "PROV-17": Source(
        plans='MFC19 §5.2, §5.1.1.3 (via "similar")',
        mediscore="Only with `--optOut` does MediScore skip the JSON of non-processed rows, and it does not recognise `IsOptOut=Y`: a missing JSON then crashes it.",
    ),
    "PROV-18": Source(
        plans="NC17 §5.1.1.2", mediscore="MediScore's provenance validator enforces the index correspondence."
    ),
    "EV-01": Source(
        plans="MFC19 §4.1.5, §5.3",
        mediscore="MediScore prints a message but can still pass the submission.",
        quote="Each trial, thus, is an ordered pair of images, the potential Cartesian product of two datasets: the probe dataset A and the event dataset B.",
        quoted_from="MFC19 §4.1.5",
    ),
    "EV-02": Source(plans="MFC19 §5.3", mediscore="MediScore's event validator never checks masks."),
    "CAM-01": Source(plans="MFC19 §4.1.6, §5.4", mediscore="MediScore keys camera rows by probe and camera ID."),
    "CAM-02": Source(
        plans="MFC19 §2.1.6",
        mediscore="MediScore does not check it (D-22).",
        quote="Depending on the composition of the pool of the camera device ID (training set) and the set of probes (testing set), there are five training-testing conditions; when results are submitted, the training-testing condition must be indicated.",
        quoted_from="MFC19 §2.1.6",
    ),
    "RUN-01": Source(
        plans="NC17 §5; MFC19 §5; OMFC §5",
        mediscore="MediScore exits 0 for a valid submission and 1 for an invalid one or a crash (2 for bad arguments).",
        quote="NIST will reject submissions that do not pass validation.",
        quoted_from="MFC19 §5",
    ),
    "RUN-02": Source(
        plans="MediScore's validator README",
        mediscore="MediScore's validator type `-vt`; an unknown value stops it with `ERROR: Expected one of {} for validation type. Got {}.`",
    ),
    "RUN-03": Source(
        plans="MediScore's validator README", mediscore="MediScore's `--ncid` default, used only with `-nc`."
    ),
    "RUN-04": Source(
        plans="MediScore's validator README",
        mediscore="MediScore's `-id` runs ImageMagick on every mask and stops when it is missing.",
    ),
    "RUN-05": Source(
        plans="MediScore's provenance validator (`__main__`)",
        mediscore="MediScore's provenance validator needs `-nc` or `-t` (and then ignores `-t`, B-05).",
    ),
    "RUN-06": Source(
        plans="MediScore's validator README, MediScore's provenance validator README",
        mediscore="MediScore's `--optOut` is deprecated for the validator: every row is validated regardless.",
    ),
    "RUN-07": Source(
        plans="MediScore's own history (its validator's `-np` switch)",
        mediscore="MediScore's last version fails every image, video, event and camera run unless `-np` is given (B-13).",
    ),
    "RUN-08": Source(
        plans="MediScore's own history (its validator's `-np` switch)",
        mediscore="MediScore's `-np` skips the header, status and pixel checks.",
    ),
    "PROTO-01": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="All trials, i.e., probes, must be processed independently of each other within a given task and across all tasks, meaning content extracted from probe data must not affect another probe.",
        quoted_from="MFC19 §2.4",
    ),
    "PROTO-02": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3", mediscore="A protocol rule: no validator can check it."
    ),
    "PROTO-03": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="Systems may pre-index the world data set for the provenance filtering and provenance graph building tasks and reuse the index so long as the index is static before probe processing.",
        quoted_from="MFC19 §2.4",
    ),
    "PROTO-04": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="Systems may pre-index the donor images for the splice detection and localization task so long as the index is static before probes are processed.",
        quoted_from="MFC19 §2.4",
    ),
    "PROTO-05": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="For the image only condition, ConditionID: ImgOnly, the system is only allowed to use the pixel-based content for images as input.",
        quoted_from="MFC19 §2.3.1",
    ),
    "PROTO-06": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="For all conditions (Section 2.3) for this task, systems are not allowed to use camera type or serial numbers.",
        quoted_from="MFC19 §2.1.5",
    ),
    "PROTO-07": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="Therefore, a different SysID must be used for runs where any changes were made to a system.",
        quoted_from="MFC19 App. A",
    ),
    "PROTO-08": Source(
        plans="NC17 §2.3; MFC19 §2.4; OMFC §2.3",
        mediscore="A protocol rule: no validator can check it.",
        quote="Manipulations performed using techniques other than a GAN-based should not be detected as GAN manipulations.",
        quoted_from="OMFC §2.1.3",
    ),
    "FNET-01": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-02": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-03": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-04": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-05": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-06": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-07": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-08": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-09": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-10": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-11": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
    "FNET-12": Source(
        plans="ForgeryNet paper (CVPR 2021) and its benchmark's files", mediscore="MediScore has no ForgeryNet support."
    ),
}
