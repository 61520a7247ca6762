"""Fails at import, as a plugin with a missing dependency does.

It would have registered a backend named ``test-broken``.
"""

raise ImportError(
    "memory_bench_test_broken needs the package 'nonexistent-vector-db' (broken on purpose)"
)
