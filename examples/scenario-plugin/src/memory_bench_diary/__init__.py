"""A minimal memory-bench scenario plugin (see plugin.py)."""
