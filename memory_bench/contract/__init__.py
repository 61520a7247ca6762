"""The contract a backend implements: the Backend protocol, the values that cross
it (items, hits, write results), the capability vocabulary and declared options."""

from __future__ import annotations

from memory_bench.contract.backend import (
    Backend,
    BackendContext,
    ContractError,
    NotSupportedError,
)
from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Hit, Item, WriteResult
from memory_bench.contract.options import Option, OptionError

__all__ = [
    "Backend",
    "BackendContext",
    "Capability",
    "ContractError",
    "Hit",
    "Item",
    "NotSupportedError",
    "Option",
    "OptionError",
    "WriteResult",
]
