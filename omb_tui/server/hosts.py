"""Which Host headers the server answers: its own address, so a web page cannot reach it through DNS rebinding.

Spec: memory.md, "Routes" (docs/serve.md, "The Host header"). A page on evil.example can make its own name resolve
to 127.0.0.1; the browser then sends `Host: evil.example:8767` to this server and lets the page read the answer. A
request is answered only when its Host names the server: localhost, 127.0.0.1 or [::1], or the address it listens
on, each with its port; when it listens on every address (0.0.0.0 or ::, with --allow-remote), any IP address with
its port too (an address typed as digits cannot be rebound). A name of your own (a reverse proxy's, a LAN name)
needs --allow-host NAME (any port) or NAME:PORT.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from ..core.files.paths import quoted

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
EVERY_ADDRESS = ("0.0.0.0", "::", "")


def host_and_port(value: str, default_port: int | None) -> tuple[str, int | None]:
    """'Name:8767' -> ('name', 8767); '[::1]:80' -> ('[::1]', 80); 'name' -> ('name', default_port)."""
    value = value.strip().lower()
    name, colon, port = value.rpartition(":")
    if not colon or name.endswith(":") or (name.count(":") and not name.startswith("[")) or "]" in port:
        return value, default_port  # no port, or an IPv6 address without brackets
    return name, int(port) if port.isascii() and port.isdigit() else -1


_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")


def allowed_host_argument(value: str) -> str:
    """An --allow-host value as given, or ValueError with one sentence: a host name or an IP address (IPv6 in
    brackets), with a port from 1 to 65535 or none. A value no Host header could ever match is a typo to say."""
    name, port = host_and_port(value, None)
    if not (_HOST_NAME.fullmatch(name) or is_address(name)) or ":" in name and not name.startswith("["):
        raise ValueError(f"{quoted(value[:100])} is not a host name or an IP address (NAME or NAME:PORT)")
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"{quoted(value[:100])} has no port from 1 to 65535 after its colon")
    return value


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


class AllowedHosts:
    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.extra = {host_and_port(value, None) for value in extra}  # port None: any port
        self.names: list[str] = list(LOOPBACK_NAMES)
        self.port: int | None = None
        self.any_address = False

    def listening_on(self, host: str, port: int) -> None:
        """Called once the server listens (the port is known only then when it was 0)."""
        self.port = port
        if host in EVERY_ADDRESS:
            self.any_address = True
            return
        own = f"[{host}]" if ":" in host else host.lower()
        if own not in self.names:
            self.names.append(own)

    def allows(self, header: str | None) -> bool:
        if header is None:  # HTTP/1.0 without a Host: no browser sends that
            return True
        name, port = host_and_port(header, 80)
        if (name, None) in self.extra or (name, port) in self.extra:
            return True
        if port != self.port:
            return False
        return name in self.names or (self.any_address and is_address(name))

    def refusal(self, header: str) -> str:
        listed = [f"{name}:{self.port}" for name in self.names]
        if self.any_address:
            listed.append(f"any IP address with port {self.port}")
        said = ", ".join(listed[:-1]) + f" or {listed[-1]}"
        return f"This server answers to {said}, not to {quoted(header[:100])}; a name of your own needs --allow-host."
