"""Turning ``--backend`` specs into labelled, validated backend selections."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.options import parse_backend_spec, resolve_options
from memory_bench.errors import BadInput
from memory_bench.plugins.backends import BackendInfo, BackendRegistry

__all__ = ["BackendSelection", "SelectionError", "select_backends"]


class SelectionError(BadInput):
    """An unknown backend, or the same backend and options asked for twice."""


@dataclass(frozen=True)
class BackendSelection:
    """One column of the comparison: a backend with its resolved options."""

    label: str
    info: BackendInfo
    options: dict[str, Any]
    spec: str

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this configuration declares, option-granted capabilities included."""
        return self.info.capabilities_for(self.options)

    @property
    def reads(self) -> tuple[str, ...]:
        """The item structure this configuration reads beyond text, source, timestamp."""
        return self.info.reads_for(self.options)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "spec": self.spec, "options": self.options}


def select_backends(registry: BackendRegistry, specs: Sequence[str]) -> list[BackendSelection]:
    """Resolve specs (every installed backend when empty); labels are unique.

    A backend asked for without options is labelled by its name; with options, by
    its full spec (``faiss-rag:supersede=tags``), so a variant is never mistaken
    for the default configuration and two variants get two rows.
    """
    if not specs:
        specs = registry.names()
        if not specs:
            raise SelectionError("no backends are installed (see `memory-bench backends`)")
    requests = [parse_backend_spec(s) for s in specs]
    out: list[BackendSelection] = []
    seen: set[tuple[str, tuple[tuple[str, Any], ...]]] = set()
    for req in requests:
        info = registry.get(req.name)
        if info is None:
            # the audit rows by count: listed by name they pushed what follows (a plugin
            # that failed to load, say) past the one line an error may take
            names = registry.names()
            audit = [n for n in names if registry.get(n).kind == "audit"]
            shown = [n for n in names if n not in audit]
            installed = ", ".join(shown) or "none"
            if audit:
                installed += f" and {len(audit)} audit rows: `memory-bench backends`"
            raise SelectionError(f"unknown backend {req.name!r} (installed: {installed})")
        options = resolve_options(req.name, info.options, dict(req.raw_options))
        key = (req.name, tuple(sorted(options.items())))
        if key in seen:
            raise SelectionError(f"backend {req.spec!r} is asked for twice with the same options")
        seen.add(key)
        label = req.spec
        out.append(BackendSelection(label=label, info=info, options=options, spec=req.spec))
    return out
