"""Reading a record dataclass from JSON by its type hints: the fields are declared once.

``record_reader(ProbeRecord)`` derives a reader from the dataclass itself: each
field's type hint says how it is checked (``str``, ``str | None``, ``float``,
``list[str]``, ``list[list[str]]``...), its default whether it may be missing.
A record is first checked in one fast pass over its dict; only a record that
fails is read again through :class:`Reader`, whose message names the JSON path
and what was expected. Results hold hundreds of thousands of records, so the
fast pass is most of the time a file takes to validate.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from memory_bench.records.reader import MISSING, Reader

__all__ = ["record_reader"]

T = TypeVar("T")
_REQUIRED: Any = object()


def _num(v: Any) -> bool:
    t = type(v)
    return t is int or (t is float and v - v == 0) or (
        t is not bool and isinstance(v, int | float) and math.isfinite(v))


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _str(v: Any) -> bool:
    return type(v) is str or isinstance(v, str)


def _list_of(ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(map(ok, v))


def _opt(ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or ok(v)


def _strings(r: Reader) -> list[str]:
    return r.scalars(_str, "a string")


def _opt_string(r: Reader) -> str | None:
    return r._check_self(_opt(_str), "a string or null")


@dataclass(frozen=True)
class _Kind:
    ok: Callable[[Any], bool]  # the fast check of a present value
    convert: Callable[[Any], Any]  # the value kept (floats as floats, lists copied)
    precise: Callable[[Reader, str, Any], Any]  # through Reader: the message on failure
    optional: bool = False  # missing reads as None


_KINDS: dict[str, _Kind] = {
    "str": _Kind(_str, lambda v: v, lambda r, n, d: r.str(n, d)),
    "str | None": _Kind(_opt(_str), lambda v: v, lambda r, n, d: r.opt_str(n), True),
    "int": _Kind(_int, lambda v: v, lambda r, n, d: r.int(n, d)),
    "int | None": _Kind(_opt(_int), lambda v: v, lambda r, n, d: r.opt_int(n), True),
    "float": _Kind(_num, float, lambda r, n, d: r.num(n, d)),
    "float | None": _Kind(_opt(_num), lambda v: None if v is None else float(v),
                          lambda r, n, d: r.opt_num(n), True),
    "bool": _Kind(lambda v: isinstance(v, bool), lambda v: v, lambda r, n, d: r.bool(n, d)),
    "list[str]": _Kind(_list_of(_str), list, lambda r, n, d: r.str_list(n, d)),
    "list[float]": _Kind(_list_of(_num), lambda v: [float(x) for x in v],
                         lambda r, n, d: r.num_list(n, d)),
    "list[int]": _Kind(_list_of(_int), list, lambda r, n, d: r.int_list(n, d)),
    "list[list[str]]": _Kind(_list_of(_list_of(_str)), lambda v: [list(x) for x in v],
                             lambda r, n, d: r.list(n, _strings, d)),
    "list[str | None]": _Kind(_list_of(_opt(_str)), list,
                              lambda r, n, d: r.list(n, _opt_string, d)),
}


def _name(hint: Any) -> str:
    """``str``, ``str | None``, ``list[str | None]``: a hint as it is written."""
    if isinstance(hint, type) and not getattr(hint, "__args__", None):
        return hint.__name__
    return str(hint).replace("typing.", "").replace("NoneType", "None")


def record_reader(cls: type[T]) -> Callable[[Reader], T]:
    """A reader of ``cls`` (a dataclass of scalars and lists of scalars) from JSON."""
    hints = get_type_hints(cls)
    plan = []
    for f in dataclasses.fields(cls):
        kind = _KINDS.get(_name(hints[f.name]))
        if kind is None:
            raise TypeError(f"{cls.__name__}.{f.name}: no reader for {hints[f.name]}")
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
            make: Callable[[], Any] = lambda d=default: d  # noqa: E731
        elif f.default_factory is not dataclasses.MISSING:
            default, make = f.default_factory(), f.default_factory
        elif kind.optional:
            default, make = None, lambda: None
        else:
            default, make = _REQUIRED, lambda: _REQUIRED
        plan.append((f.name, kind, default, make))

    def read(r: Reader) -> T:
        value = r.value
        if type(value) is dict:
            got: dict[str, Any] = {}
            for name, kind, default, make in plan:
                v = value.get(name, MISSING)
                if v is MISSING:
                    if default is _REQUIRED:
                        break
                    got[name] = make()
                elif kind.ok(v):
                    got[name] = kind.convert(v)
                else:
                    break
            else:
                return cls(**got)
        return cls(**{name: kind.precise(r, name, MISSING if default is _REQUIRED
                                         else make())
                      for name, kind, default, make in plan})

    return read
