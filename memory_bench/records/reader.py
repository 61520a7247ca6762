"""Reading untrusted JSON into typed objects, with the JSON path of the first problem.

Every ``from_dict`` of the result model reads through a :class:`Reader`, so a
damaged file is refused with one line that says where:
``backends[2].runs[0].metrics.retention: expected a number or null, got "x"``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, TypeVar

from memory_bench.errors import BadInput

__all__ = ["MISSING", "Reader", "ResultError"]

T = TypeVar("T")


class ResultError(BadInput):
    """A result file that cannot be used: unreadable, truncated, another schema, or a
    field of the wrong shape (the message names its JSON path)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


class Reader:
    """A cursor on one JSON value and its path from the document's root."""

    __slots__ = ("path", "value")

    def __init__(self, value: Any, path: str = "") -> None:
        self.value = value
        self.path = path

    # -- navigation ---------------------------------------------------------------

    def fail(self, what: str) -> ResultError:
        return ResultError(f"{self.path or '(root)'}: {what}")

    def _child_path(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def obj_value(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            raise self.fail(f"expected an object, got {_show(self.value)}")
        return self.value

    def has(self, key: str) -> bool:
        return key in self.obj_value()

    def at(self, key: str, default: Any = MISSING) -> Reader:
        """The child ``key``; missing is an error unless a default is given."""
        obj = self.obj_value()
        if key not in obj:
            if default is MISSING:
                raise ResultError(f"{self._child_path(key)}: missing")
            return Reader(default, self._child_path(key))
        return Reader(obj[key], self._child_path(key))

    def items(self) -> list[Reader]:
        if not isinstance(self.value, list):
            raise self.fail(f"expected an array, got {_show(self.value)}")
        return [Reader(v, self._child_path(i)) for i, v in enumerate(self.value)]

    # -- typed fields -------------------------------------------------------------

    def _check(self, key: str, ok: Callable[[Any], bool], what: str, default: Any) -> Any:
        child = self.at(key, default)
        if not ok(child.value):
            raise child.fail(f"expected {what}, got {_show(child.value)}")
        return child.value

    def str(self, key: str, default: Any = MISSING) -> str:
        return self._check(key, lambda v: isinstance(v, str), "a string", default)

    def opt_str(self, key: str) -> str | None:
        return self._check(key, lambda v: v is None or isinstance(v, str), "a string or null",
                           None)

    def int(self, key: str, default: Any = MISSING) -> int:
        return self._check(key, lambda v: isinstance(v, int) and not isinstance(v, bool),
                           "an integer", default)

    def opt_int(self, key: str) -> int | None:
        return self._check(key, lambda v: v is None or (isinstance(v, int)
                                                        and not isinstance(v, bool)),
                           "an integer or null", None)

    def num(self, key: str, default: Any = MISSING) -> float:
        return float(self._check(key, _is_num, "a number", default))

    def opt_num(self, key: str) -> float | None:
        v = self._check(key, lambda v: v is None or _is_num(v), "a number or null", None)
        return None if v is None else float(v)

    def bool(self, key: str, default: Any = MISSING) -> bool:
        return self._check(key, lambda v: isinstance(v, bool), "true or false", default)

    def obj(self, key: str, default: Any = MISSING) -> dict[str, Any]:
        return self._check(key, lambda v: isinstance(v, dict), "an object", default)

    def opt_obj(self, key: str) -> dict[str, Any] | None:
        return self._check(key, lambda v: v is None or isinstance(v, dict),
                           "an object or null", None)

    def str_list(self, key: str, default: Any = MISSING) -> list[str]:
        child = self.at(key, default)
        return [x._check_self(lambda v: isinstance(v, str), "a string") for x in child.items()]

    def num_list(self, key: str, default: Any = MISSING) -> list[float]:
        child = self.at(key, default)
        return [float(x._check_self(_is_num, "a number")) for x in child.items()]

    def num_list_self(self) -> list[float]:
        """This value as a list of numbers."""
        return [float(x._check_self(_is_num, "a number")) for x in self.items()]

    def int_list(self, key: str, default: Any = MISSING) -> list[int]:
        child = self.at(key, default)
        return [x._check_self(lambda v: isinstance(v, int) and not isinstance(v, bool),
                              "an integer") for x in child.items()]

    def list(self, key: str, read: Callable[[Reader], T], default: Any = MISSING) -> list[T]:
        return [read(x) for x in self.at(key, default).items()]

    def mapping(self, key: str, read: Callable[[Reader], T], default: Any = MISSING
                ) -> dict[str, T]:
        child = self.at(key, default)
        obj = child.obj_value()
        return {k: read(Reader(v, f"{child.path}.{k}")) for k, v in obj.items()}

    def _check_self(self, ok: Callable[[Any], bool], what: str) -> Any:
        if not ok(self.value):
            raise self.fail(f"expected {what}, got {_show(self.value)}")
        return self.value

    def number_or_null(self) -> float | None:
        v = self._check_self(lambda v: v is None or _is_num(v), "a number or null")
        return None if v is None else float(v)
