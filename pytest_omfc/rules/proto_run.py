"""RUN and PROTO (docs/rules/run.md, docs/rules/proto.md): listed, never collected.

RUN rules describe MediScore's command line and exit status; pytest-omfc's
own command line and exit status replace them.  PROTO rules govern how a
system was built and run; nothing in a submission shows whether they were kept.
They are registered so that the rule reference (docs/rules/) accounts for every rule ID.
"""

from __future__ import annotations

from ..editions import Group, Task
from ..registry import not_checked

_PROTOCOL = "a protocol rule about how the system was built or run; a submission cannot show whether it was kept"
_MEDISCORE = "MediScore's command line or exit status, not a rule of the submission"

not_checked(
    "RUN-01",
    "A submission must pass the validator",
    "the whole run is this verdict: exit status 0 when every error-severity rule passes, 1 otherwise",
)
not_checked("RUN-02", "MediScore's validator type -vt", _MEDISCORE + " (the task comes from the index or --omfc-task)")
not_checked(
    "RUN-03", "MediScore's --ncid default", _MEDISCORE + " (the edition comes from the index or --omfc-edition)"
)
not_checked("RUN-04", "MediScore's -id (ImageMagick) mask check", _MEDISCORE + " (MASK-05...07 read the PNG header)")
not_checked("RUN-05", "MediScore's provenance validator needs -nc or -t", _MEDISCORE, tasks={Task.PF, Task.PG})
not_checked("RUN-06", "MediScore's --optOut", _MEDISCORE + " (every row is validated)")
not_checked(
    "RUN-07",
    "MediScore HEAD exits 1 on every SSD run without -np",
    _MEDISCORE + " (a defect, B-13, not copied)",
    tasks={Task.IMG, Task.VID, Task.EV, Task.CAM},
)
not_checked(
    "RUN-08",
    "MediScore HEAD's -np skips header, status and pixel checks",
    _MEDISCORE + " (the OpenMFC column layouts are the COL rules' own, D-05 and D-25)",
    groups={Group.O2X},
    tasks={Task.IMG, Task.VID, Task.EV, Task.CAM},
)
not_checked("PROTO-01", "Every probe is processed independently", _PROTOCOL)
not_checked("PROTO-02", "Training and tuning end before the test data is run", _PROTOCOL)
not_checked(
    "PROTO-03",
    "The world set may be pre-indexed if the index is static",
    _PROTOCOL,
    groups={Group.N17, Group.M19},
    tasks={Task.PF, Task.PG},
)
not_checked(
    "PROTO-04",
    "The donor set may be pre-indexed if the index is static",
    _PROTOCOL,
    groups={Group.N17, Group.M19},
    tasks={Task.SPL},
)
not_checked("PROTO-05", "Image/Video-only conditions use no metadata", _PROTOCOL)
not_checked(
    "PROTO-06",
    "MFC2019 event verification uses no camera type or serial number",
    _PROTOCOL,
    groups={Group.M19},
    tasks={Task.EV},
)
not_checked(
    "PROTO-07",
    "One primary (p-) system per task and condition; a changed system gets a new SysID",
    "needs every submission of a team; one submission cannot show it (SUB rules check the p-/c- field)",
)
not_checked(
    "PROTO-08",
    "IGMDL/VGMD detect only GAN-based manipulations",
    _PROTOCOL,
    groups={Group.O2X},
    tasks={Task.IMG, Task.VID},
)
