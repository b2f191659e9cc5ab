"""Builders shared by the tests, from test_forgerynet_rules.py."""

from __future__ import annotations

import numpy as np

from helpers.forgerynet import png_bytes

BIN_REF = (["ID", "Label"], [["0042", 0], ["b", 1], ["c", 1], ["d", 0]])


BIN_SUB = (["ID", "Score"], [["0042", 0.2], ["b", 0.9], ["c", 0.4], ["d", 0.6]])


K3_REF = (["ID", "Label"], [["a", 0], ["b", 1], ["c", 2], ["d", 2]])


K3_SUB = (
    ["ID", "P0", "P1", "P2"],
    [["a", 0.6, 0.3, 0.1], ["b", 0.2, 0.5, 0.3], ["c", 0.1, 0.2, 0.7], ["d", 0.65, 0.1, 0.25]],
)


GT = np.zeros((4, 6), np.uint8)
GT[1:3, 1:4] = 200


SPL_REF = (["ID", "Label", "MaskFileName"], [["a", 1, "gt/a.png"], ["r", 0, ""]])


SPL_SUB = (["ID", "Score", "MaskFileName"], [["a", 0.9, "mask/a.png"], ["r", 0.1, "mask/r.png"]])


SPL_FILES = {"mask/a.png": png_bytes(GT), "mask/r.png": png_bytes(np.zeros((4, 6), bool), "1")}


SPL_REF_FILES = {"gt/a.png": png_bytes(GT)}


TL_REF = {
    "version": "1.3",
    "database": {
        "v1": {"annotations": [{"segment": [0.0, 10.0], "label": "Fake"}], "duration": 20.0, "subset": "validation"},
        "v2": {"annotations": [{"segment": [20, 30], "label": "Fake"}, {"segment": [40, 50], "label": "Fake"}]},
        "v3": {"annotations": [], "duration": 60, "subset": "validation"},
    },
}


TL_SUB = {
    "version": "1.3",
    "results": {
        "v1": [{"segment": [0, 10], "score": 0.9, "label": "Fake"}],
        "v2": [{"segment": [20, 28.2], "score": 0.8}, {"segment": [40, 45], "score": 0.7}],
        "v3": [{"segment": [1, 2], "score": 0.85}],
    },
    "external_data": {},
}
