"""Backend options: declared by the backend, parsed from ``NAME:key=value,...``."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_bench.errors import BadInput

__all__ = ["BackendRequest", "Option", "OptionError", "parse_backend_spec", "resolve_options"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class OptionError(BadInput):
    """A backend spec or option value the backend does not accept."""


@dataclass(frozen=True)
class Option:
    """One option a backend accepts.

    ``type`` is one of ``int``, ``float``, ``str``, ``bool``; ``choices`` limits
    the accepted values; ``default`` None means "unset" and is passed as None.
    ``check(value)`` returns why a parsed value is refused (``"is not a multiple
    of 64"``, ``"does not exist"``) or None: what bounds cannot say is still
    checked before any pair runs. It is not called for an unset (None) value.

    Where a value changes what the configured backend is, the option says so as
    data: ``grants`` maps a value to the capabilities it adds (``gate=rules``
    adds ``gate``), ``reads`` maps a value to the item structure it makes the
    backend read beyond text, source and timestamp (``supersede=tags`` reads
    ``tags``), so that a report can mark the row. ``requires`` names the values other
    options must have when this one is given (``path=`` needs ``mode=persistent``).
    """

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    finite: bool = True  # a float must be finite (no NaN, no infinity) unless this is False
    check: Callable[[Any], str | None] | None = field(default=None, compare=False, repr=False)
    grants: Mapping[Any, tuple[str, ...]] = field(default_factory=dict, compare=False)
    reads: Mapping[Any, tuple[str, ...]] = field(default_factory=dict, compare=False)
    requires: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def parse(self, raw: Any, kind: str = "option") -> Any:
        """Convert a raw value (string from the command line, or TOML value).

        ``kind`` names what is parsed in messages (``option``, ``parameter``).
        """
        try:
            return self._parse(raw)
        except OptionError as exc:
            if kind == "option":
                raise
            raise OptionError(str(exc).replace("option ", f"{kind} ", 1)) from None

    def _parse(self, raw: Any) -> Any:
        value: Any
        if isinstance(raw, str):
            text = raw.strip()
            if self.type is bool:
                low = text.lower()
                if low in _TRUE:
                    value = True
                elif low in _FALSE:
                    value = False
                else:
                    raise OptionError(f"option {self.name}: expected a boolean, got {raw!r}")
            elif self.type in (int, float):
                try:
                    value = self.type(text)
                except ValueError:
                    raise OptionError(
                        f"option {self.name}: expected {self.type.__name__}, got {raw!r}"
                    ) from None
            else:
                value = text
        else:
            if self.type is float and isinstance(raw, int) and not isinstance(raw, bool):
                raw = float(raw)
            if not isinstance(raw, self.type) or (self.type is int and isinstance(raw, bool)):
                raise OptionError(
                    f"option {self.name}: expected {self.type.__name__}, got {raw!r}"
                )
            value = raw
        if self.type is float and value != value:
            raise OptionError(f"option {self.name}: NaN is not a number it accepts")
        if self.type is float and self.finite and value in (math.inf, -math.inf):
            raise OptionError(f"option {self.name}: {value!r} is not finite")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise OptionError(f"option {self.name}: {value!r} is not one of {allowed}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {self.name}: {value!r} is below {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {self.name}: {value!r} is above {self.maximum}")
        problem = None if self.check is None or value is None else self.check(value)
        if problem:
            raise OptionError(f"option {self.name}: {value!r} {problem}")
        return value

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "help": self.help,
            "choices": list(self.choices) if self.choices is not None else None,
            "minimum": self.minimum,
            "maximum": self.maximum,
            **({"grants": {str(k): list(v) for k, v in self.grants.items()}}
               if self.grants else {}),
            **({"reads": {str(k): list(v) for k, v in self.reads.items()}} if self.reads else {}),
        }


@dataclass(frozen=True)
class BackendRequest:
    """A backend asked for on the command line: name and raw option strings."""

    name: str
    raw_options: tuple[tuple[str, str], ...] = ()

    @property
    def spec(self) -> str:
        if not self.raw_options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.raw_options)


def parse_backend_spec(spec: str) -> BackendRequest:
    """Parse ``NAME`` or ``NAME:key=value,key=value``.

    Values may not contain ``,``; a key given twice is an error.
    """
    name, sep, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise OptionError(f"backend spec {spec!r} has no backend name")
    pairs: list[tuple[str, str]] = []
    if sep:
        if not rest.strip():
            raise OptionError(f"backend spec {spec!r}: nothing after ':'")
        seen: set[str] = set()
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise OptionError(f"backend spec {spec!r}: {part!r} is not key=value")
            if key in seen:
                raise OptionError(f"backend spec {spec!r}: option {key} given twice")
            seen.add(key)
            pairs.append((key, value.strip()))
    return BackendRequest(name, tuple(pairs))


def resolve_options(
    owner: str, declared: Sequence[Option], raw: Mapping[str, Any], *, what: str = "option"
) -> dict[str, Any]:
    """Validate raw options against the declared ones and fill in defaults.

    ``owner`` is a backend's name (``rshl``) or a longer label (``generator
    templated``); ``what`` is ``option`` or ``parameter``. An unknown key is an
    error naming the accepted ones.
    """
    by_name = {o.name: o for o in declared}
    unknown = sorted(set(raw) - set(by_name), key=str)
    if unknown:
        accepted = ", ".join(sorted(by_name)) or "none"
        label = owner if " " in owner else f"backend {owner}"
        raise OptionError(f"{label}: unknown {what} {unknown[0]!r} (accepted: {accepted})")
    resolved: dict[str, Any] = {}
    for opt in declared:
        resolved[opt.name] = opt.parse(raw[opt.name], what) if opt.name in raw else opt.default
    for opt in declared:
        if opt.name not in raw or resolved[opt.name] is None:
            continue
        for other, value in opt.requires.items():
            if resolved.get(other) != value:
                label = owner if " " in owner else f"backend {owner}"
                raise OptionError(f"{label}: {what} {opt.name} needs {other}={value}")
    return resolved
