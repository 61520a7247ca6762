"""The scale sweep's scenario: a continual script grown to a given store size (``plugin.py``)."""
