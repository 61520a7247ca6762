"""A memory-bench plugin that cannot be imported (test fixture)."""
