"""Every rule family; importing this package fills the registry.

The import order is the collection order of the items (and of the rule reference's
rule table), so it follows docs/rules/index.md.
"""

from __future__ import annotations

from . import arc  # noqa: F401  ARC: the uploaded archive (archives only)
from . import sub  # noqa: F401  SUB: submission identifier
from . import pkg  # noqa: F401  PKG: directory layout
from . import desc  # noqa: F401  DESC: system description
from . import csv_  # noqa: F401  CSV: file dialect
from . import col  # noqa: F401  COL: required columns
from . import idx  # noqa: F401  IDX: index correspondence
from . import score  # noqa: F401  SCORE: ConfidenceScore
from . import status  # noqa: F401  STATUS: statuses
from . import mask  # noqa: F401  MASK, OOPIX: image masks
from . import vmask  # noqa: F401  VMASK: HDF5 video masks
from . import vseg  # noqa: F401  VSEG: video segments
from . import prov  # noqa: F401  PROV: provenance JSON
from . import ev_cam  # noqa: F401  EV, CAM
from . import proto_run  # noqa: F401  RUN, PROTO: listed as not checkable
from . import fnet  # noqa: F401  FNET: ForgeryNet files
