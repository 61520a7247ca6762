"""Scenarios over real data files the user gives: LoCoMo, LongMemEval and the JSONL format.

Each module reads one format into a script (``common.py`` holds what they
share); ``plugin.py`` registers them through the scenario hook. No data file is
shipped: their licences (LoCoMo: CC BY-NC 4.0) do not allow it.
"""
