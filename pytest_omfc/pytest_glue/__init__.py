"""The pytest layer of pytest-omfc: options, collection, items and reporting.

Layers, bottom up (no module imports one above it):

* readers and models (``csvio``, ``png``, ``models``, ``findings``, ``editions``, ``paths``);
* ``registry`` (rules as data), ``submission`` (the parsed submission and :class:`Settings`),
  ``rules`` (the checks), ``scoring`` (engines and the scorer registry; no pytest import);
* this package: :mod:`.state` (stash keys, the shared submission accessor, usage errors),
  :mod:`.items` (the submission collector, rule items, the warnings reporter),
  :mod:`.scoring` (the generic scorer collector, score items, metrics JSON and summary tables),
  :mod:`.hooks` (pytest hooks: options, settings, the configuration guards),
  :mod:`.fixture` (the ``omfc`` fixture), :mod:`.gates` (``--omfc-require`` items);
* ``pytest_omfc.plugin``: the ``pytest11`` entry point, a facade over :mod:`.hooks`.
"""
