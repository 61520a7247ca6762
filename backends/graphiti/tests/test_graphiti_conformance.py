"""graphiti keeps every promise of the backend contract: the conformance kit."""

from __future__ import annotations

import pytest

from memory_bench.testing import conformance_tests

pytestmark = pytest.mark.slow  # the real model, spaCy and Kuzu

test_conformance = conformance_tests("graphiti")
