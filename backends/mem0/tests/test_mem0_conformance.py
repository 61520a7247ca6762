"""mem0 keeps every promise of the backend contract: the conformance kit, as a plugin
author runs it (one test per spec and check)."""

from __future__ import annotations

import pytest

from memory_bench.testing import conformance_tests

pytestmark = pytest.mark.slow  # the real model

test_conformance = conformance_tests(
    "mem0",
    "mem0:store=qdrant,scoring=store",
    "mem0:mode=persistent",  # mem0 as shipped: a store that reopens
)
