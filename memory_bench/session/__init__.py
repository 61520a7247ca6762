"""The run pipeline: plan a run, run it under its lock, analyse once, write once.

Used by ``run``, ``run --resume`` and ``sweep``; also ``export`` and reading a
result for a renderer (analysed first), the things that combine several layers.
"""
