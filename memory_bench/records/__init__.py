"""What a run records, and the strict reader every typed file is read with.

The lowest layer above the contract: the runner writes these records, the
metrics compute from them, the result file holds them.
"""
