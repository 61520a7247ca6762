"""bm25 keeps every promise of the backend contract: the conformance kit, as a plugin
author runs it (one test per spec and check)."""

from __future__ import annotations

from memory_bench.testing import conformance_tests

test_conformance = conformance_tests("bm25")
