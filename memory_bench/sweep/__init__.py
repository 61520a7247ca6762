"""The scale sweep: one ordinary run per store size, then quality and costs against size.

``plan.py`` validates sizes, backends and seeds; ``run.py`` runs each size as a
normal memory-bench run (the runner does not know it is part of a sweep);
``summary.py``, ``plots.py``, ``markdown.py`` and ``save.py`` turn the per-size
results into the sweep's report.
"""
