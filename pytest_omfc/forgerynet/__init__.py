"""The ForgeryNet edition's inputs, below the rules and the scorers that read them: the benchmark's own
lists and prediction files (:mod:`.lists`), the parsed submission and reference (:mod:`.submission`), the
near-miss hints for unknown IDs (:mod:`.hints`) and the bound on a map's size (:mod:`.maps`).  The FNET rules
are :mod:`pytest_omfc.rules.fnet`; the metric engines and the scorers' adapter are in
:mod:`pytest_omfc.scoring.forgerynet`."""
