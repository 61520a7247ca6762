"""A socket guard for child processes: records and refuses every connection that is
not a Unix socket or loopback, and every DNS lookup of a name other than localhost.

Imported first in a child (``python -c "import network_guard; ..."``) so that
"nothing tried the network" is checked, not assumed; ``attempts()`` is what was
tried. Tests run the child under ``unshare -rn`` too where that is allowed.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["attempts"]

_ATTEMPTS: list[str] = []
_connect = socket.socket.connect
_getaddrinfo = socket.getaddrinfo


def _loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) and address else address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return False


def _guarded(self: socket.socket, address: object) -> None:
    if self.family != socket.AF_UNIX and not _loopback(address):
        _ATTEMPTS.append(f"connect {address!r}")
        raise OSError(101, "network unreachable (test guard)")
    return _connect(self, address)


def _guarded_ex(self: socket.socket, address: object) -> int:
    _guarded(self, address)
    return 0


def _no_dns(host: object, *args: object, **kwargs: object) -> object:
    if not _loopback((host,)):
        _ATTEMPTS.append(f"getaddrinfo {host!r}")
        raise socket.gaierror(-3, "no DNS (test guard)")
    return _getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]


socket.socket.connect = _guarded  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_ex  # type: ignore[method-assign]
socket.getaddrinfo = _no_dns  # type: ignore[assignment]


def attempts() -> list[str]:
    return list(_ATTEMPTS)
