"""Names plugins register under: one spelling rule for backends and generators."""

from __future__ import annotations

__all__ = ["check_name"]

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def check_name(kind: str, name: str, plugin: str) -> None:
    """Raise ValueError unless ``name`` is lower-case letters, digits, ``-_.``."""
    if not isinstance(name, str) or not name or not set(name) <= _NAME_CHARS or name[0] in "-_.":
        raise ValueError(
            f"{kind} name {name!r} from {plugin}: use lower-case letters, digits, '-', '_' "
            "and '.'"
        )
