"""memory-bench test fixture: backends that hang, die, raise, or persist to disk."""

__version__ = "0.0.1"
