"""A minimal memory-bench backend: keyword overlap over stored texts."""

__version__ = "0.1.0"
